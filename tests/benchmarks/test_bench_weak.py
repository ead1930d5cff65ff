"""Smoke test of benchmarks/bench_weak.py on the cpu backend (interpreter, tiny sizes, MP only)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from benchmarks import bench_weak  # noqa: E402


def test_cpu_smoke_mp(tmp_path: Path, capsys) -> None:
    out = tmp_path / "weak.json"
    doc = bench_weak.main(["--backend", "cpu", "--seconds", "0.2", "--tests", "MP", "--stress", "none", "default",
                           "--json", str(out)])
    assert json.loads(out.read_text()) == json.loads(json.dumps(doc, default=str))
    rows = doc["rows"]
    assert [(r["test"], r["side"]) for r in rows] == [("MP", "litmus/none"), ("MP", "litmus/default"),
                                                      ("MP", "reference")]
    for r in rows:
        assert r["instances"] > 0 and r["rounds"] >= 1 and r["seconds"] > 0
        assert r["instances"] % r["instances_per_round"] == 0
        assert 0 <= r["weak"] <= r["instances"]
        assert r["weak_per_instance"] == r["weak"] / r["instances"]
    assert rows[0]["variant"] == "MP[relaxed-xcta-gpu]"
    assert sum(rows[2]["counts_by_code"]) == rows[2]["instances"]
    table = capsys.readouterr().out
    assert "weak/instance" in table and "reference" in table
