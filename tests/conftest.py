"""Fixtures for every test folder."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Iterator

import pytest
from hypothesis import settings

# CI draws the same examples every run (derandomize) and keeps no example database: a property
# whose rare random example is pathologically slow (the unpruned sc hang check of
# tests/model/test_pruning.py on some 3-thread CAS-spin tests) must not fail CI by chance.
# Local runs stay random and keep finding new examples.
settings.register_profile("ci", derandomize=True, database=None)
if os.environ.get("CI"):
    settings.load_profile("ci")


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


@pytest.fixture
def sb_file(tmp_path: Path) -> Path:
    """``tests.patterns.SB_YAML`` written to ``sb.yaml`` in the test's temporary folder."""
    from tests.patterns import SB_YAML

    path = tmp_path / "sb.yaml"
    path.write_text(SB_YAML)
    return path


@pytest.fixture
def mp_file(tmp_path: Path) -> Path:
    """``tests.patterns.MP_YAML`` written to ``mp.yaml`` in the test's temporary folder."""
    from tests.patterns import MP_YAML

    path = tmp_path / "mp.yaml"
    path.write_text(MP_YAML)
    return path
