"""Small hand-written Triton kernels whose compiled text the audit rules are checked against."""

import triton
import triton.language as tl

SIG = {"p": "*i32", "q": "*i32"}


@triton.jit
def rmw(p, q, OP: tl.constexpr, SEM: tl.constexpr, SCOPE: tl.constexpr):
    if OP == "cas":
        r = tl.atomic_cas(p, 0, 1, sem=SEM, scope=SCOPE)
    elif OP == "exch":
        r = tl.atomic_xchg(p, 1, sem=SEM, scope=SCOPE)
    else:
        r = tl.atomic_add(p, 1, sem=SEM, scope=SCOPE)
    tl.store(q, r)


@triton.jit
def atomic_load(p, q, SEM: tl.constexpr, SCOPE: tl.constexpr):
    tl.store(q, tl.atomic_load(p, sem=SEM, scope=SCOPE))


@triton.jit
def atomic_store(p, q, SEM: tl.constexpr, SCOPE: tl.constexpr):
    tl.atomic_store(p, 1, sem=SEM, scope=SCOPE)


@triton.jit
def volatile_load_barrier(p, q):
    r = tl.load(p, volatile=True)
    tl.debug_barrier()
    tl.store(q, r)


@triton.jit
def store_fence_volatile_store(p, q, FENCE: tl.constexpr, FENCE_FIRST: tl.constexpr):
    """x := 1 (plain); fence (inline PTX); flag := 1 (st.volatile), or the fence after the flag."""
    tl.store(p, 1)
    if FENCE_FIRST:
        tl.inline_asm_elementwise(FENCE, "=r", [], dtype=tl.int32, is_pure=False, pack=1)
        tl.inline_asm_elementwise("st.volatile.global.b32 [$1], $2; mov.u32 $0, 0;", "=r,l,r", [q, 1],
                                  dtype=tl.int32, is_pure=False, pack=1)
    else:
        tl.inline_asm_elementwise("st.volatile.global.b32 [$1], $2; mov.u32 $0, 0;", "=r,l,r", [q, 1],
                                  dtype=tl.int32, is_pure=False, pack=1)
        tl.inline_asm_elementwise(FENCE, "=r", [], dtype=tl.int32, is_pure=False, pack=1)


@triton.jit
def rmw_unused(p, q, OP: tl.constexpr, SEM: tl.constexpr, SCOPE: tl.constexpr):
    """An RMW whose result is not used (PTX may emit ``red``)."""
    if OP == "or":
        tl.atomic_or(p, 8, sem=SEM, scope=SCOPE)
    elif OP == "xor":
        tl.atomic_xor(p, 1, sem=SEM, scope=SCOPE)
    elif OP == "and":
        tl.atomic_and(p, 7, sem=SEM, scope=SCOPE)
    else:
        tl.atomic_add(p, 1, sem=SEM, scope=SCOPE)


@triton.jit
def xchg64(p, q, SPLIT: tl.constexpr):
    """A 64-bit relaxed.sys exchange of 0x100000001, or (SPLIT) the same bytes written by two
    32-bit exchanges: a single-copy-atomic access torn in two."""
    if SPLIT:
        tl.atomic_xchg(p, 1, sem="relaxed", scope="sys")
        tl.atomic_xchg(p + 1, 1, sem="relaxed", scope="sys")
    else:
        tl.atomic_xchg(p.to(tl.pointer_type(tl.int64)), 0x100000001, sem="relaxed", scope="sys")


@triton.jit
def byte_store(p, q, WIDE: tl.constexpr):
    """A plain byte store, or (WIDE) a 32-bit store of the word holding the byte."""
    if WIDE:
        tl.store(p, 0xFF)
    else:
        tl.store(p.to(tl.pointer_type(tl.uint8)), 0xFF)
