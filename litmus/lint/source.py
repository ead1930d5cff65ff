"""The kernel's Python as its file writes it, for what the TTIR no longer shows: spin loops (a
``while`` whose condition reads memory with a plain ``tl.load``, which the compiler may fold
away) and plain re-reads of an address (which the compiler may merge)."""

from __future__ import annotations

import ast
import functools
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class SourceSpin:
    """A ``while`` loop of function ``function`` at ``line`` (to ``end``) whose exit depends on a
    plain ``tl.load`` of ``address`` (as written), whose pointer starts from the name ``root``."""

    function: str
    line: int
    end: int
    address: str
    root: str
    load_line: int


def _is_plain_load(node: ast.AST) -> bool:
    """``tl.load(p, ...)`` (any module alias) without ``volatile=True``."""
    if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "load"
            and node.args):
        return False
    kw = {k.arg: k.value for k in node.keywords}
    return not (isinstance(kw.get("volatile"), ast.Constant) and kw["volatile"].value is True)


def _root(expr: ast.AST) -> str:
    """The first name of an address expression (``flag`` for ``flag + pid``)."""
    for node in ast.walk(expr):
        if isinstance(node, ast.Name):
            return node.id
    return ""


def _assigned_loads(body: list[ast.stmt]) -> dict[str, ast.Call]:
    """Names assigned a plain ``tl.load`` directly in ``body`` (``done = tl.load(flag)``)."""
    out: dict[str, ast.Call] = {}
    for stmt in body:
        if isinstance(stmt, ast.Assign) and _is_plain_load(stmt.value):
            for target in stmt.targets:
                if isinstance(target, ast.Name):
                    out[target.id] = stmt.value  # type: ignore[assignment]
    return out


def _spins_of(fn: ast.FunctionDef) -> list[SourceSpin]:
    spins: list[SourceSpin] = []
    for loop in (n for n in ast.walk(fn) if isinstance(n, ast.While)):
        # the condition's own load (`while tl.load(p) == 0`), or a name the body reloads
        # (`done = tl.load(p)` / `while done == 0: done = tl.load(p)`)
        load = next((n for n in ast.walk(loop.test) if _is_plain_load(n)), None)
        if load is None:
            names = {n.id for n in ast.walk(loop.test) if isinstance(n, ast.Name)}
            reloaded = _assigned_loads(loop.body)
            load = next((reloaded[n] for n in sorted(names) if n in reloaded), None)
        if not isinstance(load, ast.Call):
            continue
        spins.append(SourceSpin(fn.name, loop.lineno, loop.end_lineno or loop.lineno, ast.unparse(load.args[0]),
                                _root(load.args[0]), load.lineno))
    return spins


@functools.lru_cache(maxsize=16)
def parsed(source: str) -> ast.Module | None:
    """``source`` parsed, or None when it does not parse: several rules read the kernel's file,
    and the launch-site readers its text, each kernel in turn."""
    try:
        return ast.parse(source)
    except (SyntaxError, ValueError):
        return None


def parsed_file(file: str) -> ast.Module | None:
    """The Python of ``file`` (read each time, so an edited file is never served stale)."""
    try:
        return parsed(Path(file).read_text())
    except (OSError, ValueError):  # ValueError: not UTF-8
        return None


def plain_spins(file: str) -> tuple[SourceSpin, ...]:
    """Every plain-load spin of every function of ``file`` (empty if it does not parse)."""
    tree = parsed_file(file)
    if tree is None:
        return ()
    return tuple(s for fn in ast.walk(tree) if isinstance(fn, ast.FunctionDef) for s in _spins_of(fn))


def spin_roots(file: str) -> frozenset[str]:
    """The names the file's plain spins read their flags through (a plain store to one of them,
    in any kernel of the file, raises a flag)."""
    return frozenset(s.root for s in plain_spins(file) if s.root)


@dataclass(frozen=True, eq=False)
class SourceRead:
    """A ``tl.load`` call as the kernel's source writes it, and its statement's place in a block."""

    line: int
    block: list[ast.stmt]  # the statement list that holds its statement
    position: int  # the statement's index in that list
    address: str  # the pointer and mask arguments, as written
    names: frozenset[str]  # the names the address is computed from

    def before(self, other: "SourceRead") -> bool:
        """Whether it is an earlier statement of ``other``'s block with the same address."""
        return self.block is other.block and self.position < other.position and self.address == other.address

    def reassigned(self, other: "SourceRead") -> bool:
        """Whether a statement between the two assigns a name the address is computed from."""
        return any(isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store) and n.id in self.names
                   for stmt in self.block[self.position + 1:other.position] for n in ast.walk(stmt))


def source_reads(file: str, kernel: str) -> list[SourceRead]:
    """The plain (not volatile) ``tl.load`` calls of ``kernel``'s body in ``file``, in source order.

    The source, not the TTIR: triton 3.8 and 3.9 have already merged the re-read away there."""
    tree = parsed_file(file)
    if tree is None:
        return []
    fn = next((n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef) and n.name == kernel), None)
    if fn is None:
        return []
    reads: list[SourceRead] = []
    blocks = [b for n in ast.walk(fn) for b in (getattr(n, f, None) for f in ("body", "orelse"))
              if isinstance(b, list) and b and isinstance(b[0], ast.stmt)]
    for block in blocks:
        for pos, stmt in enumerate(block):
            # a call inside a nested block belongs to that block's statement
            nested = {id(x) for b in ("body", "orelse") for n in getattr(stmt, b, []) or [] for x in ast.walk(n)}
            for call in ast.walk(stmt):
                if id(call) in nested or not _is_plain_load(call):
                    continue
                kw = {k.arg: k.value for k in call.keywords}
                parts = [call.args[0], *call.args[1:2], *([kw["mask"]] if "mask" in kw else [])]
                names = frozenset(n.id for p in parts for n in ast.walk(p) if isinstance(n, ast.Name))
                reads.append(SourceRead(call.lineno, block, pos, " ".join(ast.unparse(p) for p in parts), names))
    return sorted(reads, key=lambda r: r.line)


def dotted(node: ast.AST, partial: bool = False) -> str:
    """``self.ws`` for the expression ``self.ws``: the names of a chain of attributes on a name;
    ``""`` for any other expression, or with ``partial`` the chain's attributes after whatever
    it starts from (``a.b`` for ``f().a.b``)."""
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        base = dotted(node.value, partial)
        return f"{base}.{node.attr}" if base else (node.attr if partial else "")
    return ""
