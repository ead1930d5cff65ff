"""Signalling written with Triton-distributed (`import triton_dist.language as dl`,
`libshmem_device`), with no annotations: `litmus lint` loads it with stand-ins that have the
ordering of Triton-distributed's NVIDIA lowering (`dl.notify`: one thread's membar.sys then a
relaxed store on the peer; `dl.wait`: a spin on ld.<semantic>.<scope>) and of NVSHMEM's
`signal_wait_until` (volatile polling)."""

import triton
import triton.language as tl
import triton_dist.language as dl
from triton_dist.language.extra import libshmem_device
from triton_dist.utils import NVSHMEM_SIGNAL_DTYPE  # noqa: F401  (host-side: an empty stub)

NVSHMEM_CMP_EQ = tl.constexpr(0)


@triton.jit
def notify_no_barrier(data, flag, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    peer = (dl.rank() + 1) % dl.num_ranks()
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    tl.store(dl.symm_at(data, peer) + offs, tl.full([BLOCK], 1.0, tl.float32))  # L:store
    dl.notify(flag + pid, peer, signal=1, sig_op="set", comm_scope="intra_node")  # L:notify


@triton.jit
def notify_ok(data, flag, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    peer = (dl.rank() + 1) % dl.num_ranks()
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    tl.store(dl.symm_at(data, peer) + offs, tl.full([BLOCK], 1.0, tl.float32))
    tl.debug_barrier()
    dl.notify(flag + pid, peer, signal=1, sig_op="set", comm_scope="intra_node")


@triton.jit
def wait_relaxed(data, flag, out, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    token = dl.wait(flag + pid, 1, "sys", "relaxed")  # L:wait-relaxed
    data = dl.consume_token(data, token)
    tl.store(out + offs, tl.load(data + offs))


@triton.jit
def wait_acquire(data, flag, out, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    token = dl.wait(flag + pid, 1, "sys", "acquire")
    data = dl.consume_token(data, token)
    tl.store(out + offs, tl.load(data + offs))


@triton.jit
def signal_wait(data, flag, out, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    libshmem_device.signal_wait_until(flag + pid, NVSHMEM_CMP_EQ, 1)  # L:signal-wait
    tl.store(out + offs, tl.load(data + offs))
