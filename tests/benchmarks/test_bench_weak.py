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


def test_role_orders_are_every_order_of_the_roles_catalog_first() -> None:
    test = bench_weak.catalog_test("IRIW")
    orders = bench_weak.role_orders(test)
    labels = [bench_weak.role_label(t) for t in orders]
    assert len(orders) == 24 and len(set(labels)) == 24  # four roles, one thread each
    assert orders[0] == test and labels[0] == "P0-P1-P2-P3"
    assert all(sorted(t.name for t in o.threads) == sorted(t.name for t in test.threads) for o in orders)
    mp = bench_weak.catalog_test("MP", "relaxed-samecta-gpu")  # one role of two threads
    assert [bench_weak.role_label(t) for t in bench_weak.role_orders(mp)] == ["P0"]


def test_cpu_smoke_every_role_order(capsys) -> None:
    doc = bench_weak.main(["--backend", "cpu", "--seconds", "0.1", "--tests", "2+2W", "--stress", "none",
                           "--role-orders", "all"])
    assert [(r["side"], r["role_order"]) for r in doc["rows"]] == [
        ("litmus/none roles P0-P1", "P0-P1"), ("litmus/none roles P1-P0", "P1-P0")]
    assert all(r["instances"] > 0 for r in doc["rows"])


def test_each_finished_row_is_in_the_json_before_the_next_runs(tmp_path: Path, monkeypatch) -> None:
    out = tmp_path / "weak.json"
    seen: list[int] = []
    real = bench_weak.run_litmus

    def run_and_look(*args, **kwargs):  # what --json holds when the next row starts
        seen.append(len(json.loads(out.read_text())["rows"]) if out.exists() else 0)
        return real(*args, **kwargs)

    monkeypatch.setattr(bench_weak, "run_litmus", run_and_look)
    bench_weak.main(["--backend", "cpu", "--seconds", "0.1", "--tests", "2+2W", "--stress", "none",
                     "--role-orders", "all", "--json", str(out)])
    assert seen == [0, 1]  # a run killed during the second row keeps the first


class SlowFirstRound:
    """A backend whose first timed round reports 0.5 s and every later one 0.01 s."""

    name = "scripted"

    def __init__(self) -> None:
        self.timed = 0

    def run_round(self, test, config, round_index):
        from litmus.run.backend import Round

        if round_index >= 1:
            self.timed += 1
        seconds = 0.5 if self.timed == 1 else 0.01
        state = {"P0:r0": 0, "P1:r1": 0, "x": 1, "y": 1}
        return Round(rows=[(state, False, 10)], instances=10, seconds=seconds)


def test_rounds_fill_the_time_asked_when_the_first_timed_round_is_slow() -> None:
    from litmus.run.config import PRESETS
    from tests.test_session import SB

    row = bench_weak.run_litmus(SlowFirstRound(), SB, PRESETS["none"], 10, 1.0, seed=0)
    assert 1.0 <= row.seconds < 1.1 and row.rounds > 50
