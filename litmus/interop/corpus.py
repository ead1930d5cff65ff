"""The PTX litmus corpora: ``shared/ptx-litmus`` (Dat3M's ``litmus/PTX/Manual`` with verdicts)
and ``shared/dat3m-ptx`` (Dat3M's whole PTX corpus with its four verdict lists)."""

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
DAT3M_ENV = "LITMUS_DAT3M_PTX"
DAT3M_LISTS: dict[str, tuple[str, str]] = {
    "PTXv6_0-expected.csv": ("safety", "ptx"),
    "PTXv7_5-expected.csv": ("safety", "ptx75"),
    "PTXv6_0-Liveness-expected.csv": ("liveness", "ptx"),
    "PTXv7_5-Liveness-expected.csv": ("liveness", "ptx75"),
}
"""Dat3M's verdict lists: file -> (kind, the litmus model that matches its cat file).  A safety
VALUE 1 means the condition holds (``ModelResult.validated``); a liveness VALUE 1 means no
execution hangs (``not ModelResult.possible_hang``; 0 on the tests whose spins or barriers
can block forever, e.g. Manual/XF-Barrier-weak and Barrier/quorum*-hang)."""
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


def dat3m_dir() -> Path | None:
    """Dat3M's PTX corpus: ``$LITMUS_DAT3M_PTX``, else ``shared/dat3m-ptx`` beside the repo;
    None when it does not exist."""
    env = os.environ.get(DAT3M_ENV)
    path = Path(env) if env else Path(__file__).resolve().parents[2].parent / "shared" / "dat3m-ptx"
    return path if (path / "PTXv6_0-expected.csv").is_file() else None


def read_expected(corpus: Path, name: str = "expected.csv") -> dict[str, bool]:
    """A ``PATH,VALUE`` verdict list (``corpus/name``): test path relative to ``corpus`` -> VALUE == 1."""
    table: dict[str, bool] = {}
    csv_path = corpus / name
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
