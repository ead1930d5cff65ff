"""The rule tables against what triton 3.9 really emits for hand-written kernels, on every target.

Law (checked for every compiled RMW / atomic load / atomic store, against every requirement of
the same op): the audit passes exactly when the requirement is no stronger than what was
compiled, as far as the target's code can tell them apart (on gfx942 a workgroup-scope
acquire/release needs no instruction; in SASS a cta-scope acquire needs none).
"""

from __future__ import annotations

import itertools

import pytest

from litmus.audit import audit_text, match_text, rule_table
from litmus.ir import Barrier, Fence, Load, Rmw, Store, Const
from tests.audit.conftest import single_thread_test, text

SCOPE_RANK = {"cta": 0, "gpu": 1, "sys": 2}
RMW_SEMS = ("relaxed", "acquire", "release", "acq_rel")
KINDS = ("ptx", "amdgcn", "sass")


def _effect(kind: str, access: str, sem: str, scope: str) -> tuple[int, int, int]:
    """(release level, acquire level, coherence level) the target's code can show; -1 = none."""
    rel = sem in ("release", "acq_rel")
    acq = sem in ("acquire", "acq_rel")
    s = SCOPE_RANK[scope]
    if kind == "ptx":
        return (s if rel else -1, s if acq else -1, s)
    if kind == "sass":
        return (s if rel else -1, s if acq and s > 0 else -1, s)
    level = s if s > 0 else -1  # amdgcn: workgroup ordering needs no cache maintenance
    coherence = (2 if scope == "sys" else -1) if access == "rmw" else s
    return (level if rel else -1, level if acq else -1, coherence)


def _weaker_or_equal(kind: str, access: str, asked: tuple[str, str], got: tuple[str, str]) -> bool:
    a, g = _effect(kind, access, *asked), _effect(kind, access, *got)
    return all(x <= y for x, y in zip(a, g))


def _rmw_test(op: str, sem: str, scope: str):
    return single_thread_test(Rmw(op, "r0", "flag", Const(1), Const(0) if op == "cas" else None, sem, scope))


# SASS costs a cuobjdump run (~0.7 s) per kernel: its RMW law is checked on cas only.
@pytest.mark.parametrize("kind,op", [(k, op) for k in ("ptx", "amdgcn") for op in ("cas", "exch", "add")]
                         + [("sass", "cas")])
def test_rmw_rows_match_triton_output_exactly_when_not_stronger(kind: str, op: str) -> None:
    grid = list(itertools.product(RMW_SEMS, SCOPE_RANK))
    for got in grid:
        compiled = text("rmw", kind, OP=op, SEM=got[0], SCOPE=got[1])
        for asked in grid:
            findings = audit_text(_rmw_test(op, *asked), kind, compiled)
            expect_pass = _weaker_or_equal(kind, "rmw", asked, got)
            assert (not findings) == expect_pass, (kind, op, "asked", asked, "compiled", got, findings)


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("access", ["load", "store"])
def test_atomic_load_store_rows_match_triton_output(kind: str, access: str) -> None:
    ordered = "acquire" if access == "load" else "release"
    grid = list(itertools.product(("relaxed", ordered), SCOPE_RANK))
    kernel = "atomic_load" if access == "load" else "atomic_store"
    for got in grid:
        compiled = text(kernel, kind, SEM=got[0], SCOPE=got[1])
        for asked in grid:
            ins = Load("r0", "flag", *asked) if access == "load" else Store("flag", Const(1), *asked)
            findings = audit_text(single_thread_test(ins), kind, compiled)
            assert (not findings) == _weaker_or_equal(kind, access, asked, got), (kind, asked, got, findings)


@pytest.mark.parametrize("kind", KINDS)
def test_volatile_load_then_debug_barrier(kind: str) -> None:
    compiled = text("volatile_load_barrier", kind)
    test = single_thread_test(Load("r0", "x", "relaxed", "sys", volatile=True), Barrier())
    matches, findings = match_text(test, kind, compiled)
    assert findings == []
    assert [m.requirement.op_kind for m in matches] == ["load", "barrier"]
    assert matches[0].anchor_line < matches[1].anchor_line
    # a volatile load is not an acquire: asking for one is a finding
    assert audit_text(single_thread_test(Load("r0", "x", "acquire", "sys"), Barrier()), kind, compiled)


@pytest.mark.parametrize("kind", ["ptx", "sass"])
@pytest.mark.parametrize("fence", ["acq_rel", "sc"])
def test_inline_fence_and_volatile_store_on_cuda(kind: str, fence: str) -> None:
    compiled = text("store_fence_volatile_store", kind, FENCE=f"fence.{fence}.sys; mov.u32 $0, 0;", FENCE_FIRST=True)
    test = single_thread_test(Store("x", Const(1)), Fence(fence, "sys"),
                              Store("flag", Const(1), "relaxed", "sys", volatile=True))
    assert audit_text(test, kind, compiled) == []
    if fence == "acq_rel":  # an acq_rel fence is not an sc fence
        strong = single_thread_test(Store("x", Const(1)), Fence("sc", "sys"))
        assert audit_text(strong, kind, compiled)


def test_every_table_has_the_same_requirement_keys_except_amd_barrier_arrive() -> None:
    ptx, amd, sass = (set(rule_table(k)) for k in KINDS)
    assert ptx == sass
    assert ptx - amd == {k for k in ptx if k.kind == "barrier" and k.op == "arrive"}


@pytest.mark.parametrize("op", ["or", "and"])
def test_system_scope_bitwise_rmw_is_a_cmpswap_loop_on_amdgcn(op: str) -> None:
    compiled = text("rmw_unused", "amdgcn", OP=op, SEM="relaxed", SCOPE="sys")
    assert f"global_atomic_{op}" not in compiled and "global_atomic_cmpswap" in compiled
    test = single_thread_test(Rmw(op, None, "flag", Const(8), None, "relaxed", "sys"))
    assert audit_text(test, "amdgcn", compiled) == []
    # the loop is not a release: asking for one is a finding
    assert audit_text(single_thread_test(Rmw(op, None, "flag", Const(8), None, "release", "sys")), "amdgcn", compiled)


def test_unused_result_rmw_is_red_on_ptx() -> None:
    compiled = text("rmw_unused", "ptx", OP="add", SEM="relaxed", SCOPE="sys")
    assert "red.global.sys.relaxed.add" in compiled
    assert audit_text(single_thread_test(Rmw("add", None, "flag", Const(1), None, "relaxed", "sys")), "ptx",
                      compiled) == []
