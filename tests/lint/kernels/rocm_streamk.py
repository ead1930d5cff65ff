"""ROCm/triton's stream-K fix-up: a CTA that computed part of a tile stores its partial and
raises its lock; the CTA that owns the tile spins on the next CTAs' locks and adds their
partials, as written and in the release/acquire form its comment keeps.

From ROCm/triton ``python/perf-kernels/streamk/streamk_kernel.py``, ``streamk_gemm`` (commit
6b49006b, after PR #745 added the ``tl.debug_barrier()``): ``tl.store(P_, acc,
cache_modifier=".wt")``, ``tl.debug_barrier()``, ``tl.store(locks + pid, 1,
cache_modifier=".wt")`` in ``if start_iter != tile_iter:``, else ``while (end < tile_iter_end
and next_pid < NUM_SMS): while tl.load(locks + next_pid, cache_modifier=".cv", volatile=True)
!= 1: pass`` then ``acc += tl.load(P_, cache_modifier=".cv")``, all in the outer ``while
start_iter < last_iter``.  The dot products are left out (``acc`` stands for them), and the
spin's load is ``tl.load(..., volatile=True)`` without ``.cv``: triton 3.9's cuda backend
emits ``ld.volatile.cv``, which ptxas rejects, and a cache hint does not change what the model
reads (a volatile load is relaxed.sys).  ``.wt`` stays on the stores: a weak store all the same.
Lines the tests look for carry a ``# L:<tag>`` comment.
"""

import triton
import triton.language as tl


@triton.jit
def streamk_as_written(P: "*fp32", locks: "*i32", C: "*fp32", iters_per_tile: "i32", iters_per_cta: "i32",
                       NUM_SMS: tl.constexpr, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    start_iter = pid * iters_per_cta
    last_iter = (pid + 1) * iters_per_cta
    rn = tl.arange(0, BLOCK)
    while start_iter < last_iter:
        remainder = start_iter % iters_per_tile
        end_iter = tl.minimum(start_iter + (iters_per_tile - remainder), last_iter)
        tile_id = start_iter // iters_per_tile
        tile_iter = tile_id * iters_per_tile
        acc = tl.full([BLOCK], 1.0, tl.float32)
        if start_iter != tile_iter:
            tl.store(P + pid * BLOCK + rn, acc, cache_modifier=".wt")  # L:partial
            tl.debug_barrier()
            tl.store(locks + pid, 1, cache_modifier=".wt")  # L:wt-flag
        else:
            next_pid = pid + 1
            tile_iter_end = tile_iter + iters_per_tile
            end = end_iter
            while (end < tile_iter_end and next_pid < NUM_SMS):
                while tl.load(locks + next_pid, volatile=True) != 1:  # L:cv-spin
                    pass
                acc += tl.load(P + next_pid * BLOCK + rn, cache_modifier=".cv")  # L:partials
                end += iters_per_cta
                next_pid += 1
            tl.store(C + tile_id * BLOCK + rn, acc)
        start_iter = end_iter


@triton.jit
def streamk_release_acquire(P: "*fp32", locks: "*i32", C: "*fp32", iters_per_tile: "i32", iters_per_cta: "i32",
                            NUM_SMS: tl.constexpr, BLOCK: tl.constexpr):
    # the form the upstream comment keeps: tl.atomic_xchg (acq_rel) after the barrier, an acq_rel CAS spin
    pid = tl.program_id(0)
    start_iter = pid * iters_per_cta
    last_iter = (pid + 1) * iters_per_cta
    rn = tl.arange(0, BLOCK)
    while start_iter < last_iter:
        remainder = start_iter % iters_per_tile
        end_iter = tl.minimum(start_iter + (iters_per_tile - remainder), last_iter)
        tile_id = start_iter // iters_per_tile
        tile_iter = tile_id * iters_per_tile
        acc = tl.full([BLOCK], 1.0, tl.float32)
        if start_iter != tile_iter:
            tl.store(P + pid * BLOCK + rn, acc)
            tl.debug_barrier()
            tl.atomic_xchg(locks + pid, 1)
        else:
            next_pid = pid + 1
            tile_iter_end = tile_iter + iters_per_tile
            end = end_iter
            while (end < tile_iter_end and next_pid < NUM_SMS):
                while tl.atomic_cas(locks + next_pid, 1, 1) != 1:
                    pass
                acc += tl.load(P + next_pid * BLOCK + rn)
                end += iters_per_cta
                next_pid += 1
            tl.store(C + tile_id * BLOCK + rn, acc)
        start_iter = end_iter


LITMUS_LINT = {name: {"signature": {"NUM_SMS": 4, "BLOCK": 128}}
               for name in ("streamk_as_written", "streamk_release_acquire")}
