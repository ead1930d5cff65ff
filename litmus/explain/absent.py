"""What an allowed execution lacks that a reader may expect: for each reads-from between two
threads, why it is no synchronisation (not morally strong: a plain access, a scope that does
not include the other thread, another proxy, other bytes; or no release or acquire pattern
around it), which reads see a value older than a write of another thread (stale, with ``fr``),
and which writes coherence leaves unordered (a race: either may end last)."""

from __future__ import annotations

from typing import Callable, Sequence

from litmus.ir import LitmusTest, scope_includes
from litmus.model.relations import Expr, Model, Rel, bits, rel

from litmus.explain.events import Event
from litmus.explain.paths import norm
from litmus.explain.search import Execution


UNSYNCHRONISED = " is no synchronisation: "
"""In a note on a reads-from edge that does not synchronise."""
STALE = ": nothing orders the write before the read"
"""In a note on a read that sees a value older than another thread's write."""
PLAIN = " is weak (plain)"
"""Once per plain access in a note on why two accesses are not morally strong."""


def missing_edge(notes: Sequence[str]) -> list[str]:
    """Of an allowed execution's notes, those that name the synchronisation a reader would
    expect: a reads-from edge with a strong access on one side that does not synchronise; when
    every such edge synchronises, the first stale read nothing orders."""
    flags = [n for n in notes if UNSYNCHRONISED in n and n.count(PLAIN) < 2]
    return flags or [n for n in notes if STALE in n][:1] or list(notes[:1])


def model_name(model: Model, want: str) -> str | None:
    """The model's own name of relation ``want`` (``morally_strong`` is ``morally-strong`` in a
    cat file), or None when the model has no such definition."""
    for name, _ in model.definitions:
        if norm(name) == want:
            return name
    return None


def notes(test: LitmusTest, model: Model, ex: Execution, events: list[Event],
          value: Callable[[Expr], object]) -> list[str]:
    """The sentences, in the order: synchronisation per cross-thread reads-from, stale reads,
    unordered writes."""
    out: list[str] = []
    frame = ex.frame
    rf = ex.relations["rf"]
    co = ex.relations[model.final_order]
    names = {w: model_name(model, w) for w in ("morally_strong", "release_pattern", "acquire_pattern", "sync", "cause")}
    rows: dict[str, Rel | None] = {w: (value(rel(n)) if n else None) for w, n in names.items()}  # type: ignore[misc]
    for w in range(frame.n):
        for r in bits(rf[w]):
            tw, tr = frame.thread_of[w], frame.thread_of[r]
            if tw < 0 or tw == tr:
                continue
            out.append(_synchronisation(test, frame.base, events, rows, w, r))
    for w in range(frame.n):
        for r in bits(rf[w]):
            for w2 in bits(co[w]):
                if frame.thread_of[w2] == frame.thread_of[r]:
                    continue
                src = "the initial value" if frame.thread_of[w] < 0 else f"{events[w].label}"
                why = ""
                cause = rows["cause"]
                if cause is not None and not (cause[w2] >> r) & 1:
                    why = f"{STALE} (no {names['cause']} edge)"
                out.append(f"{events[r].label} reads {src} although {events[w2].label} is coherence-later "
                           f"(fr){why}")
    for loc, mask in frame.writes_by_loc.items():
        ws = list(bits(mask))
        for i, a in enumerate(ws):
            for b in ws[i + 1:]:
                if not (co[a] >> b) & 1 and not (co[b] >> a) & 1:
                    out.append(f"{events[a].label} and {events[b].label} are not ordered by coherence (they are "
                               f"not morally strong): {loc} may end with either value")
    return out


def _synchronisation(test: LitmusTest, base: dict, events: list[Event], rows: dict[str, Rel | None],
                     w: int, r: int) -> str:
    ew, er = events[w], events[r]
    head = f"{ew.label} -rf-> {er.label}"
    ms, rp, ap, sync = rows["morally_strong"], rows["release_pattern"], rows["acquire_pattern"], rows["sync"]
    if ms is None:
        return f"{head}: (this model has no morally-strong relation to judge synchronisation by)"
    if rp is not None and ap is not None and sync is not None:
        heads = [h for h in range(len(rp)) if (rp[h] >> w) & 1]
        tails = list(bits(ap[r]))
        for h in heads:
            for t in tails:
                if (sync[h] >> t) & 1:
                    via = "" if (h, t) == (w, r) else f" ({events[h].label} -sync-> {events[t].label})"
                    return f"{head} synchronises{via}"
    if not (ms[w] >> r) & 1:
        why = "; ".join(_not_ms(test, base, events, w, r))
        return f"{head}{UNSYNCHRONISED}the two are not morally strong ({why})"
    missing = []
    if rp is not None and not any((rp[h] >> w) & 1 for h in range(len(rp))):
        missing.append(f"no release pattern ends at the write (neither a release nor after a fence.acq_rel "
                       f"or fence.sc in {ew.thread})")
    if ap is not None and not ap[r]:
        missing.append(f"no acquire pattern starts at the read (neither an acquire nor before a fence.acq_rel "
                       f"or fence.sc in {er.thread})")
    if not missing:
        missing.append("the release and acquire patterns around it are not morally strong with each other")
    return f"{head}{UNSYNCHRONISED}{'; '.join(missing)}"


def _not_ms(test: LitmusTest, base: dict, events: list[Event], w: int, r: int) -> list[str]:
    """Why two accesses of different threads are not morally strong."""
    ew, er = events[w], events[r]
    out = [f"{e.label}{PLAIN}" for e in (ew, er) if e.sem == "weak"]
    tw = next(t for t in test.threads if t.name == ew.thread)
    tr = next(t for t in test.threads if t.name == er.thread)
    for e, me, other in ((ew, tw, tr), (er, tr, tw)):
        if e.sem != "weak" and not scope_includes(e.scope, me, other):
            out.append(f"the .{e.scope} scope of {e.label} does not include {other.name} "
                       f"(rank {other.rank}, CTA {other.cta})")
    if ew.proxy != er.proxy:
        out.append(f"they use different proxies ({ew.proxy.lower()}, {er.proxy.lower()})")
    if not (base["eloc"][w] >> r) & 1:
        out.append("they do not access exactly the same bytes")
    return out or ["the model's morally-strong relation does not relate them"]
