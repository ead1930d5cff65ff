"""Triton-distributed's ring reduce-scatter step: every CTA writes its block into the next
rank's buffer, and program 0 alone raises the next rank's flag, as written without and with
a grid barrier between.

From ByteDance-Seed/Triton-distributed ``python/triton_dist/kernels/nvidia/reduce_scatter.py``,
``reduce_scatter_ring_push_1d_intra_node_kernel`` (commit db01d9c4, "set flag only after all
CTAs done memcpy/reduce": ``barrier_on_this_grid(grid_barrier_ptr)`` then ``if pid == 0 and
thread_idx == 0: st(peer_symm_reduce_flag_ptr + segment, 1, semantic="release", scope="sys")``;
commit 129dd7d4 replaced the grid barrier by a per-segment counter whose last CTA raises the
flag).  Without the grid barrier, program 0's release orders program 0's own stores only:
the other CTAs' blocks may reach the peer after the flag.  ``st(..., semantic="release",
scope="sys")`` is written here as ``tl.atomic_xchg(..., sem="release", scope="sys")`` and
``barrier_on_this_grid`` as a counter every CTA adds to (release) and spins on (acquire).
Lines the tests look for carry a ``# L:<tag>`` comment.
"""

import triton
import triton.language as tl


@triton.jit
def barrier_on_this_grid(counter, GRID: tl.constexpr):
    tl.debug_barrier()
    tl.atomic_add(counter, 1, sem="release", scope="gpu")
    while tl.atomic_add(counter, 0, sem="acquire", scope="gpu") < GRID:
        pass
    tl.debug_barrier()


@triton.jit
def ring_step_no_grid_barrier(src: "*fp32", buffer_ptrs: "*i64", flag_ptrs: "*i64", rank: tl.constexpr,
                              WS: tl.constexpr, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    to_rank = (rank + 1) % WS
    dst = tl.load(buffer_ptrs + to_rank).to(tl.pointer_type(tl.float32))
    tl.store(dst + offs, tl.load(src + offs))  # L:block-store
    tl.debug_barrier()
    if pid == 0:
        peer_flag = tl.load(flag_ptrs + to_rank).to(tl.pointer_type(tl.int32))
        tl.atomic_xchg(peer_flag + rank, 1, sem="release", scope="sys")  # L:cta0-flag


@triton.jit
def ring_step_grid_barrier(src: "*fp32", buffer_ptrs: "*i64", flag_ptrs: "*i64", grid_counter: "*i32",
                           rank: tl.constexpr, WS: tl.constexpr, GRID: tl.constexpr, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    to_rank = (rank + 1) % WS
    dst = tl.load(buffer_ptrs + to_rank).to(tl.pointer_type(tl.float32))
    tl.store(dst + offs, tl.load(src + offs))
    barrier_on_this_grid(grid_counter, GRID)
    if pid == 0:
        peer_flag = tl.load(flag_ptrs + to_rank).to(tl.pointer_type(tl.int32))
        tl.atomic_xchg(peer_flag + rank, 1, sem="release", scope="sys")


@triton.jit
def ring_step_per_cta_flag(src: "*fp32", buffer_ptrs: "*i64", flag_ptrs: "*i64", rank: tl.constexpr,
                           WS: tl.constexpr, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    to_rank = (rank + 1) % WS
    dst = tl.load(buffer_ptrs + to_rank).to(tl.pointer_type(tl.float32))
    tl.store(dst + offs, tl.load(src + offs))
    tl.debug_barrier()
    peer_flag = tl.load(flag_ptrs + to_rank).to(tl.pointer_type(tl.int32))
    tl.atomic_xchg(peer_flag + pid, 1, sem="release", scope="sys")


LITMUS_LINT = {"ring_step_no_grid_barrier": {"signature": {"rank": 0, "WS": 2, "BLOCK": 128}},
               "ring_step_grid_barrier": {"signature": {"rank": 0, "WS": 2, "GRID": 3, "BLOCK": 128}},
               "ring_step_per_cta_flag": {"signature": {"rank": 0, "WS": 2, "BLOCK": 128}}}
