"""GPUs and pytest-xdist workers: which GPU a worker uses, how many workers ``-n auto`` starts,
and one stress run per GPU at a time.

A stress run owns its GPU: two on one GPU slow each other down and change the interleavings
both see.  So ``-n auto`` on a GPU backend starts one worker per visible GPU, and when ``-n N``
asks for more workers than GPUs, the workers of one GPU take turns on it through a lock file
(their model checks and reports still run in parallel).  ``--litmus-gpu-share`` lifts both.
"""

from __future__ import annotations

import fcntl
import os
import re
import tempfile
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

WORKER = "PYTEST_XDIST_WORKER"
WORKER_COUNT = "PYTEST_XDIST_WORKER_COUNT"
RUN_ID = "PYTEST_XDIST_TESTRUNUID"
RANKS_LOCK = -1
"""The lock index of the ranks backend, whose every run uses all GPUs."""


def worker_number(worker_id: str | None) -> int | None:
    """``gw3`` -> 3; None for anything else (no xdist, or the controller)."""
    match = re.fullmatch(r"gw(\d+)", worker_id or "")
    return int(match.group(1)) if match else None


def assign_device(worker_id: str | None, device_count: int) -> int | None:
    """The CUDA device of xdist worker ``worker_id`` on a node with ``device_count`` GPUs:
    worker gwK takes device K mod G; None outside xdist or without a GPU."""
    k = worker_number(worker_id)
    if k is None or device_count <= 0:
        return None
    return k % device_count


def auto_workers(backend: str, device_count: int, share: bool) -> int | None:
    """Workers for ``-n auto`` with litmus items on ``backend``: one per GPU on cuda, one on
    ranks (each of its runs uses every GPU); None (xdist's own count, the CPUs) on the
    interpreter, without a GPU, or with ``share``."""
    if share or device_count <= 0:
        return None
    if backend == "cuda":
        return device_count
    if backend == "ranks":
        return 1
    return None


def lock_index(backend: str, worker_id: str | None, worker_count: int, device_count: int,
               share: bool) -> int | None:
    """The GPU lock a run of this worker must hold (:data:`RANKS_LOCK` for the ranks backend),
    or None when its GPU is its own: outside xdist, with ``share``, on the interpreter, or with
    no more workers than GPUs (cuda)."""
    if share or worker_number(worker_id) is None or device_count <= 0:
        return None
    if backend == "ranks":
        return RANKS_LOCK if worker_count > 1 else None
    if backend != "cuda" or worker_count <= device_count:
        return None
    return assign_device(worker_id, device_count)


def lock_path(run_id: str, index: int) -> Path:
    """The lock file of GPU ``index`` for the xdist run ``run_id`` (the same for all its workers)."""
    name = "ranks" if index == RANKS_LOCK else f"cuda{index}"
    return Path(tempfile.gettempdir()) / f"litmus-gpu-{run_id}-{name}.lock"


@contextmanager
def gpu_turn(index: int | None) -> Iterator[None]:
    """Hold GPU ``index``'s lock for the block (nothing when ``index`` is None)."""
    if index is None:
        yield
        return
    path = lock_path(os.environ.get(RUN_ID, "local"), index)
    with open(path, "a") as fh:
        fcntl.flock(fh.fileno(), fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(fh.fileno(), fcntl.LOCK_UN)


def this_worker() -> tuple[str | None, int]:
    """(this process's xdist worker id or None, the number of workers; 1 outside xdist)."""
    worker = os.environ.get(WORKER) or None
    try:
        count = int(os.environ.get(WORKER_COUNT, "1"))
    except ValueError:
        count = 1
    return worker, count
