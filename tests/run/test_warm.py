"""Warm reads (litmus.run.warm): which loads are warmed, that the projection never shows an
outcome the test forbids (a law over random tests), that every catalog variant's warmed test has
a Triton form, and that a round on the cpu backend reports the test's own observables."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest
from hypothesis import given

from litmus.codegen.generate import generate
from litmus.codegen.options import CodegenOptions
from litmus.ir import Branch, Const, Fence, Label, Load, Reg, Spin, Store
from litmus.model import check
from litmus.observables import observables
from litmus.run.config import PRESETS, RunConfig
from litmus.codegen.warm import original_index, warmed
from litmus.run.warm import project, warm_round
from litmus.spec import load_tests
from tests.model.test_laws import SETTINGS, allowed, litmus_tests

ROOT = Path(__file__).resolve().parents[2]
STALE = ROOT / "benchmarks" / "experiments" / "mp_stale_line.yaml"


def _variant(path: Path, name: str):
    return next(t for t in load_tests([str(path)]) if t.variant == name)


def test_only_plain_loads_are_warmed_once_each_ahead_of_the_thread() -> None:
    test = _variant(STALE, "cold-relaxed-sys")
    warm = warmed(test)
    writer, reader = warm.threads
    assert writer == test.threads[0]  # stores and a release: nothing to warm
    assert reader.instrs[1:] == test.threads[1].instrs
    # x, read after the spin, is warmed; the first load, with nothing ahead of it, is not
    assert reader.instrs[0] == Load("warm0", "x", line=test.threads[1].line, warm=True)


def test_a_read_the_thread_already_warms_itself_gets_no_warm_load() -> None:
    test = _variant(STALE, "warm-relaxed-sys")  # ld x; relaxed spin; ld x
    assert warmed(test) is test


def test_nothing_is_warmed_right_behind_an_acquire_spin() -> None:
    from litmus.spec import find_pattern

    [test] = find_pattern("MP-block[bar-release-gpu]")  # acquire spin, then the plain loads
    assert warmed(test) is test


def test_a_warm_load_goes_after_the_last_op_ahead_of_its_read_that_invalidates_l1() -> None:
    # mscclpp's buggy reader: fence.sc.gpu; add; relaxed spin; plain x. A line warmed ahead of the
    # fence would be wiped by its CCTL.IVALL, so the warm load follows the fence, ahead of the spin.
    from litmus.spec import find_pattern

    [test] = find_pattern("BUG-mscclpp-395[buggy-fence-then-relaxed-flag]")
    reader = warmed(test).threads[0]
    assert [type(i).__name__ for i in reader.instrs] == ["Fence", "Load", "Rmw", "Spin", "Load"]
    assert reader.instrs[1].warm and reader.instrs[1].loc == "x" and not reader.instrs[4].warm


@pytest.mark.parametrize("fence, slot", [(Fence("sc", "cta"), 0), (Fence("acq_rel", "gpu"), 2),
                                         (Load("a", "f", sem="acquire", scope="sys"), 2),
                                         (Load("a", "f", sem="relaxed", scope="sys"), 0)])
def test_only_fences_and_acquires_wider_than_the_cta_move_a_warm_load(fence, slot) -> None:
    test = _variant(STALE, "cold-relaxed-sys")
    reader = test.threads[1]
    body = (Store("y", Const(1)), fence, Spin("flag", 1), Load("r9", "x"))
    warm = warmed(replace(test, threads=(test.threads[0], replace(reader, instrs=body)))).threads[1]
    assert warm.instrs[slot].warm
    assert [original_index(warm, k) for k in range(len(warm.instrs))] == [
        None if k == slot else k - (k > slot) for k in range(len(warm.instrs))]


def test_a_thread_with_branches_is_warmed_at_its_top() -> None:
    test = _variant(STALE, "cold-relaxed-sys")
    reader = test.threads[1]
    body = (Fence("sc", "sys"), Label("top"), Load("r9", "x"), Branch("top", "eq", Reg("r9"), Const(0)))
    warm = warmed(replace(test, threads=(test.threads[0], replace(reader, instrs=body)))).threads[1]
    assert warm.instrs[0].warm and warm.instrs[1:] == body


def test_warm_registers_are_names_the_thread_does_not_use() -> None:
    from litmus.ir import Compute, Reg

    test = _variant(STALE, "cold-relaxed-sys")
    reader = test.threads[1]
    taken = replace(reader, instrs=reader.instrs + (Compute("warm0", "mov", Reg("r1")),))
    warm = warmed(replace(test, threads=(test.threads[0], taken)))
    assert warm.threads[1].instrs[0].reg == "warm1"


def test_a_test_without_plain_loads_is_run_as_it_is() -> None:
    test = _variant(ROOT / "catalog" / "iris_mp.yaml", "relaxed-wait-sys")  # relaxed spin, then a plain load of x
    assert warmed(test) is not test
    sb = _variant(ROOT / "catalog" / "sb.yaml", "relaxed-sys")  # relaxed loads only
    assert warmed(sb) is sb
    config = RunConfig(stress=replace(PRESETS["default"], warm_reads=True))
    assert warm_round(lambda *a: pytest.fail("ran"), sb, config, 0) is None


@SETTINGS
@given(litmus_tests())
def test_warming_never_shows_an_outcome_the_test_forbids(test) -> None:
    keys = observables(test)
    projected = {tuple((k, v) for k, v in state if k in keys) for state in allowed(warmed(test))}
    assert projected <= allowed(test)


def test_every_catalog_variant_warmed_has_a_triton_form() -> None:
    tests = load_tests([str(ROOT / "catalog")])
    warmed_tests = [w for t in tests if (w := warmed(t)) is not t]
    assert len(warmed_tests) > 50
    for w in warmed_tests:
        generate(w, CodegenOptions(mode="grid", block=4))


def test_a_warm_round_on_the_cpu_reports_the_tests_own_observables() -> None:
    from litmus.run.cpu import CpuBackend

    test = _variant(STALE, "cold-relaxed-sys")
    config = RunConfig(instances=4, stress=replace(PRESETS["none"], warm_reads=True))
    with CpuBackend() as backend:
        r = backend.run_round(test, config, 0)
    assert r.extra["warm_reads"] and sum(n for _, _, n in r.rows) == r.instances
    assert all(set(state) == set(observables(test)) for state, _, _ in r.rows)
    ptx = {dict(s)["P1:r1"] for s in check(test, "ptx").allowed_states}
    assert {state["P1:r1"] for state, _, _ in r.rows} <= ptx


def test_projection_adds_up_rows_that_differ_only_in_warm_registers() -> None:
    test = _variant(STALE, "warm-relaxed-sys")
    base = {k: 0 for k in observables(test)}
    rows = [({**base, "P1:warm0": 0}, 0, 3), ({**base, "P1:warm0": 1}, 0, 4)]
    assert project(rows, test) == [(base, 0, 7)]


def test_a_row_that_lacks_an_observable_is_an_error_not_a_state() -> None:
    # a row counted with another layout (run 27 counted warm rounds with the test's own ranges)
    test = _variant(STALE, "cold-relaxed-sys")
    row = {k: 0 for k in observables(test) if k != "flag"}
    with pytest.raises(RuntimeError, match="no flag"):
        project([(row, 0, 1)], test)
