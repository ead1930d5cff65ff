"""A rank that dies or stops costs its variant only: one ``error`` record that names the rank
and the variant, fresh rank processes for the next variant, the finished variants' records
kept, and no process left behind."""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path

import pytest

from litmus.ir import LitmusTest
from litmus.report.jsonl import read_records
from litmus.run.config import RunConfig
from litmus.session import VariantResult, run_tests
from litmus.run.ranks import RankFailure, RanksBackend
from litmus.spec import load_paths

CONFIG = RunConfig(iterations=3, instances=16)


def _three_variants() -> list[LitmusTest]:
    tests = {t.variant: t for t in load_paths(["catalog/mp.yaml"])}
    return [tests["relacq-xgpu-sys"], tests["fence-xgpu-sys"], tests["relaxed-xgpu-sys"]]


def _assert_gone(pids: list[int]) -> None:
    for pid in pids:
        with pytest.raises(ProcessLookupError):
            os.kill(pid, 0)


def _run_and_hit_rank1(sig: signal.Signals, timeout_s: float, out: Path
                       ) -> tuple[list[VariantResult], float, list[int], list[int], list[LitmusTest]]:
    """Run three variants; after the second variant's first round, send ``sig`` to world rank 1.
    Returns the results, the seconds from the hit to the second variant's error, the pids hit
    and the pids that ran the third variant."""
    tests = _three_variants()
    backend = RanksBackend(world_size=2, device="cpu", timeout_s=timeout_s)
    pids: list[int] = []
    later_pids: list[int] = []
    hit_at: list[float] = []
    errored_at: list[float] = []

    def on_progress(test: LitmusTest, fraction: float) -> None:
        if test is tests[1] and not pids:
            pids.extend(backend.worker_pids)
            os.kill(pids[1], sig)
            hit_at.append(time.monotonic())
        if test is tests[2] and not later_pids:
            later_pids.extend(backend.worker_pids)

    def on_result(res: VariantResult) -> None:
        if res.error is not None:
            errored_at.append(time.monotonic())

    try:
        results = run_tests(tests, backend, CONFIG, out=out, on_progress=on_progress, on_result=on_result)
    finally:
        backend.close()
    if sig == signal.SIGSTOP:
        for pid in pids:  # a stopped rank that outlived its pool must not linger as a zombie
            try:
                os.kill(pid, signal.SIGCONT)
            except ProcessLookupError:
                pass
    return results, errored_at[0] - hit_at[0], pids, later_pids, tests


@pytest.mark.parametrize("sig,timeout_s,says", [
    (signal.SIGKILL, 30.0, "rank 1 was killed by SIGKILL"),
    (signal.SIGSTOP, 3.0, "rank 1 did not take up the round within 3 s"),
])
def test_a_lost_rank_costs_its_variant_only(tmp_path: Path, sig: signal.Signals, timeout_s: float,
                                            says: str) -> None:
    out = tmp_path / "results.jsonl"
    results, seconds, pids, later_pids, tests = _run_and_hit_rank1(sig, timeout_s, out)
    assert seconds < 30.0
    records = list(read_records(out))
    assert [r["id"] for r in records] == [t.id for t in tests]
    assert [r["verdict"] == "error" for r in records] == [False, True, False]
    err = records[1]["error"]
    assert says in err and tests[1].id in err
    assert results[2].error is None and results[2].verdict is not None and results[2].verdict.instances == 48
    assert later_pids and not set(later_pids) & set(pids), "the third variant ran on fresh rank processes"
    _assert_gone(pids + later_pids)


def test_after_a_failure_the_backend_refuses_more_rounds(tmp_path: Path) -> None:
    tests = _three_variants()
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
    test = _three_variants()[0]
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
