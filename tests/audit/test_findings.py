"""Broken compiled code is caught: weakened atomics, misordered fences, deleted instructions."""

from __future__ import annotations

from hypothesis import given, settings, strategies as st

from litmus.audit import audit_text, match_text
from litmus.ir import Const, Fence, Load, Rmw, Store
from tests.audit.conftest import single_thread_test, text

RELEASE_CAS = single_thread_test(Rmw("cas", "r0", "flag", Const(1), Const(0), "release", "sys"))


def test_relaxed_cas_compiled_for_a_release_cas_is_a_finding_on_ptx() -> None:
    compiled = text("rmw", "ptx", OP="cas", SEM="relaxed", SCOPE="sys")
    [f] = audit_text(RELEASE_CAS, "ptx", compiled)
    assert f.op == "P0 #0 rmw cas release sys on flag"
    assert "release" in f.expected and ".sys" in f.expected
    assert "atom.global.relaxed.sys.cas.b32" in f.found and f"line {f.line}" in f.found
    assert any(l.startswith(">") and "atom.global.relaxed.sys.cas" in l for l in f.context_lines)
    assert len(f.context_lines) >= 4


def test_mutated_ptx_text_names_the_weaker_instruction_found() -> None:
    good = text("rmw", "ptx", OP="cas", SEM="release", SCOPE="sys")
    assert audit_text(RELEASE_CAS, "ptx", good) == []
    bad = good.replace("atom.global.release.sys.cas", "atom.global.relaxed.gpu.cas")
    [f] = audit_text(RELEASE_CAS, "ptx", bad)
    assert "atom.global.relaxed.gpu.cas.b32" in f.found
    line = bad.splitlines()[f.line - 1]
    assert "atom.global.relaxed.gpu.cas" in line


def test_relaxed_cas_on_amdgcn_lacks_the_l2_writeback() -> None:
    compiled = text("rmw", "amdgcn", OP="cas", SEM="relaxed", SCOPE="sys")
    [f] = audit_text(RELEASE_CAS, "amdgcn", compiled)
    assert "global_atomic_cmpswap" in f.found
    assert "no `buffer_wbl2 sc0 sc1` before it" in f.found


def test_agent_scope_release_is_not_a_system_release_on_amdgcn() -> None:
    compiled = text("rmw", "amdgcn", OP="cas", SEM="release", SCOPE="gpu")
    [f] = audit_text(RELEASE_CAS, "amdgcn", compiled)
    assert "buffer_wbl2 sc0 sc1" in f.expected


def test_amd_sem_dropped_like_triton_3_6_is_caught() -> None:
    """triton 3.6 ignored atomic_cas sem/scope on AMD: the text of a relaxed CAS for an acq_rel ask."""
    compiled = text("rmw", "amdgcn", OP="cas", SEM="relaxed", SCOPE="gpu")
    test = single_thread_test(Rmw("cas", "r0", "flag", Const(1), Const(0), "acq_rel", "gpu"))
    [f] = audit_text(test, "amdgcn", compiled)
    assert "buffer_wbl2 sc1" in f.found and "rmw cas acq_rel gpu" in f.op


def test_fence_after_the_flag_store_is_a_misordering() -> None:
    for kind in ("ptx", "sass"):
        test = single_thread_test(Store("x", Const(1)), Fence("sc", "sys"),
                                  Store("flag", Const(1), "relaxed", "sys", volatile=True))
        good = text("store_fence_volatile_store", kind, FENCE="fence.sc.sys; mov.u32 $0, 0;", FENCE_FIRST=True)
        bad = text("store_fence_volatile_store", kind, FENCE="fence.sc.sys; mov.u32 $0, 0;", FENCE_FIRST=False)
        assert audit_text(test, kind, good) == []
        [f] = audit_text(test, kind, bad)
        assert "store volatile on flag" in f.op
        assert "too early" in f.found and "fence sc sys" in f.found


# -- deleting any one matched line of a passing text leaves a finding ---------------------------

CASES = [
    ("rmw", {"OP": op, "SEM": sem, "SCOPE": scope}, single_thread_test(
        Rmw(op, "r0", "flag", Const(1), Const(0) if op == "cas" else None, sem, scope)))
    for op in ("cas", "exch") for sem in ("release", "acquire", "acq_rel") for scope in ("gpu", "sys")
] + [
    ("atomic_load", {"SEM": "acquire", "SCOPE": "sys"}, single_thread_test(Load("r0", "flag", "acquire", "sys"))),
    ("atomic_store", {"SEM": "release", "SCOPE": "sys"}, single_thread_test(Store("flag", Const(1), "release", "sys"))),
    ("store_fence_volatile_store", {"FENCE": "fence.sc.sys; mov.u32 $0, 0;", "FENCE_FIRST": True},
     single_thread_test(Store("x", Const(1)), Fence("sc", "sys"), Store("flag", Const(1), "relaxed", "sys", True))),
]


def _cases(kind: str) -> list:
    if kind == "amdgcn":  # inline PTX: cuda only
        return [c for c in CASES if c[0] != "store_fence_volatile_store"]
    if kind == "sass":  # a cuobjdump run per kernel: reuse the kernels other SASS tests compile
        return [c for c in CASES if c[1].get("OP") != "exch"]
    return CASES


@settings(max_examples=60, deadline=None)
@given(data=st.data(), kind=st.sampled_from(["ptx", "amdgcn", "sass"]), pick=st.integers(0, 50))
def test_deleting_any_required_line_produces_a_finding(data, kind: str, pick: int) -> None:
    kernel, params, test = data.draw(st.sampled_from(_cases(kind)))
    compiled = text(kernel, kind, **params)
    matches, findings = match_text(test, kind, compiled)
    assert findings == []
    required = sorted({line for m in matches for line in m.lines})
    assert required, "a passing text matched no line"
    drop = required[pick % len(required)]
    lines = compiled.splitlines()
    mutated = "\n".join(lines[: drop - 1] + [""] + lines[drop:])  # keep line numbers
    assert audit_text(test, kind, mutated), (kind, kernel, params, lines[drop - 1])


def test_a_step_in_a_block_placed_above_is_found_through_the_branch() -> None:
    """LLVM may lay out an acquire's buffer_inv in a block above the load that jumps to it."""
    from litmus.audit.asm import jumps, parse_asm
    from litmus.audit.check import _find_reachable
    from litmus.audit.rules import Pattern

    text = "\n".join([
        ".LBB0_7:",
        "\tbuffer_inv sc0 sc1",
        "\ts_endpgm",
        ".LBB0_9:",
        "\tglobal_load_dword v11, v[4:5], off sc0 sc1",
        "\ts_waitcnt vmcnt(0)",
        "\ts_branch .LBB0_7",
    ])
    instrs = parse_asm(text, "amdgcn")
    edges = jumps(text, instrs)
    load = next(i for i, ins in enumerate(instrs) if ins.mnemonic == "global_load_dword")
    inv = (Pattern(r"buffer_inv", ("sc0", "sc1")),)
    assert edges == {len(instrs) - 1: (0, True)}
    assert _find_reachable(inv, instrs, load + 1, edges) == 0
    assert _find_reachable(inv, instrs, load + 1, {}) is None
