"""Run-package fixtures: one cpu backend (worker pool) and one cuda backend for the whole session."""

from __future__ import annotations

from pathlib import Path
from typing import Iterator

import pytest


@pytest.fixture(scope="session")
def cpu_backend(litmus_cache: Path) -> Iterator[object]:
    """A started cpu backend shared by the tests (spawning workers takes seconds)."""
    from litmus.run.cpu import CpuBackend

    backend = CpuBackend(workers=2, spin_bound=2000, start=True)
    yield backend
    backend.close()


@pytest.fixture(scope="session")
def cuda_backend() -> Iterator[object]:
    """The cuda backend on GPU 0, for tests marked ``gpu``."""
    from litmus.run.cuda import CudaBackend

    backend = CudaBackend()
    yield backend
    backend.close()


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Skip tests marked ``gpu`` when torch sees no CUDA device."""
    import torch

    if torch.cuda.is_available():
        return
    skip = pytest.mark.skip(reason="no CUDA device")
    for item in items:
        if "gpu" in item.keywords and str(item.fspath).startswith(str(Path(__file__).parent)):
            item.add_marker(skip)
