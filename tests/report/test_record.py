"""The run record is one type: every record a run writes, finished or errored, and every record
committed under docs/results/, has only the keys :class:`litmus.report.record.RunRecord`
declares, and a finished one has every evidence key."""

from __future__ import annotations

import json
from pathlib import Path

from litmus.report.jsonl import read_records
from litmus.report.record import RECORD_KEYS
from litmus.run.config import RunConfig
from litmus.session import run_tests
from tests.test_session import SB, Scripted
from tests.test_session_faults import Faulty, TESTS

ROOT = Path(__file__).resolve().parents[2]
EVIDENCE = {"instances", "completed", "hung", "target_count", "counts", "rate", "bound_95", "histogram", "model",
            "seconds", "rounds", "config", "seed", "finished_at"}


def test_a_finished_variants_record_has_the_declared_keys_and_its_evidence(tmp_path: Path) -> None:
    out = tmp_path / "r.jsonl"
    run_tests([SB], Scripted(), RunConfig(iterations=1), out=out)
    [rec] = read_records(out)
    assert set(rec) <= RECORD_KEYS, set(rec) - RECORD_KEYS
    assert EVIDENCE <= set(rec)


def test_an_errored_variants_record_has_the_declared_keys_and_says_what_failed(tmp_path: Path) -> None:
    out = tmp_path / "r.jsonl"
    run_tests(TESTS, Faulty({"b"}), RunConfig(iterations=1), out=out)
    errored = [r for r in read_records(out) if r["verdict"] == "error"]
    assert len(errored) == 1 and set(errored[0]) <= RECORD_KEYS
    assert {"error", "traceback", "reproduce"} <= set(errored[0])


def test_every_committed_run_record_fits_the_type() -> None:
    for path in sorted((ROOT / "docs" / "results").rglob("*.jsonl")):
        for line in path.read_text().splitlines():
            record = json.loads(line) if line.strip() else None
            if isinstance(record, dict) and "verdict" in record and "id" in record:
                assert set(record) <= RECORD_KEYS, (path.name, set(record) - RECORD_KEYS)
