"""``litmus.lint(kernel)``: the lint check of ``litmus lint`` for users' own test suites.

    def test_my_barrier_is_sound(litmus):
        litmus.lint(my_kernel, signature={"BLOCK": 128}).assert_clean()

The kernel is compiled on the CPU for ``target`` (no GPU needed); the result lists the
findings (each with its catalog pattern and the model's verdict) and what the linter could
not see.  See docs/lint.md.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterable, Mapping

import pytest

from litmus.errors import LitmusError
from litmus.lint import Finding, LintReport, lint_kernel
from litmus.lint.report import render_text


@dataclass(frozen=True)
class LintResult:
    """What ``litmus.lint(kernel)`` found."""

    report: LintReport

    @property
    def findings(self) -> list[Finding]:
        """Every finding."""
        return self.report.findings

    @property
    def incorrect(self) -> list[Finding]:
        """The findings the model calls incorrect."""
        return self.report.incorrect

    @property
    def notes(self) -> list[str]:
        """What the linter could not see, or took on an assumption."""
        return self.report.notes

    def rules(self) -> set[str]:
        """The names of the rules that fired (e.g. ``{"peer-scope"}``)."""
        return {f.rule for f in self.findings}

    def text(self) -> str:
        """The report as ``litmus lint`` prints it."""
        return render_text(self.report)

    def emit_yaml(self) -> str:
        """The litmus pattern of the kernel's signalling (``litmus lint --emit-yaml``)."""
        return self.report.emit_yaml()

    def assert_clean(self) -> None:
        """Fail the test (with the report, no traceback) if any finding is incorrect per the model."""
        if self.report.incorrect:
            pytest.fail(self.text(), pytrace=False)


def lint(kernel: Any, *, target: str = "cuda:90", signature: Mapping[str, Any] | None = None,
         peers: Iterable[str] = ()) -> LintResult:
    """Lint one ``@triton.jit`` kernel; bad input fails the test with the error's file:line."""
    try:
        return LintResult(lint_kernel(kernel, target, signature, peers))
    except LitmusError as err:
        pytest.fail(f"litmus.lint: {err}", pytrace=False)
