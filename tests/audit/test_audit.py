"""audit(test, target): through litmus.codegen, with status pass / finding / unsupported."""

from __future__ import annotations

import sys
from dataclasses import dataclass

import pytest

import litmus.codegen
from litmus.audit import audit
from litmus.errors import UnsupportedError
from litmus.ir import Condition, Const, LitmusTest, Load, Location, Rmw, Spin, SpinRead, Store, Thread, TrueProp
from tests.audit.conftest import single_thread_test, text


def _mp_release_acquire_sys() -> LitmusTest:
    writer = Thread("P0", 0, 0, (Store("x", Const(1)), Store("flag", Const(1), "release", "sys")))
    reader = Thread("P1", 1, 0, (Spin("flag", 1, SpinRead("load", "acquire", "sys"), bound=8), Load("r1", "x")))
    return LitmusTest("MP", "relacq-sys", (Location("x"), Location("flag")), (writer, reader),
                      Condition("exists", TrueProp()))


@pytest.mark.parametrize("target", ["cuda:90", "hip:gfx942"])
def test_generated_mp_kernel_carries_release_and_acquire(target: str) -> None:
    result = audit(_mp_release_acquire_sys(), target)
    assert result.status == "pass", [str(f) for f in result.findings]
    assert result.seconds > 0


@dataclass
class _FakeCompiled:
    ptx: str

    def text(self, kind: str) -> str:
        return self.ptx if kind == "ptx" else ""


def test_a_miscompiled_variant_is_a_finding(monkeypatch: pytest.MonkeyPatch) -> None:
    relaxed = text("rmw", "ptx", OP="cas", SEM="relaxed", SCOPE="sys")
    monkeypatch.setattr(litmus.codegen, "compile_variant", lambda test, target, options=None, sass=False: _FakeCompiled(relaxed))
    test = LitmusTest("CAS", "rel", (Location("flag"),),
                      (Thread("P0", 0, 0, (Rmw("cas", "r0", "flag", Const(1), Const(0), "release", "sys"),)),),
                      Condition("exists", TrueProp()))
    result = audit(test, "cuda:90")
    assert result.status == "finding"
    assert "atom.global.relaxed.sys.cas" in result.findings[0].found
    assert audit(test, "hip:gfx942").status == "unsupported"  # the fake has no amdgcn text


def test_unsupported_when_codegen_refuses_or_is_missing(monkeypatch: pytest.MonkeyPatch) -> None:
    test = _mp_release_acquire_sys()

    def refuse(test, target, options=None, sass=False):
        raise UnsupportedError("bar.arrive cannot be compiled to Triton")

    monkeypatch.setattr(litmus.codegen, "compile_variant", refuse)
    result = audit(test, "cuda:90")
    assert result.status == "unsupported" and result.reason.endswith("bar.arrive cannot be compiled to Triton")
    monkeypatch.setitem(sys.modules, "litmus.codegen", None)
    result = audit(test, "ptx")
    assert result.status == "unsupported" and "litmus.codegen is not available" in result.reason


def test_other_amd_memory_models_are_unsupported() -> None:
    result = audit(_mp_release_acquire_sys(), "hip:gfx90a")
    assert result.status == "unsupported" and "gfx942" in result.reason


def _poll(value: int) -> LitmusTest:
    """MP whose reader polls the flag with an acquire ``add`` of ``value``."""
    writer = Thread("P0", 0, 0, (Store("x", Const(1)), Store("flag", Const(1), "release", "gpu")))
    reader = Thread("P1", 0, 1, (Rmw("add", "r0", "flag", Const(value), None, "acquire", "gpu"), Load("r1", "x")))
    return LitmusTest("MP-poll", f"add{value}", (Location("x"), Location("flag")), (writer, reader),
                      Condition("exists", TrueProp()))


def test_an_idempotent_add_compiled_as_an_atomic_or_passes() -> None:
    # LLVM rewrites an add of 0 as ``atomicrmw or 0``: on gfx942 the poll is a global_atomic_or
    result = audit(_poll(0), "hip:gfx942")
    assert result.status == "pass", [str(f) for f in result.findings]


@dataclass
class _FakeAmdgcn:
    amdgcn: str

    def text(self, kind: str) -> str:
        return self.amdgcn if kind == "amdgcn" else ""


def test_an_add_that_writes_is_not_accepted_as_an_or(monkeypatch: pytest.MonkeyPatch) -> None:
    or_code = text("rmw_unused", "amdgcn", OP="or", SEM="acquire", SCOPE="gpu")
    monkeypatch.setattr(litmus.codegen, "compile_variant",
                        lambda test, target, options=None, sass=False: _FakeAmdgcn(or_code))
    one = Rmw("add", "r0", "flag", Const(1), None, "acquire", "gpu")
    zero = Rmw("add", "r0", "flag", Const(0), None, "acquire", "gpu")
    assert audit(single_thread_test(zero), "hip:gfx942").status == "pass"
    assert audit(single_thread_test(one), "hip:gfx942").status == "finding"
