"""Proven hangs between threads that wait at once (``CodegenOptions.quiesce``), on the cpu
backend, where every role is its own process and the roles run concurrently.

Under the interpreter's one-program-at-a-time grid (tests/codegen/test_quiesce.py) a waiting
thread only ever meets threads that have finished; here two threads wait for each other at the
same time, so the proof must go through the confirm words (docs/codegen.md "Quiescent hangs").
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from litmus.ir import Expectation
from litmus.run.config import RunConfig
from litmus.spec import load_paths
from litmus.status import COMPLETED, HUNG, TIMED_OUT
from tests.run import irs

pytestmark = pytest.mark.timeout(300)

BOUND = 20000  # reads: far more than a proof takes (a few hundred), far fewer than a default bound
# A proof needs every role's process running: on two busy cores (pytest -n 2 beside the role
# workers) one role's process can sit unscheduled or in its launch for the 20,000 reads of the
# other (seen twice in the full suite), and a bound hit there is a timeout, not a failed proof.
# A working proof ends after a few hundred reads whatever the bound, so only a broken one pays.
PROOF_BOUND = 400_000


def _statuses(rows: list) -> dict[int, int]:
    out: dict[int, int] = {}
    for _, status, n in rows:
        out[int(status)] = out.get(int(status), 0) + n
    return out


def test_two_threads_waiting_on_each_other_are_proven_hung_not_timed_out(cpu_backend) -> None:
    r = cpu_backend.run_round(irs.mutual_wait(), RunConfig(instances=32, spin_bound=PROOF_BOUND, seed=3), 0)
    assert _statuses(r.rows) == {HUNG: 32}
    assert all(state["P0:r0"] == 0 and state["P1:r0"] == 0 for state, _, _ in r.rows)


def test_threads_hunting_an_allowed_target_that_wait_on_each_other_are_proven_hung_too(cpu_backend) -> None:
    """On the cpu backend a hunting variant proves its hangs as well (``quick_hangs``: its memory
    has no weak behaviour for the proof's fences to hide), and a proven hang is an ended
    instance; the proof takes a few reads, where the bound here (10^7 reads per spin, hours under
    the interpreter) would time the test out."""
    test = replace(irs.mutual_wait(), expect=Expectation("allowed", "a hunting variant", may_hang=True))
    r = cpu_backend.run_round(test, RunConfig(instances=32, spin_bound=10 ** 7, seed=3), 0)
    assert _statuses(r.rows) == {HUNG: 32}


def test_a_wait_that_is_answered_is_never_proven_hung(cpu_backend) -> None:
    r = cpu_backend.run_round(irs.handshake(), RunConfig(instances=32, spin_bound=BOUND, seed=3), 0)
    assert _statuses(r.rows) == {COMPLETED: 32}


def test_the_vllm_one_set_barrier_shows_nothing_forbidden_and_every_instance_ends(cpu_backend) -> None:
    test = next(t for t in load_paths(["catalog/bugs_vllm_8558.yaml"]) if t.id == "BUG-vllm-8558[buggy-one-set-relacq]")
    r = cpu_backend.run_round(test, RunConfig(instances=64, spin_bound=BOUND, seed=5), 0)
    counts = _statuses(r.rows)
    assert sum(counts.values()) == 64 and TIMED_OUT not in counts, counts
    for state, status, n in r.rows:
        if status == COMPLETED:
            assert state["P1:r1"] == 2 and state["P1:r2"] == 1, state  # release/acquire carried x
