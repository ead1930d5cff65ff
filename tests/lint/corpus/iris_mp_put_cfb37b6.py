# corpus: ROCm/iris examples/06_message_passing/message_passing_put.py @ cfb37b6404e545900071bec6cd13d68071bf64c2
# (excerpt, MIT (LICENSES/ROCm_iris.txt): the licence header, the imports the kernels need and producer_kernel and consumer_kernel
# verbatim; the torch.distributed / multiprocessing imports, the argument parsing, _worker and main left out)
# SPDX-License-Identifier: MIT
# Copyright (c) 2025 Advanced Micro Devices, Inc. All rights reserved.

import triton
import triton.language as tl

import iris


@triton.jit
def producer_kernel(
    source_buffer,  # tl.tensor: pointer to source data
    target_buffer,  # tl.tensor: pointer to target data
    flag,  # tl.tensor: pointer to flags
    buffer_size,  # int32: total number of elements
    producer_rank: tl.constexpr,
    consumer_rank: tl.constexpr,
    BLOCK_SIZE: tl.constexpr,
    heap_bases_ptr: tl.tensor,  # tl.tensor: pointer to heap bases pointers
    copy_engine_handle_ptr,
    USE_COPY_ENGINE: tl.constexpr,
):
    pid = tl.program_id(0)

    # Compute start index of this block
    block_start = pid * BLOCK_SIZE
    offsets = block_start + tl.arange(0, BLOCK_SIZE)

    # Guard for out-of-bounds accesses
    mask = offsets < buffer_size

    # Put chunk into remote buffer
    iris.put(
        source_buffer + offsets,
        target_buffer + offsets,
        producer_rank,
        consumer_rank,
        heap_bases_ptr,
        copy_engine_handle_ptr,
        mask=mask,
        USE_COPY_ENGINE=USE_COPY_ENGINE,
    )

    # Set flag to signal completion
    iris.atomic_cas(
        flag + pid,
        0,
        1,
        producer_rank,
        consumer_rank,
        heap_bases_ptr,
        sem="release",
        scope="sys",
        USE_COPY_ENGINE=USE_COPY_ENGINE,
        copy_engine_ctx=copy_engine_handle_ptr,
    )


@triton.jit
def consumer_kernel(
    buffer,  # tl.tensor: pointer to shared buffer (read from target_rank)
    flag,  # tl.tensor: sync flag per block
    buffer_size,  # int32: total number of elements
    consumer_rank: tl.constexpr,
    BLOCK_SIZE: tl.constexpr,
    heap_bases_ptr: tl.tensor,  # tl.tensor: pointer to heap bases pointers
):
    pid = tl.program_id(0)

    block_start = pid * BLOCK_SIZE
    offsets = block_start + tl.arange(0, BLOCK_SIZE)
    mask = offsets < buffer_size

    # Spin-wait until writer sets flag[pid] = 1
    done = 0
    while done == 0:
        done = iris.atomic_cas(
            flag + pid, 1, 0, consumer_rank, consumer_rank, heap_bases_ptr, sem="acquire", scope="sys"
        )

    # Read from the target buffer (written by producer)
    values = tl.load(buffer + offsets, mask=mask)

    # Do something with values...
    # (Here you might write to output, do computation, etc.)
    values = values * 2

    # Store chunk to target buffer
    tl.store(
        buffer + offsets,
        values,
        mask=mask,
    )

    # Optionally reset the flag for next iteration
    tl.store(flag + pid, 0)
