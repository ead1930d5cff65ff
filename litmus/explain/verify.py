"""Explanations are checked, not trusted: each is re-checked with the reference evaluator
(:class:`litmus.model.relations.Interpreter`, not the compiled one that found it) before it is
shown.  An allowed execution must satisfy every axiom, its chosen orders must be what the model
chooses from, and it must end in the state asked about; a rejecting cycle must fail its axiom,
every step must be in its named relation, and the steps must chain and close."""

from __future__ import annotations

from litmus.condition import evaluate
from litmus.errors import LitmusError
from litmus.ir import LitmusTest, Prop
from litmus.model.layout import Layout
from litmus.model.relations import Expr, Interpreter, Model, Rel, bits, inv, is_acyclic, r_inv, rel, seq

from litmus.explain.frames import final_state
from litmus.explain.paths import Violation
from litmus.explain.search import Execution


class ExplanationError(LitmusError):
    """An explanation did not check out (a bug in litmus, never in the input)."""


def interpreter(model: Model, ex: Execution) -> Interpreter:
    """The reference evaluator over ``ex``: its frame's base relations, reads-from and orders."""
    base = dict(ex.frame.base)
    base.update(ex.relations)
    return Interpreter(model, ex.frame.n, base)


def check_allowed(test: LitmusTest, model: Model, layout: Layout | None, prop: Prop, ex: Execution) -> None:
    """Raise :class:`ExplanationError` unless ``ex`` is a consistent execution ending in ``prop``."""
    it = interpreter(model, ex)
    _check_rf(test, ex)
    for ax in model.axioms:
        if not it.holds(ax):
            _fail(test, f"its execution fails axiom {ax.name}")
    for o in model.orders:
        order: Rel = ex.relations[o.name]
        if any((row >> i) & 1 for i, row in enumerate(order)) or not is_acyclic(order):
            _fail(test, f"its {o.name} is not a strict order")
        for i, row in enumerate(order):
            for j in bits(row):
                if order[j] & ~row:
                    _fail(test, f"its {o.name} is not transitive")
        pairs: Rel = it.value(o.pairs)  # type: ignore[assignment]
        back = r_inv(order)
        if any(p & ~(row | b) for p, row, b in zip(pairs, order, back)):
            _fail(test, f"its {o.name} leaves a pair it must order unordered")
        if o.must is not None:
            must: Rel = it.value(o.must)  # type: ignore[assignment]
            if any(m & ~row for m, row in zip(must, order)):
                _fail(test, f"its {o.name} lacks an edge the model forces")
    co: Rel = ex.relations[model.final_order]
    for loc, mask in ex.frame.writes_by_loc.items():
        ends = {ex.frame.events[w].value for w in bits(mask) if not co[w] & mask}
        if ex.finals.get(loc) not in ends:
            _fail(test, f"its final value of {loc} is not that of a coherence-last write")
    state = final_state(test, layout, ex.regs, ex.finals)
    if state != ex.state or not evaluate(prop, state):
        _fail(test, "its execution does not end in the state asked about")


def check_edges(test: LitmusTest, model: Model, ex: Execution, edges: list[tuple[int, str, int]]) -> None:
    """Raise :class:`ExplanationError` unless each ``(a, relation, b)`` is an edge of ``ex``
    (``fr`` as ``rf^-1 ; co`` where the model does not define it)."""
    it = interpreter(model, ex)
    defined = {name for name, _ in model.definitions}
    # one expression per name, alive for the whole check: the interpreter caches by identity
    exprs: dict[str, Expr] = {}
    for a, name, b in edges:
        if name not in exprs:
            own = name != "fr" or name in defined
            exprs[name] = rel(name) if own else seq(inv(rel("rf")), rel(model.final_order))
        r: Rel = it.value(exprs[name])  # type: ignore[assignment]
        if not (r[a] >> b) & 1:
            _fail(test, f"an edge -{name}-> it shows is not in {name}")


def check_rejected(test: LitmusTest, model: Model, layout: Layout | None, prop: Prop, ex: Execution,
                   v: Violation) -> None:
    """Raise :class:`ExplanationError` unless ``ex`` ends in ``prop``, fails ``v.axiom``, and
    ``v``'s steps are edges of their relations in ``ex`` that chain (and close, when it says so)."""
    it = interpreter(model, ex)
    _check_rf(test, ex)
    co: Rel = ex.relations[model.final_order]
    for loc, mask in ex.frame.writes_by_loc.items():
        last = [w for w in bits(mask) if not co[w] & mask]
        if len(last) != 1 or ex.frame.events[last[0]].value != ex.finals.get(loc):
            _fail(test, f"a rejected candidate's coherence order of {loc} is not total")
    state = final_state(test, layout, ex.regs, ex.finals)
    if state != ex.state or not evaluate(prop, state):
        _fail(test, "a rejected candidate does not end in the state asked about")
    if v.axiom not in model.axioms and not v.axiom.name.endswith("-must"):
        _fail(test, f"{v.axiom.name} is not an axiom of the {model.name} model")
    if it.holds(v.axiom):
        _fail(test, f"a rejected candidate does not fail {v.axiom.name}")
    steps = v.steps
    if not steps:
        _fail(test, f"the witness of {v.axiom.name} is empty")
    for s in steps:
        r: Rel = it.value(s.expr)  # type: ignore[assignment]
        if not (r[s.src] >> s.dst) & 1:
            _fail(test, f"a step -{s.label}-> of the {v.axiom.name} witness is not in {s.label}")
    for a, b in zip(steps, steps[1:]):
        if a.dst != b.src:
            _fail(test, f"the {v.axiom.name} witness does not chain")
    if v.closes and steps[-1].dst != steps[0].src:
        _fail(test, f"the {v.axiom.name} cycle does not close")


def _check_rf(test: LitmusTest, ex: Execution) -> None:
    """Every read reads exactly one write, of its location and value."""
    frame = ex.frame
    rf = ex.relations["rf"]
    source = {}
    for w, row in enumerate(rf):
        for r in bits(row):
            if r in source:
                _fail(test, "a read reads two writes")
            source[r] = w
    for r in frame.reads:
        w = source.get(r)
        if w is None:
            _fail(test, "a read reads no write")
        er, ew = frame.events[r], frame.events[w]  # type: ignore[index]
        if ew.kind != "W" or ew.loc != er.loc or ew.value != er.value:
            _fail(test, "a read reads a write of another location or value")


def _fail(test: LitmusTest, what: str) -> None:
    raise ExplanationError.at(test.source_file, test.source_line,
                              f"{test.id}: the explanation did not check out: {what}; this is a bug in "
                              "litmus (please report it with the test)")
