"""Triton building blocks the library stand-ins share: a pointer moved into another GPU's
memory, a spin with a given sem/scope, and opaque rank numbers.  Compiled only, never run."""

import triton
import triton.language as tl


@triton.jit
def peer_ptr(ptr, rank):
    """``ptr`` in ``rank``'s copy of the symmetric heap (``nvshmem_ptr``, ``symm_at``), written
    as iris' heap-base translation so the linter proves the memory may be another GPU's."""
    # a fixed address stands for the table of heap bases the real runtime keeps (one not built
    # from ``ptr``, so the translated pointer's provenance is ``ptr``'s argument)
    table = tl.cast(tl.full([], 4096, tl.uint64), tl.pointer_type(tl.uint64))
    here = tl.load(table)
    there = tl.load(table + rank)
    offset = tl.cast(ptr, tl.uint64) - here
    return tl.cast(tl.cast(there, tl.pointer_type(tl.int8)) + offset, ptr.dtype)


@triton.jit
def spin_until(ptr, value, sem: tl.constexpr, scope: tl.constexpr):
    """Wait until ``*ptr == value``, each read with ``sem``/``scope`` (a CAS that writes back
    what it expects reads and never changes the flag), then return the value read."""
    seen = tl.atomic_cas(ptr, value, value, sem=sem, scope=scope)
    while seen != value:
        seen = tl.atomic_cas(ptr, value, value, sem=sem, scope=scope)
    return seen


@triton.jit
def volatile_spin_until(ptr, value):
    """Wait until ``*ptr == value`` with volatile loads (relaxed, system scope; no acquire)."""
    seen = tl.load(ptr, volatile=True)
    while seen != value:
        seen = tl.load(ptr, volatile=True)
    return seen


@triton.jit
def opaque_int(which: tl.constexpr):
    """A run-time int32 the compiler cannot fold (a rank, a world size): branches on it stay
    in the compiled code, as they do on a GPU."""
    if which == 0:
        return tl.inline_asm_elementwise("mov.u32 $0, %envreg0;", "=r", [], dtype=tl.int32, is_pure=True, pack=1)
    else:
        return tl.inline_asm_elementwise("mov.u32 $0, %envreg1;", "=r", [], dtype=tl.int32, is_pure=True, pack=1)


@triton.jit
def fence_sys():
    """``__threadfence_system()``: ``fence.sc.sys``."""
    tl.inline_asm_elementwise("fence.sc.sys; mov.u32 $0, 0;", "=r", [], dtype=tl.int32, is_pure=False, pack=1)


@triton.jit
def combine_add(a, b):
    """A combine function (``combine_fn`` of a scan or reduction) inferred for a kernel that
    calls one with two arguments: their sum."""
    return a + b
