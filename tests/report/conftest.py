"""Fixtures of the report tests: real records from the committed H200 run."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
H200 = ROOT / "docs" / "results" / "h200-single-gpu.jsonl"
PATTERNS = ("MP-iris-volatile", "SB", "MP-reset-race", "CoRR")


@pytest.fixture
def h200_records() -> list[dict]:
    """The committed H200 records of a few patterns (witnessed, unseen, correct, timeouts)."""
    return [r for line in H200.read_text().splitlines() if (r := json.loads(line))["test"] in PATTERNS]


@pytest.fixture
def at_root(monkeypatch: pytest.MonkeyPatch) -> Path:
    """Run from the repository root, where the records' pattern files (catalog/...) resolve."""
    monkeypatch.chdir(ROOT)
    return ROOT


def write_jsonl(path: Path, records: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    return path
