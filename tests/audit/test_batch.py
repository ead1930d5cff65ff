"""Batch audit: declared findings, cell statuses, and the CLI's exit status."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from click.testing import CliRunner

from litmus.audit.batch import CellResult, declared_findings
from litmus.audit.check import AuditResult, Finding
from litmus.cli import main
from litmus.ir import AuditExpect, Expectation
from litmus.spec import load_paths



def test_declared_findings_come_from_the_expectation(mp_file: Path) -> None:
    p = mp_file
    (test,) = load_paths([p])
    assert declared_findings(test) == []
    t2 = replace(test, expect=Expectation("forbidden", "x", audit=(AuditExpect("hip:gfx942", "rmw cas release sys", ">=3.6,<3.8", "bug", 9),)))
    (d,) = declared_findings(t2)
    assert (d.target, d.op, d.triton_version_spec, d.file, d.line) == ("hip:gfx942", "rmw cas release sys", ">=3.6,<3.8", str(p), 9)


def test_cell_status_distinguishes_declared_from_undeclared(mp_file: Path) -> None:
    p = mp_file
    (test,) = load_paths([p])
    f = Finding(test.id, "amdgcn", "P0 #1 rmw cas release sys", "buffer_wbl2 sc0 sc1", "none", [], 3, "rmw cas release sys")
    res = AuditResult(test.id, "hip:gfx942", "finding", [f])
    assert CellResult(test, "hip:gfx942", res, [f]).status == "finding"
    assert CellResult(test, "hip:gfx942", res, []).status == "declared"
    assert CellResult(test, "hip:gfx942", AuditResult(test.id, "x", "pass")).status == "pass"


def test_cli_audit_passes_a_correct_variant(mp_file: Path) -> None:
    p = mp_file
    res = CliRunner().invoke(main, ["audit", str(p), "--jobs", "1", "--json"])
    assert res.exit_code == 0, res.output
    assert res.output.count('"status": "pass"') == 2
