"""Fixtures for the interop tests: the shared PTX litmus corpus."""

from __future__ import annotations

from pathlib import Path

import pytest

from litmus.interop import CORPUS_ENV, corpus_dir


@pytest.fixture(scope="session")
def corpus() -> Path:
    """The PTX corpus folder; skips when neither $LITMUS_PTX_CORPUS nor ../shared/ptx-litmus exists."""
    path = corpus_dir()
    if path is None:
        pytest.skip(f"PTX litmus corpus not found: set {CORPUS_ENV} or put shared/ptx-litmus "
                    "beside the repository")
    return path
