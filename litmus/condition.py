"""Herd-style final conditions: parse text to :mod:`litmus.ir` props, print them, evaluate them.

Grammar (shared by the YAML catalog and PTX ``.litmus`` files)::

    prop   := disj
    disj   := conj (('\\/' | '||' | 'or') conj)*
    conj   := unary (('/\\' | '&&' | 'and') unary)*
    unary  := ('~' | 'not' | '!') unary | '(' prop ')' | 'true' | cmp
    cmp    := term ('==' | '=' | '!=' | '<' | '<=' | '>' | '>=') term
    term   := THREAD ':' REG | LOCATION | INT       (INT: decimal, or hex 0x...)

``THREAD`` is ``P1`` or just ``1`` (herd accepts both); it is normalised to ``P1``.
A single ``=`` means ``==``.
"""

from __future__ import annotations

import re
from typing import Mapping

from litmus.errors import LitmusError
from litmus.limits import CONDITION_DEPTH
from litmus.ir import COMPARE, And, Cmp, CondKind, Const, LocRef, Not, Or, Prop, RegRef, Term, TrueProp

# ----------------------------------------------------------------------------- condition kinds

KIND_TEXT: dict[str, str] = {"exists": "exists", "not_exists": "~exists", "forall": "forall"}
"""How each condition kind is written (herd, the catalog and ``.litmus`` files)."""

KIND_WORDS: dict[str, CondKind] = {"exists": "exists", "~exists": "not_exists", "not_exists": "not_exists",
                                   "forall": "forall"}
"""Every spelling a condition kind is read from (``~ exists`` with spaces is ``~exists``)."""


def kind_text(kind: str) -> str:
    """The written form of condition kind ``kind`` (``not_exists`` -> ``~exists``)."""
    return KIND_TEXT[kind]


def parse_kind(word: str) -> CondKind:
    """The condition kind spelled ``word`` (``exists``, ``~exists``, ``not_exists``, ``forall``).

    Raises ``ValueError`` naming the accepted spellings.
    """
    key = re.sub(r"\s+", "", word)
    if key not in KIND_WORDS:
        raise ValueError(f"condition kind {word!r}; use exists, ~exists (or not_exists) or forall")
    return KIND_WORDS[key]


def in_target(kind: str, holds: bool) -> bool:
    """Whether a state where the condition's prop ``holds`` is in the *target outcome*: the
    outcome the condition is about.  ``exists``/``~exists``: the prop; ``forall``: its negation
    (a counter-example)."""
    return (not holds) if kind == "forall" else holds


def validated(kind: str, holds: list[bool]) -> bool:
    """Herd's verdict over the allowed states (``holds[i]``: the prop holds in state i):
    ``exists`` iff some state satisfies it, ``~exists`` iff none does, ``forall`` iff all do."""
    if kind == "exists":
        return any(holds)
    if kind == "not_exists":
        return not any(holds)
    if kind == "forall":
        return all(holds)
    raise ValueError(f"unknown condition kind {kind!r}; use exists, ~exists or forall")


def validated_means_reachable(kind: str) -> bool:
    """Whether a validated condition means its target outcome is reachable (``exists``), or
    unreachable (``~exists``: none satisfies the prop; ``forall``: no counter-example)."""
    return kind == "exists"


def target_reachable(kind: str, holds: list[bool]) -> bool:
    """Whether some allowed state lies in the target outcome (see :func:`in_target`)."""
    return any(in_target(kind, h) for h in holds)

_TOKEN = re.compile(
    r"\s*(?:(?P<op>/\\|\\/|\|\||&&|==|!=|<=|>=|<|>|=|~|!|\(|\))"
    r"|(?P<reg>(?:P)?\d+:[A-Za-z_][A-Za-z0-9_]*)"
    r"|(?P<int>-?0[xX][0-9a-fA-F]+|-?\d+)"
    r"|(?P<name>[A-Za-z_][A-Za-z0-9_.\[\]]*))"
)


