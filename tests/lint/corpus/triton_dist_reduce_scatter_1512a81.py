# corpus: ByteDance-Seed/Triton-distributed python/triton_dist/kernels/nvidia/reduce_scatter.py @ 1512a81189315eca7ba38f884aaf239469a88ba3
# (excerpt, MIT (LICENSES/ByteDance-Seed_Triton-distributed.txt): the licence header and imports (lines 1-44),
# add_continuous_kernel and copy_continuous_kernel (lines 181-203) and
# reduce_scatter_ring_push_1d_intra_node_kernel (lines 284-339) verbatim; the rest of the file left out)
################################################################################
#
# Copyright (c) 2025 ByteDance Ltd. and/or its affiliates
#
# Permission is hereby granted, free of charge, to any person obtaining
# a copy of this software and associated documentation files
# (the "Software"), to deal in the Software without restriction,
# including without limitation the rights to use, copy, modify, merge,
# publish, distribute, sublicense, and/or sell copies of the Software,
# and to permit persons to whom the Software is furnished to do so,
# subject to the following conditions:
#
# The above copyright notice and this permission notice shall be
# included in all copies or substantial portions of the Software.
#
# THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND,
# EXPRESS OR IMPLIED, INCLUDING BUT NOT LIMITED TO THE WARRANTIES OF
# MERCHANTABILITY, FITNESS FOR A PARTICULAR PURPOSE AND NONINFRINGEMENT.
# IN NO EVENT SHALL THE AUTHORS OR COPYRIGHT HOLDERS BE LIABLE FOR ANY
# CLAIM, DAMAGES OR OTHER LIABILITY, WHETHER IN AN ACTION OF CONTRACT,
# TORT OR OTHERWISE, ARISING FROM, OUT OF OR IN CONNECTION WITH THE
# SOFTWARE OR THE USE OR OTHER DEALINGS IN THE SOFTWARE.
#
################################################################################
"""NOTE: allgather.py is for high-throughput. while low_latency_allgather.py is for low-latency."""

import dataclasses
from typing import List, Optional

import torch
import triton
import triton_dist
import triton.language as tl
from triton_dist.utils import cudart
import nvshmem.bindings.nvshmem as pynvshmem
from triton_dist.kernels.nvidia.common_ops import _set_signal_cuda, _wait_eq_cuda
from triton_dist.language.extra import libshmem_device

import triton_dist.language as dl
from triton_dist.kernels.nvidia.common_ops import (barrier_on_this_grid, BarrierAllContext)
from triton_dist.utils import (CUDA_CHECK, NVSHMEM_SIGNAL_DTYPE, has_fullmesh_nvlink, has_tma,
                               launch_cooperative_grid_options, nvshmem_barrier_all_on_stream, nvshmem_create_tensors,
                               nvshmem_free_tensor_sync)
from triton_dist.language.extra.language_extra import tid, __syncthreads, ld, st, atomic_add


@triton.jit
def add_continuous_kernel(lhs_ptr, rhs_ptr, out_ptr, N, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(axis=0)
    n_blocks = tl.cdiv(N, BLOCK_SIZE)
    num_pid = tl.num_programs(axis=0)
    for n in range(pid, n_blocks, num_pid):
        offs = n * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
        mask = offs < N
        lhs = tl.load(lhs_ptr + offs, mask)
        rhs = tl.load(rhs_ptr + offs, mask)
        tl.store(out_ptr + offs, lhs + rhs, mask)


@triton.jit
def copy_continuous_kernel(src_ptr, dst_ptr, N, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(axis=0)
    n_blocks = tl.cdiv(N, BLOCK_SIZE)
    num_pid = tl.num_programs(axis=0)
    for n in range(pid, n_blocks, num_pid):
        offs = n * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
        mask = offs < N
        val = tl.load(src_ptr + offs, mask)
        tl.store(dst_ptr + offs, val, mask)


@triton.jit(do_not_specialize=["rank", "num_ranks"])
def reduce_scatter_ring_push_1d_intra_node_kernel(
    rank,
    num_ranks,
    input_ptr,
    symm_input_flag_ptr,
    symm_reduce_ptr,
    symm_reduce_flag_ptr,
    counter,  # use this to sync many grids
    output_ptr,
    elems_per_rank,
    BLOCK_SIZE: tl.constexpr,
    use_cooperative: tl.constexpr,
):
    to_rank = (rank - 1 + num_ranks) % num_ranks
    peer_reduce_ptr = tl.multiple_of(dl.symm_at(symm_reduce_ptr, to_rank), 16)
    peer_symm_reduce_flag_ptr = dl.symm_at(symm_reduce_flag_ptr, to_rank)
    thread_idx = tid(0)
    pid = tl.program_id(0)
    num_pid = tl.num_programs(0)

    for stage in range(num_ranks):
        segment = (rank + stage + 1) % num_ranks
        src_ptr = input_ptr + segment * elems_per_rank
        dst_ptr = peer_reduce_ptr + segment * elems_per_rank

        # wait by many CTA's is OK
        # wait for data ready
        if thread_idx == 0:
            while ld(symm_input_flag_ptr + segment, semantic="acquire", scope="sys") != 1:
                pass
        __syncthreads()

        if stage == 0:
            copy_continuous_kernel(src_ptr, dst_ptr, elems_per_rank, BLOCK_SIZE)
        else:
            # wait for reduce ready
            if thread_idx == 0:
                while ld(symm_reduce_flag_ptr + segment, semantic="acquire", scope="sys") != 1:
                    pass
            __syncthreads()

            reduce_buffer_ptr = symm_reduce_ptr + elems_per_rank * segment
            add_continuous_kernel(src_ptr, reduce_buffer_ptr, output_ptr if stage == num_ranks - 1 else dst_ptr,
                                  elems_per_rank, BLOCK_SIZE)  # directly reduce to output

        # set flag only after all CTAs done memcpy/reduce
        if thread_idx == 0:
            val = atomic_add(counter + segment, 1, semantic="release", scope="gpu")
            if val == num_pid - 1:
                st(peer_symm_reduce_flag_ptr + segment, 1, semantic="release", scope="sys")
                st(counter + segment, 0)
        __syncthreads()

    if pid == 0:
        libshmem_device.barrier_all_block()
