"""Quiescent hangs (``CodegenOptions.quiesce``): in a test that may hang, every thread counts
itself finished in its instance's fin word, and a spin gives up once every other thread of the
instance has finished and the value it waits for has not come: a certain hang ends after a few
hundred reads instead of its bound.

The interpreter cases run with a spin bound of 10^8 reads: under TRITON_INTERPRET=1 a spin whose
writer has already run and left another value is a certain hang, so without the give-up each
such spin would take hours and the subprocess would time out.  Their outcomes must still be the
ones the exact simulation (``parallel_cases.simulate``) predicts, spins that hang timing out.
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from litmus.codegen import CodegenOptions, generate
from litmus.codegen.options import RUN_KERNELS
from litmus.ir import Spin
from litmus.spec import load_tests
from tests.codegen.parallel_cases import ROOT, assert_grid_run_matches, load_case_test, run_interpreted, with_coverage

HUGE_BOUND = 10 ** 8
CASES: list[dict] = [
    {"name": tid, "id": tid, "programs": 2, "block": 4, "iterations": 2, "seed": 3, "quiesce": True,
     "spin_bound": HUGE_BOUND}
    for tid in ("MP-reset-race[relacq-plain-reset]", "MP-reset-race[iris-cas-signal-cas-reset]",
                "MP-reset-race[relaxed-plain-reset]")
] + [
    # P0 spins before P1 has run (programs run in order), so no other thread has finished: its
    # spins must not give up early, and run to the (small) bound as the simulation says
    {"name": "vllm-not-quiescent", "id": "BUG-vllm-8558[buggy-one-set-relacq]", "programs": 1, "block": 4,
     "iterations": 2, "seed": 3, "quiesce": True, "spin_bound": 150},
]


def _catalog() -> list:
    return load_tests([str(ROOT / "catalog")])


def _may_hang(test) -> bool:
    return bool(test.expect and test.expect.may_hang and any(isinstance(i, Spin) for t in test.threads for i in t.instrs))


def test_only_variants_that_may_hang_get_a_fin_word_and_the_others_compile_as_before() -> None:
    tests = _catalog()
    assert sum(_may_hang(t) for t in tests) >= 8
    for test in tests:
        on = generate(test, replace(RUN_KERNELS["grid"], backend="interpreter", block=4))
        assert (on.layout.fin_slot is not None) == _may_hang(test), test.id
        if not _may_hang(test):
            off = generate(test, replace(RUN_KERNELS["grid"], backend="interpreter", block=4, quiesce=False))
            assert on.text == off.text, test.id


@pytest.mark.parametrize("mode, scope", [("grid", "gpu"), ("parallel", "gpu"), ("rank", "sys")])
def test_each_thread_counts_itself_finished_once_after_its_last_op(mode: str, scope: str) -> None:
    test = load_case_test("MP-reset-race[relacq-plain-reset]")
    source = generate(test, CodegenOptions(backend="interpreter", mode=mode, block=4, quiesce=True))
    text = source.text
    assert source.layout.fin_slot == source.layout.scratch_slot + 1 == source.layout.n_slots - 1
    for t in test.threads:
        marker = f"# --- harness: {t.name} finished"
        assert text.count(marker) == 1, (mode, t.name)
        last = text.index(f"# --- {t.name}[{len(t.instrs) - 1}]")
        assert last < text.index(marker), (mode, t.name)
        assert f'tl.atomic_add(f_T{source.layout.threads.index(t.name)}, ' in text
    assert f'sem="relaxed", scope="{scope}")' in text
    # every spin of a quiescing kernel checks the fin word; without quiesce none does
    spins = sum(isinstance(i, Spin) for t in test.threads for i in t.instrs)
    assert text.count("spin_fin") == 2 * spins  # loaded, then compared
    plain = generate(test, CodegenOptions(backend="interpreter", mode=mode, block=4)).text
    assert "spin_fin" not in plain and "harness: P0 finished" not in plain


@pytest.fixture(scope="module")
def results(litmus_cache) -> dict:
    return run_interpreted("tests.codegen.grid_runner", CASES)


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_certain_hangs_give_up_early_and_outcomes_match_the_simulation(results: dict, case: dict) -> None:
    got = results[case["name"]]
    test = with_coverage(load_case_test(case["id"]))
    layout = generate(test, CodegenOptions(backend="interpreter", mode="grid", block=case["block"],
                                           quiesce=True)).layout
    n = case["programs"] * case["block"] * case["iterations"]
    assert got["fin"] == [len(test.threads)] * n  # every thread finished every instance once
    assert_grid_run_matches(got, case, test, layout)
    # under the interpreter each of these variants hangs in every instance
    assert all(row[layout.status_column] != 0 for row in got["out"])
