"""Grid mode's loop over iterations: a launch of ``P`` programs per role plays ``n_instances``
instances, ``P * BLOCK`` per iteration, every role of an instance in the same iteration.

The kernels run under TRITON_INTERPRET=1 in a subprocess (grid_runner.py), where programs run one
after another (program ``role * P + b``); each instance's outcome is then fixed by the program
that plays each of its roles, which :func:`litmus.run.buffers.grid_instance` (the Python mirror
of the kernel's map) gives, and :func:`parallel_cases.simulate` predicts it exactly.  So these
tests fail if the kernel's map, the mirror or the coverage is wrong.
"""

from __future__ import annotations

import pytest

from litmus.run.buffers import grid_instance
from tests.codegen.parallel_cases import (assert_grid_run_matches, case_layout, grid_placement, load_case_test,
                                          run_interpreted, with_coverage)

CASES: list[dict] = [
    {"name": f"{tid}-P{p}-I{it}", "id": tid, "programs": p, "block": 4, "iterations": it, "seed": 5 + p + it}
    for tid in ("MP[relaxed-xcta-sys]", "IRIW[relaxed-sys]", "MP-block[bar-release-sys]",
                "MP-iris-reset[relacq-sys]")
    for p, it in ((1, 3), (2, 4))
]


@pytest.fixture(scope="module")
def results(litmus_cache) -> dict:
    return run_interpreted("tests.codegen.grid_runner", CASES)


def _layout(case: dict):
    return case_layout(case, "grid")


def _placement(case: dict, perms: list) -> list[dict[str, tuple[int, int]]]:
    """For every instance, ``(program, iteration)`` per thread, from the mirror."""
    return grid_placement(_layout(case), case, perms)


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_every_thread_plays_every_instance_exactly_once(results: dict, case: dict) -> None:
    covs = {k: v for k, v in results[case["name"]]["locs"].items() if k.startswith("cov_")}
    n = case["programs"] * case["block"] * case["iterations"]
    assert covs and all(v == [1] * n for v in covs.values()), covs


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_partners_play_an_instance_in_the_same_iteration(results: dict, case: dict) -> None:
    for x, where in enumerate(_placement(case, results[case["name"]]["perms"])):
        assert len({it for _, it in where.values()}) == 1, (case["name"], x, where)
        assert {it for _, it in where.values()} == {x // (case["programs"] * case["block"])}


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_every_instance_matches_the_mirror(results: dict, case: dict) -> None:
    got = results[case["name"]]
    assert_grid_run_matches(got, case, with_coverage(load_case_test(case["id"])), _layout(case))


def test_a_shuffled_role_meets_other_partners_each_iteration() -> None:
    per_iter, block = 4 * 8, 8
    fixed = [grid_instance((1, 0), 0, j, it, per_iter, block) % per_iter for it in range(3) for j in range(block)]
    assert fixed == list(range(block)) * 3  # the unshuffled role plays the same offsets every time
    moved = [[grid_instance((5, 3), 0, j, it, per_iter, block) % per_iter for j in range(block)] for it in range(3)]
    assert moved[0] != moved[1] != moved[2]  # so its partners (role 0's lanes) change


def test_the_mirror_is_a_bijection_per_iteration() -> None:
    per_iter, block = 3 * 8, 8
    for row in ((1, 0), (5, 7), (23, 1)):
        for it in range(3):
            got = sorted(grid_instance(row, b, j, it, per_iter, block) for b in range(3) for j in range(block))
            assert got == list(range(it * per_iter, (it + 1) * per_iter))
