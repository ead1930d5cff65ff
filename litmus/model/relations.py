"""A small relation algebra over the events of one candidate execution.

Relations over ``n`` events are lists of ``n`` Python ints (row ``i`` is the bitmask of the
events related to event ``i``); sets are single int bitmasks.  Models are written as *data*
with the expression classes below (``Base``, ``union``, ``seq``, ``inv``, ``plus`` ...) and
evaluated by :class:`Interpreter`, which caches every sub-expression until one of the base
relations it depends on is replaced (the reference semantics; the checker runs the same
expressions compiled, :mod:`litmus.model.compiled`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Iterable, Sequence

Rel = list[int]
"""A relation: row ``i`` is the bitmask of the successors of event ``i``."""


# ------------------------------------------------------------------ bit-parallel primitives


def bits(mask: int) -> Iterable[int]:
    """The indices of the set bits of ``mask``, lowest first."""
    while mask:
        low = mask & -mask
        yield low.bit_length() - 1
        mask ^= low


def r_union(a: Rel, b: Rel) -> Rel:
    """``a | b``."""
    return [x | y for x, y in zip(a, b)]


def r_inter(a: Rel, b: Rel) -> Rel:
    """``a & b``."""
    return [x & y for x, y in zip(a, b)]


def r_diff(a: Rel, b: Rel) -> Rel:
    """``a \\ b``."""
    return [x & ~y for x, y in zip(a, b)]


def r_seq(a: Rel, b: Rel) -> Rel:
    """``a ; b`` (relational composition)."""
    out = []
    for row in a:
        acc = 0
        while row:
            low = row & -row
            acc |= b[low.bit_length() - 1]
            row ^= low
        out.append(acc)
    return out


def r_inv(a: Rel) -> Rel:
    """The inverse (transpose) of ``a``."""
    out = [0] * len(a)
    for i, row in enumerate(a):
        bit = 1 << i
        while row:
            low = row & -row
            out[low.bit_length() - 1] |= bit
            row ^= low
    return out


def r_plus(a: Rel) -> Rel:
    """The transitive closure ``a+`` (Warshall over bitmask rows, visiting only events that
    have both a predecessor and a successor as intermediates)."""
    rows = list(a)
    targets = 0
    for row in rows:
        targets |= row
    active = [i for i, row in enumerate(rows) if row]
    while targets:
        low = targets & -targets
        targets ^= low
        k = low.bit_length() - 1
        rk = rows[k]
        if not rk:
            continue
        for i in active:
            if rows[i] & low:
                rows[i] |= rk
    return rows


def r_id(mask: int, n: int) -> Rel:
    """The identity on the set ``mask`` (``[S]``)."""
    return [(1 << i) & mask for i in range(n)]


def r_opt(a: Rel) -> Rel:
    """``a?`` (``a`` union the identity)."""
    return [row | (1 << i) for i, row in enumerate(a)]


def r_prod(s: int, t: int, n: int) -> Rel:
    """The cartesian product ``S * T``."""
    return [t if (s >> i) & 1 else 0 for i in range(n)]


def r_domain(a: Rel) -> int:
    """The set of events with a successor in ``a``."""
    return sum(1 << i for i, row in enumerate(a) if row)


def r_range(a: Rel) -> int:
    """The set of events with a predecessor in ``a``."""
    acc = 0
    for row in a:
        acc |= row
    return acc


def is_irreflexive(a: Rel) -> bool:
    """Whether no event is related to itself."""
    return not any((row >> i) & 1 for i, row in enumerate(a))


def is_acyclic(a: Rel) -> bool:
    """Whether ``a+`` is irreflexive (peels off events without successors until none is left)."""
    rem = 0
    for i, row in enumerate(a):
        if row:
            rem |= 1 << i
    while rem:
        sinks = 0
        m = rem
        while m:
            low = m & -m
            m ^= low
            if not a[low.bit_length() - 1] & rem:
                sinks |= low
        if not sinks:
            return False
        rem &= ~sinks
    return True


def is_empty(a: Rel) -> bool:
    """Whether ``a`` relates nothing."""
    return not any(a)


def pairs(a: Rel) -> list[tuple[int, int]]:
    """The pairs of ``a``."""
    return [(i, j) for i, row in enumerate(a) for j in bits(row)]


# ------------------------------------------------------------------------- expressions


class Expr:
    """A relation or set expression.  ``is_set`` tells which; combine with the helpers below."""

    is_set: bool = False

    def __or__(self, other: "Expr") -> "Expr":
        return Op("union", (self, other), self.is_set)

    def __and__(self, other: "Expr") -> "Expr":
        return Op("inter", (self, other), self.is_set)

    def __sub__(self, other: "Expr") -> "Expr":
        return Op("diff", (self, other), self.is_set)


@dataclass(frozen=True, eq=False)
class Base(Expr):
    """A named relation (or set, ``is_set=True``): a base one of the execution or a definition."""

    name: str
    is_set: bool = False

    def __repr__(self) -> str:
        return self.name


@dataclass(frozen=True, eq=False)
class Op(Expr):
    """An operator node: ``kind`` names the operator, ``args`` its operands."""

    kind: str
    args: tuple[Expr, ...]
    is_set: bool = False


def rel(name: str) -> Base:
    """A named relation."""
    return Base(name)


def eset(name: str) -> Base:
    """A named set of events."""
    return Base(name, is_set=True)


def seq(*parts: Expr) -> Expr:
    """``a ; b ; ...``."""
    return Op("seq", tuple(parts))


def inv(a: Expr) -> Expr:
    """``a^-1``."""
    return Op("inv", (a,))


def plus(a: Expr) -> Expr:
    """``a+``."""
    return Op("plus", (a,))


def star(a: Expr) -> Expr:
    """``a*``."""
    return Op("opt", (Op("plus", (a,)),))


def opt(a: Expr) -> Expr:
    """``a?``."""
    return Op("opt", (a,))


def ident(s: Expr) -> Expr:
    """``[S]``: the identity on the set ``S``."""
    return Op("ident", (s,))


def prod(s: Expr, t: Expr) -> Expr:
    """``S * T``."""
    return Op("prod", (s, t))


def domain(a: Expr) -> Expr:
    """``domain(a)``: a set."""
    return Op("domain", (a,), True)


def rng(a: Expr) -> Expr:
    """``range(a)``: a set."""
    return Op("range", (a,), True)


def sym(a: Expr) -> Expr:
    """``a | a^-1``."""
    return a | inv(a)


# -------------------------------------------------------------------------- models


@dataclass(frozen=True)
class Axiom:
    """``kind`` (``acyclic``, ``irreflexive`` or ``empty``) of ``expr``, named ``name``."""

    kind: str
    expr: Expr
    name: str


def acyclic(expr: Expr, name: str) -> Axiom:
    """The axiom ``acyclic expr as name``."""
    return Axiom("acyclic", expr, name)


def irreflexive(expr: Expr, name: str) -> Axiom:
    """The axiom ``irreflexive expr as name``."""
    return Axiom("irreflexive", expr, name)


def empty(expr: Expr, name: str) -> Axiom:
    """The axiom ``empty expr as name``."""
    return Axiom("empty", expr, name)


@dataclass(frozen=True)
class ChosenOrder:
    """A strict partial order the checker *chooses* per execution (like herd's ``co``).

    Every pair of ``pairs`` (a symmetric relation) is ordered one way or the other, the order
    contains ``must`` (None: nothing), and it is transitive and acyclic.  With
    ``init_first`` the initial write of each location precedes every other write to it.
    """

    name: str
    pairs: Expr
    must: Expr | None = None
    init_first: bool = False


@dataclass(frozen=True)
class Model:
    """A memory model as data: named definitions, chosen orders and axioms."""

    name: str
    description: str
    definitions: tuple[tuple[str, Expr], ...]
    orders: tuple[ChosenOrder, ...]
    axioms: tuple[Axiom, ...]
    final_order: str = "co"
    proxies: bool = False  # whether the model gives proxies and aliases a meaning
    reference: bool = False  # a reference model (sc): expectations are not judged against it
    acyclic_rf_dep: bool = False  # every consistent execution has acyclic(rf | dep) (prunes rf)
    # Per-location coherence before any order is chosen, for pairs related by this relation
    # (morally strong; it must be symmetric and must not depend on rf or a chosen order;
    # None: none of this):
    # - two RMWs pairwise related (and to the write w both would read) never both read w: w is
    #   co-before both RMW writes, co orders those, and one RMW would have the other's write
    #   between its read and its write (Atomicity);
    # - CoRW: w -rf-> r -po-> w2 (same location) puts w co-before w2;
    # - CoWR: w2 -po-> r, r reading another write w, puts w2 co-before w;
    # - CoRR: r1 -po-> r2 reading w1 then w2 puts w1 co-before w2;
    # - CoWW: w -po-> w2 puts w co-before w2.
    # Partial reads-from choices whose forced co edges form a cycle are dropped early
    # (executions._rf_pruning; docs/model.md, "Pruning reads-from").
    coherent: Expr | None = None
    # Single-Copy-Atomicity for pairs related by ``coherent``: a piece of a multi-granule read
    # that reads a piece of write W makes every other piece of the read read W's piece of its
    # granule or a write not co-before that piece (executions._rf_choices prunes by it)
    single_copy_atomic: bool = False
    deps: dict[int, frozenset[str]] = field(default_factory=dict, compare=False, repr=False)

    def definition(self, name: str) -> Expr | None:
        """The expression defining ``name``, or None for a base relation."""
        for n, e in self.definitions:
            if n == name:
                return e
        return None


# ------------------------------------------------------------------------- evaluation


Value = int | Rel


def axiom_holds(kind: str, r: Rel) -> bool:
    """Whether an axiom of ``kind`` (acyclic, irreflexive, empty) holds of relation ``r``."""
    if kind == "acyclic":
        return is_acyclic(r)
    if kind == "irreflexive":
        return is_irreflexive(r)
    if kind == "empty":
        return is_empty(r)
    raise ValueError(f"unknown axiom kind {kind!r}")


class Interpreter:
    """Evaluates a model's expressions over one execution by walking them, caching by dependency
    (the reference for :class:`litmus.model.compiled.Evaluator`, which the checker uses).

    ``set(name, value)`` installs a base relation or set and forgets every cached value that
    depends on it; ``value(expr)`` evaluates with caching.
    """

    def __init__(self, model: Model, n: int, base: dict[str, Value] | None = None):
        self.model = model
        self.n = n
        self.base: dict[str, Value] = dict(base or {})
        self.cache: dict[int, Value] = {}
        self._defs = _definitions(model)
        self._dependents = _dependents(model)

    def set(self, name: str, value: Value) -> None:
        """Install base ``name`` and invalidate what depends on it."""
        self.base[name] = value
        cache = self.cache
        if cache:
            for key in self._dependents.get(name, ()):
                if key in cache:
                    del cache[key]

    def value(self, e: Expr) -> Value:
        """The value of ``e`` (a bitmask for a set, a :data:`Rel` for a relation)."""
        key = id(e)
        cache = self.cache
        if key in cache:
            return cache[key]
        if isinstance(e, Base):
            if e.name in self.base:
                out = self.base[e.name]
            else:
                d = self._defs.get(e.name)
                if d is None:
                    raise KeyError(f"model {self.model.name!r}: unknown relation or set {e.name!r}")
                out = self.value(d)
        else:
            out = _OPS[e.kind](self, e)  # type: ignore[attr-defined]
        cache[key] = out
        return out

    def holds(self, ax: Axiom) -> bool:
        """Whether axiom ``ax`` holds."""
        return axiom_holds(ax.kind, self.value(ax.expr))  # type: ignore[arg-type]


def _arg(ev: Interpreter, a: Expr) -> Value:
    # the cache lookup of Evaluator.value, inlined for the operators' operands (hot path)
    out = ev.cache.get(id(a))
    return ev.value(a) if out is None else out


def _binary(ev: Interpreter, e: Op) -> Value:
    x, y = e.args
    a = ev.cache.get(id(x))
    if a is None:
        a = ev.value(x)
    k = e.kind
    if k != "union" and not (a if e.is_set else any(a)):  # type: ignore[arg-type]
        return a  # empty & y, empty - y: empty, without evaluating y (e.g. no fence.sc at all)
    b = ev.cache.get(id(y))
    if b is None:
        b = ev.value(y)
    if e.is_set:
        return a | b if k == "union" else a & b if k == "inter" else a & ~b  # type: ignore[operator]
    return _REL2[k](a, b)  # type: ignore[arg-type]


def _seq(ev: Interpreter, e: Op) -> Value:
    # ``[S]`` factors are applied as masks (rows kept / columns kept), not composed
    acc: Rel | None = None
    lead = -1  # [S] factors before the first relation: the rows that may start a path
    for p in e.args:
        if isinstance(p, Op) and p.kind == "ident":
            s: int = _arg(ev, p.args[0])  # type: ignore[assignment]
            if acc is None:
                lead &= s
                if not lead:  # no path can start: the rest is not evaluated
                    return [0] * ev.n
            else:
                acc = [row & s for row in acc]
        else:
            v: Rel = _arg(ev, p)  # type: ignore[assignment]
            if acc is None:
                acc = v if lead == -1 else [row if (lead >> i) & 1 else 0 for i, row in enumerate(v)]
            else:
                acc = r_seq(acc, v)
            if not any(acc):
                return acc
    if acc is None:
        return r_id(lead & ((1 << ev.n) - 1), ev.n)
    return acc


_OPS: dict[str, Callable[[Interpreter, Op], Value]] = {
    "union": _binary,
    "inter": _binary,
    "diff": _binary,
    "seq": _seq,
    "inv": lambda ev, e: r_inv(_arg(ev, e.args[0])),  # type: ignore[arg-type]
    "plus": lambda ev, e: r_plus(_arg(ev, e.args[0])),  # type: ignore[arg-type]
    "opt": lambda ev, e: r_opt(_arg(ev, e.args[0])),  # type: ignore[arg-type]
    "ident": lambda ev, e: r_id(_arg(ev, e.args[0]), ev.n),  # type: ignore[arg-type]
    "prod": lambda ev, e: r_prod(_arg(ev, e.args[0]), _arg(ev, e.args[1]), ev.n),  # type: ignore[arg-type]
    "domain": lambda ev, e: r_domain(_arg(ev, e.args[0])),  # type: ignore[arg-type]
    "range": lambda ev, e: r_range(_arg(ev, e.args[0])),  # type: ignore[arg-type]
}


_DEFS: dict[int, tuple[Model, dict[str, Expr]]] = {}


def _definitions(model: Model) -> dict[str, Expr]:
    hit = _DEFS.get(id(model))
    if hit is None or hit[0] is not model:
        hit = (model, dict(model.definitions))
        _DEFS[id(model)] = hit
    return hit[1]


_REL2: dict[str, Callable[[Rel, Rel], Rel]] = {"union": r_union, "inter": r_inter, "diff": r_diff}


def expr_deps(model: Model, e: Expr, memo: dict[int, frozenset[str]] | None = None) -> frozenset[str]:
    """The base (non-definition) names ``e`` depends on."""
    memo = model.deps if memo is None else memo
    key = id(e)
    if key in memo:
        return memo[key]
    if isinstance(e, Base):
        d = model.definition(e.name)
        out = frozenset([e.name]) if d is None else expr_deps(model, d, memo)
    else:
        assert isinstance(e, Op)
        out = frozenset().union(*(expr_deps(model, a, memo) for a in e.args))
    memo[key] = out
    return out


def _walk(e: Expr, seen: dict[int, Expr]) -> None:
    if id(e) in seen:
        return
    seen[id(e)] = e
    if isinstance(e, Op):
        for a in e.args:
            _walk(a, seen)


_DEPENDENTS: dict[int, tuple[Model, dict[str, list[int]]]] = {}


def _dependents(model: Model) -> dict[str, list[int]]:
    """Base name -> ids of every expression node of ``model`` that depends on it (memoised)."""
    hit = _DEPENDENTS.get(id(model))
    if hit is not None and hit[0] is model:
        return hit[1]
    nodes: dict[int, Expr] = {}
    roots: list[Expr] = [e for _, e in model.definitions] + [a.expr for a in model.axioms]
    for o in model.orders:
        roots.append(o.pairs)
        if o.must is not None:
            roots.append(o.must)
    for r in roots:
        _walk(r, nodes)
    out: dict[str, list[int]] = {}
    for key, node in nodes.items():
        for name in expr_deps(model, node):
            out.setdefault(name, []).append(key)
    _DEPENDENTS[id(model)] = (model, out)
    return out


def rel_from_pairs(n: int, ps: Sequence[tuple[int, int]]) -> Rel:
    """A relation from a list of pairs."""
    rows = [0] * n
    for i, j in ps:
        rows[i] |= 1 << j
    return rows


def vanishes_without(model: Model, e: Expr, name: str) -> bool:
    """Whether ``e`` is empty whenever the base relation ``name`` is (a sufficient, syntactic
    test: a sequence or intersection with a factor that vanishes, a union of such, ...)."""
    if isinstance(e, Base):
        d = model.definition(e.name)
        return e.name == name if d is None else vanishes_without(model, d, name)
    assert isinstance(e, Op)
    if e.kind in ("seq", "inter"):
        return any(vanishes_without(model, a, name) for a in e.args)
    if e.kind == "union":
        return all(vanishes_without(model, a, name) for a in e.args)
    if e.kind in ("diff", "inv", "plus", "domain", "range"):
        return vanishes_without(model, e.args[0], name)
    return False  # opt, ident, prod: not empty for an empty argument in general


_MONOTONE: dict[tuple[int, int, str, bool], tuple[Model, Expr, bool]] = {}


def monotone_in(model: Model, e: Expr, name: str, _positive: bool = True) -> bool:
    """Whether ``e`` can only grow when base relation ``name`` grows (it never appears on the
    right of a difference)."""
    key = (id(model), id(e), name, _positive)
    hit = _MONOTONE.get(key)
    if hit is not None and hit[0] is model and hit[1] is e:
        return hit[2]
    out = _monotone_in(model, e, name, _positive)
    _MONOTONE[key] = (model, e, out)
    return out


def _monotone_in(model: Model, e: Expr, name: str, _positive: bool) -> bool:
    if isinstance(e, Base):
        d = model.definition(e.name)
        if d is None:
            return _positive or e.name != name
        return monotone_in(model, d, name, _positive)
    assert isinstance(e, Op)
    if e.kind == "diff":
        return monotone_in(model, e.args[0], name, _positive) and monotone_in(
            model, e.args[1], name, not _positive)
    return all(monotone_in(model, a, name, _positive) for a in e.args)
