"""Spin exit conditions (``cmp``, ``mask``) in the model: a spin leaves only on a value that
satisfies its condition, and equivalent conditions give equal verdicts."""

from __future__ import annotations

import dataclasses

from hypothesis import HealthCheck, given, settings, strategies as st

from litmus.ir import (Condition, Const, LitmusTest, Load, Location, Spin, SpinRead, Store, Thread, TrueProp,
                       spin_exits)
from litmus.model import check

SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
CMPS = ("==", "!=", "<", "<=", ">", ">=")


def counter_test(values: tuple[int, ...], spin: Spin, rsem: str = "acquire", wsem: str = "release") -> LitmusTest:
    """P0 stores x=1, then each of ``values`` to f in turn; P1 runs ``spin`` on f, then reads x."""
    p0 = Thread("P0", 0, 0, (Store("x", Const(1)),) + tuple(Store("f", Const(v), wsem, "sys") for v in values))
    p1 = Thread("P1", 1, 0, (dataclasses.replace(spin, read=SpinRead("load", rsem, "sys")), Load("r1", "x")))
    return LitmusTest("spin-cond", "", (Location("x"), Location("f", 5)), (p0, p1),
                      Condition("exists", TrueProp(), "true"))


spins = st.builds(lambda until, cmp, mask: Spin("f", until, reg="r0", cmp=cmp, mask=mask),
                  st.integers(0, 9), st.sampled_from(CMPS), st.one_of(st.none(), st.sampled_from([1, 3, 6, 0xF])))


@SETTINGS
@given(st.lists(st.integers(0, 9), min_size=1, max_size=3).map(tuple), spins)
def test_a_spin_leaves_only_on_a_value_that_meets_its_condition(values, spin):
    t = counter_test(values, spin)
    result = check(t, "ptx75")
    for state in result.allowed_states:
        r0 = dict(state)["P1:r0"]
        assert spin_exits(spin, r0), (spin, state)
    # the spin can leave exactly when some value it may read (the initial 5 or a stored one) meets it
    assert bool(result.allowed_states) == any(spin_exits(spin, v) for v in (5,) + values)


@SETTINGS
@given(st.lists(st.integers(0, 9), min_size=1, max_size=3).map(tuple), spins)
def test_a_mask_of_all_ones_changes_nothing(values, spin):
    plain = check(counter_test(values, dataclasses.replace(spin, mask=None)), "ptx75")
    ones = check(counter_test(values, dataclasses.replace(spin, mask=0xFFFFFFFF)), "ptx75")
    assert set(plain.allowed_states) == set(ones.allowed_states)
    assert plain.possible_hang == ones.possible_hang


@SETTINGS
@given(st.lists(st.integers(0, 9), min_size=1, max_size=3).map(tuple), st.integers(1, 9))
def test_equivalent_comparisons_give_equal_verdicts(values, u):
    for a, b in (((">=", u), (">", u - 1)), (("<", u), ("<=", u - 1))):
        ra = check(counter_test(values, Spin("f", a[1], reg="r0", cmp=a[0])), "ptx75")
        rb = check(counter_test(values, Spin("f", b[1], reg="r0", cmp=b[0])), "ptx75")
        assert set(ra.allowed_states) == set(rb.allowed_states)
        assert ra.possible_hang == rb.possible_hang


def test_a_not_equal_spin_on_a_counter_is_message_passing():
    """f starts at 5; the writer bumps it to 6 after x=1: a ``!= 5`` spin that left must see x=1
    with release/acquire, and may see x=0 with relaxed accesses; it can hang only if nothing writes."""
    spin = Spin("f", 5, reg="r0", cmp="!=")
    relacq = check(counter_test((6,), spin), "ptx75")
    assert {dict(s)["P1:r1"] for s in relacq.allowed_states} == {1}
    relaxed = check(counter_test((6,), spin, "relaxed", "relaxed"), "ptx75")
    assert {dict(s)["P1:r1"] for s in relaxed.allowed_states} == {0, 1}
    assert {dict(s)["P1:r0"] for s in relaxed.allowed_states} == {6}
    assert check(counter_test((5,), spin), "ptx75").possible_hang
