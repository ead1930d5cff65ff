"""Triton-distributed's ring reduce-scatter step after 129dd7d4: every CTA writes its block into
the next rank's buffer, thread 0 of each CTA takes a ticket on a per-segment counter with an
inline-asm release add, and the CTA that draws the last ticket raises the next rank's flag, as
written, with a CTA barrier before the release-only ticket, and with the barrier and an acq_rel
ticket.

From ByteDance-Seed/Triton-distributed ``python/triton_dist/kernels/nvidia/reduce_scatter.py``,
``reduce_scatter_ring_push_1d_intra_node_kernel`` (commit 1512a811, unchanged since 129dd7d4):
``if thread_idx == 0: val = atomic_add(counter + segment, 1, semantic="release", scope="gpu");
if val == num_pid - 1: st(peer_symm_reduce_flag_ptr + segment, 1, semantic="release",
scope="sys"); st(counter + segment, 0)`` right after the CTA's copy, with ``__syncthreads()``
after it only.  ``tid``, ``atomic_add`` and ``st`` are written as the PTX that
``triton_dist.language.extra.language_extra`` emits (the value ``1`` an operand ``$2`` of the
asm string), ``dl.symm_at`` as a table of the peers' addresses and the ring's stages as one.
Lines the tests look for carry a ``# L:<tag>`` comment.
"""

import triton
import triton.language as tl


@triton.jit
def tid_x():
    return tl.inline_asm_elementwise("mov.u32 $0, %tid.x;", "=r", [], dtype=tl.int32, is_pure=True, pack=1)


@triton.jit
def atomic_add_release_gpu(ptr, value):
    return tl.inline_asm_elementwise("atom.release.gpu.global.add.s32 $0, [$1], $2;", "=r,l,r", [ptr, value],
                                     dtype=tl.int32, is_pure=False, pack=1)


@triton.jit
def atomic_add_acq_rel_gpu(ptr, value):
    return tl.inline_asm_elementwise("atom.acq_rel.gpu.global.add.s32 $0, [$1], $2;", "=r,l,r", [ptr, value],
                                     dtype=tl.int32, is_pure=False, pack=1)


@triton.jit
def st_release_sys(ptr, value):
    return tl.inline_asm_elementwise("st.global.release.sys.b32 [$1], $2; mov.u32 $0, 0;", "=r,l,r", [ptr, value],
                                     dtype=tl.int32, is_pure=False, pack=1)


@triton.jit
def st_relaxed_gpu(ptr, value):
    return tl.inline_asm_elementwise("st.global.relaxed.gpu.b32 [$1], $2; mov.u32 $0, 0;", "=r,l,r", [ptr, value],
                                     dtype=tl.int32, is_pure=False, pack=1)


@triton.jit
def ring_step_ticket_as_written(src: "*fp32", buffer_ptrs: "*i64", flag_ptrs: "*i64", counter: "*i32",
                                rank: tl.constexpr, WS: tl.constexpr, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    num_pid = tl.num_programs(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    to_rank = (rank + 1) % WS
    dst = tl.load(buffer_ptrs + to_rank).to(tl.pointer_type(tl.float32))
    tl.store(dst + offs, tl.load(src + offs))  # L:ticket-block
    if tid_x() == 0:
        val = atomic_add_release_gpu(counter + to_rank, 1)  # L:ticket-add
        if val == num_pid - 1:
            peer_flag = tl.load(flag_ptrs + to_rank).to(tl.pointer_type(tl.int32))
            st_release_sys(peer_flag + rank, 1)  # L:ticket-flag
            st_relaxed_gpu(counter + to_rank, 0)
    tl.debug_barrier()


@triton.jit
def ring_step_ticket_release_only(src: "*fp32", buffer_ptrs: "*i64", flag_ptrs: "*i64", counter: "*i32",
                                  rank: tl.constexpr, WS: tl.constexpr, BLOCK: tl.constexpr):
    # the CTA barrier before the ticket, and still the release-only ticket
    pid = tl.program_id(0)
    num_pid = tl.num_programs(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    to_rank = (rank + 1) % WS
    dst = tl.load(buffer_ptrs + to_rank).to(tl.pointer_type(tl.float32))
    tl.store(dst + offs, tl.load(src + offs))  # L:release-only-block
    tl.debug_barrier()
    if tid_x() == 0:
        val = atomic_add_release_gpu(counter + to_rank, 1)  # L:release-only-ticket
        if val == num_pid - 1:
            peer_flag = tl.load(flag_ptrs + to_rank).to(tl.pointer_type(tl.int32))
            st_release_sys(peer_flag + rank, 1)  # L:release-only-flag
            st_relaxed_gpu(counter + to_rank, 0)
    tl.debug_barrier()


@triton.jit
def ring_step_ticket_fixed(src: "*fp32", buffer_ptrs: "*i64", flag_ptrs: "*i64", counter: "*i32",
                           rank: tl.constexpr, WS: tl.constexpr, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    num_pid = tl.num_programs(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    to_rank = (rank + 1) % WS
    dst = tl.load(buffer_ptrs + to_rank).to(tl.pointer_type(tl.float32))
    tl.store(dst + offs, tl.load(src + offs))
    tl.debug_barrier()
    if tid_x() == 0:
        val = atomic_add_acq_rel_gpu(counter + to_rank, 1)
        if val == num_pid - 1:
            peer_flag = tl.load(flag_ptrs + to_rank).to(tl.pointer_type(tl.int32))
            st_release_sys(peer_flag + rank, 1)
            st_relaxed_gpu(counter + to_rank, 0)
    tl.debug_barrier()


LITMUS_LINT = {name: {"signature": {"rank": 0, "WS": 2, "BLOCK": 128}}
               for name in ("ring_step_ticket_as_written", "ring_step_ticket_release_only", "ring_step_ticket_fixed")}
