"""Enumeration of every cycle up to a length (litmus.diy.enumerate)."""

from __future__ import annotations

from litmus.diy.cycle import MAX_THREADS, canonical, check
from litmus.diy.edges import parse_edge_set
from litmus.diy.enumerate import cycles
from litmus.diy.naming import pattern_name

BASIC = "Rfe,Fre,Coe,PodWW,PodWR,PodRW,PodRR"


def test_the_four_edge_classics_come_once_each() -> None:
    found = [pattern_name(c) for c in cycles(parse_edge_set(BASIC), 4)]
    assert sorted(found) == sorted(["MP", "SB", "LB", "S", "R", "2+2W"])


def test_every_enumerated_cycle_is_well_formed_canonical_and_new() -> None:
    found = list(cycles(parse_edge_set("Rfe,Fre,Coe,Pod*,Fenced*"), 6))
    keys = [tuple(e.name for e in canonical(c)) for c in found]
    assert len(keys) == len(set(keys))
    for c in found:
        assert canonical(c) == c
        check(c)
        assert 2 <= sum(e.external for e in c) <= MAX_THREADS
        assert all(c[k].external or c[k - 1].external for k in range(len(c)))


def test_lengths_up_to_six_include_the_three_thread_classics() -> None:
    names = {pattern_name(c) for c in cycles(parse_edge_set(BASIC), 6)}
    assert {"WRC", "ISA2", "RWC", "W+RWC", "IRIW", "3.SB", "3.LB", "3.2W"} <= names
    assert len(list(cycles(parse_edge_set(BASIC), 6))) == 48
