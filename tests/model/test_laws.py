"""Laws of the models over random small tests (2-3 threads, <= 3 memory ops each, x and y).

- every SC-allowed state is PTX-allowed (each law under ptx and under ptx75);
- every SC hang (a spin that may never exit) is a PTX hang, under ptx and ptx75;
- strengthening an order (weak -> relaxed -> release/acquire/acq_rel), widening a scope
  (cta -> gpu -> sys) or adding a fence never adds PTX-allowed states.
"""

from __future__ import annotations

import dataclasses

import pytest
from hypothesis import HealthCheck, assume, given, settings, strategies as st

from litmus.ir import (Condition, Const, Fence, LitmusTest, Load, Location, Rmw, Spin, SpinRead, Store, Thread,
                       TrueProp)
from litmus.model import check
from tests.model.irs import trace_picks

SCOPES = ("cta", "gpu", "sys")
LOCS = ("x", "y")


@st.composite
def instrs(draw, tid: int) -> tuple:
    out = []
    for k in range(draw(st.integers(1, 3))):
        kind = draw(st.sampled_from(["ld", "st", "st", "rmw", "fence"]))
        loc = draw(st.sampled_from(LOCS))
        scope = draw(st.sampled_from(SCOPES))
        if kind == "ld":
            out.append(Load(f"r{k}", loc, draw(st.sampled_from(["weak", "relaxed", "acquire"])), scope))
        elif kind == "st":
            out.append(Store(loc, Const(tid * 3 + k + 1), draw(st.sampled_from(["weak", "relaxed", "release"])), scope))
        elif kind == "rmw":
            out.append(Rmw("exch", f"r{k}", loc, Const(tid * 3 + k + 1),
                           sem=draw(st.sampled_from(["relaxed", "acquire", "release", "acq_rel"])), scope=scope))
        else:
            out.append(Fence(draw(st.sampled_from(["acq_rel", "sc"])), scope))
    return tuple(out)


@st.composite
def litmus_tests(draw) -> LitmusTest:
    n = draw(st.integers(2, 3))
    threads = tuple(
        Thread(f"P{i}", draw(st.integers(0, 1)), draw(st.integers(0, 1)), draw(instrs(i)))
        for i in range(n))
    return LitmusTest("law", "", tuple(Location(l) for l in LOCS), threads,
                      Condition("exists", TrueProp(), "true"))


MAX_PICKS = 50_000
"""Largest product of per-thread trace counts a law checks.  Of 400 generated tests, 397 were
under it (at most 1.7 s for a ptx check); one with 262,144 picks (three threads exchanging and
reading one location) took 15 s per model, and in two runs of the suite one held a test
worker in this law for over ten minutes (py-spy)."""


def allowed(t: LitmusTest, model: str = "ptx") -> set:
    assume(trace_picks(t) <= MAX_PICKS)
    return set(check(t, model).allowed_states)


def replace_instr(t: LitmusTest, ti: int, ii: int, new) -> LitmusTest:
    th = t.threads[ti]
    instrs = th.instrs[:ii] + ((new,) if new is not None else ()) + th.instrs[ii + 1:]
    threads = t.threads[:ti] + (dataclasses.replace(th, instrs=instrs),) + t.threads[ti + 1:]
    return dataclasses.replace(t, threads=threads)


STRONGER = {
    Load: {"weak": ["relaxed", "acquire"], "relaxed": ["acquire"]},
    Store: {"weak": ["relaxed", "release"], "relaxed": ["release"]},
    Rmw: {"relaxed": ["acquire", "release", "acq_rel"], "acquire": ["acq_rel"], "release": ["acq_rel"]},
    Fence: {"acq_rel": ["sc"]},
}

SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


PTX_MODELS = pytest.mark.parametrize("model", ["ptx", "ptx75"])


@PTX_MODELS
@SETTINGS
@given(litmus_tests())
def test_sc_states_are_ptx_states(model, t):
    assert allowed(t, "sc") <= allowed(t, model)


@PTX_MODELS
@SETTINGS
@given(litmus_tests(), st.data())
def test_strengthening_an_order_never_adds_states(model, t, data):
    ti = data.draw(st.integers(0, len(t.threads) - 1))
    ii = data.draw(st.integers(0, len(t.threads[ti].instrs) - 1))
    i = t.threads[ti].instrs[ii]
    options = STRONGER[type(i)].get(i.sem, [])
    if not options:
        return
    stronger = dataclasses.replace(i, sem=data.draw(st.sampled_from(options)))
    assert allowed(replace_instr(t, ti, ii, stronger), model) <= allowed(t, model)


