"""The syntax tree of a ``.cat`` file: expressions, statements, and where each came from."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Loc:
    """A place in a cat file: ``file:line:column`` (both 1-based)."""

    file: str
    line: int
    column: int

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.column}"


# ------------------------------------------------------------------------- expressions


@dataclass(frozen=True)
class Name:
    """A reference to a ``let`` or a base set or relation (``0``, ``_`` and ``id`` too)."""

    name: str
    loc: Loc


@dataclass(frozen=True)
class Unary:
    """A one-operand operator: ``inv`` (``^-1``), ``plus`` (``+``), ``star`` (``*``), ``opt``
    (``?``), ``compl`` (``~``), ``ident`` (``[S]``), ``domain``, ``range``."""

    op: str
    arg: "CatExpr"
    loc: Loc


@dataclass(frozen=True)
class Binary:
    """A two-operand operator: ``union`` (``|``), ``inter`` (``&``), ``diff`` (``\\``),
    ``seq`` (``;``), ``prod`` (``*``, the cartesian product)."""

    op: str
    left: "CatExpr"
    right: "CatExpr"
    loc: Loc


@dataclass(frozen=True)
class Call:
    """``f(a, ...)``: a call of a cat function (parsed so that it can be refused by name)."""

    name: str
    args: tuple["CatExpr", ...]
    loc: Loc


CatExpr = Name | Unary | Binary | Call


# -------------------------------------------------------------------------- statements


@dataclass(frozen=True)
class Binding:
    """``name = expr`` of a ``let``; ``params`` is not None for a function definition."""

    name: str
    expr: CatExpr
    loc: Loc
    params: tuple[str, ...] | None = None


@dataclass(frozen=True)
class Let:
    """``let [rec] a = e [and b = f ...]``."""

    rec: bool
    bindings: tuple[Binding, ...]
    loc: Loc


@dataclass(frozen=True)
class AxiomStmt:
    """``[flag] [~] acyclic|irreflexive|empty expr [as name]``."""

    kind: str
    expr: CatExpr
    name: str | None
    loc: Loc
    flag: bool = False
    negated: bool = False


@dataclass(frozen=True)
class Include:
    """``include "file"``: the statements of ``file`` (relative to this file), in place."""

    path: str
    loc: Loc


@dataclass(frozen=True)
class Show:
    """``show ...``: display only, no meaning for consistency."""

    loc: Loc


Statement = Let | AxiomStmt | Include | Show


@dataclass(frozen=True)
class CatFile:
    """One parsed file: its leading model name (None when it has none) and its statements."""

    path: str
    title: str | None
    statements: tuple[Statement, ...]
