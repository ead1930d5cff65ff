"""Compiling the next variants' run kernels while the GPU runs this one (:class:`CompileAhead`).

On an H200 a catalog variant compiles two run kernels (grid and parallel mode) on first use,
0.3-1 s each, against a budget of 1.5 s (``benchmarks/bench_variant_time.py``).  Worker
processes compile them ahead, in run order, into Triton's on-disk cache with the JIT's own
``warmup`` (so the cache key is the one the launch computes: the generated kernels specialise
on no argument value, :data:`litmus.codegen.layout.JIT_DECORATOR`); the run then loads each
kernel from the cache.  A variant whose kernel is still being compiled waits for that worker
rather than compiling it twice.  A worker's failure is not reported here: the run compiles the
kernel itself and reports the error where it always does.
"""

from __future__ import annotations

import multiprocessing
import os
import time
from concurrent.futures import Future, ProcessPoolExecutor
from dataclasses import dataclass
from typing import Callable, Sequence

from litmus.codegen.options import CodegenOptions
from litmus.ir import LitmusTest

MAX_WORKERS = 12
"""Compile workers at most (each holds a small CUDA context)."""


def default_workers() -> int:
    """Compile workers for this machine: all CPUs but two (for the run itself), at most
    :data:`MAX_WORKERS`; 0 (compile in the run) with four CPUs or fewer."""
    cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    return 0 if cpus <= 4 else min(MAX_WORKERS, cpus - 2)


@dataclass(frozen=True)
class KernelJob:
    """One run kernel to compile: ``test`` generated with ``options``, launched with
    ``num_warps`` warps on CUDA device ``device``."""

    test: LitmusTest
    options: CodegenOptions
    num_warps: int
    device: int


def warm(job: KernelJob) -> float:
    """Compile ``job``'s kernel into Triton's cache without launching it; the seconds it took."""
    import torch

    from litmus.codegen import generate, load_kernel

    t0 = time.perf_counter()
    source = generate(job.test, job.options)
    kernel = getattr(load_kernel(source, interpret=False), source.layout.kernel(None).name)
    device = torch.device("cuda", job.device)
    ptrs = torch.zeros(2, dtype=torch.int64, device=device)
    out = torch.zeros(1, dtype=torch.int32, device=device)
    kernel.warmup(ptrs, out, ptrs, 1024, 1, 1, 1, BLOCK=job.options.block, num_warps=job.num_warps, grid=(1,))
    return time.perf_counter() - t0


class CompileAhead:
    """Compiles ``jobs`` in ``workers`` processes, in order; :meth:`wait` before using one.

    ``compile_fn`` is the worker function (``warm``; tests pass another picklable one).
    """

    def __init__(self, jobs: Sequence[KernelJob], workers: int,
                 compile_fn: Callable[[KernelJob], float] = warm) -> None:
        if workers < 1:
            raise ValueError(f"CompileAhead: {workers} workers; use at least one (or none at all)")
        self._pool = ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("spawn"))
        self._futures: dict[tuple[LitmusTest, CodegenOptions], Future[float]] = {}
        for job in jobs:
            key = (job.test, job.options)
            if key not in self._futures:
                self._futures[key] = self._pool.submit(compile_fn, job)

    def __len__(self) -> int:
        return len(self._futures)

    def wait(self, test: LitmusTest, options: CodegenOptions) -> bool:
        """Wait until the kernel of ``test`` with ``options`` is compiled, if it was submitted;
        whether a worker compiled it (False: not submitted, or the worker failed)."""
        future = self._futures.pop((test, options), None)
        if future is None:
            return False
        try:
            future.result()
        except Exception:  # noqa: BLE001 - the run compiles it again and reports the error itself
            return False
        return True

    def close(self) -> None:
        """Stop the workers; kernels not started yet are not compiled."""
        self._pool.shutdown(wait=False, cancel_futures=True)
