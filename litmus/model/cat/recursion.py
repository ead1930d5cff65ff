"""``let rec``: the least fixpoint of recursive relation definitions, as a closed expression of
the relation algebra (:mod:`litmus.model.relations`), so that the checker evaluates it like
any other definition.

Why closed forms and not iteration: the checker evaluates a model through
:mod:`litmus.model.compiled`, which has a template per operator of the algebra and none for a
fixpoint; the recursions cat files write are regular (a relation built from ``|`` and ``;``
over its own name), and those have exact closed forms with ``*`` (Kleene algebra):

- one variable ``X = A | L;X | X;R | X;M;X`` (any of the terms may be absent or repeated):
  ``X = W;(M;W)*`` with ``W = L*;A;R*`` (``W`` alone without an ``X;M;X`` term, and ``X;X`` is
  ``M = id``: ``W+``).  ``W`` is a fixpoint (``L;W``, ``W;R`` are in ``W``, and
  ``W(MW)^i;M;W(MW)^j = W(MW)^(i+j+1)``) and every pair of it is derived from ``A`` by the
  terms, so it is the least.  Ptx-v6.0's ``observation = (ms & rf) | observation; rmw;
  observation`` is ``A;(rmw;A)*``, as ``litmus/model/ptx.py`` writes it by hand;
- several variables (``let rec ... and ...``): solved one at a time, each with the later ones
  as constants, substituted into the rest, then back-substituted (Bekić's principle); a term
  must stay of the shapes above after substitution, which it does for left-linear or
  right-linear systems (every variable at the same end of its terms).

A definition of another shape (its own name under ``&``, ``\\``, ``^-1``, ``+``, ``*``, in the
middle of a sequence, ...) or a recursive *set* raises :class:`Unsolvable`, which the
translator reports at the binding.  ``tests/model/test_cat.py`` checks the closed forms against
plain iteration to convergence on random relations.
"""

from __future__ import annotations

from typing import Sequence

from litmus.model.relations import Base, Expr, Op, eset, ident, plus, seq, star

_ALL = eset("ALL")
IDENTITY = ident(_ALL)
EMPTY = ident(_ALL - _ALL)


class Unsolvable(Exception):
    """A recursive definition outside the shapes :func:`solve` has closed forms for."""


def solve(equations: Sequence[tuple[Base, Expr]]) -> dict[str, Expr]:
    """``placeholder name -> closed form`` of the least solution of ``X_i = body_i``, each
    ``X_i`` a :class:`Base` placeholder occurring in the bodies (a relation, not a set)."""
    names = [x.name for x, _ in equations]
    bodies = {x.name: body for x, body in equations}
    solved: dict[str, Expr] = {}  # X_i -> its form in terms of X_(i+1) ...
    for k, name in enumerate(names):
        later = set(names[k + 1:])
        form = _solve_one(name, bodies[name], later)
        solved[name] = form
        for other in names[k + 1:]:
            bodies[other] = substitute(bodies[other], {name: form})
    out: dict[str, Expr] = {}
    for name in reversed(names):
        out[name] = substitute(solved[name], out)
    return out


def substitute(e: Expr, values: dict[str, Expr], memo: dict[int, Expr] | None = None) -> Expr:
    """``e`` with every :class:`Base` named in ``values`` replaced (unchanged parts shared)."""
    if not values:
        return e
    memo = {} if memo is None else memo
    hit = memo.get(id(e))
    if hit is not None:
        return hit
    if isinstance(e, Base):
        out = values.get(e.name, e)
    else:
        assert isinstance(e, Op)
        args = tuple(substitute(a, values, memo) for a in e.args)
        out = e if all(a is b for a, b in zip(args, e.args)) else Op(e.kind, args, e.is_set)
    memo[id(e)] = out
    return out


def mentions(e: Expr, names: set[str]) -> bool:
    """Whether ``e`` refers to one of ``names``."""
    if isinstance(e, Base):
        return e.name in names
    assert isinstance(e, Op)
    return any(mentions(a, names) for a in e.args)


def _solve_one(name: str, body: Expr, later: set[str]) -> Expr:
    """The least ``X = body`` for ``X`` named ``name``, the names of ``later`` held constant."""
    if body.is_set:
        raise Unsolvable("a recursive set: only relations can be defined by let rec")
    constant: list[Expr] = []
    left: list[Expr] = []
    right: list[Expr] = []
    middle: list[Expr] = []
    for product in _products(body, {name} | later):
        at = [i for i, f in enumerate(product) if isinstance(f, Base) and f.name == name]
        n = len(product)
        if not at:
            constant.append(_seq(product))
        elif at == [0] and n == 1:
            continue  # X | ...: adds nothing to the least fixpoint
        elif at == [n - 1]:
            left.append(_seq(product[:-1]))
        elif at == [0]:
            right.append(_seq(product[1:]))
        elif at == [0, n - 1]:
            middle.append(_seq(product[1:-1]))
        else:
            raise Unsolvable(f"{name} occurs in the middle of a sequence or more than twice in one; "
                             "supported: A | L;X | X;R | X;M;X (any of them, any number)")
    if not constant:
        return EMPTY  # every term needs X already: nothing is ever derived
    parts = ([star(_union(left))] if left else []) + [_union(constant)] + ([star(_union(right))] if right else [])
    w = _seq(tuple(parts))
    if not middle:
        return w
    m = _union(middle)
    if m is IDENTITY:
        return plus(w)
    return seq(w, star(seq(m, w)))


def _products(e: Expr, variables: set[str]) -> list[tuple[Expr, ...]]:
    """``e`` as a union of sequences (each a tuple of factors), distributed only where a
    variable is involved; a variable under any other operator raises :class:`Unsolvable`."""
    if not mentions(e, variables):
        return [(e,)]
    if isinstance(e, Base):
        return [(e,)]
    assert isinstance(e, Op)
    if e.kind == "union":
        return _products(e.args[0], variables) + _products(e.args[1], variables)
    if e.kind == "seq":
        out: list[tuple[Expr, ...]] = [()]
        for a in e.args:
            out = [p + q for p in out for q in _products(a, variables)]
        return out
    if e.kind == "opt":
        return _products(e.args[0], variables) + [()]
    ops = {"inter": "&", "diff": "\\", "inv": "^-1", "plus": "+", "ident": "[...]", "prod": "*",
           "domain": "domain", "range": "range"}
    raise Unsolvable(f"the recursion goes through {ops.get(e.kind, e.kind)!r}; supported: "
                     "A | L;X | X;R | X;M;X with the recursive names only under | and ;")


def _seq(product: tuple[Expr, ...]) -> Expr:
    if not product:
        return IDENTITY
    return product[0] if len(product) == 1 else seq(*product)


def _union(parts: list[Expr]) -> Expr:
    out = parts[0]
    for p in parts[1:]:
        out = out | p
    return out
