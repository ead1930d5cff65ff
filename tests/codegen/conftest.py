"""Codegen tests share one kernel/compile cache per session (compiles take about a second each)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest


@pytest.fixture(scope="session", autouse=True)
def litmus_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Point ``$LITMUS_CACHE`` at a session folder unless the caller chose one."""
    if os.environ.get("LITMUS_CACHE"):
        yield Path(os.environ["LITMUS_CACHE"])
        return
    path = tmp_path_factory.mktemp("litmus-cache")
    os.environ["LITMUS_CACHE"] = str(path)
    yield path
    del os.environ["LITMUS_CACHE"]
