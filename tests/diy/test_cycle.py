"""Cycles -> events: well-formedness, rotations, the condition (litmus.diy.cycle, naming)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from litmus.diy.cycle import canonical, check, layout, rotations
from litmus.diy.edges import parse_cycle
from litmus.diy.enumerate import cycles
from litmus.diy.edges import parse_edge_set
from litmus.diy.naming import pattern_name, rotation
from litmus.errors import LitmusError

POOL = list(cycles(parse_edge_set("Rfe,Fre,Coe,Rfi,Fri,Coi,Pod*,Fence*"), 5))


def test_mp_layout_is_the_classic_test() -> None:
    lay = layout(rotation(parse_cycle("PodWW Rfe PodRR Fre")))
    assert lay.condition == "P1:r0 == 1 /\\ P1:r1 == 0"
    assert [[(e.dir, e.loc, e.value) for e in t] for t in lay.threads] == [
        [("W", "x", 1), ("W", "y", 1)], [("R", "y", 1), ("R", "x", 0)]]


def test_two_writes_to_a_location_pin_the_final_value() -> None:
    lay = layout(rotation(parse_cycle("PodWW Rfe PodRW Coe")))  # S
    assert lay.condition == "P1:r0 == 1 /\\ x == 2"
    assert lay.final == (("x", 2),)


def test_a_fenced_edge_puts_its_fence_between_the_accesses() -> None:
    lay = layout(rotation(parse_cycle("FencedWR Fre FenceAcqReldWR Fre")))
    kinds = [[getattr(i, "fence", None) or i.dir for i in t] for t in lay.threads]
    assert sorted(kinds) == [["W", "acq_rel", "R"], ["W", "sc", "R"]]


@pytest.mark.parametrize("text, words", [
    ("PodWW Rfe PodWR Fre", "event directions must chain"),
    ("PodWR Fre", "at least two external edges"),
    ("PodWW PodWW", "at least two external edges"),
    ("Rfe Fre", "coherence cycle"),
    ("Rfe Fre Rfe PodRR Fre", "only one location-changing edge"),
    ("Rfe PodRR Fre Rfe PodRR Fre Rfe PodRR Fre Rfe PodRR Fre Rfe PodRR Fre", "at most 4"),
    ("Coe Coe PodWW Coe PodWW", "3 writes to one location"),
    ("Rfe", "at least two edges"),
])
def test_ill_formed_cycles_are_one_line_errors(text: str, words: str) -> None:
    with pytest.raises(LitmusError) as err:
        check(parse_cycle(text))
    assert words in str(err.value) and "\n" not in str(err.value)


def test_classic_shapes_get_diy_names_with_fence_decorations() -> None:
    named = {c: pattern_name(parse_cycle(c)) for c in (
        "PodWW Rfe PodRR Fre", "Fre PodWR Fre PodWR", "PodRW Rfe PodRW Rfe", "PodWW Coe PodWW Coe",
        "Rfe PodRR Fre Rfe PodRR Fre", "FencedWW Rfe PodRR Fre", "PodWW Rfe FenceAcqReldRR Fre",
        "PodWR Fre PodWW Coe", "PodWR Fre PodWR Fre Coe")}
    assert list(named.values()) == ["MP", "SB", "LB", "2+2W", "IRIW", "MP+fence.sc+po",
                                    "MP+po+fence.acq_rel", "R", "Coe_PodWR_Fre_PodWR_Fre"]


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(POOL), st.integers(0, 7))
def test_rotations_are_one_test(c: tuple, k: int) -> None:
    """Law: every rotation of a cycle has one canonical form, name and layout."""
    r = rotations(c)[k % len(c)]
    assert canonical(r) == canonical(c)
    assert pattern_name(r) == pattern_name(c)
    assert layout(rotation(r)) == layout(rotation(c))


def test_enumerated_names_are_unique() -> None:
    """Law: distinct cycles get distinct pattern names (any case), so files never collide."""
    names = [pattern_name(c).lower() for c in POOL]
    assert len(names) == len(set(names))
