"""The compiled evaluator (litmus.model.compiled) agrees with the interpreter on random models."""

from __future__ import annotations

from hypothesis import given, settings, strategies as st

from litmus.model import MODELS
from litmus.model.compiled import Evaluator, program
from litmus.model.relations import (
    ChosenOrder,
    Expr,
    Interpreter,
    Model,
    acyclic,
    domain,
    empty,
    eset,
    ident,
    inv,
    irreflexive,
    opt,
    plus,
    prod,
    rel,
    rng,
    seq,
    star,
)

N = 5
STATIC = ("p", "q")
DYNAMIC = ("rf", "co", "sf")  # rf, then the chosen orders co and sf (stages 0, 1, 2)

def _exprs(leaves: st.SearchStrategy[tuple[bool, Expr]]) -> st.SearchStrategy[tuple[bool, Expr]]:
    """(is a set, expression) trees over ``leaves``, every operator of the algebra."""
    def grow(sub: st.SearchStrategy[tuple[bool, Expr]]) -> st.SearchStrategy[tuple[bool, Expr]]:
        s = sub.map(lambda x: x[1] if x[0] else domain(x[1]))  # a relation where a set goes: its domain
        r = sub.map(lambda x: ident(x[1]) if x[0] else x[1])  # a set where a relation goes: [S]
        return st.one_of(
            st.builds(lambda a, b: (True, a | b), s, s),
            st.builds(lambda a, b: (True, a & b), s, s),
            st.builds(lambda a, b: (True, a - b), s, s),
            st.builds(lambda a: (True, domain(a)), r),
            st.builds(lambda a: (True, rng(a)), r),
            st.builds(lambda a, b: (False, a | b), r, r),
            st.builds(lambda a, b: (False, a & b), r, r),
            st.builds(lambda a, b: (False, a - b), r, r),
            st.builds(lambda ps: (False, seq(*ps)),
                      st.lists(st.one_of(r, s.map(ident)), min_size=1, max_size=4)),
            st.builds(lambda a: (False, inv(a)), r),
            st.builds(lambda a: (False, plus(a)), r),
            st.builds(lambda a: (False, opt(a)), r),
            st.builds(lambda a: (False, star(a)), r),
            st.builds(lambda a: (False, ident(a)), s),
            st.builds(lambda a, b: (False, prod(a, b)), s, s),
        )
    return st.recursive(leaves, grow, max_leaves=12)


_leaves = st.one_of(st.sampled_from([(True, eset("S")), (True, eset("T"))]),
                    st.sampled_from([(False, rel(n)) for n in STATIC + DYNAMIC + ("d1", "d2")]))
rels: st.SearchStrategy[Expr] = _exprs(_leaves).map(lambda x: ident(x[1]) if x[0] else x[1])

# definitions over the base names only (d2 may use d1), so that they are well founded
leaf_rels = st.sampled_from([rel(n) for n in STATIC + DYNAMIC])
def1 = st.one_of(leaf_rels, st.builds(lambda a, b: a | b, leaf_rels, leaf_rels),
                 st.builds(lambda a, b: seq(a, ident(eset("S")), b), leaf_rels, leaf_rels),
                 st.builds(lambda a: plus(a) - inv(a), leaf_rels))
relation_value = st.lists(st.integers(0, (1 << N) - 1), min_size=N, max_size=N)
set_value = st.integers(0, (1 << N) - 1)


@st.composite
def models(draw: st.DrawFn) -> Model:
    d1 = draw(def1)
    d2 = draw(st.one_of(def1, st.builds(lambda a: seq(rel("d1"), a), leaf_rels)))
    exprs = draw(st.lists(rels, min_size=1, max_size=4))
    kinds = draw(st.lists(st.sampled_from([acyclic, irreflexive, empty]), min_size=len(exprs), max_size=len(exprs)))
    axioms = tuple(k(e, f"ax{i}") for i, (k, e) in enumerate(zip(kinds, exprs)))
    orders = (ChosenOrder("co", draw(rels)), ChosenOrder("sf", draw(rels), must=draw(rels)))
    return Model("random", "random", (("d1", d1), ("d2", d2)), orders, axioms)


def _same(model: Model, ci: Interpreter, cc: Evaluator, extra: Expr) -> None:
    for ax in model.axioms:
        assert cc.value(ax.expr) == ci.value(ax.expr)
        assert cc.holds(ax) == ci.holds(ax)
    for o in model.orders:
        assert cc.value(o.pairs) == ci.value(o.pairs)
        if o.must is not None:
            assert cc.value(o.must) == ci.value(o.must)
    assert program(model).checker(model.axioms)(cc.c) == all(ci.holds(ax) for ax in model.axioms)
    # an expression outside the compiled model (a fresh interpreter: it only forgets what it
    # caches for the model's own expressions)
    assert cc.value(extra) == Interpreter(model, N, dict(ci.base)).value(extra)


@settings(max_examples=300, deadline=None)
@given(model=models(), base=st.fixed_dictionaries(
    {**{n: relation_value for n in STATIC + DYNAMIC}, "S": set_value, "T": set_value}),
    updates=st.lists(st.tuples(st.sampled_from(STATIC + DYNAMIC), relation_value), max_size=6),
    extra=rels)
def test_compiled_agrees_with_interpreted(model: Model, base: dict, updates: list, extra: Expr) -> None:
    ci, cc = Interpreter(model, N, dict(base)), Evaluator(model, N, dict(base))
    _same(model, ci, cc, extra)
    for name, value in updates:  # installing a base forgets exactly what may depend on it
        ci.set(name, value)
        cc.set(name, value)
        _same(model, ci, cc, extra)
    for name, value in updates[:2]:
        cc.setter(name)(value)
        ci.set(name, value)
        _same(model, ci, cc, extra)


def test_every_model_compiles_and_names_unknown_bases() -> None:
    for model in MODELS.values():
        prog = program(model)
        assert prog.checker(model.axioms) is prog.checker(model.axioms)  # memoised
    ev = Evaluator(MODELS["ptx75"], 2, {})
    try:
        ev.value(MODELS["ptx75"].axioms[0].expr)
    except KeyError as e:
        assert "unknown relation or set" in str(e)
    else:
        raise AssertionError("a missing base relation must raise")
