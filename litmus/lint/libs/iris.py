"""Stand-in for ROCm/iris (``import iris``): its device API, the real Triton code.

iris' device functions are Triton: each translates a pointer into another rank's symmetric
heap by the difference of two heap bases read from ``heap_bases`` (``__translate``) and then
runs one ``tl.load`` / ``tl.store`` / ``tl.atomic_*`` with the caller's ``sem`` and ``scope``
(Triton's defaults, acq_rel and gpu, when not given).  The signatures and bodies follow
iris/iris.py of ROCm/iris (``load(pointer, to_rank, from_rank, heap_bases, mask=None)``,
``store(pointer, value, from_rank, to_rank, heap_bases, mask=None)``, ``atomic_*(pointer, val,
from_rank, to_rank, heap_bases, mask=None, sem=None, scope=None)``, ``atomic_cas(pointer, cmp,
val, from_rank, to_rank, heap_bases, sem=None, scope=None)``); ``hint`` is accepted and ignored,
as it only changes vectorisation.  The host side (``iris.iris()``, ``Iris``) is a stub: kernels
are compiled, never launched.
"""

import triton
import triton.language as tl

from litmus.lint.stub import Stub

iris = Stub("iris.iris")
Iris = Stub("iris.Iris")
do_bench = Stub("iris.do_bench")
memset_tensor = Stub("iris.memset_tensor")


@triton.jit
def _translate(ptr, from_rank, to_rank, heap_bases):
    from_base = tl.load(heap_bases + from_rank)
    to_base = tl.load(heap_bases + to_rank)
    offset = tl.cast(ptr, tl.uint64) - from_base
    to_base_byte = tl.cast(to_base, tl.pointer_type(tl.int8))
    translated_ptr_byte = to_base_byte + offset
    return tl.cast(translated_ptr_byte, ptr.dtype)


@triton.jit
def translate(ptr, from_rank, to_rank, heap_bases, debug=False):
    """iris' pointer translation (``iris.translate`` of the earlier API)."""
    return _translate(ptr, from_rank, to_rank, heap_bases)


@triton.jit
def load(pointer, to_rank, from_rank, heap_bases, mask=None, hint=None):
    return tl.load(_translate(pointer, to_rank, from_rank, heap_bases), mask=mask)


@triton.jit
def store(pointer, value, from_rank, to_rank, heap_bases, mask=None, hint=None):
    tl.store(_translate(pointer, from_rank, to_rank, heap_bases), value, mask=mask)


@triton.jit
def copy(src_ptr, dst_ptr, from_rank, to_rank, cur_rank, heap_bases, mask=None):
    cur_base = tl.load(heap_bases + cur_rank)
    from_base = tl.load(heap_bases + from_rank)
    to_base = tl.load(heap_bases + to_rank)
    src_offset = tl.cast(src_ptr, tl.uint64) - cur_base
    dst_offset = tl.cast(dst_ptr, tl.uint64) - cur_base
    translated_src = tl.cast(tl.cast(from_base, tl.pointer_type(tl.int8)) + src_offset, src_ptr.dtype)
    translated_dst = tl.cast(tl.cast(to_base, tl.pointer_type(tl.int8)) + dst_offset, src_ptr.dtype)
    data = tl.load(translated_src, mask=mask)
    tl.store(translated_dst, data, mask=mask)


@triton.jit
def get(from_ptr, to_ptr, from_rank, to_rank, heap_bases, mask=None):
    data = tl.load(_translate(from_ptr, from_rank, to_rank, heap_bases), mask=mask)
    tl.store(to_ptr, data, mask=mask)


