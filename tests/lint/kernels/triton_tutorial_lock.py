"""A mutex in the shape of Triton's layer-norm backward tutorial (``_layer_norm_bwd_dx_fused``):
each program adds its partial weight gradient into one of GROUP_SIZE_M shared buffers under a
spin lock, ``while tl.atomic_cas(Lock, 0, 1) == 1: pass`` ... ``tl.debug_barrier()`` then
``tl.atomic_xchg(Lock, 0)``.  The tutorial's ``tl.debug_barrier()`` before the release is what
publishes the whole tile; the broken forms drop it, or release with a plain store."""

import triton
import triton.language as tl


@triton.jit
def dw_accumulate_ok(DX: "*fp32", DW: "*fp32", Lock: "*i32", N: "i32", GROUP_SIZE_M: tl.constexpr,
                     BLOCK_SIZE_N: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK_SIZE_N)
    mask = cols < N
    partial_dw = tl.load(DX + row * N + cols, mask=mask, other=0.)
    tl.store(DX + row * N + cols, partial_dw, mask=mask)
    lock_id = row % GROUP_SIZE_M
    Lock += lock_id
    Count = Lock + GROUP_SIZE_M
    DW = DW + lock_id * N + cols
    while tl.atomic_cas(Lock, 0, 1) == 1:
        pass
    count = tl.load(Count)
    if count == 0:
        tl.atomic_xchg(Count, 1)
    else:
        partial_dw += tl.load(DW, mask=mask)
    tl.store(DW, partial_dw, mask=mask)
    tl.debug_barrier()
    tl.atomic_xchg(Lock, 0)


@triton.jit
def dw_accumulate_nobarrier(DX: "*fp32", DW: "*fp32", Lock: "*i32", N: "i32", GROUP_SIZE_M: tl.constexpr,
                            BLOCK_SIZE_N: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK_SIZE_N)
    mask = cols < N
    partial_dw = tl.load(DX + row * N + cols, mask=mask, other=0.)
    tl.store(DX + row * N + cols, partial_dw, mask=mask)
    lock_id = row % GROUP_SIZE_M
    Lock += lock_id
    Count = Lock + GROUP_SIZE_M
    DW = DW + lock_id * N + cols
    while tl.atomic_cas(Lock, 0, 1) == 1:
        pass
    count = tl.load(Count)
    if count == 0:
        tl.atomic_xchg(Count, 1)
    else:
        partial_dw += tl.load(DW, mask=mask)
    tl.store(DW, partial_dw, mask=mask)  # L:nobar-store
    tl.atomic_xchg(Lock, 0)  # L:nobar-unlock


@triton.jit
def dw_accumulate_plain_unlock(DX: "*fp32", DW: "*fp32", Lock: "*i32", N: "i32", GROUP_SIZE_M: tl.constexpr,
                               BLOCK_SIZE_N: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK_SIZE_N)
    mask = cols < N
    partial_dw = tl.load(DX + row * N + cols, mask=mask, other=0.)
    lock_id = row % GROUP_SIZE_M
    Lock += lock_id
    DW = DW + lock_id * N + cols
    while tl.atomic_cas(Lock, 0, 1) == 1:
        pass
    partial_dw += tl.load(DW, mask=mask)
    tl.store(DW, partial_dw, mask=mask)
    tl.debug_barrier()
    tl.store(Lock, 0)  # L:plain-unlock


LITMUS_LINT = {name: {"signature": {"GROUP_SIZE_M": 4, "BLOCK_SIZE_N": 128}} for name in (
    "dw_accumulate_ok", "dw_accumulate_nobarrier", "dw_accumulate_plain_unlock")}
