"""Items on real backends: one cpu session checks the failure report, fixture, marker and JUnit XML."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from plugin_patterns import PAYLOAD_SEEN, handshake

USER_TESTS = """
import pytest
from pathlib import Path

HANDSHAKE = Path("catalog/handshake.yaml").read_text()

def test_fixture_counts(litmus):
    result = litmus.run("catalog/payload_seen.yaml", instances=128)
    assert result.instances == 128 and result.backend == "cpu"
    assert result.witnessed("P1:r1 == 1") == 128 - result.timeout_count
    result.never("P1:r1 == 0")

def test_fixture_inline_yaml(litmus):
    result = litmus.run(HANDSHAKE, variant="relacq-sys", instances=128)
    assert result.verdict == "correct"
    result.never("P1:r0 == 1 /\\\\ P1:r1 == 0")

@pytest.mark.litmus_pattern("catalog/payload_seen.yaml", instances=128)
def test_marker_never_fails_with_histogram(litmus_result):
    litmus_result.never("P1:r1 == 1")
"""


CLOSE_CHECK = """
import multiprocessing
import pytest

@pytest.hookimpl(trylast=True)
def pytest_unconfigure(config):
    # runs after the plugin's pytest_unconfigure: its backends' workers must be gone
    open("workers_left.txt", "w").write(str(len(multiprocessing.active_children())))
"""


def test_cpu_session_report_fixture_marker_and_junit(pytester: pytest.Pytester, flags: list[str]) -> None:
    (pytester.path / "catalog").mkdir()
    (pytester.path / "catalog" / "handshake.yaml").write_text(handshake())
    (pytester.path / "catalog" / "payload_seen.yaml").write_text(PAYLOAD_SEEN)
    pytester.makepyfile(test_user=USER_TESTS)
    xml = pytester.path / "out.xml"
    pytester.makeconftest(CLOSE_CHECK)
    result = pytester.runpytest_subprocess(*flags, "--litmus", "--litmus-backend", "cpu", "--litmus-instances", "128",
                                "--litmus-seed", "3", "--litmus-require-witness", f"--junitxml={xml}", "-rA")
    assert (pytester.path / "workers_left.txt").read_text() == "0"  # the session closed the backend
    outcomes = result.parseoutcomes()
    assert (outcomes.get("passed"), outcomes.get("failed")) == (3, 3), result.stdout.str()
    out = result.stdout.str()
    # (a) + (b): the mislabelled variant, with model verdict, counts, histogram and reproduce command
    assert "litmus Payload-seen (catalog/payload_seen.yaml:1) failed" in out
    assert "the PTX model ALLOWS the target outcome of exists P1:r1 == 1" in out
    assert "observed on cpu (seed 3, 1 round(s)): forbidden outcome(s) in 128 of 128 instances:" in out
    assert "  128 x P1:r1=1 data=1 ready=1  (target outcome)" in out
    assert "128  forbidden  P1:r1=1 data=1 ready=1  <- target" in out
    # the model's explanation of the outcome: here the execution that reaches it
    assert "what the PTX model says of P1:r1=1 data=1 ready=1 (litmus explain):" in out
    assert "State P1:r1 == 1 /\\ data == 1 /\\ ready == 1: allowed" in out
    assert ("reproduce: litmus run catalog/payload_seen.yaml --backend cpu --seed 3 --iterations 1 "
            "--instances 128") in out
    # (c): the racy variant's target outcome never appears under the interpreter
    assert "FAILED catalog/handshake.yaml::Handshake[volatile]" in out
    assert "not witnessed: the model allows the target outcome" in out
    assert "PASSED catalog/handshake.yaml::Handshake[relacq-sys]" in out
    # the fixture and the marker
    assert "PASSED test_user.py::test_fixture_counts" in out
    assert "PASSED test_user.py::test_fixture_inline_yaml" in out
    assert "FAILED test_user.py::test_marker_never_fails_with_histogram" in out
    assert "Payload-seen: 'P1:r1 == 1' held in 128 of 128 instances on cpu (seed 3)" in out
    assert "Traceback" not in out and "result.py" not in out  # no plugin frames in any report
    # JUnit XML carries the counts
    cases = {c.get("name"): c for c in ET.parse(xml).getroot().iter("testcase")}
    props = {p.get("name"): p.get("value") for p in cases["Payload-seen"].iter("property")}
    assert props["litmus_instances"] == "128" and props["litmus_forbidden_count"] == "128"
    assert props["litmus_verdict"] == "VIOLATION" and props["litmus_backend"] == "cpu"
    assert props["litmus_seed"] == "3" and props["litmus_target_count"] == "128"


def test_cuda_backend_without_a_gpu_skips_with_the_reason(pytester: pytest.Pytester, flags: list[str]) -> None:
    from litmus.run.registry import available_backends

    if available_backends().get("cuda") is None:
        pytest.skip("this machine has a CUDA device")  # the check needs a machine without one
    (pytester.path / "catalog").mkdir()
    (pytester.path / "catalog" / "handshake.yaml").write_text(handshake())
    result = pytester.runpytest(*flags, "--litmus", "--litmus-backend", "cuda", "-rs")
    result.assert_outcomes(skipped=2)
    result.stdout.fnmatch_lines(["SKIPPED ?1? catalog/handshake.yaml:22: --backend cuda: not available here: no CUDA device*",
                                 "SKIPPED ?1? catalog/handshake.yaml:28: --backend cuda: not available here: no CUDA device*"])


def test_model_disagreement_still_fails_when_the_backend_is_unavailable(pytester: pytest.Pytester,
                                                                        flags: list[str]) -> None:
    from litmus.run.registry import available_backends

    if available_backends().get("cuda") is None:
        pytest.skip("this machine has a CUDA device")  # the check needs an unavailable backend
    (pytester.path / "catalog").mkdir()
    (pytester.path / "catalog" / "handshake.yaml").write_text(handshake(expect_volatile="forbidden"))
    result = pytester.runpytest(*flags, "--litmus", "--litmus-backend", "cuda", "-rA")
    outcomes = result.parseoutcomes()
    assert outcomes.get("failed") == 1 and outcomes.get("skipped") == 1
    result.stdout.fnmatch_lines(["*expectation: declared forbidden*", "*(not run: *cuda*)"])
