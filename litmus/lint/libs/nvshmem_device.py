"""Stand-in for Triton-distributed's ``libshmem_device`` (NVSHMEM device functions, called from
Triton as ``libshmem_device.putmem_signal_block(...)``), and the model of PyTorch's symm_mem
NVSHMEM helpers, with the ordering of NVSHMEM's device code:

- ``signal_wait_until(sig_addr, cmp, cmp_val)``, ``wait_until``: ``nvshmemi_wait_until`` polls
  through a ``volatile`` pointer: relaxed loads at system scope, no acquire.  Here: a
  ``tl.load(volatile=True)`` spin until the value (the comparison is taken as equality).
- ``putmem_signal*(dest, source, nbytes, sig_addr, signal, sig_op, pe)``: the data, then the
  signal, delivered in that order (NVSHMEM's guarantee for put-with-signal); the block/warp
  forms are collective and synchronise their threads first.  Here: a store to the peer's
  ``dest``, a CTA barrier, and one thread's release ``tl.atomic_xchg`` at sys scope on the
  peer's ``sig_addr``.
- ``putmem*`` / ``getmem*``: data only (a store to / load from the peer), a CTA barrier for
  the block forms; no ordering with later signals (that takes ``fence`` or ``quiet``).
- ``signal_op(sig_addr, signal, sig_op, pe)``: a relaxed atomic at sys scope on the peer.
- ``fence()``, ``quiet()``: ``__threadfence_system()`` (``fence.sc.sys``) for peer memory.
- ``barrier_all()`` (``barrier_all_block``, ``barrier_all_warp``: the block's/warp's threads
  call it together): a CTA barrier, a system fence, a release add to every other PE's word of
  NVSHMEM's barrier array and an acquire wait on its own, a CTA barrier; ``sync_all()``
  (``sync_all_block``...): a CTA barrier.
- ``remote_ptr(ptr, pe)``: ``nvshmem_ptr``.  ``my_pe()``, ``n_pes()``: run-time ints.
"""

from typing import Any

import triton
import triton.language as tl

from litmus.lint.libs._common import fence_sys, opaque_int, peer_ptr, volatile_spin_until
from litmus.lint.stub import Stub


@triton.jit
def my_pe():
    return opaque_int(0)


@triton.jit
def n_pes():
    return opaque_int(1)


@triton.jit
def remote_ptr(local_ptr, pe):
    return peer_ptr(local_ptr, pe)


@triton.jit
def signal_wait_until(sig_addr, cmp_, cmp_val):
    return volatile_spin_until(sig_addr, cmp_val)


@triton.jit
def wait_until(ivar, cmp_op, cmp_val):
    return volatile_spin_until(ivar, cmp_val)


@triton.jit
def _put(dest, source, pe, block: tl.constexpr):
    tl.store(peer_ptr(dest, pe), tl.load(source))
    if block:
        tl.debug_barrier()


@triton.jit
def _get(dest, source, pe, block: tl.constexpr):
    tl.store(dest, tl.load(peer_ptr(source, pe)))
    if block:
        tl.debug_barrier()


@triton.jit
def _put_signal(dest, source, sig_addr, signal, pe):
    tl.store(peer_ptr(dest, pe), tl.load(source))
    tl.debug_barrier()
    tl.atomic_xchg(peer_ptr(sig_addr, pe), signal, sem="release", scope="sys")


@triton.jit
def putmem_signal(dest, source, nbytes, sig_addr, signal, sig_op, pe):
    _put_signal(dest, source, sig_addr, signal, pe)


@triton.jit
def putmem_signal_nbi(dest, source, nbytes, sig_addr, signal, sig_op, pe):
    _put_signal(dest, source, sig_addr, signal, pe)


@triton.jit
def putmem_signal_block(dest, source, nbytes, sig_addr, signal, sig_op, pe):
    _put_signal(dest, source, sig_addr, signal, pe)


@triton.jit
def putmem_signal_nbi_block(dest, source, nbytes, sig_addr, signal, sig_op, pe):
    _put_signal(dest, source, sig_addr, signal, pe)


@triton.jit
def putmem_signal_warp(dest, source, nbytes, sig_addr, signal, sig_op, pe):
    _put_signal(dest, source, sig_addr, signal, pe)


@triton.jit
def putmem_signal_nbi_warp(dest, source, nbytes, sig_addr, signal, sig_op, pe):
    _put_signal(dest, source, sig_addr, signal, pe)


@triton.jit
def putmem(dest, source, nbytes, pe):
    _put(dest, source, pe, False)


@triton.jit
def putmem_nbi(dest, source, nbytes, pe):
    _put(dest, source, pe, False)


@triton.jit
def putmem_block(dest, source, nbytes, pe):
    _put(dest, source, pe, True)


@triton.jit
def putmem_nbi_block(dest, source, nbytes, pe):
    _put(dest, source, pe, True)


@triton.jit
def getmem(dest, source, nbytes, pe):
    _get(dest, source, pe, False)


@triton.jit
def getmem_nbi(dest, source, nbytes, pe):
    _get(dest, source, pe, False)


@triton.jit
def getmem_block(dest, source, nbytes, pe):
    _get(dest, source, pe, True)


@triton.jit
def getmem_nbi_block(dest, source, nbytes, pe):
    _get(dest, source, pe, True)


@triton.jit
def signal_op(sig_addr, signal, sig_op, pe):
    tl.atomic_xchg(peer_ptr(sig_addr, pe), signal, sem="relaxed", scope="sys")


@triton.jit
def fence():
    fence_sys()


@triton.jit
def quiet():
    fence_sys()


@triton.jit
def _sync_word(pe):
    """PE ``pe``'s word of NVSHMEM's internal barrier array, in the symmetric heap: its address
    is loaded from a table the runtime keeps (a fixed address stands for it), as a peer's."""
    table = tl.cast(tl.full([], 8192, tl.uint64), tl.pointer_type(tl.uint64))
    return tl.cast(tl.load(table + pe), tl.pointer_type(tl.int32))


@triton.jit
def barrier_all():
    """``nvshmem_barrier_all``: the CTA's threads meet, one thread makes everything before it
    visible system-wide, signals every other PE's barrier word and waits for its own, and the
    CTA meets again."""
    tl.debug_barrier()
    fence_sys()
    tl.atomic_add(_sync_word(opaque_int(1)), 1, sem="release", scope="sys")
    mine = _sync_word(opaque_int(0))
    seen = tl.atomic_add(mine, 0, sem="acquire", scope="sys")
    while seen == 0:
        seen = tl.atomic_add(mine, 0, sem="acquire", scope="sys")
    tl.debug_barrier()


@triton.jit
def barrier_all_block():
    barrier_all()


@triton.jit
def barrier_all_warp():
    barrier_all()


@triton.jit
def sync_all():
    tl.debug_barrier()


@triton.jit
def sync_all_block():
    sync_all()


@triton.jit
def sync_all_warp():
    sync_all()


def __getattr__(name: str) -> Any:  # collectives, teams, typed put/get: not modelled
    return Stub(f"libshmem_device.{name}")
