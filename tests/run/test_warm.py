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
from litmus.ir import Load
from litmus.model import check
from litmus.observables import observables
from litmus.run.config import PRESETS, RunConfig
from litmus.codegen.warm import warmed
from litmus.run.warm import project, warm_round
from litmus.spec import load_tests
from tests.model.test_laws import SETTINGS, allowed, litmus_tests

ROOT = Path(__file__).resolve().parents[2]
STALE = ROOT / "benchmarks" / "experiments" / "mp_stale_line.yaml"


def _variant(path: Path, name: str):
    return next(t for t in load_tests([str(path)]) if t.variant == name)


def test_only_plain_loads_are_warmed_once_each_ahead_of_the_thread() -> None:
    test = _variant(STALE, "warm-relaxed-sys")
    warm = warmed(test)
    writer, reader = warm.threads
    assert writer == test.threads[0]  # stores and a release: nothing to warm
    assert reader.instrs[1:] == test.threads[1].instrs
    assert reader.instrs[0] == Load("warm0", "x", line=test.threads[1].line, warm=True)  # x read twice, warmed once


def test_warm_registers_are_names_the_thread_does_not_use() -> None:
    from litmus.ir import Compute, Reg

    test = _variant(STALE, "warm-relaxed-sys")
    reader = test.threads[1]
    taken = replace(reader, instrs=reader.instrs + (Compute("warm0", "mov", Reg("r1")),))
    warm = warmed(replace(test, threads=(test.threads[0], taken)))
    assert warm.threads[1].instrs[0].reg == "warm1"


def test_a_test_without_plain_loads_is_run_as_it_is() -> None:
    test = _variant(ROOT / "catalog" / "iris_mp.yaml", "relacq-sys-put")  # CAS spin, then a plain load of x
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

    test = _variant(STALE, "warm-relaxed-sys")
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
