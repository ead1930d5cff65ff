"""litmus.lint.api: the default target is a guess, and a kernel that does not compile for it
is linted for the other target, saying so."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from litmus.errors import LitmusError
from litmus.lint import api
from tests.lint.conftest import KERNELS


def _fake_lint(fails_on: str | None) -> Any:
    def lint_kernels(found: Any, file: str, target: str, *args: Any, **kwargs: Any) -> api.LintReport:
        if fails_on is not None and target.startswith(fails_on):
            raise LitmusError(f"{file}:6: triton 3.9.0 could not compile kernel k for {target}: PTXAS error: "
                              "Modifier '.volatile' cannot be combined with modifier '.cv'")
        return api.LintReport(file, target, "3.9.0", frozenset())
    return lint_kernels


def test_a_kernel_the_default_target_rejects_is_linted_for_the_other(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(api, "lint_kernels", _fake_lint("cuda"))
    report = api.lint_file(KERNELS / "iris_broken.py")
    assert report.target == "hip:gfx942"
    assert any(n.startswith("compiled for hip:gfx942: the default target cuda:90 did not compile (")
               and "'.volatile' cannot be combined" in n and n.endswith("give --target to choose")
               for n in report.file_notes), report.file_notes


def test_a_target_the_user_gives_is_kept_and_its_error_stands(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(api, "lint_kernels", _fake_lint("cuda"))
    with pytest.raises(LitmusError, match="could not compile kernel k for cuda:90"):
        api.lint_file(KERNELS / "iris_broken.py", target="cuda:90")


def test_when_both_targets_fail_the_default_targets_error_is_reported(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(api, "lint_kernels", _fake_lint(""))  # every target fails
    with pytest.raises(LitmusError, match="for cuda:90"):
        api.lint_file(Path(KERNELS / "iris_broken.py"))
