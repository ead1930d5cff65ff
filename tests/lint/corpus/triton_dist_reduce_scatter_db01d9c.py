# corpus: ByteDance-Seed/Triton-distributed python/triton_dist/kernels/nvidia/reduce_scatter.py @ db01d9c45f4ec70e394985183f20a6d00cb6e145
# (excerpt, MIT (LICENSES/ByteDance-Seed_Triton-distributed.txt): the licence header and imports (lines 1-42),
# add_continuous_kernel and copy_continuous_kernel (lines 186-269) and
# reduce_scatter_ring_push_1d_intra_node_kernel (lines 344-394) verbatim; the rest of the file left out)
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
import triton.language as tl
from cuda import cudart
from triton_dist import pynvshmem
from triton.language.extra import libshmem_device

import triton_dist.language as dl
from triton_dist.kernels.nvidia.common_ops import (barrier_all_on_stream, set_signal, wait_eq, barrier_on_this_grid)
from triton_dist.utils import (CUDA_CHECK, get_has_nvlink)
from triton.language.extra.cuda.language_extra import tid, __syncthreads, ld, st

SIGNAL_DTYPE = torch.uint64


@triton.jit
def add_continuous_kernel(
    lhs,
    rhs,
    out,
    N,
    BLOCK_SIZE: tl.constexpr,
):
    pid = tl.program_id(axis=0)
    block_start = pid * BLOCK_SIZE
    n_blocks = tl.cdiv(N, BLOCK_SIZE)
    num_pid = tl.num_programs(axis=0)

    lhs_block_ptr = tl.make_block_ptr(
        base=lhs,
        shape=(N, ),
        strides=(1, ),
        offsets=(block_start, ),
        block_shape=(BLOCK_SIZE, ),
        order=(0, ),
    )
    rhs_block_ptr = tl.make_block_ptr(
        base=rhs,
        shape=(N, ),
        strides=(1, ),
        offsets=(block_start, ),
        block_shape=(BLOCK_SIZE, ),
        order=(0, ),
    )
    out_block_ptr = tl.make_block_ptr(
        base=out,
        shape=(N, ),
        strides=(1, ),
        offsets=(block_start, ),
        block_shape=(BLOCK_SIZE, ),
        order=(0, ),
    )
    for _ in range(pid, n_blocks, num_pid):
        tl.store(
            out_block_ptr,
            tl.load(lhs_block_ptr, boundary_check=(0, )) + tl.load(rhs_block_ptr, boundary_check=(0, )),
            boundary_check=(0, ),
        )
        lhs_block_ptr = tl.advance(lhs_block_ptr, [BLOCK_SIZE * num_pid])
        rhs_block_ptr = tl.advance(rhs_block_ptr, [BLOCK_SIZE * num_pid])
        out_block_ptr = tl.advance(out_block_ptr, [BLOCK_SIZE * num_pid])


@triton.jit
def copy_continuous_kernel(
    src_ptr,
    dst_ptr,
    N,
    BLOCK_SIZE: tl.constexpr,
):
    pid = tl.program_id(axis=0)
    block_start = pid * BLOCK_SIZE
    n_blocks = tl.cdiv(N, BLOCK_SIZE)
    num_pid = tl.num_programs(axis=0)

    src_block_ptr = tl.make_block_ptr(
        base=src_ptr,
        shape=(N, ),
        strides=(1, ),
        offsets=(block_start, ),
        block_shape=(BLOCK_SIZE, ),
        order=(0, ),
    )
    dst_block_ptr = tl.make_block_ptr(
        base=dst_ptr,
        shape=(N, ),
        strides=(1, ),
        offsets=(block_start, ),
        block_shape=(BLOCK_SIZE, ),
        order=(0, ),
    )
    for _ in range(pid, n_blocks, num_pid):
        tl.store(
            dst_block_ptr,
            tl.load(src_block_ptr, boundary_check=(0, )),
            boundary_check=(0, ),
        )
        src_block_ptr = tl.advance(src_block_ptr, [BLOCK_SIZE * num_pid])
        dst_block_ptr = tl.advance(dst_block_ptr, [BLOCK_SIZE * num_pid])


@triton.jit(do_not_specialize=["rank", "num_ranks"])
def reduce_scatter_ring_push_1d_intra_node_kernel(
    rank,
    num_ranks,
    input_ptr,
    symm_input_flag_ptr,
    symm_reduce_ptr,
    symm_reduce_flag_ptr,
    grid_barrier_ptr,  # use this to sync many grids
    output_ptr,
    elems_per_rank,
    BLOCK_SIZE: tl.constexpr,
):
    to_rank = (rank - 1 + num_ranks) % num_ranks
    peer_reduce_ptr = dl.symm_at(symm_reduce_ptr, to_rank)
    peer_symm_reduce_flag_ptr = dl.symm_at(symm_reduce_flag_ptr, to_rank)
    thread_idx = tid(0)
    pid = tl.program_id(0)

    for stage in range(num_ranks):
        segment = (rank + stage + 1) % num_ranks
        src_ptr = input_ptr + segment * elems_per_rank
        dst_ptr = peer_reduce_ptr + segment * elems_per_rank

        # wait by many CTA's is OK
        # wait for data ready
        if thread_idx == 0:
            while ld(symm_input_flag_ptr + segment, semantic="acquire", scope="gpu") != 1:
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

        barrier_on_this_grid(grid_barrier_ptr)
        # set flag only after all CTAs done memcpy/reduce
        if pid == 0 and thread_idx == 0:
            st(peer_symm_reduce_flag_ptr + segment, 1, semantic="release", scope="sys")
        __syncthreads()
    if pid == 0:
        libshmem_device.barrier_all_block()
