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
    # codegen does not generate access widths yet: those variants are skipped, saying so
    wide = [t.uses_widths() for t in tests]
    assert any(wide)
    for r, w in zip(results, wide):
        if w:
            assert r.skipped is not None and "widths other than 32 bits are not generated yet" in r.skipped, r.test.id
        else:
            assert r.skipped is None, (r.test.id, r.skipped)
    records = [json.loads(line) for line in out.read_text().splitlines()]
    assert len(records) == wide.count(False)
    for rec in records:
        assert rec["verdict"] != "VIOLATION", rec["id"]
        assert sum(rec["counts"].values()) == rec["instances"] == 64, rec["id"]
