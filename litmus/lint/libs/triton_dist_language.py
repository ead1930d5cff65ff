"""Stand-in for ``triton_dist.language`` (``import triton_dist.language as dl``) of
ByteDance-Seed/Triton-distributed, with the ordering its NVIDIA lowering gives each primitive
(lib/Conversion/TritonDistributedToLLVM/NVIDIA/DistributedOpToLLVM.cpp):

- ``wait(barrierPtrs, numBarriers, scope, semantic, waitValue=1)``: lanes below ``numBarriers``
  of every warp spin on ``ld.global.<semantic>.<scope>`` until the barrier equals
  ``waitValue``, then ``bar.warp.sync``.  Here: a spin whose every read has that sem and scope,
  which every thread leaves together (the warp sync), on the first barrier.
- ``notify(ptr, rank, signal=1, sig_op="set", comm_scope="inter_node")``: thread 0 runs
  ``membar.sys`` (``membar.gl`` for comm_scope "gpu") and then a relaxed ``st`` (``atom.add``
  for sig_op "add") at sys scope (gpu) on ``nvshmem_ptr(ptr, rank)`` (``ptr`` itself for
  "gpu"): a release pattern by one thread.  Here: one thread's release ``tl.atomic_xchg``
  (``tl.atomic_add``), on the peer's memory unless comm_scope is "gpu".  inter_node goes
  through ``nvshmemx_signal_op``; it is taken as the intra-node form.
- ``symm_at(ptr, rank)``: ``nvshmem_ptr``: the pointer in ``rank``'s memory.
- ``consume_token(value, token)``: no ordering (the value itself).
- ``rank()``, ``num_ranks()``: run-time ints.
"""

from typing import Any

import triton
import triton.language as tl

from triton.language import core

from litmus.lint.libs._common import opaque_int, peer_ptr, spin_until
from litmus.lint.libs.language_extra import ntid, tid
from litmus.lint.stub import Stub


@triton.jit
def rank(axis=-1):
    return opaque_int(0)


@triton.jit
def num_ranks(axis=-1):
    return opaque_int(1)


@triton.jit
def symm_at(ptr, rank):
    return peer_ptr(ptr, rank)


@triton.jit
def wait(barrierPtrs, numBarriers, scope: tl.constexpr, semantic: tl.constexpr, waitValue=1):
    return spin_until(barrierPtrs, waitValue, semantic, scope)


@triton.jit
def consume_token(value, token):
    return value


@triton.jit
def notify(ptr, rank, signal=1, sig_op: tl.constexpr = "set", comm_scope: tl.constexpr = "inter_node"):
    if comm_scope == "gpu":
        if sig_op == "add":
            tl.atomic_add(ptr, signal, sem="release", scope="gpu")
        else:
            tl.atomic_xchg(ptr, signal, sem="release", scope="gpu")
    else:
        if sig_op == "add":
            tl.atomic_add(peer_ptr(ptr, rank), signal, sem="release", scope="sys")
        else:
            tl.atomic_xchg(peer_ptr(ptr, rank), signal, sem="release", scope="sys")


@core.extern
def _simt_thread_index(_semantic: Any = None) -> Any:
    return tid(0, _semantic=_semantic)


@core.extern
def _simt_block_size(_semantic: Any = None) -> Any:
    return ntid(0, _semantic=_semantic)


class simt_exec_region:
    """``with dl.simt_exec_region() as (thread_idx, block_size):``: the body runs per thread
    (Triton-distributed's compiler lowers it so), ``thread_idx`` the thread's ``%tid.x`` and
    ``block_size`` its ``%ntid.x``.  Upstream Triton's ``with`` cannot bind a tuple, so the linter
    reads that header as ``with dl.simt_exec_region((thread_idx := dl.simt_exec_region.thread_index()),
    (block_size := dl.simt_exec_region.block_size())):`` (:func:`litmus.lint.load.bind_simt_region`):
    the body, each thread's scalar code, is as written."""

    thread_index = _simt_thread_index
    block_size = _simt_block_size

    def __init__(self, *ids: Any, _semantic: Any = None, _builder: Any = None):
        self.ids = ids

    def __enter__(self) -> tuple:
        return self.ids

    def __exit__(self, *exc: Any) -> None:
        return None


def __getattr__(name: str) -> Any:  # simt / smem / tma helpers: not signalling, not modelled
    return Stub(f"triton_dist.language.{name}")
