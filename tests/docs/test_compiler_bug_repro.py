"""docs/compiler-bugs/repro.py counts the outcomes of a launch the same with numpy and without."""

from __future__ import annotations

import ctypes
import random
import sys
from pathlib import Path

import pytest

from tests.by_path import load_by_path

REPRO = Path(__file__).resolve().parents[2] / "docs" / "compiler-bugs" / "repro.py"


def _load():
    return load_by_path("litmus_repro", REPRO)


def _launch(rows: list[tuple[int, int, int, int]]) -> tuple[ctypes.Array, ctypes.Array]:
    """What Cuda.run hands back for these (r1, r2, r3, final x) rows."""
    out = (ctypes.c_uint32 * (4 * len(rows)))()
    xs = (ctypes.c_uint32 * len(rows))()
    for i, (r1, r2, r3, x) in enumerate(rows):
        out[4 * i: 4 * i + 3] = [r1, r2, r3]
        xs[i] = x
    return out, xs


CASES = [
    # load-merge: r1 first read of x, r2 the acquire of flag, r3 the re-read of x
    ("load-merge", "racefree", [(0, 1, 0, 1), (0, 1, 1, 1), (0, 0, 0, 1), (1, 1, 1, 1)],
     {"instances": 4, "decisive": 2, "forbidden": 1, "other": 1}),
    ("load-merge", "racy", [(0, 1, 0, 1), (1, 1, 1, 1)],
     {"instances": 2, "decisive": 1, "forbidden": 1, "other": 0}),
    # store-forward: r3 the read after the acquire, x the final value
    ("store-forward", "racefree", [(0, 1, 2, 1), (0, 1, 1, 1), (0, 0, 2, 2)],
     {"instances": 3, "decisive": 2, "forbidden": 1, "other": 1}),
    ("store-forward", "racy", [(0, 1, 2, 1), (0, 1, 2, 2)],
     {"instances": 2, "decisive": 1, "forbidden": 1, "other": 0}),
]


@pytest.mark.parametrize("bug, form, rows, want", CASES)
def test_counts_each_outcome(bug, form, rows, want):
    repro = _load()
    assert repro.judge(bug, form, *_launch(rows)) == want


@pytest.mark.parametrize("bug, form", [(b, f) for b in ("load-merge", "store-forward") for f in ("racy", "racefree")])
def test_numpy_and_python_agree(bug, form, monkeypatch):
    pytest.importorskip("numpy")
    repro = _load()
    rng = random.Random(7)
    rows = [tuple(rng.choice((0, 1, 2)) for _ in range(4)) for _ in range(2000)]
    with_numpy = repro.judge(bug, form, *_launch(rows))
    monkeypatch.setitem(sys.modules, "numpy", None)  # `import numpy` raises ImportError
    assert repro.judge(bug, form, *_launch(rows)) == with_numpy
