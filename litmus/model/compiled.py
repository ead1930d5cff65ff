"""A model's expressions compiled to Python functions, and the :class:`Evaluator` that runs them.

:class:`~litmus.model.relations.Interpreter` walks the expression tree on every evaluation (a
method call, an ``isinstance`` test, a dictionary look-up and a dispatch per node).  Here each
model is compiled once (memoised) into a :class:`Program`: every distinct sub-expression gets a
*slot* in a flat list (structurally equal sub-expressions share one, a named definition shares
its expression's), and a generated function per slot computes its value from its operands'
slots, fetching each operand from the list or computing it on a miss.  The model stays data:
the functions are generated from the expressions, one template per operator, with the same
short cuts as the interpreter (an empty left operand of ``&`` or ``\\`` skips the right one; a
sequence stops at the first empty prefix and applies ``[S]`` factors as masks).

Invalidation: slots are ordered by *stage*, the latest of the names a slot depends on in
``rf`` then the model's chosen orders (static names come first).  Installing a name of stage
``s`` forgets every slot of stage ``s`` or later with one slice assignment; the slots it
forgets without depending on the name depend on a later stage's name, which the enumeration
always installs again before reading them.

Axiom checks compile too: :meth:`Program.checker` turns a tuple of axioms into one function
that fetches each axiom's relation and tests it, stopping at the first that fails.
"""

from __future__ import annotations

from typing import Callable, Sequence

from litmus.model.relations import (
    Axiom,
    Base,
    Expr,
    Model,
    Op,
    Value,
    axiom_holds,
    is_acyclic,
    is_irreflexive,
    r_domain,
    r_id,
    r_inv,
    r_opt,
    r_plus,
    r_prod,
    r_range,
    r_seq,
)

_N = 0  # slot 0 holds the number of events