@PTX_MODELS
@SETTINGS
@given(litmus_tests(), st.data())
def test_widening_a_scope_never_adds_states(model, t, data):
    ti = data.draw(st.integers(0, len(t.threads) - 1))
    ii = data.draw(st.integers(0, len(t.threads[ti].instrs) - 1))
    i = t.threads[ti].instrs[ii]
    if i.scope == "sys" or getattr(i, "sem", "") == "weak":
        return
    wider = dataclasses.replace(i, scope=data.draw(st.sampled_from(SCOPES[SCOPES.index(i.scope) + 1:])))
    assert allowed(replace_instr(t, ti, ii, wider), model) <= allowed(t, model)


@PTX_MODELS
@SETTINGS
@given(litmus_tests(), st.data())
def test_adding_a_fence_never_adds_states(model, t, data):
    ti = data.draw(st.integers(0, len(t.threads) - 1))
    th = t.threads[ti]
    at = data.draw(st.integers(0, len(th.instrs)))
    fence = Fence(data.draw(st.sampled_from(["acq_rel", "sc"])), data.draw(st.sampled_from(SCOPES)))
    instrs = th.instrs[:at] + (fence,) + th.instrs[at:]
    fenced = dataclasses.replace(t, threads=t.threads[:ti] + (dataclasses.replace(th, instrs=instrs),)
                                 + t.threads[ti + 1:])
    assert allowed(fenced, model) <= allowed(t, model)


# ------------------------------------------------------------------ hangs: SC's are PTX's


@st.composite
def spin_tests(draw) -> LitmusTest:
    """2-3 threads of loads, stores, RMWs and fences, each with 1-2 spins (load or CAS) on x or
    y waiting for a value some thread stores there (so that spins exit in some executions)."""
    n = draw(st.integers(2, 3))
    bodies = [list(draw(instrs(tid))) for tid in range(n)]
    written: dict[str, set[int]] = {l: set() for l in LOCS}
    for body in bodies:
        for i in body:
            if isinstance(i, (Store, Rmw)):
                written[i.loc].add(i.value.value)
    threads = []
    for tid, body in enumerate(bodies):
        for _ in range(draw(st.integers(1, 2))):
            loc, scope = draw(st.sampled_from(LOCS)), draw(st.sampled_from(SCOPES))
            until = draw(st.sampled_from(sorted(written[loc] or {0})))
            if draw(st.booleans()):
                read = SpinRead("load", draw(st.sampled_from(["weak", "relaxed", "acquire"])), scope,
                                volatile=draw(st.booleans()))
            else:
                read = SpinRead("cas", draw(st.sampled_from(["relaxed", "acquire", "acq_rel"])), scope,
                                reset=draw(st.sampled_from(sorted(written[loc] | {0}))))
            body.insert(draw(st.integers(0, len(body))), Spin(loc, until, read))
        threads.append(Thread(f"P{tid}", draw(st.integers(0, 1)), draw(st.integers(0, 1)), tuple(body)))
    return LitmusTest("hang-law", "", tuple(Location(l) for l in LOCS), tuple(threads),
                      Condition("exists", TrueProp(), "true"))


@SETTINGS
@given(spin_tests())
def test_a_hang_sc_finds_ptx_finds(t):
    assume(trace_picks(t) <= MAX_PICKS)  # as allowed() does: a larger draw ran past the checker's budget
    if check(t, "sc").possible_hang:
        assert check(t, "ptx").possible_hang
        assert check(t, "ptx75").possible_hang


def test_hang_repro_of_issue_14():
    """P0 (rank 0) stores f=2 volatile, then spins until f == 1; P1 (rank 1) stores f=1
    relaxed.gpu.  SC hangs when f=1 comes first; the two stores are not morally strong, so PTX
    leaves them unordered and the spin may read 2 forever too."""
    p0 = Thread("P0", 0, 0, (Store("f", Const(2), "relaxed", "sys", volatile=True),
                              Spin("f", 1, SpinRead("load", "relaxed", "sys", volatile=True))))
    p1 = Thread("P1", 1, 0, (Store("f", Const(1), "relaxed", "gpu"),))
    t = LitmusTest("hang-repro", "", (Location("f"),), (p0, p1), Condition("exists", TrueProp(), "true"))
    assert check(t, "sc").possible_hang
    assert check(t, "ptx").possible_hang and check(t, "ptx75").possible_hang
