"""benchmarks/ablation.py changes one factor per row, from the tuned base or the resident preset."""

from __future__ import annotations

from dataclasses import asdict

from benchmarks.ablation import BIG_ROUND, FACTORS, environments, table
from litmus.run.config import PRESETS, load_stress

BASE = "docs/results/h200-tuned.json"


def _diff(a, b) -> set[str]:
    da, db = asdict(a), asdict(b)
    return {k for k in da if k != "name" and da[k] != db[k]}


def test_each_row_changes_only_its_factor():
    base = load_stress(BASE)
    for name, stress, big in environments(BASE, None):
        start, changes = FACTORS[name]
        origin = base if start == "base" else PRESETS["resident"]
        assert _diff(stress, origin) <= set(changes), name
        assert stress.name == name
        assert (big == BIG_ROUND) == (name == "round-2^24")


def test_every_base_row_changes_something_but_base_and_round():
    base = load_stress(BASE)
    unchanged = {name for name, stress, _ in environments(BASE, None)
                 if FACTORS[name][0] == "base" and not _diff(stress, base)}
    assert unchanged == {"base", "round-2^24"}


def test_table_rates_each_row_against_its_tests_base():
    rows = [{"test": "MP", "row": "base", "instances": 10, "weak": 4, "weak_per_kernel_s": 2.0, "weak_per_s": 1.0,
             "weak_per_instance": 0.4},
            {"test": "MP", "row": "stride-1", "instances": 10, "weak": 1, "weak_per_kernel_s": 0.5, "weak_per_s": 0.2,
             "weak_per_instance": 0.1}]
    text = table(rows)
    assert "0.25x" in text.splitlines()[2] and "1.00x" in text.splitlines()[1]
