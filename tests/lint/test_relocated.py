"""Findings name the file that was linted, even when triton's cache served the compile of an
identical copy elsewhere (triton keys its cache by source, so the cached TTIR names the copy)."""

from __future__ import annotations

import shutil
from pathlib import Path

from litmus.lint.api import lint_file

KERNELS = Path(__file__).parent / "kernels"


def test_two_identical_copies_each_report_their_own_path(tmp_path: Path) -> None:
    first, second = tmp_path / "a" / "iris_broken.py", tmp_path / "b" / "iris_broken.py"
    for copy in (first, second):
        copy.parent.mkdir()
        shutil.copy(KERNELS / "iris_broken.py", copy)
    for copy in (first, second):  # the second compile is a cache hit on the first's source
        report = lint_file(copy)
        sites = {f.site.file for k in report.kernels for f in k.findings}
        assert sites == {str(copy.resolve())}, sites
