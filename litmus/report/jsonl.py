"""Append-only JSON Lines results: one record per finished variant, flushed and fsynced."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any, Iterator

from litmus.errors import LitmusError
from litmus.report.record import RunRecord


def append_record(path: Path, record: RunRecord) -> None:
    """Append one record as a line and make it durable before returning.

    A run killed at any moment keeps every record appended before it.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    line = json.dumps(record, sort_keys=True) + "\n"
    with open(path, "a", encoding="utf-8") as fh:
        fh.write(line)
        fh.flush()
        os.fsync(fh.fileno())


def read_records(path: Path) -> Iterator[RunRecord]:
    """The records of a results file; a torn last line (a killed writer) is skipped."""
    for _, record in numbered_records(path):
        yield record


def numbered_records(path: Path) -> Iterator[tuple[int, Any]]:
    """(line number, record) for each JSON line of ``path``; a torn last line is skipped."""
    if not path.exists():
        return
    with open(path, encoding="utf-8") as fh:
        lines = fh.readlines()
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            yield number, json.loads(line)
        except json.JSONDecodeError as e:
            if number == len(lines) and not line.endswith("\n"):
                return  # the writer died mid-line
            raise LitmusError.at(str(path), number, f"not a JSON record: {e.msg}", e.colno) from None


def _kind_hint(record: Any) -> str:
    """What a line that is not a run record looks like, as a hint for the user."""
    if not isinstance(record, dict):
        return "each line of a results file is one JSON object"
    if "findings" in record and "status" in record:
        return ("it looks like `litmus audit --json` output: give it as --audit-file to "
                "`litmus report RUN.jsonl --html OUT.html --audit-file AUDIT.jsonl`")
    if "stress" in record and "per_instance" in record:
        return "it looks like a `litmus tune --log` file: the best environment is in the stress JSON that tune wrote (--out)"
    return "give `litmus report` the JSONL that `litmus run --jsonl` wrote"


def read_results(path: Path) -> list[RunRecord]:
    """The run records (one per variant, as ``litmus run --jsonl`` writes them) of ``path``.

    A missing file, or a line that is JSON but not a run record, is an error naming the file, the
    line and what it looks like instead.
    """
    if not path.is_file():
        raise LitmusError(f"{path}: no such results file (write one with `litmus run --jsonl {path}`)")
    records = []
    for number, record in numbered_records(path):
        if not isinstance(record, dict) or "verdict" not in record or "id" not in record:
            raise LitmusError.at(str(path), number,
                                 f"not a litmus run record (no 'id' and 'verdict'); {_kind_hint(record)}")
        records.append(record)
    return superseded_errors_dropped(records)


def _key(record: RunRecord) -> tuple[Any, Any, Any]:
    return record.get("source"), record.get("id"), record.get("backend")


def superseded_errors_dropped(records: list[RunRecord]) -> list[RunRecord]:
    """``records`` less each ``error`` record of a variant that a later record of the same
    backend ran again (``litmus run --resume`` retries errors)."""
    last = {_key(r): k for k, r in enumerate(records)}
    return [r for k, r in enumerate(records) if r.get("verdict") != "error" or last[_key(r)] == k]


def finished_ids(path: Path, backend: str, with_errors: bool = False) -> set[str]:
    """Ids (``source::NAME[variant]``) already finished on ``backend`` in ``path``; a variant
    recorded as ``error`` counts only ``with_errors`` (a resumed run retries it otherwise)."""
    return {
        f"{r.get('source')}::{r.get('id')}" for r in read_records(path)
        if r.get("backend") == backend and (with_errors or r.get("verdict") != "error")
    }
