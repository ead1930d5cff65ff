"""symm-mem-recipes' Triton blockwise barrier: a relaxed wait in inline asm by some threads,
``bar.sync 0``, then every thread's ``ld.acquire.sys.global.u32`` of each peer's slot in its
own signal pad (the acquire the relaxed wait leaves for later), then the peer's data.  Each
kernel first writes its own block of the symmetric buffer and syncs the CTA (symm_mem's
pattern 1: ``__syncthreads(); barrier; __syncthreads()``), so the barrier must order this
kernel's writes, which takes the release send and an acquire of what the wait read.

From yifuwang/symm-mem-recipes ``symm_mem_recipes/triton_barrier.py`` (commit
81dbaf151318af79a7c845afabd078d08fc919e8), ``blockwise_barrier``: ``send_signal`` spins on
``atom.global.release.sys.cas.b32 [$1], 0, 1``, ``wait_signal`` on ``atom.global.sys.cas.b32
[$2], 1, 0`` ("No need to acquire here since all threads will acquire this location after the
barrier"), then ``bar.sync 0;`` and ``ld.acquire.sys.global.u32 $0, [$1];`` on
``local_signal_pad_addr + remote_rank``.  The broken form acquires a slot the wait did not
read (another block's): an acquire orders only through the flag it reads.
Lines the tests look for carry a ``# L:<tag>`` comment.
"""

import triton
import triton.language as tl


@triton.jit
def get_flat_tid():
    return tl.inline_asm_elementwise("mov.u32 $0, %tid.x;", "=r", [], dtype=tl.int32, is_pure=True, pack=1)


@triton.jit
def send_and_wait(send_addrs, wait_addrs):
    tl.inline_asm_elementwise(  # L:send-wait
        """
        {
            .reg .u32   %tmp32_<1>;
            .reg .pred  %p<1>;
            send_signal:
                atom.global.release.sys.cas.b32 %tmp32_0, [$1], 0, 1;
                setp.eq.u32 %p0, %tmp32_0, 0;
                @!%p0 bra send_signal;
            wait_signal:
                atom.global.sys.cas.b32 %tmp32_0, [$2], 1, 0;
                setp.eq.u32 %p0, %tmp32_0, 1;
                @!%p0 bra wait_signal;
            barrier_end:
        }
        """,
        "=r, l, l", [send_addrs, wait_addrs], dtype=tl.int32, is_pure=False, pack=1)


@triton.jit
def acquire(addr):
    tl.inline_asm_elementwise("ld.acquire.sys.global.u32 $0, [$1];", "=r, l", [addr],  # L:ld-acquire
                              dtype=tl.int32, is_pure=False, pack=1)


@triton.jit
def read_after_barrier(buffer_ptrs: "*i64", signal_pad_ptrs: "*i64", out: "*fp32", RANK: tl.constexpr,
                       WORLD_SIZE: tl.constexpr, BLOCK: tl.constexpr):
    block_id = tl.program_id(0)
    offs = block_id * BLOCK + tl.arange(0, BLOCK)
    flat_tid = get_flat_tid()
    remote_ranks = tl.arange(0, WORLD_SIZE)
    pads = signal_pad_ptrs.to(tl.pointer_type(tl.uint64))
    remote_pads = tl.load(pads + remote_ranks).to(tl.pointer_type(tl.uint32))
    local_pad = tl.load(pads + RANK).to(tl.pointer_type(tl.uint32))
    mine = tl.load(buffer_ptrs + RANK).to(tl.pointer_type(tl.float32))
    tl.store(mine + offs, tl.full([BLOCK], 1.0, tl.float32))
    tl.inline_asm_elementwise("bar.sync 0;", "=r", [], dtype=tl.int32, is_pure=False, pack=1)
    if flat_tid < WORLD_SIZE:
        send_and_wait(remote_pads + block_id * WORLD_SIZE + RANK, local_pad + block_id * WORLD_SIZE + remote_ranks)
    tl.inline_asm_elementwise("bar.sync 0;", "=r", [], dtype=tl.int32, is_pure=False, pack=1)
    for remote_rank in range(WORLD_SIZE):
        acquire(local_pad + block_id * WORLD_SIZE + remote_rank)  # L:acquire-own
    peer = tl.load(buffer_ptrs + (RANK + 1) % WORLD_SIZE).to(tl.pointer_type(tl.float32))
    tl.store(out + offs, tl.load(peer + offs))  # L:read-ok


@triton.jit
def read_after_other_acquire(buffer_ptrs: "*i64", signal_pad_ptrs: "*i64", out: "*fp32", RANK: tl.constexpr,
                             WORLD_SIZE: tl.constexpr, BLOCK: tl.constexpr):
    block_id = tl.program_id(0)
    offs = block_id * BLOCK + tl.arange(0, BLOCK)
    flat_tid = get_flat_tid()
    remote_ranks = tl.arange(0, WORLD_SIZE)
    pads = signal_pad_ptrs.to(tl.pointer_type(tl.uint64))
    remote_pads = tl.load(pads + remote_ranks).to(tl.pointer_type(tl.uint32))
    local_pad = tl.load(pads + RANK).to(tl.pointer_type(tl.uint32))
    mine = tl.load(buffer_ptrs + RANK).to(tl.pointer_type(tl.float32))
    tl.store(mine + offs, tl.full([BLOCK], 1.0, tl.float32))
    tl.inline_asm_elementwise("bar.sync 0;", "=r", [], dtype=tl.int32, is_pure=False, pack=1)
    if flat_tid < WORLD_SIZE:
        send_addrs = remote_pads + block_id * WORLD_SIZE + RANK
        send_and_wait(send_addrs, local_pad + block_id * WORLD_SIZE + remote_ranks)  # L:wait-other
    tl.inline_asm_elementwise("bar.sync 0;", "=r", [], dtype=tl.int32, is_pure=False, pack=1)
    acquire(out)  # L:acquire-other
    peer = tl.load(buffer_ptrs + (RANK + 1) % WORLD_SIZE).to(tl.pointer_type(tl.float32))
    tl.store(out + offs, tl.load(peer + offs))  # L:read-other


LITMUS_LINT = {k: {"signature": {"RANK": 0, "WORLD_SIZE": 2, "BLOCK": 128}}
               for k in ("read_after_barrier", "read_after_other_acquire")}
