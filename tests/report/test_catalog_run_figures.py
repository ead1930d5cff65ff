"""scripts/catalog_run_figures.py: the conformance bound count h200-detect.md quotes, from the
committed run files, and a bad file as one line naming it."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "scripts" / "catalog_run_figures.py"
sys.path.insert(0, str(ROOT / "scripts"))

from catalog_run_figures import is_bounded, run_figures  # noqa: E402


def _record(**kw: object) -> dict[str, object]:
    base = {"id": "X[v]", "expect": "forbidden", "verdict": "correct", "target_count": 0, "bound_95": 5e-10,
            "seconds": 1.0}
    return {**base, **kw}


def test_bounded_needs_no_target_and_a_bound_at_most_the_limit() -> None:
    assert is_bounded(_record(), 1e-9)
    assert is_bounded(_record(bound_95=1e-9), 1e-9)
    assert not is_bounded(_record(bound_95=1.1e-9), 1e-9)
    assert not is_bounded(_record(bound_95=None), 1e-9)
    assert not is_bounded(_record(target_count=3, bound_95=5e-10), 1e-9)


def test_only_conformance_records_are_counted_and_seconds_are_summed() -> None:
    records = [_record(id="A[x]"), _record(id="B[y]", bound_95=2e-9, seconds=2.5),
               _record(id="C[z]", expect="allowed", verdict="racy-unseen", bound_95=3e-7),
               _record(id="D[w]", verdict="VIOLATION", target_count=4, bound_95=None)]
    lines = run_figures(records, 1e-9, [])
    assert lines[0] == "conformance bounded by 3/N <= 1e-09: 1 / 3"
    assert [ln.split()[2] for ln in lines if "not bounded" in ln] == ["B[y]", "D[w]"]
    assert "VIOLATION: D[w]" in lines
    assert "sum of variant seconds: 5.5" in lines


def test_run_22_is_quoted_as_it_was_counted() -> None:
    res = subprocess.run([sys.executable, str(SCRIPT), "docs/results/h200-detect-22.jsonl"], cwd=ROOT,
                         capture_output=True, text=True, timeout=120)
    assert res.returncode == 0, res.stderr
    assert "conformance bounded by 3/N <= 1e-09: 147 / 148" in res.stdout
    assert "not bounded: MP-reread[plain-ldacq-plain] VIOLATION" in res.stdout


def test_a_file_that_is_not_a_run_is_one_line_naming_it(tmp_path: Path) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"stress": {}}\n')
    res = subprocess.run([sys.executable, str(SCRIPT), str(bad)], capture_output=True, text=True, timeout=120)
    assert res.returncode == 2
    assert res.stderr.startswith(f"error: {bad}:1") and "Traceback" not in res.stderr
