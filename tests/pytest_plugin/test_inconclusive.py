"""An undecided run is its own outcome (INCONCLUSIVE, a skip with its reason), never a bare
failure; --litmus-strict fails it; under --litmus-time the run goes on until it is decided."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import pytest
from fake_gpu import MP_REREAD_SC, fake_gpu_conftest

VARIANT = "catalog/mp_reread.yaml::MP-reread[relaxed-ldacq-relaxed]"  # forbidden target, nothing declared
TIMED_OUT = [(MP_REREAD_SC, 1, 4096)]  # every instance's spin ran out (status 1)
COMPLETED = [(MP_REREAD_SC, 0, 4096)]


def _run(pytester: pytest.Pytester, flags: list[str], copy_catalog, rounds: list, *extra: str) -> pytest.RunResult:
    copy_catalog("mp_reread.yaml")
    pytester.makeconftest(fake_gpu_conftest(*rounds))
    return pytester.runpytest(*flags, "--litmus", "--litmus-backend", "cuda", "-p", "no:cacheprovider", VARIANT,
                              *extra)


def test_an_undecided_run_is_inconclusive_with_its_reason_not_a_failure(pytester, flags, copy_catalog):
    xml = pytester.path / "out.xml"
    result = _run(pytester, flags, copy_catalog, [TIMED_OUT], "--litmus-iterations", "1", f"--junitxml={xml}")
    assert result.ret == 0
    result.stdout.fnmatch_lines(["inconclusive *MP-reread?relaxed-ldacq-relaxed?: 0 of 4,096 instances ended "
                                 "(4,096 timed out in a spin)",
                                 "*= 1 inconclusive in *"])
    skipped = next(ET.parse(xml).getroot().iter("skipped"))
    assert skipped.get("message", "").startswith("inconclusive: MP-reread[relaxed-ldacq-relaxed] on cuda: only 0 of "
                                                 "4,096 instances ended")
    assert "--litmus-strict" in skipped.get("message", "")


def test_strict_fails_an_inconclusive_run(pytester, flags, copy_catalog):
    result = _run(pytester, flags, copy_catalog, [TIMED_OUT], "--litmus-iterations", "1", "--litmus-strict")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["inconclusive on cuda (seed 0, 1 round(s)): only 0 of 4096 instances ended*"])


def test_under_a_time_the_run_goes_on_until_it_is_decided(pytester, flags, copy_catalog):
    xml = pytester.path / "out.xml"
    result = _run(pytester, flags, copy_catalog, [TIMED_OUT, COMPLETED], "--litmus-time", "2", f"--junitxml={xml}")
    result.assert_outcomes(passed=1)
    props = {p.get("name"): p.get("value") for p in ET.parse(xml).getroot().iter("property")}
    assert props["litmus_verdict"] == "correct" and props["litmus_rounds"] == "2"
    assert props["litmus_reproduce"].endswith(
        "--time-budget 0.125 --until-bound 0.000732422 --instances 4096 --stress resident")  # the plugin's stress


def test_a_gpu_run_without_rounds_or_time_is_run_to_its_evidence(pytester, flags, copy_catalog):
    """The GPU default is a time, not one round: the second round decides it."""
    result = _run(pytester, flags, copy_catalog, [TIMED_OUT, COMPLETED])
    result.assert_outcomes(passed=1)
