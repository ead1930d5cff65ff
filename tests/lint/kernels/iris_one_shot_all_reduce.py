"""iris' GEMM + one-shot all-reduce epilogue, as written and fixed.

From ROCm/iris ``examples/09_gemm_one_shot_all_reduce/gemm_one_shot_all_reduce.py``
(commit 3b4c197043b04b67989766588540ea1dff36dd0d), ``persistent_gemm_all_reduce`` without the
GEMM: each rank stores its tile into its own ``C`` with a plain ``tl.store(C_, c, c_mask)``,
counts itself done on every other rank with ``iris.atomic_add(tile_completed + tile_id, 1,
cur_rank, remote, heap_bases, sem="release", scope="sys")``, spins until its own counter holds
``world_size - 1`` (``iris.atomic_cas(tile_completed + tile_id, world_size - 1, 0, ...,
sem="acquire", scope="sys")``, a CAS that also resets it) and then sums the tile of every
rank, read through ``iris.load(C + sub_offset, cur_rank, remote_rank, heap_bases)``.  ``C`` is
a plain argument: the tile store is payload only because peers read ``C`` translated.  The
scalar ``atomic_add`` runs on one thread and nothing makes the CTA's other threads' part of
the tile precede it; the fixed form has ``tl.debug_barrier()`` before the notification.
``translate`` is iris' heap-base translation (``__translate``).
"""

import triton
import triton.language as tl


@triton.jit
def translate(ptr, from_rank, to_rank, heap_bases):
    from_base = tl.load(heap_bases + from_rank)
    to_base = tl.load(heap_bases + to_rank)
    offset = tl.cast(ptr, tl.uint64) - from_base
    to_base_byte = tl.cast(to_base, tl.pointer_type(tl.int8))
    return tl.cast(to_base_byte + offset, ptr.dtype)


@triton.jit
def all_reduce_as_written(A: "*fp32", C: "*fp32", c_global: "*fp32", tile_completed: "*i32", heap_bases: "*u64",
                          cur_rank: tl.constexpr, world_size: tl.constexpr, BLOCK: tl.constexpr):
    tile_id = tl.program_id(0)
    offs = tile_id * BLOCK + tl.arange(0, BLOCK)
    c = tl.load(A + offs) * 2.0
    tl.store(C + offs, c)  # L:tile-store
    for remote in range(world_size):
        if remote != cur_rank:
            tl.atomic_add(translate(tile_completed + tile_id, cur_rank, remote, heap_bases), 1,  # L:notify
                          sem="release", scope="sys")
    result = 0
    while result < world_size - 1:  # L:wait
        result = tl.atomic_cas(translate(tile_completed + tile_id, cur_rank, cur_rank, heap_bases), world_size - 1, 0,
                               sem="acquire", scope="sys")
    acc = tl.zeros((BLOCK,), dtype=tl.float32)
    for remote_rank in range(world_size):
        acc += tl.load(translate(C + offs, cur_rank, remote_rank, heap_bases))  # L:reduce-load
    tl.store(c_global + offs, acc)


@triton.jit
def all_reduce_fixed(A: "*fp32", C: "*fp32", c_global: "*fp32", tile_completed: "*i32", heap_bases: "*u64",
                     cur_rank: tl.constexpr, world_size: tl.constexpr, BLOCK: tl.constexpr):
    tile_id = tl.program_id(0)
    offs = tile_id * BLOCK + tl.arange(0, BLOCK)
    c = tl.load(A + offs) * 2.0
    tl.store(C + offs, c)
    tl.debug_barrier()
    for remote in range(world_size):
        if remote != cur_rank:
            tl.atomic_add(translate(tile_completed + tile_id, cur_rank, remote, heap_bases), 1, sem="release",
                          scope="sys")
    result = 0
    while result < world_size - 1:
        result = tl.atomic_cas(translate(tile_completed + tile_id, cur_rank, cur_rank, heap_bases), world_size - 1, 0,
                               sem="acquire", scope="sys")
    acc = tl.zeros((BLOCK,), dtype=tl.float32)
    for remote_rank in range(world_size):
        acc += tl.load(translate(C + offs, cur_rank, remote_rank, heap_bases))
    tl.store(c_global + offs, acc)


LITMUS_LINT = {k: {"signature": {"cur_rank": 0, "world_size": 3, "BLOCK": 128}}
               for k in ("all_reduce_as_written", "all_reduce_fixed")}
