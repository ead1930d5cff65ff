"""A rank that dies or stops ends the run quickly, names itself and the variant, keeps the
finished variants' records, and leaves no process behind."""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path

import pytest

from litmus.ir import LitmusTest
from litmus.report.jsonl import read_records
from litmus.run.config import RunConfig
from litmus.session import run_tests
from litmus.run.ranks import RankFailure, RanksBackend
from litmus.spec import load_paths

CONFIG = RunConfig(iterations=3, instances=16)


def _two_variants() -> list[LitmusTest]:
    tests = {t.variant: t for t in load_paths(["catalog/mp.yaml"])}
    return [tests["relacq-xgpu-sys"], tests["fence-xgpu-sys"]]


def _assert_gone(pids: list[int]) -> None:
    for pid in pids:
        with pytest.raises(ProcessLookupError):
            os.kill(pid, 0)


def _run_and_hit_rank1(sig: signal.Signals, timeout_s: float, out: Path) -> tuple[RankFailure, float, list[int], list[LitmusTest]]:
    """Run two variants; after the second variant's first round, send ``sig`` to world rank 1."""
    tests = _two_variants()
    backend = RanksBackend(world_size=2, device="cpu", timeout_s=timeout_s)
    pids: list[int] = []
    hit_at: list[float] = []

    def on_progress(test: LitmusTest, fraction: float) -> None:
        if test is tests[1] and not pids:
            pids.extend(backend.worker_pids)
            os.kill(pids[1], sig)
            hit_at.append(time.monotonic())

    try:
        with pytest.raises(RankFailure) as err:
            run_tests(tests, backend, CONFIG, out=out, on_progress=on_progress)
        ended = time.monotonic()
    finally:
        backend.close()
    return err.value, ended - hit_at[0], pids, tests


def test_a_killed_rank_ends_the_run_and_keeps_finished_variants(tmp_path: Path) -> None:
    out = tmp_path / "results.jsonl"
    err, seconds, pids, tests = _run_and_hit_rank1(signal.SIGKILL, 30.0, out)
    msg = str(err)
    assert seconds < 30.0
    assert "rank 1 was killed by SIGKILL" in msg and f"{tests[1].id} round 1" in msg
    assert [r["id"] for r in read_records(out)] == [tests[0].id]
    _assert_gone(pids)


def test_a_stopped_rank_times_out_naming_it(tmp_path: Path) -> None:
    out = tmp_path / "results.jsonl"
    err, seconds, pids, tests = _run_and_hit_rank1(signal.SIGSTOP, 3.0, out)
    msg = str(err)
    assert seconds < 30.0
    assert "rank 1 did not take up the round within 3 s" in msg and tests[1].id in msg
    assert [r["id"] for r in read_records(out)] == [tests[0].id]
    _assert_gone(pids)


def test_after_a_failure_the_backend_refuses_more_rounds(tmp_path: Path) -> None:
    tests = _two_variants()
    backend = RanksBackend(world_size=2, device="cpu", timeout_s=30.0)
    backend.start()
    pids = backend.worker_pids
    os.kill(pids[0], signal.SIGKILL)
    with pytest.raises(RankFailure, match="rank 0 was killed by SIGKILL while MP"):
        backend.run_round(tests[0], CONFIG, 0)
    with pytest.raises(RankFailure, match="stopped after an earlier failure"):
        backend.run_round(tests[0], CONFIG, 1)
    backend.close()
    _assert_gone(pids)


def test_a_rank_that_raises_is_named_with_its_error_and_the_variant() -> None:
    test = _two_variants()[0]
    backend = RanksBackend(world_size=2, device="cpu", timeout_s=30.0)
    try:
        backend.start()
        backend_pids = backend.worker_pids
        assert len(backend_pids) == 2
        with pytest.raises(RankFailure) as err:
            backend.run_round(test, RunConfig(iterations=1, instances=16, spin_bound=0), 0)
    finally:
        backend.close()
    msg = str(err.value)
    assert "raised while MP[relacq-xgpu-sys] round 0" in msg and "spin_bound=0" in msg
    assert "--- traceback of rank" in msg
    _assert_gone(backend_pids)
