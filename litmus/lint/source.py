"""Spin loops as the kernel's source writes them: a ``while`` whose condition reads memory with a
plain ``tl.load``.  The compiler may take such a load for unchanging and fold the loop away, so
the TTIR (what the other rules read) no longer shows the wait; the source does."""

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


@functools.lru_cache(maxsize=64)
def plain_spins(file: str) -> tuple[SourceSpin, ...]:
    """Every plain-load spin of every function of ``file`` (empty if it does not parse)."""
    try:
        tree = ast.parse(Path(file).read_text())
    except (OSError, SyntaxError, ValueError):
        return ()
    return tuple(s for fn in ast.walk(tree) if isinstance(fn, ast.FunctionDef) for s in _spins_of(fn))


def spin_roots(file: str) -> frozenset[str]:
    """The names the file's plain spins read their flags through (a plain store to one of them,
    in any kernel of the file, raises a flag)."""
    return frozenset(s.root for s in plain_spins(file) if s.root)
