"""Barrier matching: generations, arrive, distinct resources, deadlock."""

from __future__ import annotations

from litmus.model.barriers import match_barriers
from litmus.model.traces import TEvent


def bar(i: int, count: int | None = None, arrive: bool = False) -> TEvent:
    return TEvent("B", bar_key=(i, count), arrive=arrive)


def test_sync_barriers_with_the_same_id_synchronize_both_ways():
    out = match_barriers([[bar(0)], [bar(0)]], [(0, 0), (0, 0)])
    assert set(out.edges) == {((0, 0), (1, 0)), ((1, 0), (0, 0))} and not out.blocked


def test_arrive_signals_but_does_not_wait():
    out = match_barriers([[bar(1, arrive=True)], [bar(1)]], [(0, 0), (0, 0)])
    assert set(out.edges) == {((0, 0), (1, 0))}


def test_different_ids_counts_or_ctas_do_not_synchronize():
    assert match_barriers([[bar(0)], [bar(1)]], [(0, 0), (0, 0)]).edges == ()
    assert match_barriers([[bar(1, 1)], [bar(1, 2)]], [(0, 0), (0, 0)]).edges == ()
    assert match_barriers([[bar(0)], [bar(0)]], [(0, 0), (0, 1)]).edges == ()


def test_crossed_barriers_deadlock():
    out = match_barriers([[bar(0), bar(1)], [bar(1), bar(0)]], [(0, 0), (0, 0)])
    assert out.blocked == {0: 0, 1: 0}


def test_generations_pair_kth_arrivals():
    out = match_barriers([[bar(0), bar(0)], [bar(0), bar(0)]], [(0, 0), (0, 0)])
    assert set(out.edges) == {((0, 0), (1, 0)), ((1, 0), (0, 0)), ((0, 1), (1, 1)), ((1, 1), (0, 1))}
