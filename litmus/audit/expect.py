"""Findings a catalog declares in advance (a variant known to be miscompiled somewhere).

A :class:`DeclaredFinding` says: on ``target``, with a Triton version in
``triton_version_spec``, the requirement ``op`` is expected to be missing.  The proposed YAML
(``audit_expect`` in a variant; see ``docs/audit.md``) maps one to one onto this dataclass.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from litmus.audit.check import Finding
from litmus.audit.compile import canonical_target
from litmus.errors import LitmusError


@dataclass(frozen=True)
class DeclaredFinding:
    """An expected finding: ``op`` is a rule key (``rmw cas release sys``) or a requirement
    prefix (``P1 #0``); ``triton_version_spec`` is a PEP 440 specifier (``">=3.6,<3.8"``; ``""``
    for every version); ``why`` says what is known (issue link, explanation)."""

    target: str
    op: str
    triton_version_spec: str = ""
    why: str = ""
    file: str = ""
    line: int | None = None

    def spec(self) -> Any:
        """The ``packaging`` SpecifierSet, checked; a bad one raises :class:`LitmusError` at file:line."""
        from packaging.specifiers import InvalidSpecifier, SpecifierSet

        try:
            return SpecifierSet(self.triton_version_spec)
        except InvalidSpecifier:
            raise LitmusError.at(self.file, self.line,
                                 f"audit_expect: triton {self.triton_version_spec!r} is not a version "
                                 "specifier; write e.g. \">=3.6,<3.8\"") from None

    def covers(self, finding: Finding, triton_version: str) -> bool:
        """Whether this declaration accounts for ``finding`` under ``triton_version``."""
        if canonical_target(self.target) != canonical_target(finding.target):
            return False
        if self.op != finding.key and not finding.op.startswith(self.op):
            return False
        return version_in(triton_version, self.spec())


def version_in(version: str, spec: Any) -> bool:
    """Whether ``version`` lies in the SpecifierSet ``spec`` (an unparsable version lies in none)."""
    from packaging.version import InvalidVersion, Version

    try:
        return Version(version) in spec
    except InvalidVersion:
        return False


def _installed_triton() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("triton")
    except PackageNotFoundError:
        return "0"


def undeclared(findings: list[Finding], declared: list[DeclaredFinding],
               triton_version: str | None = None) -> list[Finding]:
    """The findings no declaration covers (``triton_version``: default, the installed one)."""
    tv = triton_version or _installed_triton()
    return [f for f in findings if not any(d.covers(f, tv) for d in declared)]


def stale(findings: list[Finding], declared: list[DeclaredFinding],
          target: str, triton_version: str | None = None) -> list[DeclaredFinding]:
    """Declarations for ``target`` and this Triton version that no finding matched (fixed upstream?)."""
    tv = triton_version or _installed_triton()
    kind = canonical_target(target)
    live = [d for d in declared if canonical_target(d.target) == kind and version_in(tv, d.spec())]
    return [d for d in live if not any(d.covers(f, tv) for f in findings)]
