"""Several GPUs through xdist: each worker on its own GPU, -n auto one worker per GPU, and the
workers of one GPU taking turns on it."""

from __future__ import annotations

import threading
import time

import pytest

from litmus.pytest_plugin.devices import RANKS_LOCK, assign_device, auto_workers, gpu_turn, lock_index, lock_path


@pytest.mark.parametrize(("worker", "gpus", "device"), [("gw0", 8, 0), ("gw3", 8, 3), ("gw9", 8, 1), ("gw3", 1, 0),
                                                        ("gw1", 2, 1), (None, 4, None), ("master", 4, None),
                                                        ("gw2", 0, None)])
def test_worker_k_takes_device_k_mod_g(worker, gpus, device) -> None:
    assert assign_device(worker, gpus) == device


@pytest.mark.parametrize(("backend", "gpus", "share", "workers"), [
    ("cuda", 8, False, 8),    # one worker per GPU
    ("cuda", 1, False, 1),    # one GPU: one stress run at a time
    ("cuda", 1, True, None),  # asked to share: xdist's own count (the CPUs)
    ("ranks", 4, False, 1),   # each ranks run uses every GPU
    ("cpu", 0, False, None),  # the interpreter: xdist's own count
    ("cuda", 0, False, None),
])
def test_auto_workers(backend, gpus, share, workers) -> None:
    assert auto_workers(backend, gpus, share) == workers


@pytest.mark.parametrize(("backend", "worker", "count", "gpus", "share", "lock"), [
    ("cuda", "gw0", 4, 4, False, None),   # a GPU each: no lock
    ("cuda", "gw5", 8, 4, False, 1),      # two workers a GPU: take turns on GPU 1
    ("cuda", "gw5", 8, 4, True, None),    # asked to share
    ("cuda", None, 1, 1, False, None),    # no xdist
    ("cpu", "gw1", 4, 1, False, None),    # the interpreter uses no GPU
    ("ranks", "gw1", 2, 4, False, RANKS_LOCK),
    ("ranks", "gw0", 1, 4, False, None),
])
def test_which_runs_take_turns(backend, worker, count, gpus, share, lock) -> None:
    assert lock_index(backend, worker, count, gpus, share) == lock


def test_the_workers_of_one_gpu_hold_it_one_at_a_time(monkeypatch: pytest.MonkeyPatch, tmp_path) -> None:
    monkeypatch.setenv("PYTEST_XDIST_TESTRUNUID", f"test{time.monotonic_ns()}")
    monkeypatch.setattr("tempfile.gettempdir", lambda: str(tmp_path))
    spans: list[tuple[float, float]] = []

    def run() -> None:
        with gpu_turn(0):
            start = time.monotonic()
            time.sleep(0.1)
            spans.append((start, time.monotonic()))

    threads = [threading.Thread(target=run) for _ in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    spans.sort()
    assert all(a[1] <= b[0] for a, b in zip(spans, spans[1:]))  # no two overlap
    assert lock_path("run", 0).name == "litmus-gpu-run-cuda0.lock"
