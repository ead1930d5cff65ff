"""One small kernel per rule shape, a sound and an unsound form (one GPU, CTAs signalling),
for the rules the real-shaped kernels do not reach: a relaxed or plain flag write, a relaxed
CAS spin, a flag raised every round without waiting for the reset, a relaxed reset, fences
written as inline asm, and atomics that are reductions rather than signals."""

import triton
import triton.language as tl


@triton.jit
def fence_acq_rel_sys():
    tl.inline_asm_elementwise("fence.acq_rel.sys; mov.u32 $0, 0;", "=r", [], dtype=tl.int32, is_pure=False, pack=1)


@triton.jit
def relaxed_signal(data: "*i32", flag: "*i32"):
    tl.store(data, 1)
    tl.atomic_xchg(flag, 1, sem="relaxed", scope="gpu")  # L:relaxed-signal


@triton.jit
def plain_signal(data: "*i32", flag: "*i32"):
    tl.store(data, 1)
    tl.store(flag, 1)  # L:plain-signal


@triton.jit
def fence_then_relaxed_signal(data: "*i32", flag: "*i32"):
    tl.store(data, 1)
    fence_acq_rel_sys()
    tl.atomic_xchg(flag, 1, sem="relaxed", scope="gpu")


@triton.jit
def relaxed_cas_wait(data: "*i32", flag: "*i32", out: "*i32"):
    while tl.atomic_cas(flag, 1, 0, sem="relaxed", scope="gpu") != 1:  # L:relaxed-wait
        pass
    tl.store(out, tl.load(data))


@triton.jit
def relaxed_wait_then_fence(data: "*i32", flag: "*i32", out: "*i32"):
    while tl.atomic_cas(flag, 1, 0, sem="relaxed", scope="gpu") != 1:
        pass
    fence_acq_rel_sys()
    tl.store(out, tl.load(data))


@triton.jit
def signal_every_round(data: "*i32", flag: "*i32", n: "i32"):
    for i in range(n):
        tl.store(data, i)
        tl.atomic_xchg(flag, 1, sem="release", scope="gpu")  # L:reuse


@triton.jit
def signal_after_reset(data: "*i32", flag: "*i32", n: "i32"):
    for i in range(n):
        while tl.atomic_add(flag, 0, sem="acquire", scope="gpu") != 0:
            pass
        tl.store(data, i)
        tl.atomic_xchg(flag, 1, sem="release", scope="gpu")


@triton.jit
def relaxed_reset(data: "*i32", flag: "*i32", out: "*i32"):
    while tl.atomic_add(flag, 0, sem="acquire", scope="gpu") != 1:
        pass
    tl.store(out, tl.load(data))
    tl.atomic_xchg(flag, 0, sem="relaxed", scope="gpu")  # L:relaxed-reset


@triton.jit
def release_reset(data: "*i32", flag: "*i32", out: "*i32"):
    while tl.atomic_add(flag, 0, sem="acquire", scope="gpu") != 1:
        pass
    tl.store(out, tl.load(data))
    tl.atomic_xchg(flag, 0, sem="release", scope="gpu")


@triton.jit
def reduction(x: "*fp32", y: "*fp32", out: "*fp32", BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    v = tl.load(x + offs)
    tl.store(y + offs, v)
    tl.atomic_add(out + offs, v)


@triton.jit
def flag_per_element(data: "*i32", flags: "*i32", BLOCK: tl.constexpr):
    # element i's payload and flag are written by the thread that holds element i
    offs = tl.arange(0, BLOCK)
    tl.store(data + offs, offs)
    tl.atomic_xchg(flags + offs, tl.full([BLOCK], 1, tl.int32), sem="release", scope="gpu")




@triton.jit
def last_block_ok(x: "*fp32", partial: "*fp32", counter: "*i32", out: "*fp32", n_blocks: "i32",
                  BLOCK: tl.constexpr):
    # threadFenceReduction's last-block ticket: the block that draws ticket n-1 sums the partials
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    tl.store(partial + offs, tl.load(x + offs))
    tl.debug_barrier()
    if tl.atomic_add(counter, 1, sem="acq_rel", scope="gpu") == n_blocks - 1:
        tl.store(out + tl.arange(0, BLOCK), tl.load(partial + tl.arange(0, BLOCK)))


@triton.jit
def last_block_relaxed(x: "*fp32", partial: "*fp32", counter: "*i32", out: "*fp32", n_blocks: "i32",
                       BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    tl.store(partial + offs, tl.load(x + offs))
    tl.debug_barrier()
    if tl.atomic_add(counter, 1, sem="relaxed", scope="gpu") == n_blocks - 1:  # L:ticket
        tl.store(out + tl.arange(0, BLOCK), tl.load(partial + tl.arange(0, BLOCK)))


@triton.jit
def count_stores(data: "*fp32", stats: "*i32", BLOCK: tl.constexpr):
    # a statistic: the count is never read by the kernel nor waited for
    tl.store(data + tl.arange(0, BLOCK), tl.full([BLOCK], 1.0, tl.float32))
    tl.atomic_add(stats, 1)


LITMUS_LINT = {name: {"signature": {"BLOCK": 128}} for name in (
    "reduction", "flag_per_element", "last_block_ok", "last_block_relaxed", "count_stores")}
