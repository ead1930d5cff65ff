# corpus: ByteDance-Seed/Triton-distributed python/triton_dist/kernels/nvidia/allgather_group_gemm.py @ 1512a81189315eca7ba38f884aaf239469a88ba3
# (excerpt, MIT (LICENSES/ByteDance-Seed_Triton-distributed.txt): the licence header, the imports and _copy_and_reset_and_barrier_all_kernel verbatim
# (lines 1-83), and the context class that allocates its buffers and launches it verbatim (lines 250-336); the MoE
# gather-index kernels, the GEMM kernels and the rest of the host code left out)
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
from dataclasses import dataclass, field
from typing import List, Optional

import torch

import triton
import triton.language as tl
import triton_dist
from triton_dist.kernels.nvidia.common_ops import _set_signal_cuda
import triton_dist.language as dl
from triton_dist.language.extra.language_extra import __syncthreads
from triton_dist.kernels.nvidia.allgather import (AllGatherMethod, cp_engine_producer_all_gather_inter_node,
                                                  cp_engine_producer_all_gather_intra_node, get_auto_all_gather_method)
from triton_dist.kernels.nvidia.common_ops import (barrier_on_this_grid, next_power_of_2)
from triton_dist.kernels.nvidia.threadblock_swizzle_ag_moe_triton import \
    threadblock_swizzle_ag_moe_kernel
from triton_dist.language.extra import libshmem_device
from triton_dist.utils import NVSHMEM_SIGNAL_DTYPE, launch_cooperative_grid_options, nvshmem_barrier_all_on_stream, nvshmem_create_tensors, nvshmem_free_tensor_sync


@triton_dist.jit(do_not_specialize=["rank"])
def _copy_and_reset_and_barrier_all_kernel(
    local_data_ptr,  # [M_per_rank, K]
    out_data_ptr,  # [M_per_rank, K]
    N,
    barrier_ptr,  # [num_ranks] set to 0 except for current rank
    rank,
    NUM_RANKS: tl.constexpr,
    grid_barrier_ptr,
    BLOCK_SIZE: tl.constexpr,
    use_cooperative: tl.constexpr,
):
    pid = tl.program_id(0)
    npid = tl.num_programs(0)
    # barrier_all
    if pid == 0:
        libshmem_device.barrier_all_block()
    barrier_on_this_grid(grid_barrier_ptr, use_cooperative)

    # copy data
    num_blocks = tl.cdiv(N, BLOCK_SIZE)
    for n in range(pid, num_blocks, npid):
        off = n * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
        mask = off < N
        local_data = tl.load(local_data_ptr + off, mask=mask)
        tl.store(out_data_ptr + off, local_data, mask=mask)

    # reset barrier
    if pid == 0:
        NUM_RANKS_NEXT_POW_OF_2: tl.constexpr = next_power_of_2(NUM_RANKS)
        offs_by_rank = tl.arange(0, NUM_RANKS_NEXT_POW_OF_2)
        mask_by_rank = offs_by_rank < NUM_RANKS
        tl.store(barrier_ptr + offs_by_rank, tl.where(offs_by_rank == rank, 1, 0), mask_by_rank)

    # barrier_all
    if pid == 0:
        libshmem_device.barrier_all_block()
    barrier_on_this_grid(grid_barrier_ptr, use_cooperative)


@dataclass
class MoEAllGatherGroupGEMMTensorParallelContext:
    # problem size
    # local input [M_per_rank, K]
    # local weight [expert_num, K, N_per_rank]
    max_ntokens: int
    N_per_rank: int
    K: int
    num_experts: int
    topk: int
    dtype: torch.dtype
    # parallelism info
    rank: int
    num_ranks: int
    num_local_ranks: int = 8
    is_multinode: bool = field(init=False)
    n_nodes: int = field(init=False)
    node_rank: int = field(init=False)
    local_rank: int = field(init=False)
    # distributed mem
    symm_workspaces: List[torch.Tensor] = field(init=False)  # ag buffer
    symm_barriers: List[torch.Tensor] = field(init=False)
    symm_workspace: torch.Tensor = field(init=False)
    symm_barrier: torch.Tensor = field(init=False)
    barrier_target = 1
    grid_barrier: torch.Tensor = field(init=False)  # used for triton grid barrier
    # async streams
    ag_intranode_stream: Optional[torch.cuda.streams.Stream] = None
    ag_internode_stream: Optional[torch.cuda.streams.Stream] = None
    # triton compute kernel config
    BLOCK_M: int = 128
    BLOCK_N: int = 256
    BLOCK_K: int = 64
    GROUP_SIZE_M: int = 8
    stages: int = 3
    warps: int = 8
    all_gather_method: AllGatherMethod = AllGatherMethod.Auto

    def __post_init__(self):
        assert self.num_ranks % self.num_local_ranks == 0, "num_ranks must be divisible by num_local_ranks"
        self.is_multinode = self.num_ranks > self.num_local_ranks
        self.n_nodes = self.num_ranks // self.num_local_ranks
        self.node_rank = self.rank // self.num_local_ranks
        self.local_rank = self.rank % self.num_local_ranks
        self.grid_barrier = torch.zeros((1, ), dtype=torch.int32, device="cuda")

        self.symm_workspaces = nvshmem_create_tensors((self.max_ntokens, self.K), self.dtype, self.rank,
                                                      self.num_local_ranks)
        self.symm_workspace = self.symm_workspaces[self.local_rank]

        self.symm_barriers = nvshmem_create_tensors((self.num_ranks, ), NVSHMEM_SIGNAL_DTYPE, self.rank,
                                                    self.num_local_ranks)
        self.symm_barrier = self.symm_barriers[self.local_rank]
        nvshmem_barrier_all_on_stream(torch.cuda.current_stream())

    def finalize(self):
        nvshmem_free_tensor_sync(self.symm_barrier)
        nvshmem_free_tensor_sync(self.symm_workspace)

    def copy_and_reset_and_barrier_all(self, local_data):
        M_per_rank = local_data.shape[0]
        nvshmem_barrier_all_on_stream(torch.cuda.current_stream())
        self.symm_barrier.zero_()
        dst = self.symm_workspace[self.rank * M_per_rank:(self.rank + 1) * M_per_rank, :]
        dst.copy_(local_data)
        _set_signal_cuda(self.symm_barrier[self.rank], 1, torch.cuda.current_stream())
        nvshmem_barrier_all_on_stream(torch.cuda.current_stream())

    def copy_and_reset_and_barrier_all_triton(self, local_data):
        elems_per_rank = local_data.numel()
        assert local_data.is_contiguous() and local_data.is_cuda, "local_data must be contiguous"
        _copy_and_reset_and_barrier_all_kernel[(16, )](
            local_data,
            self.symm_workspace.flatten()[elems_per_rank * self.rank:elems_per_rank * (self.rank + 1)],
            elems_per_rank,
            self.symm_barrier,
            self.rank,
            self.symm_barrier.numel(),
            self.grid_barrier,
            BLOCK_SIZE=1024 * 16 // local_data.itemsize,
            num_warps=32,
            use_cooperative=True,
            **launch_cooperative_grid_options(),
        )

