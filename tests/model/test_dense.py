"""Straight-line tests are checked reads-from first (litmus.model.symbolic): dense RMW tests
are decided within a small work budget, and the symbolic path gives the states and hangs of the
value-guessing path on random small tests."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, assume, given, settings, strategies as st

from litmus.errors import LitmusError
from litmus.ir import (Barrier, Compute, Condition, Const, Fence, LitmusTest, Load, Location, Reg, Rmw, Store,
                       Thread, TrueProp)
from litmus.model import budget, check, checker
from litmus.spec import load_paths
from tests.model.irs import trace_picks
from tests.model.test_widths_laws import width_tests

DATA = Path(__file__).parent / "data"
REPRODUCERS = sorted(DATA.glob("*.yaml"))

STEPS = 400_000
"""Budget each reproducer variant must be decided in (steps of budget.charge: traces, trace
combinations, reads-from search nodes, orders tried); the heaviest takes 261,810 (four threads,
a 64-bit location, under sc).  Before the symbolic path, the three-thread 32-bit variant ran
out of a budget of 10,000 steps in the value-guessing path's value domains alone."""


def _variants() -> list[LitmusTest]:
    return [t for f in REPRODUCERS for t in load_paths([f])]


@pytest.mark.parametrize("test", _variants(), ids=lambda t: t.id)
def test_a_reproducer_is_decided_within_the_budget(test: LitmusTest, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(budget.ENV, str(STEPS))
    model = "ptx75" if test.uses_proxies() else "ptx"
    r = check(test, model)
    assert r.allowed_states
    if test.expect is not None:
        assert r.validated == (test.expect == "allowed") or r.target_reachable == (test.expect == "allowed")


def test_past_the_budget_the_check_says_how_far_it_got_and_which_limit_to_raise(monkeypatch) -> None:
    t = _variants()[0]
    monkeypatch.setenv(budget.ENV, "50")
    with pytest.raises(LitmusError) as e:
        check(t, "ptx")
    text = str(e.value)
    assert budget.ENV in text and "got as far as" in text and t.id in text
    assert str(t.source_file) in text


def test_the_budget_also_bounds_the_value_guessing_path(monkeypatch) -> None:
    t = _variants()[0]
    monkeypatch.setattr(checker, "SYMBOLIC", False)
    monkeypatch.setenv(budget.ENV, "10000")
    with pytest.raises(LitmusError, match=budget.ENV):
        check(t, "ptx")


SCOPES = ("cta", "gpu", "sys")
LOCS = ("x", "y")


@st.composite
def rmw_instrs(draw, tid: int) -> tuple:
    """1-3 ops of one thread: loads, stores, exch/add/cas (cas on a register too), register
    arithmetic, fences and a barrier, on x and y."""
    out: list = []
    for k in range(draw(st.integers(1, 3))):
        kind = draw(st.sampled_from(["ld", "st", "exch", "add", "cas", "cas", "fence", "compute", "bar"]))
        loc = draw(st.sampled_from(LOCS))
        scope = draw(st.sampled_from(SCOPES))
        rsem = draw(st.sampled_from(["relaxed", "acquire", "release", "acq_rel"]))
        v = Const(tid * 3 + k + 1)
        if kind == "ld":
            out.append(Load(f"r{k}", loc, draw(st.sampled_from(["weak", "relaxed", "acquire"])), scope))
        elif kind == "st":
            val = Reg("r0") if k > 0 and draw(st.booleans()) else v
            out.append(Store(loc, val, draw(st.sampled_from(["weak", "relaxed", "release"])), scope))
        elif kind in ("exch", "add"):
            out.append(Rmw(kind, f"r{k}", loc, v, sem=rsem, scope=scope))
        elif kind == "cas":
            exp = Reg("r0") if k > 0 and draw(st.booleans()) else Const(draw(st.integers(0, 4)))
            out.append(Rmw("cas", f"r{k}", loc, v, exp, sem=rsem, scope=scope))
        elif kind == "compute":
            out.append(Compute(f"r{k}", "add", Reg("r0"), Const(1)))
        elif kind == "bar":
            out.append(Barrier())
        else:
            out.append(Fence(draw(st.sampled_from(["acq_rel", "sc"])), scope))
    return tuple(out)


@st.composite
def rmw_tests(draw) -> LitmusTest:
    n = draw(st.integers(2, 3))
    threads = tuple(Thread(f"P{i}", draw(st.integers(0, 1)), draw(st.integers(0, 1)), draw(rmw_instrs(i)))
                    for i in range(n))
    return LitmusTest("dense-law", "", tuple(Location(l) for l in LOCS), threads,
                      Condition("exists", TrueProp(), "true"))


MAX_PICKS = 5000
"""Largest product of per-thread trace counts compared: the value-guessing path is the slow side."""

LAWS = settings(max_examples=60, deadline=None, derandomize=True,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])


def _same(t: LitmusTest, model: str) -> None:
    assume(trace_picks(t) <= MAX_PICKS)
    symbolic = check(t, model)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(checker, "SYMBOLIC", False)
        guessed = check(t, model)
    assert set(symbolic.allowed_states) == set(guessed.allowed_states)
    assert symbolic.possible_hang == guessed.possible_hang


@pytest.mark.parametrize("model", ["ptx75", "ptx", "sc"])
@LAWS
@given(t=rmw_tests())
def test_reads_from_first_gives_the_states_of_value_guessing(model: str, t: LitmusTest) -> None:
    _same(t, model)


@pytest.mark.parametrize("model", ["ptx75", "ptx", "sc"])
@LAWS
@given(t=width_tests())
def test_reads_from_first_gives_the_states_of_value_guessing_with_widths(model: str, t: LitmusTest) -> None:
    from litmus.model.symbolic import straight_line

    assume(straight_line(t))
    _same(t, model)
