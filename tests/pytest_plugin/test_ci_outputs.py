"""What a CI job keeps: --litmus-jsonl (one writer, also under xdist), the JUnit properties, the
summary table, one kernel cache for all workers, loadgroup and -n auto."""

from __future__ import annotations

import os
import subprocess
import sys
import xml.etree.ElementTree as ET

import pytest
from fake_gpu import MP_REREAD_SC, fake_gpu_conftest

from litmus.report.jsonl import read_results

MACHINE_PROPS = {"litmus_verdict", "litmus_instances", "litmus_target_count", "litmus_bound_95", "litmus_backend",
                 "litmus_device", "litmus_triton", "litmus_reproduce"}


def test_xdist_workers_records_reach_one_jsonl_file_whole(pytester: pytest.Pytester, flags: list[str],
                                                          copy_catalog) -> None:
    copy_catalog("mp_reread.yaml", "corr.yaml")
    pytester.makeconftest(fake_gpu_conftest([(MP_REREAD_SC, 0, 4096)]))  # states need not fit corr's keys
    jsonl, xml = pytester.path / "out" / "run.jsonl", pytester.path / "out.xml"
    result = pytester.runpytest_subprocess(*flags, "--litmus", "--litmus-backend", "cuda", "--litmus-iterations", "1",
                                           "-n", "2", "-p", "no:cacheprovider", f"--litmus-jsonl={jsonl}",
                                           f"--junitxml={xml}", "catalog/mp_reread.yaml", "catalog/corr.yaml")
    records = read_results(jsonl)
    cases = list(ET.parse(xml).getroot().iter("testcase"))
    assert len(records) == len(cases) > 8  # every item's record from both workers, each line whole JSON
    assert len({r["id"] for r in records}) == len(records)
    assert {r["backend"] for r in records} == {"cuda"} and {r["device"] for r in records} == {"Fake GPU"}
    assert all(r["config"]["iterations"] == 1 and r["instances"] == 4096 for r in records)
    props = {p.get("name") for p in cases[0].iter("property")}
    assert MACHINE_PROPS <= props
    out = result.stdout.str()
    assert out.count("litmus summary") == 1  # the controller's table, not one per worker
    result.stdout.fnmatch_lines(["verdicts *", "*machine *cuda: Fake GPU; triton *", f"records: {jsonl}*"])
    page = pytester.path / "page.html"
    report = subprocess.run([sys.executable, "-m", "litmus", "report", str(jsonl), "--html", str(page)],
                            capture_output=True, text=True, cwd=pytester.path)
    assert report.returncode == 0, report.stderr
    assert page.stat().st_size > 0


def test_cache_dir_is_shared_through_the_environment(pytester: pytest.Pytester, flags: list[str],
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LITMUS_CACHE", os.environ.get("LITMUS_CACHE", ""))  # restored after the test
    monkeypatch.setenv("TRITON_CACHE_DIR", os.environ.get("TRITON_CACHE_DIR", ""))
    cache = pytester.path / "kernels"
    config = pytester.parseconfigure(*flags, "--litmus", "--litmus-backend", "model", f"--litmus-cache={cache}")
    assert os.environ["LITMUS_CACHE"] == str(cache)
    assert os.environ["TRITON_CACHE_DIR"] == str(cache / "triton")
    config._ensure_unconfigure()


def test_xdist_load_becomes_loadgroup(pytester: pytest.Pytester, flags: list[str]) -> None:
    # `-n 2` alone means --dist load once xdist's pytest_cmdline_main ran, which parseconfigure skips
    config = pytester.parseconfigure(*flags, "--litmus", "--litmus-backend", "model", "-n", "2", "--dist", "load")
    assert config.getoption("dist") == "loadgroup"
    config._ensure_unconfigure()
    config = pytester.parseconfigure(*flags, "--litmus", "--litmus-backend", "model", "-n", "2", "--dist", "loadfile")
    assert config.getoption("dist") == "loadfile"
    config._ensure_unconfigure()


@pytest.mark.parametrize(("backend", "share", "workers"),
                         [("cuda", False, 1), ("cuda", True, None), ("cpu", False, None)])
def test_n_auto_on_one_gpu_starts_one_worker(pytester: pytest.Pytester, flags: list[str],
                                             monkeypatch: pytest.MonkeyPatch, backend, share, workers) -> None:
    from litmus.pytest_plugin import pytest_xdist_auto_num_workers

    monkeypatch.setattr("litmus.pytest_plugin.backends.cuda_device_count", lambda: 1)
    args = [*flags, "--litmus", "--litmus-backend", backend, *(["--litmus-gpu-share"] if share else [])]
    config = pytester.parseconfigure(*args)
    assert pytest_xdist_auto_num_workers(config) == workers
    config._ensure_unconfigure()
