"""``explain(test, state, model) -> Explanation``: why a final state is allowed (one execution
that reaches it, its edges and the synchronisation it lacks) or forbidden (for the candidate
executions that would reach it, the axiom that rejects each and its shortest cycle, grouped), or
that no candidate execution reaches it at all.  Every explanation is re-checked
(:mod:`litmus.explain.verify`) before it is returned."""

from __future__ import annotations

from dataclasses import dataclass, field
from itertools import chain
from typing import Any

from litmus.errors import LitmusError
from litmus.ir import And, Cmp, Const, LitmusTest, LocRef, Prop, RegRef
from litmus.model import DEFAULT_MODEL, MODELS, check
from litmus.model import budget
from litmus.model.compiled import Evaluator
from litmus.model.executions import Frame
from litmus.model.layout import memory_layout
from litmus.model.relations import Axiom, Model, Rel, bits, rel

from litmus.explain.absent import model_name, notes
from litmus.explain.events import Event, frame_events
from litmus.explain.paths import WHOLE, Paths, norm, violation
from litmus.explain.search import LEVELS, Execution, Query, Tally, allowed_execution, candidates, reachable
from litmus.explain.state import parse_state, state_text, target_prop
from litmus.explain.verify import ExplanationError, check_allowed, check_edges, check_rejected

MAX_STEPS = 200_000
"""Steps (choices of last writes, reads-from choices, orders) a forbidden state's candidate search
may take before it stops and says so; far above what any catalog variant needs."""

MAX_INCOHERENT = 500
"""Candidates that break coherence (levels 1 and 2 of :mod:`litmus.explain.search`) listed at
most: they are searched only when no coherent candidate reaches the state, and a sample of them
shows why as well as all of them would."""

MAX_CYCLES = 2_000
"""Rejected candidates whose cycle is worked out; past it the rest are counted per axiom."""


@dataclass(frozen=True)
class Edge:
    """``src -relation-> dst`` between two event ids."""

    src: str
    relation: str
    dst: str

    def as_list(self) -> list[str]:
        return [self.src, self.relation, self.dst]


@dataclass(frozen=True)
class Rejection:
    """Candidate executions that fail ``axiom`` along the same cycle: how many, one of them
    (``events`` of that one), the cycle as edges and whether it closes."""

    axiom: str
    kind: str  # acyclic, irreflexive or empty
    cycle: tuple[Edge, ...]
    closes: bool
    executions: int
    events: tuple[Event, ...]
    example: Execution = field(repr=False, compare=False)

    def as_dict(self) -> dict[str, Any]:
        used = {e.src for e in self.cycle} | {e.dst for e in self.cycle}
        return {"axiom": self.axiom, "kind": self.kind, "cycle": [e.as_list() for e in self.cycle],
                "closes": self.closes, "executions": self.executions,
                "events": [e.as_dict() for e in self.events if e.id in used]}


@dataclass(frozen=True)
class Explanation:
    """The answer for one (test, state, model).  ``allowed``: some execution the model allows
    ends in the state; then ``execution``/``events``/``edges``/``notes`` show one.  Otherwise
    ``forbidden_by`` groups the rejected candidates (empty with ``no_candidate`` set when none
    ends in the state); ``unexplained`` counts candidates past :data:`MAX_CYCLES` per axiom and
    ``stopped`` says the search hit :data:`MAX_STEPS`."""

    test: LitmusTest
    model: str
    state: Prop
    allowed: bool
    execution: Execution | None = None
    events: tuple[Event, ...] = ()
    edges: tuple[Edge, ...] = ()
    notes: tuple[str, ...] = ()
    forbidden_by: tuple[Rejection, ...] = ()
    candidates: int = 0
    unexplained: dict[str, int] = field(default_factory=dict)
    no_candidate: str | None = None
    stopped: bool = False
    level: int = 0  # which candidates are listed (litmus.explain.search, LEVELS)

    @property
    def state_text(self) -> str:
        return state_text(self.state)

    def as_dict(self) -> dict[str, Any]:
        """The JSON object of ``litmus explain --json`` (docs/explain.md, "JSON")."""
        out: dict[str, Any] = {"test": self.test.name, "variant": self.test.variant, "id": self.test.id,
                               "source": self.test.source_file, "state": self.state_text, "model": self.model,
                               "allowed": self.allowed, "execution": None, "forbidden_by": None}
        if self.allowed and self.execution is not None:
            out["execution"] = {"state": self.execution.state, "events": [e.as_dict() for e in self.events],
                                "edges": [e.as_list() for e in self.edges], "notes": list(self.notes)}
        else:
            out["forbidden_by"] = [g.as_dict() for g in self.forbidden_by]
            out["candidates"] = self.candidates
            out["unexplained"] = dict(self.unexplained)
            out["no_candidate"] = self.no_candidate
            out["stopped"] = self.stopped
            out["level"] = self.level
        return out


