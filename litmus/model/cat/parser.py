"""Text of a ``.cat`` file -> :class:`~litmus.model.cat.ast.CatFile` (syntax only: names are
resolved and types checked by :mod:`litmus.model.cat.translate`).

The grammar is herd's cat language as far as Dat3M's ``Cat.g4`` reads it, less what has no
meaning here (``procedure``, ``match``, ``if``, sets written as ``{...}``).  Operator
precedence, loosest first: ``|``, ``;``, ``\\``, ``&``, ``~``, ``*`` (cartesian product), then
the postfix operators ``^-1`` ``+`` ``*`` ``?`` (each with an optional ``^``).  A ``*`` after an
operand is the product when another operand follows, the reflexive-transitive closure
otherwise.  Comments: ``// ...``, ``(* ... *)`` and ``/* ... */``.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from litmus.errors import LitmusError
from litmus.model.cat.ast import (
    AxiomStmt,
    Binary,
    Binding,
    Call,
    CatExpr,
    CatFile,
    Include,
    Let,
    Loc,
    Name,
    Show,
    Statement,
    Unary,
)

GRAMMAR = r"""
start: header statement*
header: NAME* STRING?

?statement: let | axiom | include | show
let: "let" REC? binding ("and" binding)*
binding: NAME "=" expr
       | NAME "(" [NAME ("," NAME)*] ")" "=" expr   -> fun_binding
axiom: FLAG? neg? (ACYCLIC | IRREFLEXIVE | EMPTY) expr ("as" NAME)?
neg: "~"
include: "include" STRING
show: "show" expr ("as" NAME)? ("," expr ("as" NAME)?)*

?expr: union
?union: seq | union "|" seq
?seq: diff | seq ";" diff
?diff: inter | diff "\\" inter
?inter: prefix | inter "&" prefix
?prefix: cart | "~" prefix                 -> compl
?cart: postfix | postfix "*" postfix        -> prod
?postfix: atom
        | postfix "^"? "-1"                 -> inv
        | postfix "^"? "+"                  -> plus
        | postfix "^"? "*"                  -> star
        | postfix "^"? "?"                  -> opt
?atom: NAME                                 -> name
     | "(" expr ")"
     | "[" expr "]"                         -> ident
     | "toid" "(" expr ")"                  -> ident
     | "domain" "(" expr ")"                -> domain
     | "range" "(" expr ")"                 -> range
     | NAME "(" expr ("," expr)* ")"        -> call

REC: "rec"
FLAG: "flag"
ACYCLIC: "acyclic"
IRREFLEXIVE: "irreflexive"
EMPTY: "empty"
NAME: /[A-Za-z0-9_.\-]+/
STRING: /"[^"\n]*"/

%ignore /[ \t\r\n\f]+/
%ignore /\/\/[^\n]*/
%ignore /\(\*(.|\n)*?\*\)/
%ignore /\/\*(.|\n)*?\*\//
"""
# ``union`` etc. are named by the ``?rule`` they come from when they have two operands.
_BINARY = {"union", "seq", "diff", "inter", "prod"}
_UNARY = {"compl", "inv", "plus", "star", "opt", "ident", "domain", "range"}

# What each terminal looks like in an error message.
_SHOWN = {"NAME": "a name", "STRING": 'a quoted file name ("...")', "REC": "rec", "FLAG": "flag",
          "$END": "the end of the file"}


@lru_cache(maxsize=1)
def _parser() -> Any:
    from lark import Lark  # the grammar is compiled on the first cat file read, not on import

    # the basic lexer, not the contextual one: keywords (let, empty, ...) are never names, as
    # in herd, so a statement left unfinished is reported at the keyword that follows it
    return Lark(GRAMMAR, parser="lalr", lexer="basic", propagate_positions=True,
                maybe_placeholders=False)


def parse_cat(text: str, path: str = "<cat>") -> CatFile:
    """Parse one cat file's text (``include`` is left to the caller: :func:`load_cat`)."""
    from lark.exceptions import UnexpectedInput

    try:
        tree = _parser().parse(text)
    except UnexpectedInput as err:
        raise _syntax_error(err, text, path) from None
    return _build(tree, path)


def _syntax_error(err: Any, text: str, path: str) -> LitmusError:
    """Lark's parse error as a located :class:`LitmusError` that says what was expected."""
    from lark.exceptions import UnexpectedCharacters, UnexpectedEOF, UnexpectedToken

    open_comment = _unclosed_comment(text)
    if open_comment is not None:  # whatever lark tripped on, this is the cause
        line, col, closer = open_comment
        return LitmusError.at(path, line, f"this comment is never closed: end it with {closer!r}", col)
    if isinstance(err, UnexpectedCharacters):
        return LitmusError.at(path, err.line, f"unexpected character {err.char!r}; a cat file holds names, "
                              "operators, let/include/axiom statements and comments", err.column)
    if isinstance(err, UnexpectedToken) and err.token.type != "$END":
        tok = err.token
        return LitmusError.at(path, tok.line, f"unexpected {str(tok)!r}; expected {_expected(err.expected)}",
                              tok.column)
    if isinstance(err, (UnexpectedToken, UnexpectedEOF)):
        line, col = _end(text)
        return LitmusError.at(path, line, f"the file ends inside a statement; expected "
                              f"{_expected(err.expected)}", col)
    # any other kind lark adds later: still located
    return LitmusError.at(path, getattr(err, "line", None), str(err).splitlines()[0], getattr(err, "column", None))


