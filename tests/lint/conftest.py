"""Helpers for the lint tests: the kernel files' tagged lines and one lint run per file."""

from __future__ import annotations

import functools
import re
import sys
from pathlib import Path

KERNELS = Path(__file__).parent / "kernels"
REPO = Path(__file__).resolve().parents[2]
if str(REPO) not in sys.path:  # `from tests.lint.conftest import ...` under the `pytest` script too
    sys.path.insert(0, str(REPO))


def kernel_file(name: str) -> Path:
    """A kernel file of tests/lint/kernels."""
    return KERNELS / f"{name}.py"


def line_of(name: str, tag: str) -> int:
    """The line of ``kernels/<name>.py`` that carries the comment ``# L:<tag>``."""
    lines = kernel_file(name).read_text().splitlines()
    hits = [i for i, line in enumerate(lines, 1) if re.search(rf"# L:{re.escape(tag)}(?=\s|$)", line)]
    assert len(hits) == 1, f"{name}.py: tag {tag} on {len(hits)} lines"
    return hits[0]


@functools.lru_cache(maxsize=None)
def linted(name: str, target: str = "cuda:90"):
    """The lint report of ``kernels/<name>.py`` (compiled once per test session)."""
    from litmus.lint import lint_file

    return lint_file(kernel_file(name), target=target)
