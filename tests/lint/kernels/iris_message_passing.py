"""iris' message-passing example, as written.

From ROCm/iris ``examples/06_message_passing/message_passing_load_store.py`` (commit
3b4c197043b04b67989766588540ea1dff36dd0d): the producer puts its tile into the consumer's
heap (``iris.store(target_buffer + offsets, ..., producer_rank, consumer_rank, heap_bases)``)
and raises ``flag + pid`` with a plain ``tl.store(flag + pid, 1)``; the consumer spins with
``done = tl.load(flag + pid); while done == 0: done = tl.load(flag + pid)`` and then reads
the buffer.  Triton compiles the plain spin to no loop and no flag load at all: the consumer
reads the buffer at once.  The consumer then resets the flag with ``tl.store(flag + pid, 0)``.
``translate`` is iris' heap-base translation (``__translate``); the fixed form: ``*_fixed.py``.
Lines the tests look for carry a ``# L:<tag>`` comment.
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
def producer_kernel(source_buffer: "*fp32", target_buffer: "*fp32", flag: "*i32", buffer_size: "i32",
                    producer_rank: tl.constexpr, consumer_rank: tl.constexpr, BLOCK_SIZE: tl.constexpr,
                    heap_bases_ptr: "*u64"):
    pid = tl.program_id(0)
    offsets = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < buffer_size
    values = tl.load(translate(source_buffer + offsets, producer_rank, producer_rank, heap_bases_ptr), mask=mask)
    tl.store(translate(target_buffer + offsets, producer_rank, consumer_rank, heap_bases_ptr), values,  # L:put
             mask=mask)
    tl.store(flag + pid, 1)  # L:plain-flag


@triton.jit
def consumer_kernel(buffer: "*fp32", flag: "*i32", buffer_size: "i32", consumer_rank: tl.constexpr,
                    BLOCK_SIZE: tl.constexpr, heap_bases_ptr: "*u64"):
    pid = tl.program_id(0)
    offsets = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < buffer_size
    done = tl.load(flag + pid)
    while done == 0:  # L:plain-spin
        done = tl.load(flag + pid)
    values = tl.load(translate(buffer + offsets, consumer_rank, consumer_rank, heap_bases_ptr), mask=mask)
    tl.store(translate(buffer + offsets, consumer_rank, consumer_rank, heap_bases_ptr), values * 2, mask=mask)
    tl.store(flag + pid, 0)  # L:reset


LITMUS_LINT = {"producer_kernel": {"signature": {"producer_rank": 0, "consumer_rank": 1, "BLOCK_SIZE": 128}},
               "consumer_kernel": {"signature": {"consumer_rank": 1, "BLOCK_SIZE": 128}}}
