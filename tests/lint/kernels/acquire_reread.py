"""A consumer that reads data, acquires a flag through inline asm (as symm-mem-style barriers
and CuTe-DSL helpers do) and reads the data again, in the forms the compiler turns into one
read (docs/compiler-bugs/ptxas-report.md) and in the forms it keeps."""

import triton
import triton.language as tl


@triton.jit
def ld_acquire_gpu(p):
    return tl.inline_asm_elementwise("ld.acquire.gpu.global.b32 $0, [$1];", "=r,l", [p], dtype=tl.int32,
                                     is_pure=False, pack=1)


@triton.jit
def ld_acquire_sys(p):
    return tl.inline_asm_elementwise("ld.acquire.sys.global.u32 $0, [$1];", "=r,l", [p], dtype=tl.int32,
                                     is_pure=False, pack=1)


@triton.jit
def reread_ldacq(data: "*i32", flag: "*i32", out: "*i32"):
    early = tl.load(data)  # L:first
    ready = ld_acquire_gpu(flag)  # L:acquire
    late = tl.load(data)  # L:reread
    tl.store(out, early)
    tl.store(out + 1, ready)
    tl.store(out + 2, late)


@triton.jit
def reread_block(data: "*i32", flag: "*i32", out: "*i32", BLOCK: tl.constexpr = 128):
    offs = tl.arange(0, BLOCK)
    early = tl.load(data + offs)
    ready = ld_acquire_sys(flag)
    late = tl.load(data + offs)  # L:block-reread
    tl.store(out + offs, early + ready)
    tl.store(out + BLOCK + offs, late)


@triton.jit
def reread_after_spin(data: "*i32", flag: "*i32", out: "*i32"):
    early = tl.load(data)
    while ld_acquire_gpu(flag) != 1:  # L:spin
        pass
    late = tl.load(data)  # L:spin-reread
    tl.store(out, early)
    tl.store(out + 2, late)


@triton.jit
def reread_asm_fence(data: "*i32", flag: "*i32", out: "*i32"):
    early = tl.load(data)
    ready = tl.inline_asm_elementwise("ld.relaxed.gpu.global.b32 $0, [$1]; fence.acq_rel.gpu;", "=r,l", [flag],
                                      dtype=tl.int32, is_pure=False, pack=1)
    late = tl.load(data)  # L:fence-reread
    tl.store(out, early)
    tl.store(out + 1, ready)
    tl.store(out + 2, late)


@triton.jit
def reread_volatile(data: "*i32", flag: "*i32", out: "*i32"):
    early = tl.load(data)
    ready = ld_acquire_gpu(flag)
    late = tl.load(data, volatile=True)
    tl.store(out, early)
    tl.store(out + 1, ready)
    tl.store(out + 2, late)


@triton.jit
def reread_atomic_acquire(data: "*i32", flag: "*i32", out: "*i32"):
    early = tl.load(data)
    ready = tl.atomic_add(flag, 0, sem="acquire", scope="gpu")
    late = tl.load(data)
    tl.store(out, early)
    tl.store(out + 1, ready)
    tl.store(out + 2, late)


@triton.jit
def reread_barrier(data: "*i32", flag: "*i32", out: "*i32"):
    early = tl.load(data)
    ready = ld_acquire_gpu(flag)
    tl.debug_barrier()
    late = tl.load(data)
    tl.store(out, early)
    tl.store(out + 1, ready)
    tl.store(out + 2, late)


@triton.jit
def reread_store_between(data: "*i32", flag: "*i32", out: "*i32"):
    early = tl.load(data)
    tl.store(out + 3, early)
    ready = ld_acquire_gpu(flag)
    late = tl.load(data)
    tl.store(out, early)
    tl.store(out + 1, ready)
    tl.store(out + 2, late)


@triton.jit
def read_other_address(data: "*i32", other: "*i32", flag: "*i32", out: "*i32"):
    early = tl.load(data)
    ready = ld_acquire_gpu(flag)
    late = tl.load(other)
    tl.store(out, early)
    tl.store(out + 1, ready)
    tl.store(out + 2, late)
