"""Stand-in for ``torch.distributed._symmetric_memory._nvshmem_triton``: PyTorch's Triton
wrappers of NVSHMEM device functions (defined there under ``if has_triton():``, so absent on a
machine without a GPU).  Each has the ordering of the NVSHMEM function it calls (see
:mod:`litmus.lint.libs.nvshmem_device`): ``put``/``get`` (``nvshmemx_putmem_block`` /
``getmem_block``: block-collective data, no signal), ``putmem_signal_block(dst, src, size_bytes,
signal, sig_val, sig_op, pe)`` (data, then a release signal on the peer), ``wait_until`` and
``signal_wait_until`` (volatile polling: no acquire), ``signal_op`` (a relaxed sys atomic on the
peer), ``fence``/``quiet`` (``fence.sc.sys``), ``barrier_all``/``sync_all``, ``my_pe``/``n_pes``.
``requires_nvshmem`` leaves the kernel as it is."""

from typing import Any

import triton

from litmus.lint.libs import nvshmem_device as _nv
from litmus.lint.stub import Stub

enable_triton = Stub("enable_triton")
NvshmemKernelRegistry = Stub("NvshmemKernelRegistry")
NvshmemLibFinder = Stub("NvshmemLibFinder")

my_pe = _nv.my_pe
n_pes = _nv.n_pes
fence = _nv.fence
quiet = _nv.quiet
barrier_all = _nv.barrier_all
sync_all = _nv.sync_all
signal_op = _nv.signal_op


def requires_nvshmem(jit_func: Any) -> Any:
    """The kernel itself (the real decorator adds the NVSHMEM library at launch)."""
    return jit_func


@triton.jit
def put(dest, source, nelems, pe):
    _nv.putmem_block(dest, source, nelems, pe)


@triton.jit
def get(dest, source, nelems, pe):
    _nv.getmem_block(dest, source, nelems, pe)


@triton.jit
def get_nbi(dest, source, nelems, pe):
    _nv.getmem_nbi_block(dest, source, nelems, pe)


@triton.jit
def putmem_signal_block(dst, src, size_bytes, signal, sig_val, sig_op, pe):
    _nv.putmem_signal_block(dst, src, size_bytes, signal, sig_val, sig_op, pe)


@triton.jit
def wait_until(ivar, cmp_op, cmp_val):
    return _nv.wait_until(ivar, cmp_op, cmp_val)


@triton.jit
def signal_wait_until(signal, cmp, cmp_val):
    return _nv.signal_wait_until(signal, cmp, cmp_val)


def __getattr__(name: str) -> Any:  # collectives (alltoall, broadcast...): not modelled
    return Stub(f"_nvshmem_triton.{name}")
