"""Kernel parameters given a buffer on the symmetric heap at a launch in the same file: such
memory is what the other GPUs read and write (NVSHMEM's ``nvshmem_create_tensor(s)``, PyTorch's
``symm_mem.empty``), so the linter takes it as a peer's, as ``--peer`` would."""

from __future__ import annotations

import ast
from typing import Iterator

from litmus.lint.source import dotted, parsed

SYMMETRIC_ALLOCATORS = ("nvshmem_create_tensor", "nvshmem_create_tensors", "symm_mem.empty",
                        "symmetric_memory.empty", "_SymmetricMemory.empty_strided_p2p")
"""Calls (by their dotted name's tail) that allocate on the symmetric heap."""

_VIEWS = ("flatten", "view", "reshape", "contiguous", "narrow", "view_as", "as_strided", "squeeze", "unsqueeze",
          "t", "permute", "transpose", "select", "detach")
"""Tensor methods that return a view of the same memory (``numel()`` or ``stride()`` do not)."""




def _chain(e: ast.AST) -> Iterator[ast.AST]:
    """``e``, then each expression it reads its buffer from, through indexing, slicing and view
    methods (``self.ws.flatten()[a:b]``, ``self.ws.flatten()``, ``self.ws``), the last its root."""
    while True:
        yield e
        if isinstance(e, ast.Subscript):
            e = e.value
        elif _is_view(e):
            e = e.func.value  # type: ignore[attr-defined]
        else:
            return


def _root(e: ast.AST) -> str:
    """The variable (``x`` or ``self.x``) an expression reads its buffer from: through indexing,
    slicing and method calls (``self.ws.flatten()[a:b]`` -> ``self.ws``)."""
    *_, root = _chain(e)
    return dotted(root)


def _is_view(e: ast.AST) -> bool:
    return (isinstance(e, ast.Call) and isinstance(e.func, ast.Attribute) and e.func.attr in _VIEWS
            and not _allocates(e))


def _allocates(e: ast.AST) -> bool:
    if not isinstance(e, ast.Call):
        return False
    name = dotted(e.func)
    return any(name == a or name.endswith("." + a) for a in SYMMETRIC_ALLOCATORS)


def _is_symmetric(e: ast.AST, known: dict[str, int]) -> int | None:
    """The line of the allocation ``e`` reaches, or None."""
    for inner in _chain(e):
        if _allocates(inner):
            return inner.lineno
    return known.get(dotted(inner))


def symmetric_params(source: str, kernel: str, params: list[str]) -> dict[str, int]:
    """``{param: line of the allocation}`` for the parameters a launch ``kernel[grid](...)`` in
    ``source`` gives a symmetric-heap buffer (assignments followed through names and ``self.``
    attributes anywhere in the file)."""
    tree = parsed(source)
    if tree is None:
        return {}
    assigns = [(t, n.value) for n in ast.walk(tree) if isinstance(n, ast.Assign) for t in n.targets]
    known: dict[str, int] = {}
    changed = True
    while changed:  # a fixpoint: `self.ws = self.wss[r]` after `self.wss = nvshmem_create_tensors(...)`
        changed = False
        for target, value in assigns:
            name = dotted(target)
            if name and name not in known and (line := _is_symmetric(value, known)) is not None:
                known[name] = line
                changed = True
    out: dict[str, int] = {}
    for n in ast.walk(tree):
        if not (isinstance(n, ast.Call) and isinstance(n.func, ast.Subscript) and dotted(n.func.value) == kernel):
            continue
        bound = {p: a for p, a in zip(params, n.args) if not isinstance(a, ast.Starred)}
        bound.update({k.arg: k.value for k in n.keywords if k.arg in params})
        for p, expr in bound.items():
            line = _is_symmetric(expr, known)
            if line is not None:
                out.setdefault(p, line)
    return out
