"""A put between two ranks written with iris' device API (`import iris`), with no annotations:
`litmus lint` loads it with its iris stand-in (the real Triton of iris' helpers: translation by
heap bases, then one tl.atomic_* with the caller's sem and scope) and compiles it for hip."""

import iris
import triton
import triton.language as tl


@triton.jit
def put_gpu_scope(src, data, flag, heap_bases, cur_rank, to_rank, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    iris.store(data + offs, tl.load(src + offs), cur_rank, to_rank, heap_bases)
    tl.debug_barrier()
    iris.atomic_xchg(flag + pid, 1, cur_rank, to_rank, heap_bases, sem="release", scope="gpu")  # L:scope


@triton.jit
def put_no_barrier(src, data, flag, heap_bases, cur_rank, to_rank, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    iris.store(data + offs, tl.load(src + offs), cur_rank, to_rank, heap_bases)  # L:store
    iris.atomic_xchg(flag + pid, 1, cur_rank, to_rank, heap_bases, sem="release", scope="sys")  # L:nobar


@triton.jit
def put_ok(src, data, flag, heap_bases, cur_rank, to_rank, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    iris.store(data + offs, tl.load(src + offs), cur_rank, to_rank, heap_bases)
    tl.debug_barrier()
    iris.atomic_xchg(flag + pid, 1, cur_rank, to_rank, heap_bases, sem="release", scope="sys")


@triton.jit
def wait_then_read(data, flag, out, heap_bases, cur_rank, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    while iris.atomic_cas(flag + pid, 1, 0, cur_rank, cur_rank, heap_bases, sem="acquire", scope="sys") != 1:
        pass
    tl.store(out + offs, tl.load(data + offs))


def launch(shmem, src, data, flag, out):
    heap_bases = shmem.get_heap_bases()
    put_ok[(1,)](src, data, flag, heap_bases, shmem.get_rank(), 1, BLOCK=128)
