"""A tritonbench-style split-K fix-up through a per-tile lock (one GPU, CTAs talk).

Program 2t+1 stores its partial tile to the scratch buffer and releases lock t with
``tl.atomic_xchg`` (default sem acq_rel, scope gpu); program 2t spins with
``tl.atomic_cas(lock, 1, 1)`` and adds the partial tile to its own.  The scalar xchg runs on
one thread, so the tile's other stores are published only if ``tl.debug_barrier()``
(bar.sync) comes first: pytorch-labs/tritonbench #1266's shape.
"""

import triton
import triton.language as tl


@triton.jit
def splitk_fixup_ok(scratch: "*fp32", locks: "*i32", c: "*fp32", BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    tile = pid // 2
    offs = tile * BLOCK + tl.arange(0, BLOCK)
    acc = tl.full([BLOCK], 1.0, tl.float32)
    if pid % 2 == 1:
        tl.store(scratch + offs, acc)
        tl.debug_barrier()
        tl.atomic_xchg(locks + tile, 1)
    else:
        while tl.atomic_cas(locks + tile, 1, 1) != 1:
            pass
        acc += tl.load(scratch + offs)
        tl.store(c + offs, acc)


@triton.jit
def splitk_fixup_broken(scratch: "*fp32", locks: "*i32", c: "*fp32", BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    tile = pid // 2
    offs = tile * BLOCK + tl.arange(0, BLOCK)
    acc = tl.full([BLOCK], 1.0, tl.float32)
    if pid % 2 == 1:
        tl.store(scratch + offs, acc)  # L:lock-store
        tl.atomic_xchg(locks + tile, 1)  # L:lock-xchg
    else:
        while tl.atomic_cas(locks + tile, 1, 1) != 1:
            pass
        acc += tl.load(scratch + offs)
        tl.store(c + offs, acc)


LITMUS_LINT = {"splitk_fixup_ok": {"signature": {"BLOCK": 128}}, "splitk_fixup_broken": {"signature": {"BLOCK": 128}}}
