"""Compiling ahead: jobs run in workers in run order, a wait names whether a worker compiled it,
and the cuda backend asks for exactly the kernels its rounds will load."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest

from litmus.codegen.options import CodegenOptions
from litmus.run.ahead import CompileAhead, KernelJob, default_workers
from litmus.run.config import RunConfig, Stress
from litmus.spec import load_tests


def _record(job: KernelJob) -> float:
    """A stand-in for ``warm`` (picklable, for the spawned workers): appends the job's variant id
    to a log file named by the job's device index; a variant named ``fail...`` raises."""
    log = Path(f"/tmp/litmus-ahead-test-{job.device}.log")
    if job.test.variant.startswith("fail"):
        raise RuntimeError("the compiler broke")
    with log.open("a") as f:
        f.write(job.test.id + "\n")
    time.sleep(0.01)
    return 0.01


@pytest.fixture()
def tests() -> list[Any]:
    return load_tests(["catalog/mp.yaml"])[:4]


def test_jobs_compile_in_run_order_once_each(tests: list[Any], tmp_path: Path) -> None:
    device = abs(hash(tmp_path)) % 10**9
    log = Path(f"/tmp/litmus-ahead-test-{device}.log")
    log.unlink(missing_ok=True)
    opts = CodegenOptions()
    jobs = [KernelJob(t, opts, 4, device) for t in tests] + [KernelJob(tests[0], opts, 4, device)]
    ahead = CompileAhead(jobs, workers=1, compile_fn=_record)
    try:
        assert len(ahead) == 4  # the repeated job is submitted once
        assert all(ahead.wait(t, opts) for t in tests)
        assert not ahead.wait(tests[0], opts)  # already waited for: the run compiles (loads) it itself
        assert not ahead.wait(tests[0], CodegenOptions(block=32))  # never submitted
        assert log.read_text().split() == [t.id for t in tests]
    finally:
        ahead.close()
        log.unlink(missing_ok=True)


def test_a_failed_compile_is_left_to_the_run(tests: list[Any]) -> None:
    from dataclasses import replace

    broken = replace(tests[0], variant="fail-here")
    ahead = CompileAhead([KernelJob(broken, CodegenOptions(), 4, 0)], workers=1, compile_fn=_record)
    try:
        assert ahead.wait(broken, CodegenOptions()) is False
    finally:
        ahead.close()


def test_zero_workers_is_refused_and_small_machines_compile_in_the_run(monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(ValueError, match="workers"):
        CompileAhead([], workers=0)
    monkeypatch.setattr("os.sched_getaffinity", lambda _: set(range(2)), raising=False)
    assert default_workers() == 0
    monkeypatch.setattr("os.sched_getaffinity", lambda _: set(range(16)), raising=False)
    assert default_workers() == 12


def test_cuda_backend_asks_for_the_kernels_its_rounds_load(monkeypatch: pytest.MonkeyPatch) -> None:
    """Without a GPU: a CudaBackend shell with the H200's SM count; the jobs' options must be
    the ones ``_prepare`` (grid) and ``_prepare_parallel`` use, and a variant whose spins
    parallel mode would starve gets its grid kernel instead."""
    import torch

    from litmus.run import ahead as ahead_mod
    from litmus.run.cuda import CudaBackend

    submitted: list[KernelJob] = []

    class Capture:
        def __init__(self, jobs: list[KernelJob], workers: int) -> None:
            submitted.extend(jobs)
            self.n = len(jobs)

        def __len__(self) -> int:
            return self.n

        def close(self) -> None:
            pass

    monkeypatch.setattr(ahead_mod, "CompileAhead", Capture)
    backend = object.__new__(CudaBackend)
    backend.__dict__.update(block=256, num_warps=4, spin_bound=None, sm_count=132, _hazards={}, _ahead=None,
                            device=torch.device("cpu"))
    tests = load_tests(["catalog/mp.yaml", "catalog/iris_flag_reset.yaml"])
    starved = [t for t in tests if backend.parallel_hazards(t)]
    assert starved, "catalog/iris_flag_reset.yaml should hold a variant parallel mode would starve"
    plain = [t for t in tests if not backend.parallel_hazards(t)][:3]
    chosen = plain + starved[:2]
    rotation = (Stress(name="g", launch="grid"),)
    config = RunConfig(instances=1 << 24, stress=Stress(name="p", launch="parallel"), rotation=rotation)
    n = backend.compile_ahead(chosen, config, workers=2)
    want = []
    for t in chosen:
        want.append((t, backend._options(256, None)))
        if t in plain:
            want.append((t, backend._options(256, None, "parallel")))
    assert n == len(submitted) and sorted(((j.test.id, j.options) for j in submitted), key=str) == \
        sorted(((t.id, o) for t, o in want), key=str)
