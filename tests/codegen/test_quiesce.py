"""Quiescent hangs (``CodegenOptions.quiesce``): in a test that may hang, every thread counts
itself in its instance's wait word while it waits in a spin or once it has finished, and a
spin proves the instance hung once every thread is counted and each waiting one has confirmed,
after an acquire, that its value has not come: a certain hang ends after a few hundred reads
instead of its bound, with status HUNG (an ended instance), not a timeout.

The interpreter cases run with a spin bound of 10^8 reads: under TRITON_INTERPRET=1 a spin whose
writer has already run and left another value is a certain hang, so without the proof each
such spin would take hours and the subprocess would time out.  Their outcomes must still be the
ones the exact simulation (``parallel_cases.simulate``) predicts, spins that hang proven hung.
The proof between threads that wait on each other at once is tested with the cpu backend (one
process per role), in tests/run/test_quiesce_cpu.py.
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from litmus.codegen import CodegenOptions, generate
from litmus.codegen.layout import HUNG_BIT, QUIET_COUNT_MASK, QUIET_FINISHED
from litmus.codegen.ops import QUIET_PARK, QUIET_UNPARK
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
    # P0 spins before P1 has run (programs run in order), so no other thread is waiting or
    # finished: its spins must not give up early, and run to the (small) bound as the
    # simulation says; P1 then runs after P0 finished, and its hang is proven
    {"name": "vllm-not-quiescent", "id": "BUG-vllm-8558[buggy-one-set-relacq]", "programs": 1, "block": 4,
     "iterations": 2, "seed": 3, "quiesce": True, "spin_bound": 150},
    # the same with the huge bound: P0's wait word never changes while it waits (P1 has not
    # started, so no proof can end), and its spins give up after QUIET_STALL checks, a timeout;
    # without that each would read 10^8 times
    {"name": "vllm-stalls", "id": "BUG-vllm-8558[buggy-one-set-relacq]", "programs": 1, "block": 4,
     "iterations": 2, "seed": 3, "quiesce": True, "spin_bound": HUGE_BOUND},
]


def _catalog() -> list:
    return load_tests([str(ROOT / "catalog")])


def _may_hang(test) -> bool:
    return bool(test.expect and test.expect.may_hang and any(isinstance(i, Spin) for t in test.threads for i in t.instrs))


def test_only_variants_that_may_hang_get_a_wait_word_and_the_others_compile_as_before() -> None:
    tests = _catalog()
    assert sum(_may_hang(t) for t in tests) >= 8
    for test in tests:
        on = generate(test, replace(RUN_KERNELS["grid"], backend="interpreter", block=4))
        assert (on.layout.wait_slot is not None) == _may_hang(test), test.id
        if not _may_hang(test):
            off = generate(test, replace(RUN_KERNELS["grid"], backend="interpreter", block=4, quiesce=False))
            assert on.text == off.text, test.id


@pytest.mark.parametrize("mode, scope", [("grid", "gpu"), ("parallel", "gpu"), ("rank", "sys")])
def test_each_thread_marks_itself_finished_once_after_its_last_op(mode: str, scope: str) -> None:
    test = load_case_test("MP-reset-race[relacq-plain-reset]")
    source = generate(test, CodegenOptions(backend="interpreter", mode=mode, block=4, quiesce=True))
    text, layout = source.text, source.layout
    assert layout.wait_slot == layout.scratch_slot + 1
    assert [layout.confirm_slot(t) for t in layout.threads] == [layout.wait_slot + 1 + k for k in range(2)]
    assert layout.n_slots == layout.wait_slot + 1 + len(layout.threads)
    for t in test.threads:
        k = layout.threads.index(t.name)
        marker = f"# --- harness: {t.name} finished"
        assert text.count(marker) == 1, (mode, t.name)
        last = text.index(f"# --- {t.name}[{len(t.instrs) - 1}]")
        assert last < text.index(marker), (mode, t.name)
        tail = text[text.index(marker):].splitlines()[1:4]
        assert "harness: release" in tail[0]
        assert tail[1].strip().startswith(f"tl.atomic_xchg(c_T{k}_{k}, ") and f"+ {QUIET_FINISHED}" in tail[1]
        assert tail[2].strip().startswith(f"tl.atomic_add(f_T{k}, ") and f"+ {QUIET_PARK}" in tail[2]
    # every spin of a quiescing kernel counts itself waiting, and stops waiting, once
    spins = sum(isinstance(i, Spin) for t in test.threads for i in t.instrs)
    assert text.count(f'+ {QUIET_PARK}, mask=') == spins
    assert text.count(f'+ {QUIET_UNPARK}, mask=') == spins
    assert text.count(f" + {HUNG_BIT}, mask=") == spins  # tells the others
    assert f'scope="{scope}")' in text
    plain = generate(test, CodegenOptions(backend="interpreter", mode=mode, block=4)).text
    assert "quiet_" not in plain and "harness: P0 finished" not in plain and str(HUNG_BIT) not in plain


@pytest.mark.parametrize("mode, scope", [("grid", "gpu"), ("parallel", "gpu"), ("rank", "sys")])
def test_the_harness_orders_with_fences_only_where_a_proof_is_under_way(mode: str, scope: str) -> None:
    """On a GPU the harness's ordering is inline ``fence.acq_rel``, never an atomic with release
    or acquire semantics nor a reduction (Triton brackets those with ``bar.sync``, a CTA barrier
    in the middle of the test), and inside a spin predicated on the lanes whose proof is under
    way: the count at every check is relaxed.  Compiled, the quiescing kernel has exactly the
    CTA barriers of the plain one."""
    test = load_case_test("MP-reset-race[relacq-plain-reset]")
    text = generate(test, CodegenOptions(backend="cuda", mode=mode, block=128, quiesce=True)).text
    harness = [line.strip() for line in text.splitlines() if "# harness" in line and not line.strip().startswith("#")
               and not line.strip().startswith("quiet_got")]  # the spin's own read, once more
    assert harness and not any('sem="release"' in h or 'sem="acquire"' in h or 'sem="acq_rel"' in h for h in harness)
    spins = sum(isinstance(i, Spin) for t in test.threads for i in t.instrs)
    fences = [n for n, line in enumerate(text.splitlines()) if f"fence.acq_rel.{scope};" in line and "# harness" in line]
    assert len(fences) == 2 * spins + len(test.threads)  # release and acquire per spin, one per finish
    lines = text.splitlines()
    assert sum("@p fence.acq_rel" in lines[n] for n in fences) == 2 * spins
    assert "tl.reduce" not in "\n".join(harness)


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
    # every thread finished every instance once, and every wait ended
    assert [w & QUIET_COUNT_MASK for w in got["fin"]] == [len(test.threads)] * n
    assert_grid_run_matches(got, case, test, layout)
    status = [row[layout.status_column] for row in got["out"]]
    if case["id"] == "MP-reset-race[relaxed-plain-reset]":
        # a hunting variant gives up once the producer finished: every instance times out
        # early (no proof, so a timeout), and nothing ever marks the instance hung
        assert all(s and not s & HUNG_BIT for s in status) and not any(w & HUNG_BIT for w in got["fin"])
    elif case["name"].startswith("MP-reset-race"):
        # under the interpreter the consumer runs after the producer finished: every instance
        # hangs, and every hang is proven (no spin ran to its bound of 10^8 reads)
        assert status == [HUNG_BIT] * n
        assert all(w & HUNG_BIT for w in got["fin"])
    else:
        # P0 ran first, while P1 had not started: P0 timed out, P1 proved its own hang
        assert all(s & HUNG_BIT and s & ~HUNG_BIT for s in status)


@pytest.mark.parametrize("mode", ["grid", "parallel", "rank"])
def test_a_variant_hunting_an_allowed_target_gives_up_without_a_proof(mode: str) -> None:
    """Fences change what a test shows, so a variant whose target is allowed does not prove its
    hangs: its spins read the others' confirm words (plain volatile loads) and give up
    QUIET_GRACE reads after all finished, or QUIET_STALL checks after all were finished or
    waiting and unchanged, a timeout; its threads finish without a fence.  A spin marks its
    own confirm word waiting (its index + 1) once, and clears it when its loop ends."""
    import re

    from litmus.codegen.ops import QUIET_GRACE, QUIET_STALL

    test = load_case_test("MP-reset-race[relaxed-plain-reset]")
    source = generate(test, CodegenOptions(backend="cuda", mode=mode, block=128, quiesce=True))
    assert not source.layout.quiet_proof
    text = source.text
    assert "fence.acq_rel" not in text and str(HUNG_BIT) not in text and f"+ {QUIET_PARK}, mask=" not in text
    spins = sum(isinstance(i, Spin) for t in test.threads for i in t.instrs)
    loops = re.findall(rf"> {QUIET_GRACE}\) \| \(spin_stale\d+ >= {QUIET_STALL}\), 0, 1\), 0, _any\)", text)
    assert len(loops) == spins
    assert text.count(f"== {QUIET_FINISHED})  # harness") == spins  # one other thread to wait for
    marks = re.findall(r"tl\.atomic_xchg\((c_T\d+_\d+), zero\w* \+ (\d+), mask=.*# harness: waiting in spin (\d+)", text)
    assert len(marks) == spins and all(int(v) == int(i) + 1 for _, v, i in marks)
    assert text.count("# harness: no longer waiting here") == spins
    assert "atomic_add(f_" not in text.split("harness: P0 finished")[0]  # no count while waiting
    assert generate(load_case_test("MP-reset-race[relacq-plain-reset]"),
                    CodegenOptions(backend="cuda", mode=mode, block=128, quiesce=True)).layout.quiet_proof


def test_quiescing_run_kernel_has_the_cta_barriers_of_the_plain_one() -> None:
    from litmus.codegen import compile_variant

    # relaxed spin reads: an acquire read (the spin's own, which the proof reads once more) is
    # bracketed with bar.sync by triton 3.9's tl.atomic_load, in the plain kernel's loop as well
    base = load_case_test("MP-reset-race[relacq-plain-reset]")
    test = replace(base, threads=tuple(replace(t, instrs=tuple(
        replace(i, read=replace(i.read, sem="relaxed")) if isinstance(i, Spin) else i for i in t.instrs))
        for t in base.threads))
    ptx = {q: compile_variant(test, "cuda:90", replace(RUN_KERNELS["parallel"], backend="cuda", quiesce=q)).text("ptx")
           for q in (True, False)}
    assert ptx[True].count("bar.sync") == ptx[False].count("bar.sync")
    assert ptx[True].count("fence.acq_rel.gpu") > ptx[False].count("fence.acq_rel.gpu")
