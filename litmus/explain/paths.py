"""Why an axiom fails, in named relations: a pair of a relation expression written as a path
of steps, each in a relation the model names (a base relation such as ``po``, ``rf``, ``co``, or
a definition kept whole such as ``fr`` or ``sync``), and the shortest cycle, reflexive edge or
forbidden pair of a failing axiom written as such a path closed into a cycle.

A named definition is unfolded into the steps that make it, except a synchronisation relation
(:data:`WHOLE`: the edge a reader looks for) and a definition whose unfolding would step
backwards through an inverse (``fr = rf^-1 ; co`` stays ``fr``), which stay one step.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass
from typing import Callable

from litmus.model.relations import Axiom, Base, Expr, Model, Op, Rel, bits, expr_deps, inv, r_plus, rel

WHOLE = frozenset({"sync", "sync_barrier", "sync_fence", "sw"})
"""Definitions shown as one step whatever they unfold to (names compared with ``-`` read as ``_``)."""

CLOSERS = ("co", "rf", "sf", "fr", "po", "rmw", "bar", "dep")
"""The relations tried, in this order and then inverted, to close the pair an ``empty`` axiom
forbids back into a cycle (``Coherence``: a causality path between two writes, closed by ``co``)."""


@dataclass(frozen=True)
class Step:
    """``src -label-> dst``, checked against ``expr`` (the named relation, or its inverse)."""

    src: int
    label: str
    dst: int
    expr: Expr


def norm(name: str) -> str:
    """A relation name as compared across models (cat files write ``morally-strong``)."""
    return name.replace("-", "_")


class Paths:
    """Witness paths over one execution: ``value(expr)`` evaluates in it (sets as bitmasks,
    relations as rows)."""

    def __init__(self, model: Model, n: int, value: Callable[[Expr], object]):
        self.model = model
        self.n = n
        self.value = value
        self.defs = dict(model.definitions)
        self.dynamic = {"rf"} | {o.name for o in model.orders}
        self.memo: dict[tuple[int, int, int], tuple[Expr, list[Step] | None]] = {}
        self.values: dict[int, tuple[Expr, Rel]] = {}  # the execution is fixed: each value once

    def rows(self, e: Expr) -> Rel:
        hit = self.values.get(id(e))
        if hit is not None and hit[0] is e:
            return hit[1]
        v = self.value(e)
        out: Rel = [(1 << i) & v for i in range(self.n)] if e.is_set else v  # type: ignore[operator,assignment]
        self.values[id(e)] = (e, out)
        return out

    def has(self, e: Expr, a: int, b: int) -> bool:
        return bool((self.rows(e)[a] >> b) & 1)

    def path(self, e: Expr, a: int, b: int) -> list[Step] | None:
        """Steps from ``a`` to ``b`` through relations the model names, for a pair of ``e``
        (None when ``e`` does not relate them, or relates them in no way that can be named)."""
        key = (id(e), a, b)
        hit = self.memo.get(key)
        if hit is not None and hit[0] is e:
            return hit[1]
        self.memo[key] = (e, None)  # first: a definition that named itself would end here, not loop
        out = self._path(e, a, b) if self.has(e, a, b) else None
        self.memo[key] = (e, out)
        return out

    def _path(self, e: Expr, a: int, b: int) -> list[Step] | None:
        if isinstance(e, Base):
            d = self.defs.get(e.name)
            if d is None:
                return [Step(a, e.name, b, e)]
            whole = [Step(a, e.name, b, e)]
            if norm(e.name) in WHOLE:
                return whole
            inner = self.path(d, a, b)
            if inner is None or any(s.label.endswith("^-1") for s in inner):
                return whole
            return inner
        assert isinstance(e, Op)
        k = e.kind
        if k == "union":
            best: list[Step] | None = None
            for x in e.args:
                p = self.path(x, a, b)
                if p is not None and (best is None or len(p) < len(best)):
                    best = p
                    if len(p) <= 1:
                        break  # no alternative is shorter
            return best
        if k == "inter":
            for x in self.telling(e.args):
                p = self.path(x, a, b)
                if p is not None:
                    return p
            return None
        if k == "diff":
            return self.path(e.args[0], a, b)
        if k in ("opt", "ident"):
            if a == b:
                return []
            return self.path(e.args[0], a, b) if k == "opt" else None
        if k == "inv":
            p = self.path(e.args[0], b, a)
            if p is None:
                return None
            return inverted(p)
        if k == "seq":
            return self._seq(e.args, a, b)
        if k == "plus":
            hops = shortest_path(self.rows(e.args[0]), a, b)
            if hops is None:
                return None
            out: list[Step] = []
            for u, v in zip(hops, hops[1:]):
                p = self.path(e.args[0], u, v)
                if p is None:
                    return None
                out += p
            return out
        return None  # prod, domain, range: no named edge to show

    def telling(self, args: tuple[Expr, ...]) -> list[Expr]:
        """Operands of an intersection, those that depend on reads-from or a chosen order first:
        they say what happened; the static ones (scopes, locations) say where."""
        return sorted(args, key=lambda x: not (expr_deps(self.model, x) & self.dynamic))

    def _seq(self, parts: tuple[Expr, ...], a: int, b: int) -> list[Step] | None:
        reach = [1 << a]
        for p in parts:
            rows = self.rows(p)
            m = 0
            for i in bits(reach[-1]):
                m |= rows[i]
            reach.append(m)
        if not (reach[-1] >> b) & 1:
            return None
        nodes = [b]
        for i in range(len(parts) - 1, -1, -1):
            cur = nodes[-1]
            rows = self.rows(parts[i])
            options = [c for c in bits(reach[i]) if (rows[c] >> cur) & 1]
            # staying put (an identity or optional step) adds no edge; then the nearest event
            nodes.append(cur if cur in options else (a if a in options else options[0]))
        nodes.reverse()
        out: list[Step] = []
        for p, u, v in zip(parts, nodes, nodes[1:]):
            got = self.path(p, u, v)
            if got is None:
                return None
            out += got
        return out


def inverted(steps: list[Step]) -> list[Step]:
    """The path ``steps`` walked backwards, each step through the inverse of its relation."""
    return [Step(s.dst, _inverse(s.label), s.src, inv(s.expr)) for s in reversed(steps)]


def _inverse(label: str) -> str:
    return label[:-3] if label.endswith("^-1") else f"{label}^-1"


def shortest_path(rows: Rel, a: int, b: int, limit: int | None = None) -> list[int] | None:
    """The events of a shortest path of at least one edge from ``a`` to ``b`` (breadth first);
    None when there is none of at most ``limit`` edges."""
    prev: dict[int, int] = {}
    depth = {a: 0}
    todo: deque[int] = deque([a])
    while todo:
        x = todo.popleft()
        if limit is not None and depth[x] >= limit:
            continue
        for j in bits(rows[x]):
            if j not in prev:
                prev[j] = x
                depth[j] = depth[x] + 1
                todo.append(j)
                if j == b:
                    todo.clear()
                    break
    if b not in prev:
        return None
    out = [b]
    x = b
    while True:
        x = prev[x]
        out.append(x)
        if x == a:
            return out[::-1]


@dataclass(frozen=True)
class Violation:
    """How ``axiom`` fails in one execution: ``steps`` from a start event back to it when
    ``closes`` (an ``empty`` axiom whose forbidden pair no relation of the execution leads back
    from leaves an open path)."""

    axiom: Axiom
    steps: tuple[Step, ...]
    closes: bool


def violation(paths: Paths, axiom: Axiom, order_key: Callable[[int], tuple]) -> Violation | None:
    """The shortest witness of ``axiom`` failing (None if it holds), rotated to start at the event
    that ``order_key`` puts first."""
    r = paths.rows(axiom.expr)
    best: list[Step] | None = None
    if axiom.kind == "acyclic":
        closure = r_plus(r)
        shortest = None
        for s in range(paths.n):
            if not (closure[s] >> s) & 1:
                continue  # on no cycle
            hops = shortest_path(r, s, s, shortest)
            if hops is None:
                continue
            shortest = len(hops) - 1
            steps: list[Step] = []
            for u, v in zip(hops, hops[1:]):
                steps += paths.path(axiom.expr, u, v) or [Step(u, "?", v, axiom.expr)]
            if best is None or len(steps) < len(best):
                best = steps
        return None if best is None else Violation(axiom, _rotate(best, order_key), True)
    pairs = [(i, j) for i, row in enumerate(r) for j in bits(row)]
    if axiom.kind == "irreflexive":
        pairs = [(i, j) for i, j in pairs if i == j]
    for i, j in pairs:
        p = paths.path(axiom.expr, i, j) if i == j else _forbidden_pair(paths, axiom.expr, i, j)
        if p is not None and (best is None or len(p) < len(best)):
            best = p
    if best is None:
        return None
    closes = best[-1].dst == best[0].src
    return Violation(axiom, _rotate(best, order_key) if closes else tuple(best), closes)


def _forbidden_pair(paths: Paths, e: Expr, a: int, b: int) -> list[Step] | None:
    """A pair ``a != b`` of an ``empty`` axiom's relation as a cycle: the path that makes it, and
    back from ``b`` to ``a`` the other side of an intersection walked backwards (Atomicity: an
    RMW's read and write, ``rmw^-1``), or a relation of the execution (:data:`CLOSERS`; Coherence:
    causality between two writes that ``co`` orders the other way).  An open path when neither
    leads back."""
    if isinstance(e, Op) and e.kind == "inter":
        ordered = paths.telling(e.args)
        for i, x in enumerate(ordered):
            p = paths.path(x, a, b)
            if p is None:
                continue
            for y in ordered[i + 1:] + ordered[:i]:
                q = paths.path(y, a, b)
                if q:
                    return p + inverted(q)
            break
    p = paths.path(e, a, b)
    if p is None:
        return None
    closing = _closing(paths, b, a)
    return p if closing is None else p + [closing]


def _closing(paths: Paths, b: int, a: int) -> Step | None:
    """A step from ``b`` back to ``a`` in one of :data:`CLOSERS` (or its inverse) the model has."""
    names = [n for n in CLOSERS if n in paths.defs or _is_base(paths, n)]
    for name in names:
        if paths.has(rel(name), b, a):
            return Step(b, name, a, rel(name))
    for name in names:
        if paths.has(rel(name), a, b):
            return Step(b, f"{name}^-1", a, inv(rel(name)))
    return None


def _is_base(paths: Paths, name: str) -> bool:
    try:
        paths.value(rel(name))
    except KeyError:
        return False
    return True


def _rotate(steps: list[Step], order_key: Callable[[int], tuple]) -> tuple[Step, ...]:
    start = min(range(len(steps)), key=lambda k: order_key(steps[k].src))
    return tuple(steps[start:] + steps[:start])
