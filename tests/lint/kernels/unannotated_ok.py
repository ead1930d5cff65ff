"""An iris-style put between two ranks written as real kernels are: no annotations, no

consumer polls with a volatile load, no acquire. `litmus lint` infers every type."""

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
def producer(src, data, flag, heap_bases, cur_rank, to_rank, n_elements, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n_elements
    tl.store(translate(data + offs, cur_rank, to_rank, heap_bases), tl.load(src + offs, mask=mask), mask=mask)
    tl.debug_barrier()
    translated_flag = translate(flag + pid, cur_rank, to_rank, heap_bases)
    tl.atomic_xchg(translated_flag, 1, sem="release", scope="sys")


@triton.jit
def consumer(data, flag, out, n_elements, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n_elements
    while tl.atomic_add(flag + pid, 0, sem="acquire", scope="sys") != 1:
        pass
    tl.store(out + offs, tl.load(data + offs, mask=mask), mask=mask)
