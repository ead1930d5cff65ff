"""The ranks backend on the CPU: one spawned process per rank (gloo + Triton interpreter).

One backend per world size is started per module (spawning and importing torch/triton in each
rank takes a few seconds); instance counts are tiny because the interpreter is slow.
"""

from __future__ import annotations

import os
from dataclasses import replace
from pathlib import Path
from typing import Iterator

import pytest

from litmus.ir import LitmusTest
from litmus.report.jsonl import read_records
from litmus.run.config import RunConfig
from litmus.session import VariantResult, run_tests
from litmus.run.ranks import RanksBackend
from litmus.spec import load_paths

CONFIG = RunConfig(iterations=2, instances=64, seed=7)  # 128 completed: enough for a verdict of absence


def _variant(path: str, test_id: str) -> LitmusTest:
    return next(t for t in load_paths([path]) if t.id == test_id)


def iriw_on_four_ranks() -> LitmusTest:
    """IRIW with fence.sc.sys, each thread on its own rank (the catalog puts two per GPU)."""
    test = _variant("catalog/iriw.yaml", "IRIW[fencesc-sys]")
    placed = {"P0": 0, "P1": 1, "P2": 2, "P3": 3}
    threads = tuple(replace(t, rank=placed[t.name], cta=0) for t in test.threads)
    return replace(test, variant="fencesc-sys-4ranks", threads=threads)


@pytest.fixture(scope="module")
def swapped() -> Iterator[RanksBackend]:
    """World of 2 with test rank 0 on world rank 1 and test rank 1 on world rank 0."""
    backend = RanksBackend(world_size=2, ranks=[1, 0], device="cpu", interpreter_spin_bound=20000)
    yield backend
    pids = backend.worker_pids
    backend.close()
    for pid in pids:
        with pytest.raises(ProcessLookupError):
            os.kill(pid, 0)


def _check_counts(results: list[VariantResult], n_per_round: int) -> None:
    for r in results:
        assert r.verdict is not None and r.record is not None, r.skipped
        assert r.verdict.verdict != "VIOLATION", r.record["histogram"]
        assert sum(b["count"] for b in r.record["histogram"]) == r.record["instances"]
        assert r.record["instances"] == n_per_round * r.record["rounds"]


def test_message_passing_across_two_rank_processes(swapped: RanksBackend, tmp_path: Path) -> None:
    tests = [_variant("catalog/mp.yaml", "MP[relacq-xgpu-sys]"), _variant("catalog/mp.yaml", "MP[relaxed-xgpu-sys]")]
    out = tmp_path / "mp.jsonl"
    results = run_tests(tests, swapped, CONFIG, out=out)
    _check_counts(results, 64)
    assert results[0].verdict is not None and results[0].verdict.verdict == "correct"
    for r in results:
        assert r.record is not None
        # P0 (another process) stored x and flag into P1's heap; rank 0 read that heap back.
        assert all(b["state"]["x"] == 1 and b["state"]["flag"] == 1 for b in r.record["histogram"])
        assert r.record["backend"] == "ranks" and r.record["world_size"] == 2 and r.record["ranks"] == [1, 0]
    assert [rec["id"] for rec in read_records(out)] == [t.id for t in tests]


@pytest.mark.parametrize("test_id", ["SYMM-barrier[acqrel-sys]", "SYMM-barrier[relaxed-sys-tworounds]"])
def test_symm_mem_barrier_completes_only_because_both_ranks_run_at_once(swapped: RanksBackend, test_id: str) -> None:
    test = _variant("catalog/symm_mem_barrier.yaml", test_id)
    [result] = run_tests([test], swapped, CONFIG)
    _check_counts([result], 64)
    assert result.record is not None
    # Each rank spins for the other's CAS: a timeout or a pad left at 1 would mean the two
    # processes did not share heaps or did not run concurrently.
    assert [(b["state"], b["label"]) for b in result.record["histogram"]] == [({"pad0": 0, "pad1": 0}, "sc")]
    assert result.verdict is not None and result.verdict.verdict == "correct"


def test_a_test_needing_four_ranks_is_skipped_on_two(swapped: RanksBackend) -> None:
    [result] = run_tests([iriw_on_four_ranks()], swapped, CONFIG)
    assert result.verdict is None and result.skipped is not None
    assert result.skipped.startswith("needs 4 ranks, world has 2")


def test_describe_names_the_backend_world_and_interpreter_limits(swapped: RanksBackend) -> None:
    d = swapped.describe()
    assert (d["backend"], d["world_size"], d["launcher"], d["start_barrier"]) == ("ranks", 2, "spawn", "host")
    assert "one after another" in d["note"] and d["torch"] and d["triton"]


def test_four_ranks_run_mp_symm_barrier_and_iriw(tmp_path: Path) -> None:
    """A world of 4, test ranks placed in reverse (test rank i on world rank 3 - i)."""
    backend = RanksBackend(world_size=4, ranks=[3, 2, 1, 0], device="cpu", interpreter_spin_bound=20000)
    tests = [
        iriw_on_four_ranks(),
        _variant("catalog/mp.yaml", "MP[relacq-xgpu-sys]"),
        _variant("catalog/symm_mem_barrier.yaml", "SYMM-barrier[acqrel-sys]"),
        _variant("catalog/symm_mem_barrier.yaml", "SYMM-barrier[relaxed-sys-tworounds]"),
    ]
    try:
        results = run_tests(tests, backend, replace(CONFIG, iterations=1, instances=128))
        pids = backend.worker_pids
        assert len(set(pids)) == 4
    finally:
        backend.close()
    _check_counts(results, 128)
    iriw, mp, *barriers = results
    assert iriw.record is not None
    assert all(b["state"]["x"] == 1 and b["state"]["y"] == 1 for b in iriw.record["histogram"])
    assert mp.verdict is not None and mp.verdict.verdict == "correct"
    for r in barriers:
        assert r.record is not None
        assert [(b["state"], b["label"]) for b in r.record["histogram"]] == [({"pad0": 0, "pad1": 0}, "sc")]
    for pid in pids:
        with pytest.raises(ProcessLookupError):
            os.kill(pid, 0)


def test_two_ranks_waiting_on_each_other_are_proven_hung(swapped: RanksBackend) -> None:
    """Rank mode proves at sys scope, with the wait and confirm words on one rank's heap that
    the other process reaches through the heap table."""
    from litmus.status import HUNG
    from tests.run import irs

    r = swapped.run_round(irs.mutual_wait(), RunConfig(instances=32, seed=3), 0)
    assert [(status, n) for _, status, n in r.rows] == [(HUNG, 32)]
