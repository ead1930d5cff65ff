"""Stand-in for ``triton_dist.kernels.nvidia.common_ops`` of ByteDance-Seed/Triton-distributed:
its grid barrier, the real Triton code (python/triton_dist/kernels/nvidia/common_ops.py at
db01d9c and 1512a81), written with :mod:`litmus.lint.libs.language_extra`'s builders.

``barrier_on_this_grid(ptr)`` (db01d9c; ``unsafe_barrier_on_this_grid`` at 1512a81, whose
``barrier_on_this_grid(ptr, use_cooperative)`` picks it or ``cooperative_barrier_on_this_grid``,
the same barrier on the counter the cooperative launch gives in ``%envreg1``/``%envreg2``): a CTA
barrier, then the CTA's thread 0 adds to the counter with ``atom.release.gpu`` (program 0 adds
``0x80000000 - (n - 1)``, the others 1) and spins on ``ld.acquire.gpu`` until the top bit flips,
then a CTA barrier.

The rank barriers of 1512a81 (``barrier_all_intra_node_atomic_cas_block``,
``barrier_all_intra_node_non_atomic_block``, ``barrier_all_intra_node_non_atomic``): their
``with dl.simt_exec_region() as (thread_idx, block_size):`` body runs per thread, so here
``thread_idx`` is the thread's ``%tid.x``; thread ``i < local_world_size`` raises its flag on rank
``i`` (a release CAS 0 -> 1, or ``st.release.sys``) and waits for rank ``i``'s flag here (an
acquire CAS 1 -> 0, or an ``ld.acquire.sys`` spin), then a CTA barrier; ``..._non_atomic`` runs
that on program 0 twice, each followed by the grid barrier.  The host helpers
(``_set_signal_cuda``, ``BarrierAllContext``...) are stubs.
"""

from typing import Any

import triton
import triton.language as tl
from triton.language import core

from litmus.lint.libs.language_extra import __syncthreads, atomic_add, atomic_cas, ld, ld_acquire, st, tid
from litmus.lint.libs.triton_dist_language import symm_at
from litmus.lint.stub import Stub


@triton.jit
def _is_cta_master():
    thread_idx_x = tid(0)
    thread_idx_y = tid(1)
    thread_idx_z = tid(2)
    return (thread_idx_x + thread_idx_y + thread_idx_z) == 0


@triton.jit
def _is_gpu_master():
    pid_x = tl.program_id(axis=0)
    pid_y = tl.program_id(axis=1)
    pid_z = tl.program_id(axis=2)
    return (pid_x + pid_y + pid_z) == 0


@triton.jit
def unsafe_barrier_on_this_grid(ptr):
    __syncthreads()
    pid_size_x = tl.num_programs(axis=0)
    pid_size_y = tl.num_programs(axis=1)
    pid_size_z = tl.num_programs(axis=2)
    expected = pid_size_x * pid_size_y * pid_size_z
    if _is_cta_master():
        nb = tl.where(
            _is_gpu_master(),
            tl.cast(0x80000000, tl.uint32, bitcast=True) - (expected - 1),
            1,
        )
        old_arrive = atomic_add(ptr.to(tl.pointer_type(tl.uint32)), nb, scope="gpu", semantic="release")
    else:
        old_arrive = tl.cast(0, tl.uint32)

    if _is_cta_master():
        current_arrive = ld_acquire(ptr)
        while ((old_arrive ^ current_arrive) & 0x80000000) == 0:
            current_arrive = ld_acquire(ptr, scope=tl.constexpr("gpu"))

    __syncthreads()


@triton.jit
def _load_envreg(val: tl.constexpr):
    return tl.inline_asm_elementwise(f"mov.u32 $0, %envreg{val};", "=r", [], dtype=tl.uint32, is_pure=True, pack=1)


@triton.jit
def cooperative_barrier_on_this_grid():
    envreg1 = _load_envreg(1)
    envreg2 = _load_envreg(2)
    address = (tl.cast(envreg1, tl.uint64) << 32) | tl.cast(envreg2, tl.uint64)
    unsafe_barrier_on_this_grid(tl.cast(address, tl.pointer_type(tl.uint32), bitcast=True) + 1)


@triton.jit
def barrier_on_this_grid(ptr, use_cooperative: tl.constexpr = False):
    if use_cooperative:
        cooperative_barrier_on_this_grid()
    else:
        unsafe_barrier_on_this_grid(ptr)


@triton.jit
def barrier_all_intra_node_atomic_cas_block(local_rank, rank, local_world_size, symm_flag_ptr):
    thread_idx = tid(0)  # the simt region's thread index
    local_rank_offset = rank - local_rank
    if thread_idx < local_world_size:  # thread_idx => local_rank
        remote_ptr = symm_at(symm_flag_ptr + local_rank, thread_idx + local_rank_offset)
        while atomic_cas(remote_ptr, 0, 1, "sys", "release") != 0:
            pass

    if thread_idx < local_world_size:  # thread_idx => local_rank
        while (atomic_cas(symm_flag_ptr + thread_idx, 1, 0, "sys", "acquire") != 1):
            pass
    __syncthreads()


@triton.jit
def _barrier_all_intra_node_non_atomic_once_block(local_rank, rank, local_world_size, symm_flags, target_value):
    thread_idx = tid(0)  # the simt region's thread index
    if thread_idx < local_world_size:  # thread_idx => local_rank
        local_rank_offset = rank - local_rank
        remote_ptr = symm_at(symm_flags + local_rank, thread_idx + local_rank_offset)
        st(remote_ptr, target_value, scope="sys", semantic="release")
        while ld(symm_flags + thread_idx, scope="sys", semantic="acquire") != target_value:
            pass
    __syncthreads()


@triton.jit
def barrier_all_intra_node_non_atomic_block(local_rank, rank, num_ranks, symm_flags, target_value):
    _barrier_all_intra_node_non_atomic_once_block(local_rank, rank, num_ranks, symm_flags, target_value)
    _barrier_all_intra_node_non_atomic_once_block(local_rank, rank, num_ranks, symm_flags + num_ranks, target_value)


@triton.jit
def barrier_all_intra_node_non_atomic(local_rank, rank, num_ranks, symm_flags, target_value,
                                      use_cooperative: tl.constexpr = False):
    pid = tl.program_id(axis=0)
    if pid == 0:
        _barrier_all_intra_node_non_atomic_once_block(local_rank, rank, num_ranks, symm_flags, target_value)
    barrier_on_this_grid(symm_flags + 2 * num_ranks, use_cooperative)
    if pid == 0:
        _barrier_all_intra_node_non_atomic_once_block(local_rank, rank, num_ranks, symm_flags + num_ranks, target_value)
    barrier_on_this_grid(symm_flags + 2 * num_ranks, use_cooperative)


@core.extern
def next_power_of_2(n: Any, _semantic: Any = None) -> Any:
    """``tl.constexpr_function`` ``next_power_of_2(n)``: a constexpr."""
    return tl.constexpr(triton.next_power_of_2(n.value if isinstance(n, tl.constexpr) else n))


def __getattr__(name: str) -> Any:  # host helpers (not device code)
    return Stub(f"triton_dist.kernels.nvidia.common_ops.{name}")
