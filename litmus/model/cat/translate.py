"""Cat statements -> a :class:`~litmus.model.relations.Model`: names resolved (shadowing as in
herd: a ``let`` hides what the name meant before, for the statements after it), types checked
(set or relation), ``let rec`` solved (:mod:`litmus.model.cat.recursion`), axioms collected.

What the checker needs beyond the statements (its chosen orders, its flags) comes from a
profile (:mod:`litmus.model.cat.profiles`), applied by :func:`to_model`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Sequence

from litmus.errors import LitmusError
from litmus.model.cat.ast import (
    AxiomStmt,
    Binary,
    Binding,
    Call,
    CatExpr,
    Include,
    Let,
    Loc,
    Name,
    Show,
    Statement,
    Unary,
)
from litmus.model.cat.bases import BASES, POLYMORPHIC, provided
from litmus.model.cat.recursion import EMPTY, Unsolvable, solve
from litmus.model.relations import (
    Axiom,
    Base,
    Expr,
    Op,
    domain,
    eset,
    ident,
    inv,
    opt,
    plus,
    prod,
    rng,
    seq,
    star,
)

_ALL = eset("ALL")
_EMPTY_SET = _ALL - _ALL
_UNIVERSAL = prod(_ALL, _ALL)

SET, REL = "set", "relation"


def _reserved() -> set[str]:
    """The checker's own base names: no definition may take one (it would hide the base)."""
    out: set[str] = {"ALL", "rf", "co", "sf"}

    def walk(e: Expr) -> None:
        if isinstance(e, Base):
            out.add(e.name)
        else:
            for a in e.args:  # type: ignore[attr-defined]
                walk(a)

    for b in BASES.values():
        walk(b.expr)
    return out


