"""The cpu backend end to end: interpreter workers, one per role, through the run driver."""

from __future__ import annotations

import json
import os
import signal
import time
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from litmus.observables import observables
from litmus.run.config import PRESETS, RunConfig
from litmus.run.cpu import NOTE, CpuBackend, WorkerError, role_count, role_per_rank
from litmus.session import run_tests
from litmus.spec import load_paths
from tests.run import irs

SMALL = RunConfig(iterations=2, instances=256, seed=7)
ROOT = Path(__file__).resolve().parents[2]


def test_mp_release_acquire_is_correct_and_histogram_adds_up(cpu_backend, tmp_path):
    out = tmp_path / "results.jsonl"
    [res] = run_tests([irs.mp_release_acquire()], cpu_backend, SMALL, out=out)
    assert res.verdict is not None and res.verdict.verdict == "correct"
    assert res.verdict.instances == 2 * 256
    assert sum(b.count for b in res.verdict.bins) == 512
    assert res.verdict.counts["forbidden"] == 0 and res.verdict.counts["timeout"] == 0
    [record] = [json.loads(line) for line in out.read_text().splitlines()]
    assert record["backend"] == "cpu" and record["id"] == "MP[relacq-r1c0]" and record["instances"] == 512


def test_catalog_mp_same_gpu_other_cta_runs_in_two_processes(cpu_backend):
    tests = [t for t in load_paths([ROOT / "catalog" / "mp.yaml"]) if t.variant == "relacq-xcta-gpu"]
    assert role_count(tests[0]) == 2
    [res] = run_tests(tests, cpu_backend, RunConfig(iterations=1, instances=128))
    assert res.verdict.verdict == "correct" and res.verdict.instances == 128


def test_mislabelled_variant_is_a_violation(cpu_backend):
    [res] = run_tests([irs.mp_payload_first_mislabelled()], cpu_backend, SMALL)
    v = res.verdict
    assert v.verdict == "VIOLATION"
    # P1 reads x before P0 may write it, and waits for the flag: every instance hits the target,
    # which needs the two roles to run concurrently (in one process P0's spin would time out).
    assert v.counts["timeout"] == 0
    assert v.target_count == v.instances == 512 and v.observation == "Always"


def test_a_spin_nothing_answers_is_proven_hung_and_without_may_hang_times_out(cpu_backend):
    """A variant that declares may_hang proves its hang (status HUNG, an ended instance); one that
    does not declare it has no quiescence harness, and its spin runs to the bound (TIMED_OUT)."""
    from dataclasses import replace

    from litmus.ir import Expectation
    from litmus.status import HUNG, TIMED_OUT

    r = cpu_backend.run_round(irs.spin_never(), RunConfig(instances=64, spin_bound=5), 0)
    assert r.instances == 64
    assert [(int(status), n) for _, status, n in r.rows] == [(HUNG, 64)]
    undeclared = replace(irs.spin_never(), expect=Expectation("forbidden", "", may_hang=False))
    r = cpu_backend.run_round(undeclared, RunConfig(instances=64, spin_bound=5), 0)
    assert [(int(status), n) for _, status, n in r.rows] == [(TIMED_OUT, 64)]


def test_resume_skips_finished_variants(cpu_backend, tmp_path):
    out = tmp_path / "r.jsonl"
    first = irs.mp_release_acquire()
    run_tests([first], cpu_backend, RunConfig(iterations=1, instances=128), out=out)
    second = irs.mp_release_acquire(rank=0, cta=1)
    results = run_tests([first, second], cpu_backend, RunConfig(iterations=1, instances=128), out=out, resume=True)
    assert results[0].skipped is not None and "resume" in results[0].skipped and results[0].verdict is None
    assert results[1].skipped is None and results[1].verdict.verdict == "correct"
    ids = [json.loads(line)["id"] for line in out.read_text().splitlines()]
    assert ids == ["MP[relacq-r1c0]", "MP[relacq-r0c1]"]


def test_pool_is_reused_across_variants(cpu_backend):
    before = cpu_backend.worker_pids()
    assert len(before) == 2 and all(before)
    run_tests([irs.mp_release_acquire(), irs.mp_release_acquire(rank=0, cta=1)], cpu_backend,
              RunConfig(iterations=2, instances=64))
    assert cpu_backend.worker_pids() == before


def test_rounds_are_reproducible_from_the_seed(cpu_backend):
    cfg = RunConfig(instances=64, seed=11, stress=PRESETS["default"])
    a = cpu_backend.run_round(irs.mp_release_acquire(), cfg, 3)
    b = cpu_backend.run_round(irs.mp_release_acquire(), cfg, 3)
    c = cpu_backend.run_round(irs.mp_release_acquire(), cfg, 4)
    assert a.extra["perms"] == b.extra["perms"] != c.extra["perms"]
    assert a.extra["seed"] == 14