def max_depth() -> int:
    """The bound on nested ``( )`` and ``~`` in one condition (:data:`litmus.limits.CONDITION_DEPTH`):
    the parser, the printer and the evaluator recurse this deep, never deeper."""
    return CONDITION_DEPTH.value


_REST_BLANK = re.compile(r"\s*\Z")


class ConditionSyntaxError(ValueError):
    """Bad condition text; ``column`` is 1-based within the condition text."""

    def __init__(self, message: str, column: int):
        super().__init__(message)
        self.column = column


def _tokenize(text: str) -> list[tuple[str, str, int]]:
    toks: list[tuple[str, str, int]] = []
    pos = 0
    while pos < len(text):
        if _REST_BLANK.match(text, pos):  # not text[pos:].strip(): that is quadratic in long text
            break
        m = _TOKEN.match(text, pos)
        if not m or m.end() == pos:
            col = pos + (len(text[pos:]) - len(text[pos:].lstrip())) + 1
            raise ConditionSyntaxError(f"unexpected character {text[col - 1]!r} in condition", col)
        kind = m.lastgroup or ""
        val = m.group(kind)
        start = m.start(kind) + 1
        if kind == "name" and val in ("and", "or", "not", "true"):
            kind = "op"
        toks.append((kind, val, start))
        pos = m.end()
    return toks


class _Parser:
    def __init__(self, text: str):
        self.text = text
        self.toks = _tokenize(text)
        self.i = 0
        self.depth = 0
        self.max_depth = max_depth()

    def enter(self, col: int) -> None:
        """One more level of ``(`` or ``~``; past the limit, a located error (no deep recursion)."""
        self.depth += 1
        if self.depth > self.max_depth:
            raise ConditionSyntaxError(
                f"the condition nests deeper than the limit of {self.max_depth} levels of parentheses "
                f"and negations; simplify it, or raise the limit with the environment variable "
                f"{CONDITION_DEPTH.env}=<larger number>",
                col,
            )

    def peek(self) -> tuple[str, str, int] | None:
        return self.toks[self.i] if self.i < len(self.toks) else None

    def take(self) -> tuple[str, str, int]:
        tok = self.peek()
        if tok is None:
            raise ConditionSyntaxError("condition ends too early", len(self.text) + 1)
        self.i += 1
        return tok

    def at_op(self, *ops: str) -> bool:
        tok = self.peek()
        return tok is not None and tok[0] == "op" and tok[1] in ops

    def parse(self) -> Prop:
        if not self.toks:
            return TrueProp()
        prop = self.disj()
        tok = self.peek()
        if tok is not None:
            raise ConditionSyntaxError(f"unexpected {tok[1]!r} after a complete condition", tok[2])
        return prop

    def disj(self) -> Prop:
        parts = [self.conj()]
        while self.at_op("\\/", "||", "or"):
            self.take()
            parts.append(self.conj())
        return parts[0] if len(parts) == 1 else Or(tuple(parts))

    def conj(self) -> Prop:
        parts = [self.unary()]
        while self.at_op("/\\", "&&", "and"):
            self.take()
            parts.append(self.unary())
        return parts[0] if len(parts) == 1 else And(tuple(parts))

    def unary(self) -> Prop:
        if self.at_op("~", "not", "!"):
            self.enter(self.take()[2])
            part = self.unary()
            self.depth -= 1
            return Not(part)
        if self.at_op("("):
            self.enter(self.take()[2])
            prop = self.disj()
            if not self.at_op(")"):
                tok = self.peek()
                col = tok[2] if tok else len(self.text) + 1
                raise ConditionSyntaxError("missing ')'", col)
            self.take()
            self.depth -= 1
            return prop
        if self.at_op("true"):
            self.take()
            return TrueProp()
        return self.cmp()

    def term(self) -> Term:
        kind, val, col = self.take()
        if kind == "reg":
            thread, reg = val.split(":", 1)
            if not thread.startswith("P"):
                thread = "P" + thread
            return RegRef(thread, reg)
        if kind == "int":
            return Const(int(val, 16) if "x" in val.lower() else int(val))
        if kind == "name":
            return LocRef(val)
        raise ConditionSyntaxError(
            f"expected a register (P1:r0), a location or an integer, found {val!r}", col
        )

    def cmp(self) -> Prop:
        lhs = self.term()
        tok = self.peek()
        ops = ("==", "=", "!=", "<", "<=", ">", ">=")
        if tok is None or tok[0] != "op" or tok[1] not in ops:
            col = tok[2] if tok else len(self.text) + 1
            raise ConditionSyntaxError(
                "expected a comparison (==, !=, <, <=, >, >=) after a term", col
            )
        self.take()
        op = "==" if tok[1] == "=" else tok[1]
        rhs = self.term()
        return Cmp(lhs, op, rhs)  # type: ignore[arg-type]


