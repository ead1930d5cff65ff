"""The PTX litmus corpus (``shared/ptx-litmus``: Dat3M's ``litmus/PTX/Manual`` with verdicts)."""

from __future__ import annotations

import csv
import dataclasses
import os
from pathlib import Path

from litmus.condition import validated_means_reachable
from litmus.errors import LitmusError
from litmus.interop.reader import read_litmus
from litmus.ir import Expectation, LitmusTest

CORPUS_ENV = "LITMUS_PTX_CORPUS"
_WHY = "verdict from Dat3M's PTXv6_0-expected.csv"


def corpus_dir() -> Path | None:
    """The corpus folder: ``$LITMUS_PTX_CORPUS``, else ``shared/ptx-litmus`` beside the repo
    (the folder holding the ``litmus`` package); None when it does not exist."""
    env = os.environ.get(CORPUS_ENV)
    if env:
        path = Path(env)
    else:
        repo_root = Path(__file__).resolve().parents[2]
        path = repo_root.parent / "shared" / "ptx-litmus"
    return path if (path / "expected.csv").is_file() else None


def read_expected(corpus: Path) -> dict[str, bool]:
    """``expected.csv``: test path relative to ``corpus`` -> whether its condition passes."""
    table: dict[str, bool] = {}
    csv_path = corpus / "expected.csv"
    with csv_path.open(newline="", encoding="utf-8") as f:
        for n, row in enumerate(csv.reader(f), start=1):
            if not row or not row[0].strip():
                continue
            if len(row) != 2 or row[1].strip() not in ("0", "1"):
                raise LitmusError.at(str(csv_path), n, f"expected 'PATH,0' or 'PATH,1', found {row!r}")
            table[row[0].strip()] = row[1].strip() == "1"
    return table


def expectation(test: LitmusTest, passes: bool) -> Expectation:
    """The IR expectation (about the condition's target outcome) of a corpus verdict.

    ``passes`` is the csv value: ``exists`` passes when its body is reachable; ``~exists``
    and ``forall`` pass when their target outcome is unreachable.
    """
    reachable = passes if validated_means_reachable(test.condition.kind) else not passes
    return Expectation("allowed" if reachable else "forbidden", _WHY)


def load_corpus(corpus: Path) -> list[LitmusTest]:
    """Every test listed in ``corpus/expected.csv``, read, with ``expect`` from its verdict."""
    return [
        dataclasses.replace(t, expect=expectation(t, passes))
        for rel, passes in sorted(read_expected(corpus).items())
        for t in [read_litmus(corpus / rel)]
    ]