def test_strided_heaps_run(cpu_backend):
    cfg = RunConfig(instances=100, stress=PRESETS["spread"])
    r = cpu_backend.run_round(irs.mp_release_acquire(), cfg, 0)
    assert r.instances == 128  # rounded up to a power of two
    assert sum(n for _, _, n in r.rows) == 128
    assert all(s["x"] == 1 and s["flag"] == 1 for s, _, _ in r.rows)


def test_describe_says_cpu_and_tso():
    d = CpuBackend().describe()  # no workers started by describe
    assert d["backend"] == "cpu" and "Triton interpreter" in d["device"]
    assert "TSO" in NOTE and "store buffering" in NOTE and "not on a GPU" in NOTE
    assert "note" in d and d["placement"].startswith("one worker process per")


def test_skip_reason_names_unsupported_construct(cpu_backend):
    reason = cpu_backend.skip_reason(irs.unsupported_rmw())
    assert reason is not None and "inc" in reason
    assert cpu_backend.skip_reason(irs.mp_release_acquire()) is None


def test_worker_that_raises_gives_a_clear_error_and_closes_the_pool():
    backend = CpuBackend(workers=1, start=True, round_timeout=60)
    pids = backend.worker_pids()
    with pytest.raises(WorkerError) as err:
        backend.run_round(irs.unsupported_rmw(), RunConfig(instances=8), 0)
    text = str(err.value)
    assert "IncOnly" in text and "cpu worker 0" in text and f"pid {pids[0]}" in text
    assert "UnsupportedError" in text and "worker traceback" in text
    assert backend.worker_pids() == []
    _assert_gone(pids)


@pytest.mark.parametrize("settled", [False, True], ids=["racing", "gone-before-send"])
def test_dead_worker_gives_a_clear_error_not_a_hang(settled: bool):
    # "gone-before-send": the worker is a zombie before the round starts, so the first send
    # meets a broken pipe; that must still read "died", not a bare errno.
    backend = CpuBackend(workers=2, start=True, round_timeout=60)
    pids = backend.worker_pids()
    os.kill(pids[1], signal.SIGKILL)
    if settled:
        _wait_until_exited(pids[1])
    t0 = time.monotonic()
    with pytest.raises(WorkerError) as err:
        backend.run_round(irs.mp_release_acquire(), RunConfig(instances=8), 0)
    assert time.monotonic() - t0 < 30
    assert "MP[relacq-r1c0]" in str(err.value) and "cpu worker 1" in str(err.value) and "died" in str(err.value)
    assert backend.worker_pids() == []
    _assert_gone(pids)


def _wait_until_exited(pid: int | None) -> None:
    """Wait until the process is a zombie or gone (its pipe end is then closed)."""
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        try:
            with open(f"/proc/{pid}/stat") as f:
                if f.read().rsplit(")", 1)[1].split()[0] in ("Z", "X"):
                    return
        except FileNotFoundError:
            return
        time.sleep(0.01)
    raise AssertionError(f"pid {pid} did not exit after SIGKILL")


def _assert_gone(pids: list[int | None]) -> None:
    for pid in pids:
        assert pid is not None
        with pytest.raises(ProcessLookupError):
            os.kill(pid, 0)


# --------------------------------------------------------------------------- pure parts


def test_role_per_rank_gives_each_role_its_own_rank():
    t = irs.mp_release_acquire(rank=0, cta=1)  # two CTAs of one rank
    d = role_per_rank(t)
    assert [(th.rank, th.cta) for th in d.threads] == [(0, 0), (1, 0)]
    assert {loc.home for loc in d.locations} == {0}  # home rank 0 -> its first role
    assert observables(d) == observables(t)
    assert role_count(d) == role_count(t) == 2


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 3), st.integers(0, 2)), min_size=1, max_size=6),
       st.lists(st.integers(0, 5), min_size=1, max_size=3))
def test_role_per_rank_laws(places, homes):
    from litmus.ir import Condition, LitmusTest, Location, Store, Thread, TrueProp, Const

    locs = tuple(Location(f"l{i}", 0, h) for i, h in enumerate(homes))
    threads = tuple(Thread(f"P{i}", r, c, (Store(locs[0].name, Const(1)),)) for i, (r, c) in enumerate(places))
    t = LitmusTest("T", "", locs, threads, Condition("exists", TrueProp()))
    d = role_per_rank(t)
    # one role per rank, as many roles as before, same thread grouping
    assert all(th.cta == 0 for th in d.threads)
    assert role_count(d) == role_count(t) == len({th.rank for th in d.threads})
    same = lambda a, b: (a.rank, a.cta) == (b.rank, b.cta)  # noqa: E731
    for a, a2 in zip(t.threads, d.threads):
        for b, b2 in zip(t.threads, d.threads):
            assert same(a, b) == same(a2, b2)
    # locations homed on the same rank stay together
    for l1, m1 in zip(t.locations, d.locations):
        for l2, m2 in zip(t.locations, d.locations):
            assert (l1.home == l2.home) == (m1.home == m2.home)
