"""The ranks backend on GPUs: nccl + symmetric-memory heaps, one process per GPU."""

from __future__ import annotations

import os

import pytest
import torch

from litmus.run.config import RunConfig
from litmus.session import run_tests
from litmus.run.ranks import RanksBackend
from litmus.spec import load_paths

pytestmark = pytest.mark.gpu


def _need_gpus(n: int) -> None:
    if not torch.cuda.is_available():
        pytest.skip("no CUDA device")
    if torch.cuda.device_count() < n:
        pytest.skip(f"needs {n} CUDA devices, found {torch.cuda.device_count()}")


@pytest.mark.parametrize("world, ids", [
    (1, ["MP[relacq-samecta-sys]", "MP[relacq-xcta-gpu]"]),
    (2, ["MP[relacq-xgpu-sys]", "MP[relaxed-xgpu-sys]"]),
])
def test_mp_through_symmetric_memory(world: int, ids: list[str]) -> None:
    _need_gpus(world)
    tests = [t for t in load_paths(["catalog/mp.yaml"]) if t.id in ids]
    backend = RanksBackend(world_size=world, device="cuda", timeout_s=120.0)
    try:
        results = run_tests(tests, backend, RunConfig(iterations=2, instances=1 << 14))
        pids = backend.worker_pids
        assert backend.describe()["heaps"] == "symm_mem"
    finally:
        backend.close()
    for r in results:
        assert r.verdict is not None and r.record is not None
        assert r.verdict.verdict != "VIOLATION", r.record["histogram"]
        assert sum(b["count"] for b in r.record["histogram"]) == r.record["instances"] == 2 * (1 << 14)
    for pid in pids:
        with pytest.raises(ProcessLookupError):
            os.kill(pid, 0)


@pytest.mark.parametrize("world", [1, 2])
def test_cost_loop_kernel_through_symmetric_memory_is_gpu_timed(world: int) -> None:
    from litmus.cost.measure import CostParams, measure_ranks
    from litmus.cost.shape import signalling
    from litmus.spec import load_tests

    _need_gpus(world)
    (test,) = load_tests(["COST-signal"], "relacq-sys-xgpu")
    backend = RanksBackend(world_size=world, device="cuda", timeout_s=120.0)
    try:
        m = measure_ranks(signalling(test), backend, CostParams(round_trips=200, repeat=3, warmup=1, world_size=world))
    finally:
        backend.close()
    assert m.backend == "ranks" and m.timer in ("globaltimer", "inline-asm")  # the GPU's clock, not the host's
    assert m.round_trips == m.asked == 2 * 3 * 200 and m.timeouts == 0
    assert 0 < m.p50 < 1e6  # ns: a one-way signal takes well under a millisecond
    assert m.event_trip_ns is not None and m.signals_per_s is not None
    assert m.placement == ("P0@rank0, P1@rank0" if world == 1 else "P0@rank0, P1@rank1")
