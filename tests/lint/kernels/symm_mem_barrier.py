"""symm_mem's Triton blockwise barrier (the symm-mem-recipes shape) and patterns 0-2 of
`sync_remote_blocks`, each in a correct and a broken form.

The barrier: thread r of each CTA (``flat_tid < world_size``) sends by spinning
``atom.cas(pad, 0, 1)`` on its slot in rank r's signal pad, then waits by spinning
``atom.cas(pad, 1, 0)`` on rank r's slot in its own pad; the pads come from
``signal_pad_ptrs`` (a table of every rank's pad address), the data from ``buffer_ptrs``.
Lines the tests look for carry a ``# L:<tag>`` comment.
"""

import triton
import triton.language as tl


@triton.jit
def get_flat_tid():
    return tl.inline_asm_elementwise("mov.u32 $0, %tid.x;", "=r", [], dtype=tl.int32, is_pure=True, pack=1)


@triton.jit
def send_signal(addrs, sem: tl.constexpr):
    if sem == "relaxed":
        tl.inline_asm_elementwise(  # L:send-relaxed
            """
            {
                .reg .u32   %tmp32_<1>;
                .reg .pred  %p<1>;
                send_signal:
                    atom.global.relaxed.sys.cas.b32 %tmp32_0, [$1], 0, 1;
                    setp.eq.u32 %p0, %tmp32_0, 0;
                    @!%p0 bra send_signal;
            }
            """,
            "=r, l", [addrs], dtype=tl.int32, is_pure=False, pack=1)
    else:
        tl.inline_asm_elementwise(  # L:send-release
            """
            {
                .reg .u32   %tmp32_<1>;
                .reg .pred  %p<1>;
                send_signal:
                    atom.global.release.sys.cas.b32 %tmp32_0, [$1], 0, 1;
                    setp.eq.u32 %p0, %tmp32_0, 0;
                    @!%p0 bra send_signal;
            }
            """,
            "=r, l", [addrs], dtype=tl.int32, is_pure=False, pack=1)


@triton.jit
def wait_signal(addrs, sem: tl.constexpr):
    if sem == "relaxed":
        tl.inline_asm_elementwise(  # L:wait-relaxed
            """
            {
                .reg .u32   %tmp32_<1>;
                .reg .pred  %p<1>;
                wait_signal:
                    atom.global.sys.cas.b32 %tmp32_0, [$1], 1, 0;
                    setp.eq.u32 %p0, %tmp32_0, 1;
                    @!%p0 bra wait_signal;
            }
            """,
            "=r, l", [addrs], dtype=tl.int32, is_pure=False, pack=1)
    else:
        tl.inline_asm_elementwise(  # L:wait-acquire
            """
            {
                .reg .u32   %tmp32_<1>;
                .reg .pred  %p<1>;
                wait_signal:
                    atom.global.acquire.sys.cas.b32 %tmp32_0, [$1], 1, 0;
                    setp.eq.u32 %p0, %tmp32_0, 1;
                    @!%p0 bra wait_signal;
            }
            """,
            "=r, l", [addrs], dtype=tl.int32, is_pure=False, pack=1)


@triton.jit
def blockwise_barrier(signal_pad_ptrs, block_id, rank: tl.constexpr, world_size: tl.constexpr, sem: tl.constexpr):
    flat_tid = get_flat_tid()
    remote_ranks = tl.arange(0, world_size)
    signal_pad_ptrs = signal_pad_ptrs.to(tl.pointer_type(tl.uint64))
    remote_signal_pad_addrs = tl.load(signal_pad_ptrs + remote_ranks).to(tl.pointer_type(tl.uint32))
    send_addrs = remote_signal_pad_addrs + block_id * world_size + rank
    local_signal_pad_addr = tl.load(signal_pad_ptrs + rank).to(tl.pointer_type(tl.uint32))
    wait_addrs = local_signal_pad_addr + block_id * world_size + remote_ranks
    if flat_tid < world_size:
        send_signal(send_addrs, sem)  # L:send
        wait_signal(wait_addrs, sem)  # L:wait


@triton.jit
def my_buffer(buffer_ptrs, rank: tl.constexpr):
    return tl.load(buffer_ptrs.to(tl.pointer_type(tl.uint64)) + rank).to(tl.pointer_type(tl.float32))


@triton.jit
def pattern0_ok(buffer_ptrs: "*i64", signal_pad_ptrs: "*i64", out: "*fp32", rank: tl.constexpr,
                world_size: tl.constexpr, BLOCK: tl.constexpr):
    # pattern 0: earlier kernels' writes to symm_mem are visible after the relaxed barrier
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    blockwise_barrier(signal_pad_ptrs, pid, rank, world_size, "relaxed")
    tl.debug_barrier()
    peer = my_buffer(buffer_ptrs, (rank + 1) % world_size)
    tl.store(out + offs, tl.load(peer + offs))


