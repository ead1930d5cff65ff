"""The one-pass device count (``litmus.run.counting``) gives ``count_rows``'s rows exactly.

The kernel runs under the Triton interpreter in a subprocess (TRITON_INTERPRET must be set
before triton is imported); rounds are seeded random heaps and ``out`` of catalog layouts.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from litmus.run.buffers import Ranges
from litmus.run.counting import _bins

ROOT = Path(__file__).resolve().parents[2]

CASES = [
    # MP: 4 observables; the second round's wider range must force one recount
    {"test": "MP[relaxed-xcta-gpu]", "seed": 1, "n": 3000, "stride": 1, "ranges": [[0, 1], [-2, 3], [0, 1]]},
    # SB across ranks, strided heaps
    {"test": "SB[relaxed-sys]", "seed": 2, "n": 2500, "stride": 16, "ranges": [[0, 2]]},
    # IRIW: 6 observables over 5 values is past MAX_BINS: handed to count_rows
    {"test": "IRIW[acquire-sys]", "seed": 3, "n": 700, "stride": 2, "ranges": [[0, 1], [0, 4]]},
    # a test and its warmed form (two more columns, one id) in turn, as a warm_reads rotation runs them
    {"test": "MP-iris[relaxed-wait-sys]", "seed": 4, "n": 900, "stride": 1, "warm": True,
     "ranges": [[0, 1], [0, 1], [0, 1], [0, 1]]},
]


@pytest.fixture(scope="module")
def compared() -> list[dict]:
    env = dict(os.environ, TRITON_INTERPRET="1", PYTHONPATH=os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]))
    proc = subprocess.run([sys.executable, str(ROOT / "tests" / "run" / "counting_runner.py"), json.dumps(CASES)],
                          capture_output=True, text=True, env=env, cwd=ROOT, timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])


def test_counts_equal_count_rows_round_after_round(compared: list[dict]) -> None:
    assert [c["agree"] for c in compared] == [[True] * len(case["ranges"]) for case in CASES]


def test_completed_timed_out_and_hung_are_counted_apart(compared: list[dict]) -> None:
    # status words 0, spin bits, HUNG_BIT alone, HUNG_BIT with a spin bit: codes 0, 1, 2, 1
    assert all(c["statuses"] == [0, 1, 2] for c in compared)


def test_a_value_outside_the_last_rounds_ranges_is_recounted(compared: list[dict]) -> None:
    mp = compared[0]
    assert mp["recounts"] == 1  # round 2 widens the range; round 3 fits round 2's ranges
    assert compared[1]["recounts"] == 0
    assert compared[3]["recounts"] == 0  # each form keeps its own ranges


def test_key_spaces_past_max_bins_go_to_count_rows(compared: list[dict]) -> None:
    assert compared[2]["over"] == [False, True] and all(compared[2]["agree"])


def test_keys_decode_to_the_columns_they_encode() -> None:
    r = Ranges(lows=(-1, 0, 5, 0), radix=(3, 2, 4, 2))
    keys = {}
    for a in range(-1, 2):
        for b in range(2):
            for c in range(5, 9):
                for s in range(2):
                    key = (((a + 1) * 2 + b) * 4 + (c - 5)) * 2 + s
                    keys[key] = (a, b, c, s)
    assert r.space == len(keys) == 48
    assert all(r.decode(k) == v for k, v in keys.items())
    assert _bins(48) == 64 and _bins(62) == 64 and _bins(63) == 128  # room for the two spare bins


def test_the_count_kernel_is_compiled_once_per_columns_and_bins() -> None:
    """New value ranges (a new key space) or a new row count must not compile the kernel again:
    only the number of columns and of bins are compile-time constants."""
    from litmus.run.counting import load_count_kernel

    kernel = load_count_kernel(interpret=False)
    params = {p.name: p for p in kernel.params}
    assert {n for n, p in params.items() if p.is_constexpr} == {"NCOLS", "STATUS", "NB", "BLOCK"}
    assert params["space"].do_not_specialize and params["n"].do_not_specialize
