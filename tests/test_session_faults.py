"""A variant whose run fails costs that variant only: one ``error`` record, and the run goes on."""

from __future__ import annotations

import os
import signal
from pathlib import Path
from typing import Any

import pytest

from litmus.ir import LitmusTest
from litmus.report.jsonl import read_records, read_results
from litmus.run.backend import Round
from litmus.run.config import RunConfig
from litmus.session import BackendLost, run_tests
from tests.test_session import SB, Scripted


def _variant(name: str) -> LitmusTest:
    from dataclasses import replace

    return replace(SB, variant=name)


class Faulty(Scripted):
    """Raises an out-of-range index on the variants named in ``bad``; ``recover`` is counted."""

    def __init__(self, bad: set[str], lost: bool = False) -> None:
        super().__init__()
        self.bad, self.lost, self.recovered = bad, lost, 0

    def run_round(self, test: LitmusTest, config: RunConfig, round_index: int) -> Round:
        if test.variant in self.bad:
            raise IndexError("index 70000 is out of bounds for dimension 0 with size 65536")
        return super().run_round(test, config, round_index)

    def recover(self) -> None:
        self.recovered += 1
        if self.lost:
            raise RuntimeError("CUDA error: an illegal memory access was encountered")


TESTS = [_variant("a"), _variant("b"), _variant("c")]


def test_one_failing_variant_leaves_one_error_record_and_the_rest_finish(tmp_path: Path) -> None:
    out = tmp_path / "r.jsonl"
    backend = Faulty({"b"})
    results = run_tests(TESTS, backend, RunConfig(iterations=1), out=out)
    assert [r.test.variant for r in results] == ["a", "b", "c"]
    assert [r.verdict.verdict if r.verdict else r.error for r in results] == [
        "racy-witnessed", "IndexError: index 70000 is out of bounds for dimension 0 with size 65536", "racy-witnessed"]
    records = list(read_records(out))
    assert [r["verdict"] for r in records] == ["racy-witnessed", "error", "racy-witnessed"]
    err = records[1]
    assert err["reproduce"] == "litmus run sb.yaml --variant b --backend scripted --debug"
    assert "Traceback" in err["traceback"] and "IndexError" in err["traceback"]
    assert backend.recovered == 1


def test_resume_runs_the_errored_variant_again_and_its_new_record_supersedes(tmp_path: Path) -> None:
    out = tmp_path / "r.jsonl"
    run_tests(TESTS, Faulty({"b"}), RunConfig(iterations=1), out=out)
    backend = Faulty(set())
    again = run_tests(TESTS, backend, RunConfig(iterations=1), out=out, resume=True)
    assert [r.skipped is None for r in again] == [False, True, False]
    assert [r["verdict"] for r in read_results(out)] == ["racy-witnessed", "racy-witnessed", "racy-witnessed"]
    kept = run_tests(TESTS, Faulty({"b"}), RunConfig(iterations=1), out=tmp_path / "k.jsonl")
    assert kept[1].error is not None
    skipped = run_tests(TESTS, Faulty(set()), RunConfig(iterations=1), out=tmp_path / "k.jsonl", resume=True,
                        retry_errors=False)
    assert all(r.skipped for r in skipped)


def test_a_backend_that_cannot_recover_ends_the_run_with_what_finished_recorded(tmp_path: Path) -> None:
    out = tmp_path / "r.jsonl"
    with pytest.raises(BackendLost, match="illegal memory access"):
        run_tests(TESTS, Faulty({"b"}, lost=True), RunConfig(iterations=1), out=out)
    assert [r["verdict"] for r in read_records(out)] == ["racy-witnessed", "error"]


def test_an_interrupt_is_not_an_error(tmp_path: Path) -> None:
    class Interrupted(Scripted):
        def run_round(self, test: LitmusTest, config: RunConfig, round_index: int) -> Round:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        run_tests(TESTS, Interrupted(), RunConfig(iterations=1), out=tmp_path / "r.jsonl")
    assert not (tmp_path / "r.jsonl").exists() or list(read_records(tmp_path / "r.jsonl")) == []


MP_TWO = """name: FAULT-MP
locations: {x: 0, flag: 0}
threads:
  P0: {at: {rank: 0, cta: 0}, do: [{store: {loc: x, value: 1}}, {store: {loc: flag, value: 1}}]}
  P1: {at: {rank: 0, cta: 1}, do: [{load: {reg: r0, loc: flag}}, {load: {reg: r1, loc: x}}]}
exists: "P1:r0 == 1 /\\\\ P1:r1 == 0"
variants:
  - {name: first, expect: allowed, why: plain}
  - {name: killed, expect: allowed, why: plain}
  - {name: last, expect: allowed, why: plain}
"""


def test_a_worker_killed_mid_variant_costs_that_variant_on_the_cpu_backend(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A real fault: the interpreter worker process of the second variant is killed (SIGKILL)."""
    pytest.importorskip("triton")
    from click.testing import CliRunner

    from litmus.cli import main
    from litmus.run.cpu import CpuBackend

    real = CpuBackend.run_round

    def killing(self: CpuBackend, test: LitmusTest, config: RunConfig, round_index: int) -> Any:
        if test.variant == "killed":
            self._ensure_workers(self.workers)
            for pid in self.worker_pids():
                if pid:
                    os.kill(pid, signal.SIGKILL)
        return real(self, test, config, round_index)

    monkeypatch.setattr(CpuBackend, "run_round", killing)
    p = tmp_path / "mp.yaml"
    p.write_text(MP_TWO)
    out = tmp_path / "r.jsonl"
    res = CliRunner().invoke(main, ["run", str(p), "--backend", "cpu", "--iterations", "1", "--instances", "64",
                                    "--out", str(out)])
    assert res.exit_code == 1, res.output
    records = list(read_records(out))
    assert [(r["variant"], r["verdict"] == "error") for r in records] == [
        ("first", False), ("killed", True), ("last", False)]
    assert "1 variant errored" in res.output
    assert f"alone: litmus run {p} --variant killed --backend cpu --debug" in res.output
    assert "Traceback" not in res.output