@dataclass
class Translation:
    """What the statements of one cat file (includes expanded) define."""

    definitions: list[tuple[str, Expr]] = field(default_factory=list)
    axioms: list[Axiom] = field(default_factory=list)
    env: dict[str, Expr] = field(default_factory=dict)  # cat name -> what it means after the last statement
    bases_used: set[str] = field(default_factory=set)  # the cat names of BASES the file refers to
    _taken: set[str] = field(default_factory=_reserved, repr=False)  # names no new definition may take

    # ------------------------------------------------------------------ statements

    def statement(self, s: Statement) -> None:
        """Add one statement (an ``include`` must have been expanded by the caller)."""
        if isinstance(s, Let):
            self._let(s)
        elif isinstance(s, AxiomStmt):
            self._axiom(s)
        elif isinstance(s, Show):
            pass  # display only
        else:
            assert isinstance(s, Include)
            raise AssertionError("include is expanded by litmus.model.cat.load")

    def _let(self, s: Let) -> None:
        for b in s.bindings:
            if b.params is not None:
                raise _err(b.loc, f"'{b.name}({', '.join(b.params)})': cat functions are not supported; "
                           "write the function's body out where it is used")
        seen: set[str] = set()
        for b in s.bindings:
            if b.name in seen:
                raise _err(b.loc, f"'{b.name}' is bound twice in one let; give each binding its own name")
            seen.add(b.name)
        if not s.rec:
            # ``let a = e and b = f``: every right-hand side sees the names as they were before
            values = [self.expr(b.expr) for b in s.bindings]
            for b, v in zip(s.bindings, values):
                self._define(b.name, v)
            return
        self._let_rec(s.bindings)

    def _let_rec(self, bindings: Sequence[Binding]) -> None:
        holders = {b.name: Base(f"<rec {b.name}>") for b in bindings}  # the unknowns, while solving
        outer = dict(self.env)
        self.env.update(holders)
        try:
            bodies = [self.expr(b.expr, REL) for b in bindings]
        finally:
            self.env = outer
        for b, body in zip(bindings, bodies):
            if body.is_set:
                raise _err(b.loc, f"'{b.name}' is a set defined by let rec; only relations can be recursive here")
        try:
            forms = solve([(holders[b.name], body) for b, body in zip(bindings, bodies)])
        except Unsolvable as err:
            raise _err(bindings[0].loc, f"let rec {', '.join(holders)}: {err}") from None
        for b in bindings:
            self._define(b.name, forms[holders[b.name].name])

    def _define(self, name: str, value: Expr) -> None:
        # the definition gets the cat name unless a base or an earlier let has it: then name',
        # name'', ... (``let co = co+`` must not hide the chosen co from the checker)
        internal = name
        while internal in self._taken:
            internal += "'"
        self._taken.add(internal)
        self.definitions.append((internal, value))
        self.env[name] = Base(internal, value.is_set)

    def _axiom(self, s: AxiomStmt) -> None:
        if s.negated and not s.flag:
            raise _err(s.loc, f"'~{s.kind}': negated axioms are not supported; state the property itself")
        e = self.expr(s.expr)
        name = s.name or f"{s.kind}@{s.loc.line}"
        if e.is_set:
            if s.kind != "empty":
                raise _err(s.expr.loc, f"{s.kind} needs a relation; {_show(s.expr)} is a set "
                           f"(write [{_show(s.expr)}] for the identity on it)")
            e = ident(e)  # a set is empty iff the identity on it is
        if s.flag:
            return  # a flag reports, it does not constrain: no verdict depends on it
        self.axioms.append(Axiom(s.kind, e, name))

    # ------------------------------------------------------------------ expressions

    def expr(self, node: CatExpr, want: str | None = None) -> Expr:
        """The algebra expression of ``node``; ``want`` (SET, REL) types ``_`` and ``0``."""
        if isinstance(node, Name):
            return self._name(node, want)
        if isinstance(node, Call):
            raise _err(node.loc, f"'{node.name}(...)': cat functions are not supported")
        if isinstance(node, Unary):
            return self._unary(node, want)
        assert isinstance(node, Binary)
        return self._binary(node, want)

    def _name(self, node: Name, want: str | None) -> Expr:
        n = node.name
        hit = self.env.get(n)
        if hit is not None:
            return hit
        if n == "_":
            return _ALL if want == SET else _UNIVERSAL
        if n == "0":
            return _EMPTY_SET if want == SET else EMPTY
        base = BASES.get(n)
        if base is None:
            raise _err(node.loc, f"unknown base relation {n!r}: not defined by a let above and not one "
                       f"the checker provides; the checker provides: {provided()}")
        self.bases_used.add(n)
        return base.expr

    def kind(self, node: CatExpr) -> str | None:
        """SET or REL as far as ``node`` says by itself (None: only ``_``/``0`` inside)."""
        if isinstance(node, Name):
            hit = self.env.get(node.name)
            if hit is not None:
                return SET if hit.is_set else REL
            if node.name in POLYMORPHIC:
                return None
            base = BASES.get(node.name)
            return None if base is None else SET if base.expr.is_set else REL
        if isinstance(node, Call):
            return None
        if isinstance(node, Unary):
            if node.op == "compl":
                return self.kind(node.arg)
            return SET if node.op in ("domain", "range") else REL
        if node.op in ("seq", "prod"):
            return REL
        return self.kind(node.left) or self.kind(node.right)

    def _unary(self, node: Unary, want: str | None) -> Expr:
        op = node.op
        if op == "compl":
            a = self.expr(node.arg, want or self.kind(node.arg))
            return (_ALL - a) if a.is_set else (_UNIVERSAL - a)
        if op == "ident":
            return ident(self._typed(node.arg, SET, "[...] (the identity on a set)"))
        if op in ("domain", "range"):
            a = self._typed(node.arg, REL, f"{op}(...)")
            return domain(a) if op == "domain" else rng(a)
        a = self._typed(node.arg, REL, f"'{_POST[op]}'")
        return {"inv": inv, "plus": plus, "star": star, "opt": opt}[op](a)

    def _binary(self, node: Binary, want: str | None) -> Expr:
        op = node.op
        if op == "prod":
            return prod(self._typed(node.left, SET, "'*' (cartesian product)"),
                        self._typed(node.right, SET, "'*' (cartesian product)"))
        if op == "seq":
            parts: list[Expr] = []
            for part in _seq_parts(node):
                e = self._typed(part, REL, "';'")
                # flattened, as the built-in models write it: the evaluator applies [S] factors as masks
                parts.extend(e.args if isinstance(e, Op) and e.kind == "seq" else (e,))
            return seq(*parts)
        k = self.kind(node) or want or REL
        a = self.expr(node.left, k)
        b = self.expr(node.right, k)
        if a.is_set != b.is_set:
            sym = {"union": "|", "inter": "&", "diff": "\\"}[op]
            s_node, r_node = (node.left, node.right) if a.is_set else (node.right, node.left)
            raise _err(node.loc, f"'{sym}' of a set ({_show(s_node)}) and a relation ({_show(r_node)}); "
                       f"write [{_show(s_node)}] to make the set a relation")
        return {"union": a.__or__, "inter": a.__and__, "diff": a.__sub__}[op](b)

    def _typed(self, node: CatExpr, want: str, what: str) -> Expr:
        e = self.expr(node, want)
        if e.is_set != (want == SET):
            if want == REL:
                fix = f"write [{_show(node)}] for the identity on it"
            else:
                fix = "domain(r) and range(r) are the sets a relation r relates"
            raise _err(node.loc, f"{what} needs a {want}; {_show(node)} is a {SET if e.is_set else REL} ({fix})")
        return e


def _seq_parts(node: CatExpr) -> list[CatExpr]:
    if isinstance(node, Binary) and node.op == "seq":
        return _seq_parts(node.left) + _seq_parts(node.right)
    return [node]


def _err(loc: Loc, message: str) -> LitmusError:
    return LitmusError.at(loc.file, loc.line, message, loc.column)


_SYM = {"union": " | ", "inter": " & ", "diff": " \\ ", "seq": "; ", "prod": " * "}
_POST = {"inv": "^-1", "plus": "+", "star": "*", "opt": "?"}


def _show(node: CatExpr, limit: int = 40) -> str:
    """``node`` as cat text (shortened), to name it in a message."""
    text = _text(node)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _text(node: CatExpr) -> str:
    if isinstance(node, Name):
        return node.name
    if isinstance(node, Call):
        return f"{node.name}({', '.join(_text(a) for a in node.args)})"
    if isinstance(node, Unary):
        inner = _text(node.arg)
        if node.op in _POST:
            return (inner if isinstance(node.arg, Name) else f"({inner})") + _POST[node.op]
        if node.op == "ident":
            return f"[{inner}]"
        if node.op == "compl":
            return f"~{inner}"
        return f"{node.op}({inner})"
    return f"({_text(node.left)}{_SYM[node.op]}{_text(node.right)})"