def resolve_model(model: str | Model) -> Model:
    """A model by name (:data:`litmus.model.MODELS`) or as given."""
    if isinstance(model, Model):
        return model
    m = MODELS.get(model)
    if m is None:
        raise LitmusError(f"unknown memory model {model!r}; choose one of {', '.join(sorted(MODELS))}")
    return m


def explain(test: LitmusTest, state: str | Prop | None = None, model: str | Model = DEFAULT_MODEL,
            max_steps: int = MAX_STEPS) -> Explanation:
    """Why ``state`` (default: the target of the test's condition; text as ``litmus explain
    --state`` takes it) is allowed or forbidden under ``model`` (a name or a
    :class:`~litmus.model.relations.Model`, e.g. from :func:`litmus.model.load_cat`).

    The verdict comes from the checker's own enumeration (the state is allowed when one of its
    consistent executions ends in it), so it is ``check``'s; each answer is then re-checked."""
    m = resolve_model(model)
    prop = target_prop(test) if state is None else parse_state(test, state) if isinstance(state, str) else state
    if not m.proxies and test.uses_proxies():
        check(test, m)  # raises the located refusal of a model without proxies
    b = budget.start()
    try:
        q = Query(test, memory_layout(test), prop)
        ex = allowed_execution(q, m)
        if ex is not None:
            return _allowed(q, m, ex)
        return _forbidden(q, m, max_steps)
    except budget.OutOfSteps:
        raise budget.error(b, test.source_file, test.source_line, test.id, m.name) from None
    finally:
        budget.stop(b)


def _allowed(q: Query, m: Model, ex: Execution) -> Explanation:
    test, prop = q.test, q.prop
    check_allowed(test, m, q.layout, prop, ex)
    events = frame_events(test, ex.frame)
    ev = Evaluator(m, ex.frame.n, ex.frame.base)
    for name in ("rf",) + tuple(o.name for o in m.orders):
        ev.set(name, ex.relations[name])
    edges = _edges(m, ex, ev)
    check_edges(test, m, ex, edges)
    return Explanation(test, m.name, prop, True, ex, tuple(events),
                       tuple(Edge(events[a].id, name, events[b].id) for a, name, b in edges),
                       tuple(notes(test, m, ex, events, ev.value)))


def _edges(m: Model, ex: Execution, ev: Evaluator) -> list[tuple[int, str, int]]:
    """The edges that make the outcome, as (event, relation, event): reads-from, coherence and
    from-reads (both reduced to immediate successors), synchronisation, Fence-SC order and
    barriers."""
    frame = ex.frame
    rf = ex.relations["rf"]
    co = _reduce(ex.relations[m.final_order])
    out: list[tuple[int, str, int]] = []

    def add(name: str, r: Rel) -> None:
        out.extend((a, name, b) for a, row in enumerate(r) for b in bits(row))

    add("rf", rf)
    add(m.final_order, co)
    fr = [0] * frame.n
    for w, row in enumerate(rf):
        for r in bits(row):
            fr[r] |= co[w]
    add("fr", fr)
    for name, _ in m.definitions:
        if norm(name) in WHOLE:
            add(name, ev.value(rel(name)))  # type: ignore[arg-type]
    for o in m.orders:
        if o.name != m.final_order:
            add(o.name, _reduce(ex.relations[o.name]))
    bar: Rel = frame.base["bar"]  # type: ignore[assignment]
    if any(bar) and model_name(m, "sync_barrier") is None:
        add("bar", [row & ~(1 << a) for a, row in enumerate(bar)])
    return out


def _reduce(order: Rel) -> Rel:
    """The transitive reduction of a strict order (its immediate-successor edges)."""
    out = []
    for row in order:
        later = 0
        for j in bits(row):
            later |= order[j]
        out.append(row & ~later)
    return out