class Program:
    """A model compiled: slots, the generated function of each, and what to forget per name.

    ``slot_of[id(expr)]`` is the slot of every expression node of the model (and of the
    expressions compiled later by :meth:`slot`); ``base_slot[name]`` the slot of a base
    relation or set; ``funcs[slot]`` computes and stores a slot's value given the slot list.
    """

    def __init__(self, model: Model):
        self.model = model
        self.dynamic: tuple[str, ...] = ("rf",) + tuple(o.name for o in model.orders)
        self._defs = dict(model.definitions)
        self.base_slot: dict[str, int] = {}
        self.slot_of: dict[int, int] = {}
        self._keep: list[Expr] = []  # the compiled nodes, alive while their ids are keys
        # node key -> temporary node index; node: (key, stage, kind, is_set, operand node indices)
        self._by_key: dict[tuple, int] = {}
        self._nodes: list[tuple[tuple, int, str, bool, tuple[int, ...]]] = []
        self._node_of: dict[int, int] = {}
        roots: list[Expr] = [e for _, e in model.definitions] + [a.expr for a in model.axioms]
        for o in model.orders:
            roots.append(o.pairs)
            if o.must is not None:
                roots.append(o.must)
        if model.coherent is not None:
            roots.append(model.coherent)
        for r in roots:
            self._node(r)
        self._checkers: dict[tuple[int, ...], Callable[[list], bool]] = {}
        self._build()

    # ---------------------------------------------------------------- structure

    def _stage(self, name: str) -> int:
        return self.dynamic.index(name) if name in self.dynamic else -1

    def _node(self, e: Expr) -> int:
        """The node index of ``e`` (created with its operands' on first sight)."""
        hit = self._node_of.get(id(e))
        if hit is not None:
            return hit
        if isinstance(e, Base):
            d = self._defs.get(e.name)
            if d is not None:
                out = self._node(d)
            else:
                out = self._intern(("base", e.name), self._stage(e.name), "base", e.is_set, ())
        else:
            assert isinstance(e, Op)
            if e.kind == "union" and not e.is_set:
                parts: list[int] = []
                self._union_parts(e, parts)
                args = tuple(parts)
            else:
                args = tuple(self._node(a) for a in e.args)
            stage = max([self._nodes[a][1] for a in args] + [-1])
            out = self._intern((e.kind, e.is_set, args), stage, e.kind, e.is_set, args)
        self._node_of[id(e)] = out
        self._keep.append(e)
        return out

    def _union_parts(self, e: Expr, out: list[int]) -> None:
        """The operands of a chain of relation unions, flattened (``(a | b) | c``: a, b, c)."""
        if isinstance(e, Op) and e.kind == "union" and not e.is_set:
            for a in e.args:
                self._union_parts(a, out)
            self._keep.append(e)
        else:
            out.append(self._node(e))

    def _intern(self, key: tuple, stage: int, kind: str, is_set: bool, args: tuple[int, ...]) -> int:
        hit = self._by_key.get(key)
        if hit is None:
            hit = self._by_key[key] = len(self._nodes)
            self._nodes.append((key, stage, kind, is_set, args))
        return hit

    def _build(self) -> None:
        """Number the slots (bases, then the rest by stage) and generate every function."""
        bases = [k for k, nd in enumerate(self._nodes) if nd[2] == "base"]
        derived = sorted((k for k, nd in enumerate(self._nodes) if nd[2] != "base"),
                         key=lambda k: self._nodes[k][1])
        slot = {k: 1 + i for i, k in enumerate(bases + derived)}
        self.nslots = 1 + len(bases) + len(derived)
        self.base_slot = {self._nodes[k][0][1]: slot[k] for k in bases}
        first = 1 + len(bases)
        # start[s]: the first slot of stage s or later (len(dynamic) + 1 entries: static too)
        stages = [self._nodes[k][1] for k in derived]
        self.start: dict[int, int] = {}
        for s in range(-1, len(self.dynamic)):
            at = next((i for i, st in enumerate(stages) if st >= s), len(stages))
            self.start[s] = first + at
        self._tails = {s: [None] * (self.nslots - at) for s, at in self.start.items()}
        self.slot_of = {i: slot[k] for i, k in self._node_of.items()}
        src: list[str] = []
        for k in bases:
            s = slot[k]
            src.append(f"def f_{s}(c):\n    raise _missing({self._nodes[k][0][1]!r})\n")
        for k in derived:
            src.append(self._source(slot[k], self._nodes[k], slot))
        ns: dict[str, object] = {
            "_missing": self._missing, "r_seq": r_seq, "r_inv": r_inv, "r_plus": r_plus,
            "r_opt": r_opt, "r_id": r_id, "r_prod": r_prod, "r_domain": r_domain, "r_range": r_range,
        }
        exec(compile("\n".join(src), f"<compiled model {self.model.name}>", "exec"), ns)  # noqa: S102
        self.funcs: list[Callable[[list], Value] | None] = [None] * self.nslots
        for s in range(1, self.nslots):
            self.funcs[s] = ns[f"f_{s}"]  # type: ignore[assignment]
        self._ns = ns

    def _missing(self, name: str) -> KeyError:
        return KeyError(f"model {self.model.name!r}: unknown relation or set {name!r}")

    @staticmethod
    def _fetch(var: str, s: int) -> str:
        return f"    {var} = c[{s}]\n    if {var} is None: {var} = f_{s}(c)\n"

    def _source(self, s: int, node: tuple, slot: dict[int, int]) -> str:
        """The function of slot ``s`` computing ``node``."""
        _, _, kind, is_set, args = node
        a = [slot[x] for x in args]
        f = self._fetch
        body = ""
        if kind in ("union", "inter", "diff") and is_set:
            body += f("a", a[0])
            if kind != "union":
                body += "    if not a:\n        c[%d] = a\n        return a\n" % s
            body += f("b", a[1])
            body += "    v = " + {"union": "a | b", "inter": "a & b", "diff": "a & ~b"}[kind] + "\n"
        elif kind == "union":
            # n-ary, empty operands skipped (a union of one non-empty operand is that operand)
            body += "    v = None\n"
            for i, x in enumerate(a):
                body += f(f"p{i}", x)
                body += (f"    if any(p{i}):\n        v = p{i} if v is None else "
                         f"[x | y for x, y in zip(v, p{i})]\n")
            body += "    if v is None:\n        v = p0\n"
        elif kind in ("inter", "diff"):
            body += f("a", a[0])
            body += "    if not any(a):\n        c[%d] = a\n        return a\n" % s
            body += f("b", a[1])
            op = "x & y" if kind == "inter" else "x & ~y"
            body += f"    v = [{op} for x, y in zip(a, b)]\n"
        elif kind == "seq":
            body += self._seq_source(s, args, slot)
        elif kind == "inv":
            body += f("a", a[0]) + "    v = r_inv(a)\n"
        elif kind == "plus":
            body += f("a", a[0]) + "    v = r_plus(a)\n"
        elif kind == "opt":
            body += f("a", a[0]) + "    v = r_opt(a)\n"
        elif kind == "ident":
            body += f("a", a[0]) + f"    v = r_id(a, c[{_N}])\n"
        elif kind == "prod":
            body += f("a", a[0]) + f("b", a[1]) + f"    v = r_prod(a, b, c[{_N}])\n"
        elif kind == "domain":
            body += f("a", a[0]) + "    v = r_domain(a)\n"
        elif kind == "range":
            body += f("a", a[0]) + "    v = r_range(a)\n"
        else:
            raise ValueError(f"model {self.model.name!r}: unknown operator {kind!r}")
        return f"def f_{s}(c):\n{body}    c[{s}] = v\n    return v\n"

    def _seq_source(self, s: int, args: tuple[int, ...], slot: dict[int, int]) -> str:
        """``a ; b ; ...``: ``[S]`` factors as masks (leading ones select rows, later ones
        columns), composition otherwise; an empty prefix ends it (the result is empty)."""
        f = self._fetch
        out = ""
        lead = False  # some [S] factor came before the first relation
        acc = False  # a relation has been composed in
        ret = f"        c[{s}] = acc\n        return acc\n"
        for x in args:
            node = self._nodes[x]
            if node[2] == "ident":
                out += f("m", slot[node[4][0]])
                if not acc:
                    out += "    lead = m\n" if not lead else "    lead &= m\n"
                    out += f"    if not lead:\n        acc = [0] * c[{_N}]\n" + ret
                    lead = True
                else:
                    out += "    acc = [row & m for row in acc]\n"
                    out += "    if not any(acc):\n" + ret
            else:
                out += f("r", slot[x])
                if not acc:
                    if lead:
                        out += "    acc = [row if (lead >> i) & 1 else 0 for i, row in enumerate(r)]\n"
                    else:
                        out += "    acc = r\n"
                    acc = True
                else:
                    out += "    acc = r_seq(acc, r)\n"
                out += "    if not any(acc):\n" + ret
        if not acc:
            out += f"    acc = r_id(lead & ((1 << c[{_N}]) - 1), c[{_N}])\n"
        return out + "    v = acc\n"

    # ---------------------------------------------------------------- use

    def slot(self, e: Expr) -> int | None:
        """The slot of ``e``, None when ``e`` is not part of the compiled model."""
        return self.slot_of.get(id(e))

    def checker(self, axioms: Sequence[Axiom]) -> Callable[[list], bool]:
        """One function of the slot list: whether every axiom of ``axioms`` holds (memoised)."""
        key = tuple(id(ax) for ax in axioms)
        hit = self._checkers.get(key)
        if hit is not None:
            return hit
        body = ""
        for ax in axioms:
            s = self.slot(ax.expr)
            if s is None:
                raise ValueError(f"model {self.model.name!r}: axiom {ax.name!r} is not one of the model's")
            body += self._fetch("v", s)
            if ax.kind == "empty":
                body += "    if any(v): return False\n"
            elif ax.kind == "irreflexive":
                body += "    if not is_irreflexive(v): return False\n"
            elif ax.kind == "acyclic":
                body += "    if not is_acyclic(v): return False\n"
            else:
                raise ValueError(f"unknown axiom kind {ax.kind!r}")
        ns = dict(self._ns)
        ns.update(is_irreflexive=is_irreflexive, is_acyclic=is_acyclic)
        exec(compile(f"def check(c):\n{body}    return True\n",  # noqa: S102
                     f"<compiled axioms {self.model.name}>", "exec"), ns)
        fn: Callable[[list], bool] = ns["check"]  # type: ignore[assignment]
        self._checkers[key] = fn
        for ax in axioms:
            self._keep.append(ax.expr)
        return fn


