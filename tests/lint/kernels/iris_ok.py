"""iris-style put/get between two ranks, correct form.

``translate`` is iris' heap-base translation (``__translate``): a pointer into this rank's
symmetric heap is moved into another rank's heap by the difference of the two heap bases,
read from ``heap_bases``.  Put: the producer stores the tile into the consumer's heap, then
raises the consumer's flag with a release xchg at sys scope; the consumer spins with an
acquire CAS (iris' ``atomic_cas(flag, 1, 0, sem="acquire", scope="sys")``) and reads its own
heap.  Get: the producer writes its own heap and raises the consumer's flag; the consumer
waits with an acquire read and loads from the producer's heap.
"""

import triton
import triton.language as tl


@triton.jit
def translate(ptr, from_rank, to_rank, heap_bases):
    from_base = tl.load(heap_bases + from_rank)
    to_base = tl.load(heap_bases + to_rank)
    offset = tl.cast(ptr, tl.uint64) - from_base
    to_base_byte = tl.cast(to_base, tl.pointer_type(tl.int8))
    translated_ptr_byte = to_base_byte + offset
    return tl.cast(translated_ptr_byte, ptr.dtype)


@triton.jit
def put_producer(src: "*fp32", data: "*fp32", flag: "*i32", heap_bases: "*u64", cur_rank: tl.constexpr,
                 to_rank: tl.constexpr, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    tl.store(translate(data + offs, cur_rank, to_rank, heap_bases), tl.load(src + offs))
    tl.debug_barrier()
    tl.atomic_xchg(translate(flag + pid, cur_rank, to_rank, heap_bases), 1, sem="release", scope="sys")


@triton.jit
def put_consumer(data: "*fp32", flag: "*i32", out: "*fp32", heap_bases: "*u64", cur_rank: tl.constexpr,
                 BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    done = 0
    while done == 0:
        done = tl.atomic_cas(translate(flag + pid, cur_rank, cur_rank, heap_bases), 1, 0, sem="acquire", scope="sys")
    tl.store(out + offs, tl.load(data + offs))


@triton.jit
def get_producer(data: "*fp32", flag: "*i32", heap_bases: "*u64", cur_rank: tl.constexpr, to_rank: tl.constexpr,
                 BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    tl.store(data + offs, tl.full([BLOCK], 1.0, tl.float32))
    tl.debug_barrier()
    tl.atomic_xchg(translate(flag + pid, cur_rank, to_rank, heap_bases), 1, sem="release", scope="sys")


@triton.jit
def get_consumer(data: "*fp32", flag: "*i32", out: "*fp32", heap_bases: "*u64", cur_rank: tl.constexpr,
                 from_rank: tl.constexpr, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    while tl.atomic_add(translate(flag + pid, cur_rank, cur_rank, heap_bases), 0, sem="acquire", scope="sys") != 1:
        pass
    tl.store(out + offs, tl.load(translate(data + offs, cur_rank, from_rank, heap_bases)))


LITMUS_LINT = {
    "put_producer": {"signature": {"cur_rank": 0, "to_rank": 1, "BLOCK": 128}},
    "put_consumer": {"signature": {"cur_rank": 1, "BLOCK": 128}},
    "get_producer": {"signature": {"cur_rank": 0, "to_rank": 1, "BLOCK": 128}},
    "get_consumer": {"signature": {"cur_rank": 1, "from_rank": 0, "BLOCK": 128}},
}
