"""Access widths on the GPU (marked ``gpu``): every width round-trips through the cuda backend's
heaps and out columns, and the tearing catalog runs without an outcome the model forbids."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from litmus.model import check
from litmus.run.config import PRESETS, RunConfig
from litmus.session import run_tests
from litmus.spec import load_paths

ROOT = Path(__file__).resolve().parents[2]
ROUNDTRIP = Path(__file__).parent / "data" / "widths_roundtrip.yaml"


@pytest.mark.gpu
@pytest.mark.parametrize("launch", ["grid", "parallel"])
def test_every_width_round_trips_on_the_gpu(cuda_backend, launch: str) -> None:
    [test] = load_paths([ROUNDTRIP])
    [allowed] = check(test, "ptx").allowed_states
    rows = cuda_backend.run_round(test, RunConfig(instances=1 << 16, seed=1, stress=PRESETS[launch]), 0).rows
    assert [(tuple(sorted(s.items())), late) for s, late, _ in rows] == [(allowed, False)]
    assert rows[0][0]["P0:r1"] == 0xFEDCBA9876543210  # a 64-bit register above 2**63


@pytest.mark.gpu
def test_tearing_catalog_on_the_gpu_shows_nothing_forbidden(cuda_backend, tmp_path: Path) -> None:
    tests = load_paths([ROOT / "catalog" / "tearing.yaml"])
    out = tmp_path / "tear.jsonl"
    results = run_tests(tests, cuda_backend, RunConfig(iterations=4, instances=1 << 20, seed=3), out=out)
    assert [r.skipped for r in results] == [None] * len(tests)
    for rec in map(json.loads, out.read_text().splitlines()):
        assert rec["counts"]["forbidden"] == 0, rec["id"]
