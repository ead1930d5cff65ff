"""Stand-in for Triton-distributed's ``language_extra`` (``from
triton_dist.language.extra.cuda.language_extra import ld, st, atomic_cas, ...``): the same
builders as python/triton_dist/language/extra/cuda/language_extra.py, each emitting the PTX
inline asm the real one emits (``ld.global.<semantic>.<scope>``, ``st.global.<semantic>.<scope>``,
``atom.<semantic>.<scope>.global.add/cas``, ``fence.<semantic>.<scope>``, ``membar``), which the
linter reads as it reads any inline asm; ``__syncthreads`` is a CTA barrier and ``tid``/``ntid``
read the thread registers."""

from typing import Any

import triton.language as tl
from triton.language import core

from litmus.lint.stub import Stub


def _v(x: Any) -> Any:
    return x.value if isinstance(x, core.constexpr) else x


def _constraint(bits: int) -> str:
    return {8: "c", 16: "h", 32: "r", 64: "l"}[bits]


@core.extern
def __syncthreads(_semantic=None):
    return tl.debug_barrier(_semantic=_semantic)


@core.extern
def tid(axis: core.constexpr, _semantic=None):
    reg = "xyz"[_v(axis)]
    return tl.inline_asm_elementwise(f"mov.u32 $0, %tid.{reg};", "=r", [], dtype=tl.int32, is_pure=True, pack=1,
                                     _semantic=_semantic)


@core.extern
def ntid(axis: core.constexpr, _semantic=None):
    reg = "xyz"[_v(axis)]
    return tl.inline_asm_elementwise(f"mov.u32 $0, %ntid.{reg};", "=r", [], dtype=tl.int32, is_pure=True, pack=1,
                                     _semantic=_semantic)


@core.extern
def ld(ptr, scope: core.constexpr = "gpu", semantic: core.constexpr = "relaxed", _semantic=None):
    ty = ptr.dtype.element_ty
    bits = ty.primitive_bitwidth
    return tl.inline_asm_elementwise(f"ld.global.{_v(semantic)}.{_v(scope)}.b{bits} $0, [$1];",
                                     f"={_constraint(bits)},l", [ptr], dtype=ty, is_pure=False, pack=1,
                                     _semantic=_semantic)


@core.extern
def ld_acquire(ptr, scope: core.constexpr = "gpu", _semantic=None):
    return ld(ptr, scope, "acquire", _semantic=_semantic)


@core.extern
def st(ptr, val, scope: core.constexpr = "gpu", semantic: core.constexpr = "relaxed", _semantic=None):
    bits = ptr.dtype.element_ty.primitive_bitwidth
    int_ty = core.get_int_dtype(bits, signed=False)
    ptr = tl.cast(ptr, core.pointer_type(int_ty), _semantic=_semantic)
    val = tl.cast(_v(val), int_ty, _semantic=_semantic) if isinstance(val, core.constexpr) else \
        tl.cast(val, int_ty, bitcast=val.dtype.primitive_bitwidth == bits, _semantic=_semantic)
    return tl.inline_asm_elementwise(f"st.global.{_v(semantic)}.{_v(scope)}.b{bits} [$1], $2; mov.u32 $0, 0;",
                                     f"=r,l,{_constraint(bits)}", [ptr, val], dtype=tl.int32, is_pure=False,
                                     pack=1, _semantic=_semantic)


@core.extern
def atomic_add(ptr, value, scope: core.constexpr = "gpu", semantic: core.constexpr = "relaxed", _semantic=None):
    ty = ptr.dtype.element_ty
    bits = ty.primitive_bitwidth
    sign = "s" if ty.is_int_signed() else "u"
    return tl.inline_asm_elementwise(f"atom.{_v(semantic)}.{_v(scope)}.global.add.{sign}{bits} $0, [$1], $2;",
                                     f"={_constraint(bits)},l,{_constraint(bits)}", [ptr, value], dtype=ty,
                                     is_pure=False, pack=1, _semantic=_semantic)


@core.extern
def atomic_cas(ptr, value, target_value, scope: core.constexpr, semantic: core.constexpr, _semantic=None):
    ty = ptr.dtype.element_ty
    bits = ty.primitive_bitwidth
    c = _constraint(bits)
    return tl.inline_asm_elementwise(f"atom.{_v(semantic)}.{_v(scope)}.global.cas.b{bits} $0, [$1], $2, $3;",
                                     f"={c},l,{c},{c}", [ptr, value, target_value], dtype=ty, is_pure=False, pack=1,
                                     _semantic=_semantic)


@core.extern
def fence(semantic: core.constexpr = "acq_rel", scope: core.constexpr = "gpu", _semantic=None):
    return tl.inline_asm_elementwise(f"fence.{_v(semantic)}.{_v(scope)}; mov.u32 $0, 0;", "=r", [], dtype=tl.uint32,
                                     is_pure=False, pack=1, _semantic=_semantic)


@core.extern
def membar(scope: core.constexpr = "cta", _semantic=None):
    level = {"cta": "cta", "gpu": "gl", "sys": "sys"}.get(_v(scope), _v(scope))
    return tl.inline_asm_elementwise(f"membar.{level}; mov.u32 $0, 0;", "=r", [], dtype=tl.uint32, is_pure=False,
                                     pack=1, _semantic=_semantic)


def __getattr__(name: str) -> Any:  # vector loads, shuffles, timers: not modelled
    return Stub(f"language_extra.{name}")
