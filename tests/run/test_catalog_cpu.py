"""The whole catalog through the cpu backend: every variant's kernel runs under the interpreter."""

from __future__ import annotations

import json
from pathlib import Path

from litmus.run.config import RunConfig
from litmus.run.cpu import CpuBackend
from litmus.session import run_tests
from litmus.spec import load_paths

ROOT = Path(__file__).resolve().parents[2]


def test_every_catalog_variant_runs_on_the_cpu_without_violation(tmp_path):
    tests = load_paths([ROOT / "catalog"])
    out = tmp_path / "catalog.jsonl"
    with CpuBackend(start=True) as backend:  # its own pool: the catalog needs more workers than the shared one
        results = run_tests(tests, backend, RunConfig(iterations=1, instances=64, seed=3), out=out)
    # access widths (TEAR, TEAR-bytes) run too: no variant is skipped
    assert any(t.uses_widths() for t in tests)
    for r in results:
        assert r.skipped is None, (r.test.id, r.skipped)
    records = [json.loads(line) for line in out.read_text().splitlines()]
    assert len(records) == len(tests)
    assert {rec["id"] for rec in records} >= {t.id for t in tests if t.uses_widths()}
    for rec in records:
        assert rec["verdict"] != "VIOLATION", rec["id"]
        assert sum(rec["counts"].values()) == rec["instances"] == 64, rec["id"]
