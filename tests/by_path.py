"""Import a Python file that is no package module (a script of benchmarks/, scripts/, docs/, or a
test file), by its path: the same in any pytest import mode."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType


def load_by_path(name: str, path: Path) -> ModuleType:
    """The module in ``path``, imported as ``name`` and registered in ``sys.modules`` (dataclasses
    look their module up there)."""
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None, path
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module
