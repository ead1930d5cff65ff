"""A variant whose declared miscompile the run executes is a strict xfail; outside the declared
toolchain range the ordinary assertion applies; an XPASS fails with one line (stale)."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import pytest
from fake_gpu import MP_REREAD_MERGED, MP_REREAD_OTHER, MP_REREAD_SC, REREAD_ID, fake_gpu_conftest

from litmus.audit.declared import Toolchain

INSIDE = Toolchain("3.6.0", "12.8.93")  # mp_reread.yaml declares the ptxas merge for triton "<3.9"
OUTSIDE = Toolchain("3.9.0", "12.9.86")


def _run(pytester: pytest.Pytester, flags: list[str], copy_catalog, monkeypatch: pytest.MonkeyPatch,
         toolchain: Toolchain, rows: list, *extra: str) -> pytest.RunResult:
    copy_catalog("mp_reread.yaml")
    pytester.makeconftest(fake_gpu_conftest(rows))
    monkeypatch.setattr("litmus.audit.declared.installed_toolchain", lambda: toolchain)
    return pytester.runpytest(*flags, "--litmus", "--litmus-backend", "cuda", "--litmus-iterations", "1",
                              "-rxXf", "-p", "no:cacheprovider", REREAD_ID, *extra)


def test_inside_the_range_the_declared_forbidden_outcome_is_an_xfail(pytester, flags, copy_catalog, monkeypatch):
    xml = pytester.path / "out.xml"
    result = _run(pytester, flags, copy_catalog, monkeypatch, INSIDE,
                  [(MP_REREAD_SC, 0, 4000), (MP_REREAD_MERGED, 0, 96)], f"--junitxml={xml}")
    result.assert_outcomes(xfailed=1)
    out = result.stdout.str()
    # the reason names the bug, the compiler versions and the doc
    assert "declared miscompile (catalog/mp_reread.yaml:" in out
    assert "P1 #2 on sass with triton 3.6.0, ptxas 12.8.93 (declared for triton <3.9)" in out
    assert "docs/compiler-bugs.md" in out
    case = next(ET.parse(xml).getroot().iter("testcase"))
    props = {p.get("name"): p.get("value") for p in case.iter("property")}
    assert props["litmus_verdict"] == "declared-miscompile" and props["litmus_forbidden_count"] == "96"
    assert props["litmus_ptxas"] == "12.8.93" and props["litmus_device"] == "Fake GPU"
    assert "declared seen  MP-reread[plain-ldacq-plain]: 96 forbidden outcome(s); declared miscompile" in out


def test_inside_the_range_a_clean_run_fails_in_one_line_as_a_stale_declaration(pytester, flags, copy_catalog,
                                                                                 monkeypatch):
    result = _run(pytester, flags, copy_catalog, monkeypatch, INSIDE, [(MP_REREAD_SC, 0, 4096)])
    result.assert_outcomes(failed=1)
    lines = [ln for ln in result.outlines if ln.startswith("stale declaration")]
    assert len(lines) == 1, result.stdout.str()  # the whole failure report is one line
    assert lines[0].startswith("stale declaration: the declared miscompile (P1 #2 on sass, catalog/mp_reread.yaml:")
    assert "no longer shows on this toolchain (triton 3.6.0, ptxas 12.8.93, cuda)" in lines[0]
    assert "no forbidden outcome in 4,096 ended instances" in lines[0]
    assert "XPASS" not in result.stdout.str()
    result.stdout.fnmatch_lines(["stale *MP-reread?plain-ldacq-plain?: declared miscompile (catalog/mp_reread.yaml:*"])


def test_a_forbidden_outcome_the_miscompile_does_not_explain_fails(pytester, flags, copy_catalog, monkeypatch):
    result = _run(pytester, flags, copy_catalog, monkeypatch, INSIDE,
                  [(MP_REREAD_SC, 0, 4000), (MP_REREAD_MERGED, 0, 90), (MP_REREAD_OTHER, 0, 6)])
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*forbidden outcome(s) in 96 of 4096 instances:*"])


def test_outside_the_range_the_ordinary_assertion_applies(pytester, flags, copy_catalog, monkeypatch):
    seen = _run(pytester, flags, copy_catalog, monkeypatch, OUTSIDE,
                [(MP_REREAD_SC, 0, 4000), (MP_REREAD_MERGED, 0, 96)])
    seen.assert_outcomes(failed=1)
    seen.stdout.fnmatch_lines(["*forbidden outcome(s) in 96 of 4096 instances:*"])
    assert "declared miscompile" not in seen.stdout.str()


def test_outside_the_range_a_clean_run_passes(pytester, flags, copy_catalog, monkeypatch):
    clean = _run(pytester, flags, copy_catalog, monkeypatch, OUTSIDE, [(MP_REREAD_SC, 0, 4096)])
    clean.assert_outcomes(passed=1)


def test_the_interpreter_runs_no_compiler_so_no_declaration_applies(pytester, flags, copy_catalog, monkeypatch):
    copy_catalog("mp_reread.yaml")
    monkeypatch.setattr("litmus.audit.declared.installed_toolchain", lambda: INSIDE)
    result = pytester.runpytest(*flags, "--litmus", "--litmus-backend", "cpu", "--litmus-instances", "128",
                                "-p", "no:cacheprovider", REREAD_ID)
    result.assert_outcomes(passed=1)
