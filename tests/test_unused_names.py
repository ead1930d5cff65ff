"""No name in litmus/ that nothing uses: vulture reads the package with the tests, benchmarks
and scripts that call it, and any definition in litmus/ that none of them uses fails here.
A name used where vulture cannot see it (a pytest hook, a pydantic field read by its alias) goes
into tests/vulture_whitelist.py with the reason."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

pytest.importorskip("vulture")


def test_litmus_defines_nothing_unused() -> None:
    # litmus/lint/libs/ stands in for other libraries: its names are the ones users' kernels call
    cmd = [sys.executable, "-m", "vulture", "litmus", "tests", "benchmarks", "scripts", "tests/vulture_whitelist.py",
           "--exclude", "litmus/lint/libs", "--min-confidence", "60", "--ignore-names", "pytest_*,model_config",
           "--ignore-decorators", "@main.command,@click.command,@click.group,@pytest.fixture,@atexit.register"]
    res = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=300)
    unused = [line for line in res.stdout.splitlines() if line.startswith("litmus/")]
    assert not unused, "unused in litmus/ (remove them, or whitelist one that is used unseen):\n" + "\n".join(unused)