@triton.jit
def put(from_ptr, to_ptr, from_rank, to_rank, heap_bases, copy_engine_ctx=None, stride_tm: tl.constexpr = 0,
        stride_tn: tl.constexpr = 0, stride_fm: tl.constexpr = 0, stride_fn: tl.constexpr = 0, mask=None,
        hint: tl.constexpr = None, USE_COPY_ENGINE: tl.constexpr = False, IS_2D_COPY: tl.constexpr = False,
        from_base_ptr=None, to_base_ptr=None):
    """iris' ``put``; the copy-engine API's parameters (``copy_engine_ctx``, the strides,
    ``USE_COPY_ENGINE``...) are accepted, and only the shader path (``USE_COPY_ENGINE=False``:
    the CTA's own load and store) is modelled.  The earlier API's sixth parameter was ``mask``:
    a mask passed there positionally lands in ``copy_engine_ctx`` and goes unused (a mask
    changes no ordering)."""
    # the SDMA path writes through a DMA queue whose ordering the linter does not model: refuse
    # it rather than read it as the shader's stores
    tl.static_assert(not USE_COPY_ENGINE, "litmus lint: iris.put(USE_COPY_ENGINE=True) (SDMA) is not modelled; "
                     "lint the kernel with --signature 'USE_COPY_ENGINE=False'")
    data = tl.load(from_ptr, mask=mask)
    tl.store(_translate(to_ptr, from_rank, to_rank, heap_bases), data, mask=mask)


@triton.jit
def atomic_add(pointer, val, from_rank, to_rank, heap_bases, mask=None, sem=None, scope=None):
    return tl.atomic_add(_translate(pointer, from_rank, to_rank, heap_bases), val, mask=mask, sem=sem, scope=scope)


@triton.jit
def atomic_sub(pointer, val, from_rank, to_rank, heap_bases, mask=None, sem=None, scope=None):
    return tl.atomic_add(_translate(pointer, from_rank, to_rank, heap_bases), -val, mask=mask, sem=sem, scope=scope)


@triton.jit
def atomic_cas(pointer, cmp, val, from_rank, to_rank, heap_bases, sem=None, scope=None, hint: tl.constexpr = None,
               USE_COPY_ENGINE: tl.constexpr = False, copy_engine_ctx=None):
    """iris' ``atomic_cas``; with the copy-engine API's ``USE_COPY_ENGINE``/``copy_engine_ctx``
    accepted, the shader path (the CTA's own CAS) modelled."""
    tl.static_assert(not USE_COPY_ENGINE, "litmus lint: iris.atomic_cas(USE_COPY_ENGINE=True) (SDMA) is not "
                     "modelled; lint the kernel with --signature 'USE_COPY_ENGINE=False'")
    return tl.atomic_cas(_translate(pointer, from_rank, to_rank, heap_bases), cmp, val, sem=sem, scope=scope)


@triton.jit
def atomic_xchg(pointer, val, from_rank, to_rank, heap_bases, mask=None, sem=None, scope=None):
    return tl.atomic_xchg(_translate(pointer, from_rank, to_rank, heap_bases), val, mask=mask, sem=sem, scope=scope)


@triton.jit
def atomic_xor(pointer, val, from_rank, to_rank, heap_bases, mask=None, sem=None, scope=None):
    return tl.atomic_xor(_translate(pointer, from_rank, to_rank, heap_bases), val, mask=mask, sem=sem, scope=scope)


@triton.jit
def atomic_and(pointer, val, from_rank, to_rank, heap_bases, mask=None, sem=None, scope=None):
    return tl.atomic_and(_translate(pointer, from_rank, to_rank, heap_bases), val, mask=mask, sem=sem, scope=scope)


@triton.jit
def atomic_or(pointer, val, from_rank, to_rank, heap_bases, mask=None, sem=None, scope=None):
    return tl.atomic_or(_translate(pointer, from_rank, to_rank, heap_bases), val, mask=mask, sem=sem, scope=scope)


@triton.jit
def atomic_min(pointer, val, from_rank, to_rank, heap_bases, mask=None, sem=None, scope=None):
    return tl.atomic_min(_translate(pointer, from_rank, to_rank, heap_bases), val, mask=mask, sem=sem, scope=scope)


@triton.jit
def atomic_max(pointer, val, from_rank, to_rank, heap_bases, mask=None, sem=None, scope=None):
    return tl.atomic_max(_translate(pointer, from_rank, to_rank, heap_bases), val, mask=mask, sem=sem, scope=scope)