def _forbidden(q: Query, m: Model, max_steps: int) -> Explanation:
    test, prop, layout = q.test, q.prop, q.layout
    groups: dict[tuple, list] = {}
    unexplained: dict[str, int] = {}
    threads = len(test.threads)
    tally = Tally()
    if not reachable(q, tally, max_steps):
        reason = None if tally.stopped else _no_candidate(test, prop, tally)
        return Explanation(test, m.name, prop, False, no_candidate=reason, stopped=tally.stopped)
    for level in LEVELS:  # the most telling candidates that reach the state
        tally = Tally()
        found = candidates(q, m, tally, max_steps, level, None if level == 0 else MAX_INCOHERENT)
        first = next(found, None)
        if first is not None or tally.stopped:
            break
    for ex, ev in chain([first] if first is not None else [], found):
        axiom = next((ax for ax in m.axioms if not ev.holds(ax)), None) or _must_axiom(m, ev)
        if axiom is None:
            raise ExplanationError.at(test.source_file, test.source_line,
                                      f"{test.id}: the {m.name} model forbids the state, yet a candidate execution "
                                      "reaching it satisfies every axiom; this is a bug in litmus (please report it)")
        if tally.matching > MAX_CYCLES:
            unexplained[axiom.name] = unexplained.get(axiom.name, 0) + 1
            continue
        frame = ex.frame

        def order_key(k: int, frame: Frame = frame) -> tuple[int, int]:
            t = frame.thread_of[k]
            return (t if t >= 0 else threads, k)

        v = violation(Paths(m, frame.n, ev.value), axiom, order_key)
        if v is None:
            raise ExplanationError.at(test.source_file, test.source_line,
                                      f"{test.id}: no witness of the failing axiom {axiom.name} was found; this is a "
                                      "bug in litmus (please report it with the test)")
        ids = _ids(test, frame)
        key = (axiom.name, tuple((ids[s.src], s.label, ids[s.dst]) for s in v.steps))
        hit = groups.get(key)
        if hit is None:
            groups[key] = [ex, v, 1]
        else:
            hit[2] += 1
    out = []
    for (name, cycle), (ex, v, count) in sorted(groups.items(), key=lambda kv: (-kv[1][2], kv[0])):
        check_rejected(test, m, layout, prop, ex, v)
        events = frame_events(test, ex.frame)
        out.append(Rejection(name, v.axiom.kind, tuple(Edge(*c) for c in cycle), v.closes, count,
                             tuple(events), ex))
    return Explanation(test, m.name, prop, False, forbidden_by=tuple(out), candidates=tally.matching,
                       unexplained=unexplained, stopped=tally.stopped, level=level)


def _must_axiom(m: Model, ev: Evaluator) -> Axiom | None:
    """A chosen order lacking an edge its ``must`` forces, as an axiom (named ``<order>-must``):
    only a model whose axioms do not already demand it gets here."""
    for o in m.orders:
        if o.must is None:
            continue
        must: Rel = ev.value(o.must)  # type: ignore[assignment]
        chosen: Rel = ev.get(o.name)  # type: ignore[assignment]
        if any(x & ~y for x, y in zip(must, chosen)):
            return Axiom("empty", o.must - rel(o.name), f"{o.name}-must")
    return None


def _ids(test: LitmusTest, frame: Frame) -> list[str]:
    """The event ids of a frame (as :class:`~litmus.explain.events.Event` has them), by index."""
    out = []
    seen: dict[int, int] = {}
    for t, e in zip(frame.thread_of, frame.events):
        if t < 0:
            out.append(f"init:{e.loc}")
            continue
        i = seen.get(t, 0)
        seen[t] = i + 1
        out.append(f"{test.threads[t].name}:{i}")
    return out


def _no_candidate(test: LitmusTest, prop: Prop, tally: Tally) -> str:
    """Why no candidate execution ends in the state: a key the state fixes to a value it never
    takes in any candidate, if there is one."""
    seen = tally.seen or {}
    for key, value in _fixed(prop):
        got = seen.get(key)
        if got is not None and value not in got:
            return (f"no candidate execution ends with {key}={value}: it only takes "
                    f"{', '.join(str(v) for v in sorted(got))} (no write produces {value} there, or the path "
                    f"that sets it is not taken together with the rest of the state)")
    return ("no candidate execution ends in this state: no combination of the threads' paths, reads-from and "
            "coherence choices gives it")


def _fixed(prop: Prop) -> list[tuple[str, int]]:
    """``key == value`` conjuncts of ``prop``."""
    parts = prop.parts if isinstance(prop, And) else (prop,)
    out = []
    for p in parts:
        if isinstance(p, Cmp) and p.op == "==":
            for a, b in ((p.lhs, p.rhs), (p.rhs, p.lhs)):
                if isinstance(a, (RegRef, LocRef)) and isinstance(b, Const):
                    out.append((f"{a.thread}:{a.reg}" if isinstance(a, RegRef) else a.loc, b.value))
    return out


__all__ = ["Edge", "Explanation", "ExplanationError", "Rejection", "explain"]
