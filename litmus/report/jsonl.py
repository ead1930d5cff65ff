"""Append-only JSON Lines results: one record per finished variant, flushed and fsynced."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any, Iterator

from litmus.errors import LitmusError


def append_record(path: Path, record: dict[str, Any]) -> None:
    """Append one record as a line and make it durable before returning.

    A run killed at any moment keeps every record appended before it.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    line = json.dumps(record, sort_keys=True) + "\n"
    with open(path, "a", encoding="utf-8") as fh:
        fh.write(line)
        fh.flush()
        os.fsync(fh.fileno())


def read_records(path: Path) -> Iterator[dict[str, Any]]:
    """The records of a results file; a torn last line (a killed writer) is skipped."""
    if not path.exists():
        return
    with open(path, encoding="utf-8") as fh:
        lines = fh.readlines()
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            yield json.loads(line)
        except json.JSONDecodeError as e:
            if number == len(lines) and not line.endswith("\n"):
                return  # the writer died mid-line
            raise LitmusError.at(str(path), number, f"not a JSON record: {e.msg}", e.colno) from None


def finished_ids(path: Path, backend: str) -> set[str]:
    """Ids (``source::NAME[variant]``) already finished on ``backend`` in ``path``."""
    return {
        f"{r.get('source')}::{r.get('id')}" for r in read_records(path) if r.get("backend") == backend
    }
