"""Generated kernels run under TRITON_INTERPRET=1 (in a subprocess) with exact expected histograms.

Under the interpreter the programs of a grid run one after another in program-id order, so role 0
(P0, the writer) finishes before role 1 (P1) starts: outcomes are deterministic.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

CASES = [
    {"name": "mp", "test": "mp_plain", "block": 4, "progs": 2},
    {"name": "mp_perm", "test": "mp_plain", "block": 4, "progs": 4, "perms": [[1, 0], [3, 5]],
     "addressing": "interleaved"},
    {"name": "shared_seq_perm", "test": "mp_shared_cta", "block": 4, "progs": 2, "perms": [[1, 0], [3, 1]]},
    {"name": "shared_rr", "test": "mp_shared_cta", "block": 4, "progs": 2, "perms": [[1, 0], [1, 0]],
     "order": "round_robin"},
    {"name": "cas_spin", "test": "mp_cas_spin", "block": 4, "progs": 2, "spin_bound": 4},
    {"name": "ranks", "test": "mp_cas_release_acquire", "block": 4, "progs": 2, "mode": "rank",
     "perms": [[1, 0], [5, 3]]},
    {"name": "timeout", "test": "spin_never", "block": 4, "progs": 1, "spin_bound": 3},
    {"name": "spin_ne", "test": "spin_ne_init", "block": 4, "progs": 2, "spin_bound": 4},
    {"name": "spin_masked", "test": "spin_masked_low_byte", "block": 4, "progs": 2, "spin_bound": 4},
    {"name": "spin_gt", "test": "spin_gt_never", "block": 4, "progs": 2, "spin_bound": 3},
    # the reader (role 1) runs before the writer here: it sees flag 0, skips the load of x, keeps r1 = 7
    {"name": "branch_skip", "test": "forward_branch_skip", "block": 4, "progs": 2},
    {"name": "branch_taken", "test": "forward_branch", "block": 4, "progs": 2},
]


@pytest.fixture(scope="module")
def results(litmus_cache: Path) -> dict:
    path = os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH", "")) if p)  # keep carried packages
    env = dict(os.environ, TRITON_INTERPRET="1", PYTHONPATH=path)
    proc = subprocess.run([sys.executable, "-m", "tests.codegen.interp_runner", json.dumps(CASES)],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])


def _hist(r: dict) -> dict[tuple[int, ...], int]:
    return {tuple(k): v for k, v in r["hist"]}


def test_mp_writer_first_gives_exactly_the_sc_outcome(results: dict) -> None:
    r = results["mp"]
    assert r["keys"] == ["P1:r0", "P1:r1", "x", "flag"]
    assert r["n"] == 8 and r["timeouts"] == 0
    assert _hist(r) == {(1, 1, 1, 1): 8}
    assert sum(_hist(r).values()) == r["n"]


def test_permuted_instances_still_cover_every_instance_once(results: dict) -> None:
    # every P1 lane reads an instance whose P0 ran earlier (role 0 programs all run first)
    assert _hist(results["mp_perm"]) == {(1, 1, 1, 1): 16}


def test_shared_cta_sequential_order_with_a_permutation(results: dict) -> None:
    # One program plays P0 (lanes 0..3) then P1 (lanes 4..7).  Threads sharing a CTA play the
    # same instances (the role's first thread's permutation, whatever P1's own perm says), so
    # P1 reads exactly what its own program's P0 lanes wrote just before: always 1s.
    assert _hist(results["shared_seq_perm"]) == {(1, 1, 1, 1): 8}


def test_shared_cta_round_robin_reads_flag_before_it_is_written(results: dict) -> None:
    # x=1 ; r0=flag (0) ; flag=1 ; r1=x (1), all in one program order
    assert _hist(results["shared_rr"]) == {(0, 1, 1, 1): 8}


def test_cas_spin_succeeds_and_resets_the_flag(results: dict) -> None:
    r = results["cas_spin"]
    assert r["timeouts"] == 0
    assert _hist(r) == {(1, 1, 1, 0): 8}


def test_a_spin_that_never_sees_its_value_times_out_instead_of_hanging(results: dict) -> None:
    r = results["timeout"]
    assert r["timeouts"] == r["n"] == 4
    assert _hist(r) == {(1, 1, 1, 1): 4}  # last read value of the flag goes to r0


def test_rank_mode_kernels_share_heaps_through_the_pointer_table(results: dict) -> None:
    # rank 0's kernel (P0: x=1; cas flag 0->1 release) runs first, then rank 1's (P1: cas flag 1->0
    # acquire, r0 = old = 1; r1 = x = 1); flag lives on rank 0, read by rank 1 through heap_ptrs[0].
    assert _hist(results["ranks"]) == {(1, 1, 1, 0): 8}


def test_a_not_equal_spin_exits_on_the_counters_new_value(results: dict) -> None:
    # keys: P0:e0, P1:r0, P1:r1, x, flag: the writer computed 5 + 2 and stored it
    r = results["spin_ne"]
    assert r["keys"] == ["P0:e0", "P1:r0", "P1:r1", "x", "flag"]
    assert r["timeouts"] == 0
    assert _hist(r) == {(7, 7, 1, 1, 7): 8}


def test_a_masked_spin_compares_the_masked_bits_but_keeps_the_whole_value(results: dict) -> None:
    r = results["spin_masked"]
    assert r["timeouts"] == 0
    assert _hist(r) == {(7, 7, 1, 1, 7): 8}


def test_a_greater_than_spin_that_cannot_hold_times_out(results: dict) -> None:
    r = results["spin_gt"]
    assert r["timeouts"] == r["n"] == 8
    assert _hist(r) == {(7, 7, 1, 1, 7): 8}


def test_a_forward_branch_runs_the_skipped_load_only_when_not_taken(results: dict) -> None:
    # keys: P1:r0, P1:r1, P1:r2, x, flag
    assert results["branch_taken"]["keys"] == ["P1:r0", "P1:r1", "P1:r2", "x", "flag"]
    assert _hist(results["branch_taken"]) == {(1, 1, 1, 1, 1): 8}  # writer first: flag seen, x read
    # reader first: flag 0, the load of x skipped (r1 keeps 7), the load after the label still runs
    assert _hist(results["branch_skip"]) == {(0, 7, 0, 1, 1): 8}