@triton.jit
def pattern0_broken(buffer_ptrs: "*i64", signal_pad_ptrs: "*i64", out: "*fp32", rank: tl.constexpr,
                    world_size: tl.constexpr, BLOCK: tl.constexpr):
    # pattern 0 used for this kernel's own writes: the relaxed barrier does not publish them
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mine = my_buffer(buffer_ptrs, rank)
    tl.store(mine + offs, tl.full([BLOCK], 1.0, tl.float32))  # L:p0-store
    blockwise_barrier(signal_pad_ptrs, pid, rank, world_size, "relaxed")  # L:p0-barrier
    tl.debug_barrier()
    peer = my_buffer(buffer_ptrs, (rank + 1) % world_size)
    tl.store(out + offs, tl.load(peer + offs))


@triton.jit
def pattern1_ok(buffer_ptrs: "*i64", signal_pad_ptrs: "*i64", out: "*fp32", rank: tl.constexpr,
                world_size: tl.constexpr, BLOCK: tl.constexpr):
    # pattern 1: __syncthreads(); sync_remote_blocks<acq_rel>; __syncthreads()
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mine = my_buffer(buffer_ptrs, rank)
    tl.store(mine + offs, tl.full([BLOCK], 1.0, tl.float32))
    tl.debug_barrier()
    blockwise_barrier(signal_pad_ptrs, pid, rank, world_size, "acq_rel")
    tl.debug_barrier()
    peer = my_buffer(buffer_ptrs, (rank + 1) % world_size)
    tl.store(out + offs, tl.load(peer + offs))


@triton.jit
def pattern1_nopre(buffer_ptrs: "*i64", signal_pad_ptrs: "*i64", out: "*fp32", rank: tl.constexpr,
                   world_size: tl.constexpr, BLOCK: tl.constexpr):
    # pattern 1 without the first __syncthreads: the barrier threads' release misses the tile
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mine = my_buffer(buffer_ptrs, rank)
    tl.store(mine + offs, tl.full([BLOCK], 1.0, tl.float32))  # L:p1-store
    blockwise_barrier(signal_pad_ptrs, pid, rank, world_size, "acq_rel")  # L:p1-barrier
    tl.debug_barrier()
    peer = my_buffer(buffer_ptrs, (rank + 1) % world_size)
    tl.store(out + offs, tl.load(peer + offs))


@triton.jit
def pattern1_nopost(buffer_ptrs: "*i64", signal_pad_ptrs: "*i64", out: "*fp32", rank: tl.constexpr,
                    world_size: tl.constexpr, BLOCK: tl.constexpr):
    # pattern 1 without the second __syncthreads: the other threads read before the wait is over
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mine = my_buffer(buffer_ptrs, rank)
    tl.store(mine + offs, tl.full([BLOCK], 1.0, tl.float32))
    tl.debug_barrier()
    blockwise_barrier(signal_pad_ptrs, pid, rank, world_size, "acq_rel")  # L:p1n-barrier
    peer = my_buffer(buffer_ptrs, (rank + 1) % world_size)
    tl.store(out + offs, tl.load(peer + offs))  # L:p1n-load


@triton.jit
def pattern2_ok(buffer_ptrs: "*i64", signal_pad_ptrs: "*i64", out: "*fp32", rank: tl.constexpr,
                world_size: tl.constexpr, BLOCK: tl.constexpr):
    # pattern 2: reads done before __syncthreads(); sync_remote_blocks<relaxed>; the next kernel writes
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    peer = my_buffer(buffer_ptrs, (rank + 1) % world_size)
    tl.store(out + offs, tl.load(peer + offs))
    tl.debug_barrier()
    blockwise_barrier(signal_pad_ptrs, pid, rank, world_size, "relaxed")


@triton.jit
def pattern2_broken(buffer_ptrs: "*i64", signal_pad_ptrs: "*i64", out: "*fp32", rank: tl.constexpr,
                    world_size: tl.constexpr, BLOCK: tl.constexpr):
    # pattern 2 followed by writes in the same kernel: the peer's earlier read may see them
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    peer = my_buffer(buffer_ptrs, (rank + 1) % world_size)
    tl.store(out + offs, tl.load(peer + offs))  # L:p2-load
    tl.debug_barrier()
    blockwise_barrier(signal_pad_ptrs, pid, rank, world_size, "relaxed")
    tl.debug_barrier()
    mine = my_buffer(buffer_ptrs, rank)
    tl.store(mine + offs, tl.full([BLOCK], 2.0, tl.float32))  # L:p2-store


LITMUS_LINT = {name: {"signature": {"rank": 0, "world_size": 2, "BLOCK": 128}} for name in (
    "pattern0_ok", "pattern0_broken", "pattern1_ok", "pattern1_nopre", "pattern1_nopost", "pattern2_ok",
    "pattern2_broken")}
