"""Fixtures for testing the litmus pytest plugin inside throw-away pytest projects (pytester)."""

from __future__ import annotations

import importlib.metadata
import shutil
import sys
from pathlib import Path
from typing import Callable

import pytest
import torch  # noqa: F401
import triton  # noqa: F401
import yaml  # noqa: F401

import litmus.model  # noqa: F401
import litmus.pytest_plugin.collect  # noqa: F401
import litmus.pytest_plugin.runner  # noqa: F401
import litmus.session  # noqa: F401
import litmus.spec.compile  # noqa: F401
import litmus.spec.yamlpos  # noqa: F401

# torch, triton and yaml are imported here so in-process pytester runs find them already loaded:
# pytester drops every module first imported inside a run; unloading torch crashes Python, and
# a second import of yaml leaves libyaml's CSafeLoader bound to the first one's classes.  The
# litmus modules the plugin imports lazily are loaded here for the same reason: a pattern
# loaded after an in-process run would otherwise mix classes of two imports of litmus.spec.

# pytester itself is enabled for the whole suite in pyproject.toml (-p pytester): pytest only
# honours pytest_plugins in the top-level conftest.

REPO = Path(__file__).resolve().parents[2]
if str(REPO) not in sys.path:  # `from tests.patterns import ...` under the `pytest` script too (not only python -m)
    sys.path.insert(0, str(REPO))
CATALOG = REPO / "catalog"


def plugin_flags() -> list[str]:
    """``-p litmus.pytest_plugin`` unless the installed package already registers it (pytest11)."""
    names = {ep.name for ep in importlib.metadata.entry_points(group="pytest11")}
    return [] if "litmus" in names else ["-p", "litmus.pytest_plugin"]


@pytest.fixture
def flags() -> list[str]:
    """Flags that load the plugin (empty when its entry point is installed)."""
    return plugin_flags()


@pytest.fixture
def copy_catalog(pytester: pytest.Pytester) -> Callable[..., Path]:
    """Copy catalog files (by name) into the project's ``catalog/`` folder."""

    def copy(*names: str) -> Path:
        folder = pytester.path / "catalog"
        folder.mkdir(exist_ok=True)
        for name in names:
            shutil.copy(CATALOG / name, folder / name)
        return folder

    return copy