_PROGRAMS: dict[int, tuple[Model, Program]] = {}


def program(model: Model) -> Program:
    """The compiled program of ``model`` (memoised)."""
    hit = _PROGRAMS.get(id(model))
    if hit is not None and hit[0] is model:
        return hit[1]
    prog = Program(model)
    _PROGRAMS[id(model)] = (model, prog)
    return prog


class Evaluator:
    """Evaluates a model's expressions over one execution with its compiled :class:`Program`.

    The same interface as :class:`~litmus.model.relations.Interpreter`: ``set(name, value)``
    installs a base relation or set and forgets what may depend on it; ``value(expr)``
    evaluates (cached); ``holds(axiom)``.  ``c`` is the slot list the compiled functions read
    (``checker(axioms)(ev.c)`` tests several axioms at once).
    """

    __slots__ = ("model", "n", "prog", "c", "_extra")

    def __init__(self, model: Model, n: int, base: dict[str, Value] | None = None):
        self.model = model
        self.n = n
        self.prog = prog = program(model)
        c: list = [None] * prog.nslots
        c[_N] = n
        self._extra: dict[str, Value] = {}
        bs = prog.base_slot
        for name, v in (base or {}).items():
            s = bs.get(name)
            if s is None:
                self._extra[name] = v
            else:
                c[s] = v
        self.c = c

    @property
    def base(self) -> dict[str, Value]:
        """The installed base relations and sets, by name."""
        out = dict(self._extra)
        for name, s in self.prog.base_slot.items():
            if self.c[s] is not None:
                out[name] = self.c[s]
        return out

    def get(self, name: str) -> Value:
        """The installed base relation or set ``name``."""
        s = self.prog.base_slot.get(name)
        return self._extra[name] if s is None else self.c[s]

    def set(self, name: str, value: Value) -> None:
        """Install base ``name`` and forget what may depend on it."""
        prog = self.prog
        s = prog.base_slot.get(name)
        if s is None:
            self._extra[name] = value
            return
        c = self.c
        c[s] = value
        at = prog.start[prog._stage(name)]
        c[at:] = prog._tails[prog._stage(name)]

    def setter(self, name: str) -> Callable[[Value], None]:
        """A function installing ``name`` (``set`` with the look-ups done once)."""
        prog = self.prog
        s = prog.base_slot.get(name)
        if s is None:
            return lambda value: self.set(name, value)
        stage = prog._stage(name)
        at, tail, c = prog.start[stage], prog._tails[stage], self.c

        def install(value: Value) -> None:
            c[s] = value
            c[at:] = tail
        return install

    def value(self, e: Expr) -> Value:
        """The value of ``e`` (a bitmask for a set, a relation for a relation)."""
        s = self.prog.slot_of.get(id(e))
        if s is not None:
            v = self.c[s]
            return self.prog.funcs[s](self.c) if v is None else v  # type: ignore[misc]
        return self._interpret(e)

    def _interpret(self, e: Expr) -> Value:
        """The value of an expression that is not part of the compiled model (uncached)."""
        from litmus.model.relations import _OPS, Interpreter

        if isinstance(e, Base):
            s = self.prog.base_slot.get(e.name)
            if s is not None and self.c[s] is not None:
                return self.c[s]
            if e.name in self._extra:
                return self._extra[e.name]
            d = self.prog._defs.get(e.name)
            if d is None:
                raise self.prog._missing(e.name)
            return self.value(d)
        shim = Interpreter(self.model, self.n)
        shim.value = self.value  # type: ignore[method-assign]  # operands through this evaluator
        return _OPS[e.kind](shim, e)  # type: ignore[attr-defined]

    def holds(self, ax: Axiom) -> bool:
        """Whether axiom ``ax`` holds."""
        return axiom_holds(ax.kind, self.value(ax.expr))  # type: ignore[arg-type]

