"""iris' message-passing example (``iris_message_passing.py``) fixed: the producer raises the
consumer's flag with a release xchg at sys scope after a ``tl.debug_barrier()``, and the
consumer spins on an acquire atomic (``tl.atomic_add(flag + pid, 0, sem="acquire",
scope="sys")``), which the compiler keeps.  From ROCm/iris
``examples/06_message_passing/message_passing_load_store.py`` (commit
3b4c197043b04b67989766588540ea1dff36dd0d).
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
def producer_fixed(source_buffer: "*fp32", target_buffer: "*fp32", flag: "*i32", buffer_size: "i32",
                   producer_rank: tl.constexpr, consumer_rank: tl.constexpr, BLOCK_SIZE: tl.constexpr,
                   heap_bases_ptr: "*u64"):
    pid = tl.program_id(0)
    offsets = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < buffer_size
    values = tl.load(translate(source_buffer + offsets, producer_rank, producer_rank, heap_bases_ptr), mask=mask)
    tl.store(translate(target_buffer + offsets, producer_rank, consumer_rank, heap_bases_ptr), values, mask=mask)
    tl.debug_barrier()
    tl.atomic_xchg(translate(flag + pid, producer_rank, consumer_rank, heap_bases_ptr), 1, sem="release",
                   scope="sys")


@triton.jit
def consumer_fixed(buffer: "*fp32", flag: "*i32", buffer_size: "i32", consumer_rank: tl.constexpr,
                   BLOCK_SIZE: tl.constexpr, heap_bases_ptr: "*u64"):
    pid = tl.program_id(0)
    offsets = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < buffer_size
    while tl.atomic_add(flag + pid, 0, sem="acquire", scope="sys") == 0:
        pass
    values = tl.load(translate(buffer + offsets, consumer_rank, consumer_rank, heap_bases_ptr), mask=mask)
    tl.store(translate(buffer + offsets, consumer_rank, consumer_rank, heap_bases_ptr), values * 2, mask=mask)


LITMUS_LINT = {"producer_fixed": {"signature": {"producer_rank": 0, "consumer_rank": 1, "BLOCK_SIZE": 128}},
               "consumer_fixed": {"signature": {"consumer_rank": 1, "BLOCK_SIZE": 128}}}
