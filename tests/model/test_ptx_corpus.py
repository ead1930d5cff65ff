"""The 92 PTX litmus tests of Dat3M's corpus: every verdict of its ptx-v6.0 run must match."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

import litmus
from litmus.interop import read_litmus
from litmus.model import check


def _corpus() -> Path | None:
    env = os.environ.get("LITMUS_PTX_CORPUS")
    path = Path(env) if env else Path(litmus.__file__).parent.parent.parent / "shared" / "ptx-litmus"
    return path if (path / "expected.csv").is_file() else None


CORPUS = _corpus()


def _rows() -> list[tuple[str, str]]:
    if CORPUS is None:
        return []
    rows = []
    for line in (CORPUS / "expected.csv").read_text().splitlines():
        if line.strip():
            path, value = line.rsplit(",", 1)
            rows.append((path.strip(), value.strip()))
    return rows


ROWS = _rows()


@pytest.mark.skipif(CORPUS is None, reason="PTX corpus not found (set LITMUS_PTX_CORPUS)")
def test_corpus_lists_92_tests():
    assert len(ROWS) == 92


@pytest.mark.skipif(CORPUS is None, reason="PTX corpus not found (set LITMUS_PTX_CORPUS)")
@pytest.mark.parametrize("path, value", ROWS, ids=[p for p, _ in ROWS])
def test_ptx_verdict_matches_dat3m(path: str, value: str):
    result = check(read_litmus(CORPUS / path), "ptx")
    assert result.validated == (value == "1")
