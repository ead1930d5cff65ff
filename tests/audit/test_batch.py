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

MP_YAML = """\
name: MP-audit
locations: {x: 0, flag: 0}
threads:
  P0:
    at: {rank: 0, cta: 0}
    do:
      - store: {loc: x, value: 1}
      - cas: {loc: flag, expected: 0, value: 1, sem: release, scope: sys}
  P1:
    at: {rank: 1, cta: 0}
    do:
      - spin: {loc: flag, until: 1, read: {kind: cas, reset: 0, sem: acquire, scope: sys}}
      - load: {reg: r1, loc: x}
exists: "P1:r1 == 0"
expect: forbidden
why: release CAS / acquire CAS spin at sys scope
"""


def test_declared_findings_come_from_the_expectation(tmp_path: Path) -> None:
    p = tmp_path / "mp.yaml"
    p.write_text(MP_YAML)
    (test,) = load_paths([p])
    assert declared_findings(test) == []
    t2 = replace(test, expect=Expectation("forbidden", "x", audit=(AuditExpect("hip:gfx942", "rmw cas release sys", ">=3.6,<3.8", "bug", 9),)))
    (d,) = declared_findings(t2)
    assert (d.target, d.op, d.triton_version_spec, d.file, d.line) == ("hip:gfx942", "rmw cas release sys", ">=3.6,<3.8", str(p), 9)


def test_cell_status_distinguishes_declared_from_undeclared(tmp_path: Path) -> None:
    p = tmp_path / "mp.yaml"
    p.write_text(MP_YAML)
    (test,) = load_paths([p])
    f = Finding(test.id, "amdgcn", "P0 #1 rmw cas release sys", "buffer_wbl2 sc0 sc1", "none", [], 3, "rmw cas release sys")
    res = AuditResult(test.id, "hip:gfx942", "finding", [f])
    assert CellResult(test, "hip:gfx942", res, [f]).status == "finding"
    assert CellResult(test, "hip:gfx942", res, []).status == "declared"
    assert CellResult(test, "hip:gfx942", AuditResult(test.id, "x", "pass")).status == "pass"


def test_cli_audit_passes_a_correct_variant(tmp_path: Path) -> None:
    p = tmp_path / "mp.yaml"
    p.write_text(MP_YAML)
    res = CliRunner().invoke(main, ["audit", str(p), "--jobs", "1", "--json"])
    assert res.exit_code == 0, res.output
    assert res.output.count('"status": "pass"') == 2
