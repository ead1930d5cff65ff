"""An explanation as text: the verdict for the state, then either the execution that reaches it
(per thread in program order, its edges, what synchronisation it lacks) or the axioms that
reject the candidates reaching it, each with its cycle, grouped, a screen long."""

from __future__ import annotations

from typing import Mapping

from litmus.ir import LitmusTest, Prop
from litmus.model import DEFAULT_MODEL
from litmus.model.relations import Model

from litmus.explain.events import Event
from litmus.explain.explanation import Edge, Explanation, Rejection, explain

SHOW_GROUPS = 8
"""Groups of rejected executions printed in full; --json lists every one."""


def explanation_text(test: LitmusTest, state: str | Prop | None = None, model: str | Model = DEFAULT_MODEL) -> str:
    """The text of :func:`~litmus.explain.explain` for ``(test, state, model)``: the one call for
    stages that show an explanation (reports, lint, the pytest plugin)."""
    return render_text(explain(test, state, model))


def outcome_text(test: LitmusTest, outcome: Mapping[str, int], model: str | Model = DEFAULT_MODEL) -> str:
    """:func:`explanation_text` for one observed final state (every observable's value, as a
    run's histogram holds it); when no explanation can be made (the search ran past its budget,
    a model that refuses the test), one line that says why instead."""
    from litmus.errors import LitmusError

    state = " /\\ ".join(f"{k}={v}" for k, v in outcome.items())
    try:
        return explanation_text(test, state, model)
    except LitmusError as e:
        return f"(no explanation: {str(e).splitlines()[0] if str(e) else type(e).__name__})"


def render_text(x: Explanation) -> str:
    """``x`` as the text ``litmus explain`` prints."""
    t = x.test
    where = f" ({t.source_file}:{t.source_line})" if t.source_file and t.source_line else ""
    lines = [f"Test {t.id}{where}, model {x.model}",
             f"State {x.state_text}: {'allowed' if x.allowed else 'forbidden'}"]
    if x.allowed:
        lines += _allowed(x)
    else:
        lines += _forbidden(x)
    return "\n".join(lines)


def _allowed(x: Explanation) -> list[str]:
    ex = x.execution
    assert ex is not None
    by_id = {e.id: e for e in x.events}
    final = ", ".join(f"{k}={v}" for k, v in ex.state.items())
    lines = [f"One execution that reaches it (final state {final}):", ""]
    sources = {e.dst: e.src for e in x.edges if e.relation == "rf"}
    inits = [e for e in x.events if e.thread is None]
    lines.append("  initial state: " + ", ".join(f"{e.loc}={e.value}" for e in inits))
    thread = None
    for e in x.events:
        if e.thread is None:
            continue
        if e.thread != thread:
            thread = e.thread
            lines.append(f"  {e.thread} (rank {e.rank}, CTA {e.cta})")
        note = ""
        if e.id in sources:
            src = by_id[sources[e.id]]
            note = "reads the initial value" if src.thread is None else f"reads from {src.id}"
        lines.append(f"    {e.id:<7} {e.ptx:<34} {note}".rstrip())
    lines += ["", "Edges:"]
    for edge in x.edges:
        lines.append(f"  {edge.relation:<5} {_label(by_id, edge.src)} -> {_label(by_id, edge.dst)}")
    if x.notes:
        lines += ["", "Why no axiom rules it out:"]
        lines += [f"  - {n}" for n in x.notes]
    return lines


def _forbidden(x: Explanation) -> list[str]:
    if x.no_candidate is not None and not x.forbidden_by:
        return [f"Why: {x.no_candidate}."]
    if not x.forbidden_by and not x.unexplained:
        return ["The search for candidate executions reaching it stopped at its limit before it found one."]
    n = x.candidates
    which = ["", " (every one reads against coherence: no candidate that reads coherently reaches it)",
             " (every one orders coherence against causality or program order: no other candidate reaches it)"
             ][x.level]
    ends = "1 candidate execution ends" if n == 1 else f"{n} candidate executions end"
    lines = [f"{ends} in it{which}; the model rejects every one:", ""]
    for g in x.forbidden_by[:SHOW_GROUPS]:
        lines += _group(g)
    rest = x.forbidden_by[SHOW_GROUPS:]
    if rest:
        lines.append(f"  ... and {len(rest)} more cycles ({sum(g.executions for g in rest)} executions); "
                     "--json lists every one")
    for axiom, count in x.unexplained.items():
        lines.append(f"  ... and {count} more executions failing {axiom} (cycles not worked out)")
    if x.stopped:
        lines.append(f"  (the search stopped at its limit{' of candidates that break coherence' if x.level else ''}: "
                     "more candidate executions may exist)")
    return lines


def _group(g: Rejection) -> list[str]:
    by_id = {e.id: e for e in g.events}
    many = f"{g.executions} executions" if g.executions != 1 else "1 execution"
    kind = {"acyclic": "a cycle", "irreflexive": "a cycle", "empty": "a forbidden pair"}.get(g.kind, g.kind)
    lines = [f"  {g.axiom} ({g.kind}), {many}, {kind}:"]
    lines.append("    " + cycle_text(g.cycle, by_id))
    if not g.closes:
        lines.append("    (the pair must not exist; nothing in the execution leads back)")
    lines.append("")
    return lines


def cycle_text(cycle: tuple[Edge, ...], by_id: dict[str, Event]) -> str:
    """``W x=1 (P0) -po-> W.rel.sys flag=1 (P0) -sync-> ... -fr-> W x=1 (P0)``; two events of
    the cycle that would read the same are told apart by their ids (``(P0:1)``)."""
    if not cycle:
        return ""
    ids = [cycle[0].src] + [e.dst for e in cycle]
    labels: dict[str, set[str]] = {}
    for eid in ids:
        labels.setdefault(_label(by_id, eid), set()).add(eid)
    clash = {eid for same in labels.values() if len(same) > 1 for eid in same}

    def show(eid: str) -> str:
        e = by_id.get(eid)
        if e is not None and eid in clash and e.thread is not None:
            return e.label.rsplit(" (", 1)[0] + f" ({eid})"
        return _label(by_id, eid)

    out = show(cycle[0].src)
    for e in cycle:
        out += f" -{e.relation}-> {show(e.dst)}"
    return out


def _label(by_id: dict[str, Event], eid: str) -> str:
    e = by_id.get(eid)
    return e.label if e is not None else eid
