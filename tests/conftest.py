"""Fixtures for every test folder."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Iterator

import pytest


@pytest.fixture(scope="session", autouse=True)
def litmus_cache(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """Point ``$LITMUS_CACHE`` at a session folder unless the caller chose one, so kernels and
    compiled files are shared within the session (compiles take about a second each) and
    worker processes, which inherit it, use the same folder."""
    if os.environ.get("LITMUS_CACHE"):
        yield Path(os.environ["LITMUS_CACHE"])
        return
    path = tmp_path_factory.mktemp("litmus-cache")
    os.environ["LITMUS_CACHE"] = str(path)
    yield path
    os.environ.pop("LITMUS_CACHE", None)