def parse_prop(text: str) -> Prop:
    """Parse a condition body such as ``P1:r0 == 1 /\\ x == 2``.

    Raises :class:`ConditionSyntaxError` (with a 1-based column) on bad text.
    """
    return _Parser(text).parse()


def parse_condition_or_error(text: str, file: str, line: int | None, column: int | None = None) -> Prop:
    """Parse ``text``; on bad text raise a :class:`LitmusError` at ``file:line``."""
    try:
        return parse_prop(text)
    except ConditionSyntaxError as e:
        col = None if column is None else column + e.column - 1
        raise LitmusError.at(file, line, f"bad condition {text!r}: {e}", col) from None


def format_term(term: Term) -> str:
    """Text of a term: ``P1:r0``, ``x`` or ``3``."""
    if isinstance(term, RegRef):
        return f"{term.thread}:{term.reg}"
    if isinstance(term, LocRef):
        return term.loc
    return str(term.value)


def format_prop(prop: Prop) -> str:
    """Herd-style text of a prop (``/\\``, ``\\/``, ``~``), parenthesised where needed."""
    if isinstance(prop, TrueProp):
        return "true"
    if isinstance(prop, Cmp):
        return f"{format_term(prop.lhs)} {prop.op} {format_term(prop.rhs)}"
    if isinstance(prop, Not):
        return f"~({format_prop(prop.part)})"
    if isinstance(prop, And):
        return " /\\ ".join(_paren(p) for p in prop.parts)
    if isinstance(prop, Or):
        return " \\/ ".join(_paren(p) for p in prop.parts)
    raise TypeError(prop)


def _paren(p: Prop) -> str:
    return f"({format_prop(p)})" if isinstance(p, (And, Or)) else format_prop(p)


def terms(prop: Prop) -> list[Term]:
    """All terms mentioned in ``prop``, in order."""
    if isinstance(prop, Cmp):
        return [prop.lhs, prop.rhs]
    if isinstance(prop, Not):
        return terms(prop.part)
    if isinstance(prop, (And, Or)):
        return [t for p in prop.parts for t in terms(p)]
    return []


def state_key(term: RegRef | LocRef) -> str:
    """The key of a term in a final state mapping: ``P1:r0`` or ``x``."""
    return format_term(term)


def evaluate(prop: Prop, state: Mapping[str, int]) -> bool:
    """Truth of ``prop`` in a final state mapping ``"P1:r0"``/``"x"`` to values.

    A register or location missing from ``state`` reads as 0 (herd's default).
    """
    if isinstance(prop, TrueProp):
        return True
    if isinstance(prop, Cmp):
        return COMPARE[prop.op](_value(prop.lhs, state), _value(prop.rhs, state))
    if isinstance(prop, Not):
        return not evaluate(prop.part, state)
    if isinstance(prop, And):
        return all(evaluate(p, state) for p in prop.parts)
    if isinstance(prop, Or):
        return any(evaluate(p, state) for p in prop.parts)
    raise TypeError(prop)


def _value(term: Term, state: Mapping[str, int]) -> int:
    if isinstance(term, Const):
        return term.value
    return int(state.get(state_key(term), 0))