def parse_expr(text: str, where: str) -> CatExpr:
    """One cat expression (a profile's order, :mod:`litmus.model.cat.profiles`), as if it
    were the right-hand side of a ``let`` in a file named ``where``."""
    cat = parse_cat(f"let _expr = {text}", where)
    (stmt,) = cat.statements
    assert isinstance(stmt, Let)
    return stmt.bindings[0].expr


def _unclosed_comment(text: str) -> tuple[int, int, str] | None:
    """(line, column, closing text) of the last block comment with no end, if any."""
    for opener, closer in (("(*", "*)"), ("/*", "*/")):
        at = text.rfind(opener)
        if at >= 0 and text.find(closer, at + 2) < 0:
            before = text[:at]
            return before.count("\n") + 1, at - (before.rfind("\n") + 1) + 1, closer
    return None


def _end(text: str) -> tuple[int, int]:
    lines = text.split("\n")
    return len(lines), len(lines[-1]) + 1


def _expected(names: Any) -> str:
    if "LET" in names and len(names) > 8:  # after a complete expression: say so, not 20 tokens
        return "an operator or the next statement (let, include, acyclic, irreflexive, empty, show)"
    shown = sorted({_SHOWN.get(n, _literal(n)) for n in names})
    return shown[0] if len(shown) == 1 else "one of: " + ", ".join(shown)


def _literal(terminal: str) -> str:
    for t in _parser().terminals:
        if t.name == terminal:
            return repr(t.pattern.value) if t.pattern.type == "str" else terminal
    return terminal


# --------------------------------------------------------------------------- tree -> AST


def _build(tree: Any, path: str) -> CatFile:
    header, *stmts = tree.children
    title = None
    for tok in header.children:
        title = str(tok)[1:-1] if tok.type == "STRING" else str(tok)
        if tok.type == "STRING":
            break
    return CatFile(path, title, tuple(_statement(s, path) for s in stmts))


def _loc(node: Any, path: str) -> Loc:
    # a Token has line/column itself; a tree has them in its meta
    src = node if hasattr(node, "type") else node.meta
    return Loc(path, src.line, src.column)


def _statement(t: Any, path: str) -> Statement:
    loc = _loc(t, path)
    kind = t.data
    if kind == "let":
        rec = bool(t.children) and getattr(t.children[0], "type", None) == "REC"
        bindings = t.children[1:] if rec else t.children
        return Let(rec, tuple(_binding(b, path) for b in bindings), loc)
    if kind == "axiom":
        kids = list(t.children)
        flag = getattr(kids[0], "type", None) == "FLAG"
        if flag:
            kids.pop(0)
        negated = getattr(kids[0], "data", None) == "neg"
        if negated:
            kids.pop(0)
        ax, expr, *rest = kids
        return AxiomStmt(str(ax), _expr(expr, path), str(rest[0]) if rest else None, loc, flag, negated)
    if kind == "include":
        return Include(str(t.children[0])[1:-1], loc)
    if kind == "show":
        return Show(loc)
    raise AssertionError(f"unknown statement {kind}")  # the grammar has no other


def _binding(b: Any, path: str) -> Binding:
    name, *rest = b.children
    if b.data == "fun_binding":
        *params, expr = rest
        return Binding(str(name), _expr(expr, path), _loc(name, path), tuple(str(p) for p in params))
    return Binding(str(name), _expr(rest[0], path), _loc(name, path))


def _expr(t: Any, path: str) -> CatExpr:
    if hasattr(t, "type"):  # a bare token: only NAME reaches here (through ?atom)
        return Name(str(t), _loc(t, path))
    loc = _loc(t, path)
    kind = t.data
    if kind == "name":
        return Name(str(t.children[0]), _loc(t.children[0], path))
    if kind == "call":
        name, *args = t.children
        return Call(str(name), tuple(_expr(a, path) for a in args), _loc(name, path))
    if kind in _BINARY:
        left, right = t.children
        return Binary(kind, _expr(left, path), _expr(right, path), loc)
    if kind in _UNARY:
        return Unary(kind, _expr(t.children[-1], path), loc)
    raise AssertionError(f"unknown expression {kind}")  # the grammar has no other
