"""Audit many variants on many targets, in parallel worker processes, with declared findings."""

from __future__ import annotations

import os
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from typing import Callable, Sequence

from litmus.audit.check import AuditResult, Finding, audit
from litmus.audit.expect import DeclaredFinding, stale, undeclared
from litmus.audit.run_kernels import KernelComparison, compare_run_kernels
from litmus.codegen.targets import AUDIT_TARGETS
from litmus.ir import LitmusTest


@dataclass
class CellResult:
    """One (variant, target) cell of the audit table."""

    test: LitmusTest
    target: str
    result: AuditResult
    undeclared: list[Finding] = field(default_factory=list)
    stale: list[DeclaredFinding] = field(default_factory=list)
    kernels: list[KernelComparison] = field(default_factory=list)  # the run kernels vs the audited one

    @property
    def status(self) -> str:
        """``pass``, ``finding`` (undeclared), ``declared`` (every finding expected), ``differs``
        (a kernel the backends run compiles an op differently from the audited kernel) or
        ``unsupported``."""
        if self.result.status == "finding" and self.undeclared:
            return "finding"
        if any(k.status == "differs" for k in self.kernels):
            return "differs"
        return "declared" if self.result.status == "finding" else self.result.status


def declared_findings(test: LitmusTest) -> list[DeclaredFinding]:
    """The variant's ``audit_expect`` entries as the audit's :class:`DeclaredFinding` s."""
    if test.expect is None:
        return []
    return [
        DeclaredFinding(a.target, a.op, a.triton, a.why, test.source_file, a.line)
        for a in test.expect.audit
    ]


def audit_cell(test: LitmusTest, target: str, run_kernels: bool = True) -> CellResult:
    """Audit ``test`` on ``target`` and sort its findings into declared and undeclared; with
    ``run_kernels``, also compare the kernels the backends run with the audited one."""
    result = audit(test, target)
    declared = declared_findings(test)
    kernels = compare_run_kernels(test, target) if run_kernels and result.status != "unsupported" else []
    return CellResult(
        test,
        target,
        result,
        undeclared(result.findings, declared),
        stale(result.findings, declared, target) if result.status != "unsupported" else [],
        kernels,
    )


def _cell_job(args: tuple[LitmusTest, str, bool]) -> CellResult:
    import warnings

    # triton 3.9 warns once per process about a default that does not touch integer kernels.
    warnings.filterwarnings("ignore", message="TRITON_DEFAULT_FP_FUSION")
    return audit_cell(*args)


def audit_many(
    tests: Sequence[LitmusTest],
    targets: Sequence[str] = AUDIT_TARGETS,
    jobs: int | None = None,
    on_cell: Callable[[CellResult], None] | None = None,
    run_kernels: bool = True,
) -> list[CellResult]:
    """Audit every test on every target; ``jobs`` worker processes (default: all cores).

    Cells come back in (test, target) order whatever the order they finish in.
    """
    work = [(t, target, run_kernels) for t in tests for target in targets]
    jobs = jobs or os.cpu_count() or 1
    cells: list[CellResult] = []
    if jobs <= 1 or len(work) <= 1:
        for w in work:
            cells.append(_cell_job(w))
            if on_cell:
                on_cell(cells[-1])
        return cells
    with ProcessPoolExecutor(max_workers=jobs) as pool:
        for cell in pool.map(_cell_job, work, chunksize=1):
            cells.append(cell)
            if on_cell:
                on_cell(cell)
    return cells
