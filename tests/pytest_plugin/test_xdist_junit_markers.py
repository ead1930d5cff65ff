"""xdist gives the same outcomes as a serial run; JUnit XML carries the counts; markers select."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

import pytest
from plugin_patterns import handshake

from litmus.pytest_plugin.backends import worker_device, worker_index


def _outcomes(result: pytest.RunResult) -> set[tuple[str, str]]:
    """(node id, PASSED/FAILED) from ``-rA`` short summary lines."""
    found = set()
    for line in result.outlines:
        m = re.match(r"^(PASSED|FAILED) (\S+::\S+)", line)
        if m:
            found.add((m.group(2), m.group(1)))
    return found


def test_xdist_two_workers_give_the_serial_outcome_set(pytester: pytest.Pytester, flags: list[str],
                                                       copy_catalog) -> None:
    copy_catalog("sb.yaml", "corr.yaml")
    (pytester.path / "catalog" / "handshake.yaml").write_text(handshake(expect_volatile="forbidden"))
    args = [*flags, "--litmus", "--litmus-backend", "model", "-rA", "-p", "no:cacheprovider"]
    serial = pytester.runpytest_subprocess(*args)
    parallel = pytester.runpytest_subprocess(*args, "-n", "2")
    assert _outcomes(serial) == _outcomes(parallel)
    assert ("catalog/handshake.yaml::Handshake[volatile]", "FAILED") in _outcomes(parallel)
    assert len(_outcomes(serial)) > 5
    parallel.stdout.fnmatch_lines(["*2 workers*"])


def test_junit_xml_holds_the_litmus_properties(pytester: pytest.Pytester, flags: list[str]) -> None:
    (pytester.path / "catalog").mkdir()
    (pytester.path / "catalog" / "handshake.yaml").write_text(handshake())
    xml = pytester.path / "out.xml"
    pytester.runpytest(*flags, "--litmus", "--litmus-backend", "model", f"--junitxml={xml}")
    cases = {c.get("name"): c for c in ET.parse(xml).getroot().iter("testcase")}
    props = {p.get("name"): p.get("value") for p in cases["Handshake[volatile]"].iter("property")}
    assert props == {"litmus_expect": "allowed", "litmus_model_target_reachable": "True"}
    props = {p.get("name"): p.get("value") for p in cases["Handshake[relacq-sys]"].iter("property")}
    assert props["litmus_model_target_reachable"] == "False"


def test_markers_are_registered_and_select(pytester: pytest.Pytester, flags: list[str]) -> None:
    (pytester.path / "catalog").mkdir()
    (pytester.path / "catalog" / "handshake.yaml").write_text(handshake())
    listed = pytester.runpytest(*flags, "--markers")
    listed.stdout.fnmatch_lines(["@pytest.mark.litmus:*", "@pytest.mark.gpu:*", "@pytest.mark.multigpu:*"])
    base = [*flags, "--litmus", "--collect-only", "-q", "--strict-markers"]
    on_cuda = pytester.runpytest(*base, "--litmus-backend", "cuda", "-m", "not gpu")
    on_cuda.stdout.fnmatch_lines(["*2 deselected*"])
    on_ranks = pytester.runpytest(*base, "--litmus-backend", "ranks", "-m", "multigpu and litmus")
    on_ranks.stdout.fnmatch_lines(["*2 tests collected*"])
    on_model = pytester.runpytest(*base, "--litmus-backend", "model", "-m", "gpu or multigpu")
    on_model.stdout.fnmatch_lines(["*2 deselected*"])


def test_ranks_items_of_several_ranks_share_one_xdist_group(pytester: pytest.Pytester, flags: list[str]) -> None:
    (pytester.path / "catalog").mkdir()
    (pytester.path / "catalog" / "handshake.yaml").write_text(handshake())
    pytester.makeconftest("""
        def pytest_collection_finish(session):
            for item in session.items:
                print("GROUP", item.nodeid, [m.args for m in item.iter_markers("xdist_group")])
    """)
    result = pytester.runpytest(*flags, "--litmus", "--litmus-backend", "ranks", "--collect-only", "-s")
    assert "GROUP catalog/handshake.yaml::Handshake[volatile] [('litmus-multigpu',)]" in result.outlines


@pytest.mark.parametrize(("worker", "count", "device"), [("gw0", 4, 0), ("gw5", 4, 1), ("gw3", 1, 0), ("", 4, None),
                                                         ("gw2", 0, None), ("master", 2, None)])
def test_each_xdist_worker_takes_its_own_device(monkeypatch: pytest.MonkeyPatch, worker: str, count: int,
                                                device: int | None) -> None:
    monkeypatch.setenv("PYTEST_XDIST_WORKER", worker)
    assert worker_device(count) == device
    assert (worker_index() is None) == (not worker.startswith("gw"))
