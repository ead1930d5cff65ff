"""An address check for kernels under the Triton interpreter: every element a load, store or
atomic touches (where its mask is on; a CAS has no mask) must lie inside a buffer the kernel was
given.  On a GPU such an access is the "illegal memory access" that poisons a CUDA context, or
worse, a silent write into a neighbouring buffer; here it raises before it happens, naming the
kernel line.
"""

from __future__ import annotations

import sys
from contextlib import contextmanager
from typing import Any, Callable, Iterable, Iterator

import numpy as np


class OutOfBounds(AssertionError):
    """A kernel touched memory outside every buffer it was given."""


def _kernel_line() -> str:
    """``file:line`` of the innermost generated-kernel frame on the stack (the op's line)."""
    frame = sys._getframe(1)
    while frame is not None:
        name = frame.f_code.co_filename
        if "/kernels/" in name:
            return f"{name}:{frame.f_lineno}"
        frame = frame.f_back
    return "<unknown kernel line>"


class AddressCheck:
    """The buffers a launch may touch: tensors named with :meth:`allow`, and those a callback
    lists at check time (buffers a helper allocates inside the call)."""

    def __init__(self) -> None:
        self._named: list[tuple[str, Any]] = []
        self._dynamic: list[Callable[[], Iterable[tuple[str, Any]]]] = []
        self.accesses = 0  # elements checked

    def allow(self, name: str, tensor: Any) -> None:
        self._named.append((name, tensor))

    def allow_from(self, lister: Callable[[], Iterable[tuple[str, Any]]]) -> None:
        self._dynamic.append(lister)

    def _ranges(self) -> list[tuple[str, int, int]]:
        found = []
        for name, t in [*self._named, *(x for f in self._dynamic for x in f())]:
            assert t.is_contiguous(), f"{name}: allow whole buffers, not strided views"
            found.append((name, t.data_ptr(), t.data_ptr() + t.numel() * t.element_size()))
        return found

    def check(self, op: str, ptrs: Any, mask: Any | None) -> None:
        """Raise :class:`OutOfBounds` if an active element of ``ptrs`` (an interpreter
        ``TensorHandle`` of pointers) lies outside every allowed buffer."""
        addr = np.asarray(ptrs.data, dtype=np.uint64).reshape(-1)
        if mask is not None:
            addr = addr[np.broadcast_to(np.asarray(mask.data, dtype=bool), np.shape(ptrs.data)).reshape(-1)]
        if addr.size == 0:
            return
        self.accesses += int(addr.size)
        size = ptrs.get_element_ty().primitive_bitwidth // 8
        inside = np.zeros(addr.shape, dtype=bool)
        ranges = self._ranges()
        for _, lo, hi in ranges:
            inside |= (addr >= lo) & (addr + size <= hi)
        if inside.all():
            return
        bad = int(addr[~inside][0])
        near = min(ranges, key=lambda r: min(abs(bad - r[1]), abs(bad - r[2])))
        where = (f"{bad - near[1]:+d} bytes from the start of {near[0]} ({near[2] - near[1]} bytes)"
                 if ranges else "no buffer allowed")
        raise OutOfBounds(f"{op} of {size}-byte elements at {_kernel_line()}: {int((~inside).sum())} "
                          f"element(s) outside every buffer; the first is {where}")

    @contextmanager
    def active(self) -> Iterator["AddressCheck"]:
        """Check every memory op of interpreted kernels launched in the block."""
        from triton.runtime.interpreter import InterpreterBuilder

        originals = {name: getattr(InterpreterBuilder, name)
                     for name in ("create_masked_load", "create_masked_store", "create_atomic_cas",
                                  "create_atomic_rmw")}
        check = self

        def masked_load(self: Any, ptrs: Any, mask: Any, *rest: Any) -> Any:
            check.check("load", ptrs, mask)
            return originals["create_masked_load"](self, ptrs, mask, *rest)

        def masked_store(self: Any, ptrs: Any, value: Any, mask: Any, *rest: Any) -> Any:
            check.check("store", ptrs, mask)
            return originals["create_masked_store"](self, ptrs, value, mask, *rest)

        def atomic_cas(self: Any, ptr: Any, *rest: Any) -> Any:
            check.check("atomic cas", ptr, None)
            return originals["create_atomic_cas"](self, ptr, *rest)

        def atomic_rmw(self: Any, op: Any, ptr: Any, val: Any, mask: Any, *rest: Any) -> Any:
            check.check("atomic rmw", ptr, mask)
            return originals["create_atomic_rmw"](self, op, ptr, val, mask, *rest)

        patched = {"create_masked_load": masked_load, "create_masked_store": masked_store,
                   "create_atomic_cas": atomic_cas, "create_atomic_rmw": atomic_rmw}
        for name, fn in patched.items():
            setattr(InterpreterBuilder, name, fn)
        try:
            yield self
        finally:
            for name, fn in originals.items():
                setattr(InterpreterBuilder, name, fn)
