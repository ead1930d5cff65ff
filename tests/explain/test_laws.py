"""Laws of ``explain`` over random tests (benchmarks/fuzz_patterns.py's generator, and the small
IR tests of tests/model/test_laws.py): every state ``model`` lists is explained by an execution
that ends in it; every other state over the values the test's writes can produce is explained by
an axiom (each rejecting cycle closing) or as reached by no candidate execution.  ``explain``
re-checks each explanation itself (an execution consistent, a cycle's edges in their relations):
a failed re-check is an error here."""

from __future__ import annotations

import os
import random
import sys
from pathlib import Path

import pytest
import yaml
from hypothesis import HealthCheck, assume, given, settings, strategies as st

from litmus.errors import LitmusError
from litmus.explain import explain
from litmus.explain.state import prop_of
from litmus.ir import LitmusTest
from litmus.model import check
from litmus.model.budget import ENV as MODEL_STEPS_ENV
from litmus.model.budget import BudgetExceeded
from litmus.model.executions import value_domains
from litmus.model.layout import memory_layout
from litmus.observables import observables
from litmus.spec import load_text
from tests.model.test_laws import litmus_tests

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from benchmarks.fuzz_patterns import Options, pattern  # noqa: E402

MODEL_STEPS = "20000"
"""The model's work budget per check here: a random pattern past it is skipped."""

SLOW_CHECK = 1.0
"""A random test whose check takes longer (seconds) is skipped: some trace-combination searches
take tens of seconds without reaching the step budget."""

SEARCH_STEPS = 20_000
"""The candidate search's steps per forbidden state (a search that stops says so)."""


def fuzz_test(seed: int) -> LitmusTest:
    doc = pattern(random.Random(seed), seed, Options())
    doc.update(expect="allowed", why="probe", may_hang=True)
    [t] = load_text(yaml.safe_dump(doc, sort_keys=False), f"fuzz/seed{seed}.yaml")
    return t


def value_space(t: LitmusTest) -> dict[str, list[int]]:
    """Per state key, the values the test's writes can produce (a register: any location's)."""
    doms = value_domains(t, 2)
    every = sorted({v for vs in doms.values() for v in vs})
    return {k: sorted(doms.get(t.location(k).physical(t), every)) if ":" not in k else every
            for k in observables(t)}


def check_states(t: LitmusTest, model: str, data: st.DataObject) -> None:
    old = os.environ.get(MODEL_STEPS_ENV)
    os.environ[MODEL_STEPS_ENV] = MODEL_STEPS
    try:
        try:
            result = check(t, model)
        except LitmusError:
            assume(False)  # past the budget, or a construct this model refuses
        # explaining costs a few checks (the frames are enumerated again): keep the law quick
        assume(result.seconds < SLOW_CHECK)
        allowed = [dict(s) for s in result.allowed_states]
        picked = data.draw(st.lists(st.sampled_from(allowed), max_size=2, unique_by=lambda s: tuple(s.items()))
                           ) if allowed else []  # every execution hangs: no state at all
        for s in picked:
            x = explain(t, prop_of(s), model, SEARCH_STEPS)
            assert x.allowed and x.execution is not None and x.execution.state == s
        if memory_layout(t) is not None:
            return  # values per granule: the value space below is per whole location
        space = value_space(t)
        for _ in range(2):
            s = {k: data.draw(st.sampled_from(vs), label=k) for k, vs in space.items()}
            try:
                x = explain(t, prop_of(s), model, SEARCH_STEPS)
            except BudgetExceeded:
                continue  # the candidate search ran past the model's step budget: a located error, as in check
            assert x.allowed == (s in allowed)
            if x.allowed:
                assert x.execution is not None and x.execution.state == s
            else:
                assert x.forbidden_by or x.no_candidate or x.stopped
                assert all(g.closes or g.kind == "empty" for g in x.forbidden_by)
    finally:
        if old is None:
            os.environ.pop(MODEL_STEPS_ENV, None)
        else:
            os.environ[MODEL_STEPS_ENV] = old


@pytest.mark.parametrize("model", ["ptx75", "ptx", "sc"])
@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(seed=st.integers(0, 10**6), data=st.data())
def test_random_patterns_are_explained(model: str, seed: int, data: st.DataObject) -> None:
    check_states(fuzz_test(seed), model, data)


@pytest.mark.parametrize("model", ["ptx", "ptx75", "sc"])
@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(t=litmus_tests(), data=st.data())
def test_small_ir_tests_are_explained(model: str, t: LitmusTest, data: st.DataObject) -> None:
    check_states(t, model, data)
