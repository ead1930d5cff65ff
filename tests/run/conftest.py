"""Run-package fixtures: one cpu backend (worker pool) for the whole session, a private kernel cache."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Iterator

import pytest


@pytest.fixture(scope="session", autouse=True)
def run_litmus_cache(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """Point ``$LITMUS_CACHE`` at a session folder (inherited by the worker processes)."""
    if os.environ.get("LITMUS_CACHE"):
        yield Path(os.environ["LITMUS_CACHE"])
        return
    path = tmp_path_factory.mktemp("litmus-run-cache")
    os.environ["LITMUS_CACHE"] = str(path)
    yield path
    os.environ.pop("LITMUS_CACHE", None)


@pytest.fixture(scope="session")
def cpu_backend(run_litmus_cache: Path) -> Iterator[object]:
    """A started cpu backend shared by the tests (spawning workers takes seconds)."""
    from litmus.run.cpu import CpuBackend

    backend = CpuBackend(workers=2, spin_bound=2000, start=True)
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
