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


def qbar(q: int) -> TEvent:
    return TEvent("B", bar_key=(1, 1), quorum=q)


def test_quorum_opens_after_q_arrivals_and_late_arrivals_follow_the_early_ones():
    from litmus.model.barriers import barrier_outcomes

    outs = barrier_outcomes([[qbar(2)], [qbar(2)], [qbar(2)]], [(0, 0)] * 3)
    assert all(not o.blocked for o in outs)
    # one outcome per choice of the two first arrivals: each has a mutual pair and a late one
    assert len(outs) == 3
    for o in outs:
        edges = set(o.edges)
        mutual = {(a, b) for a, b in edges if (b, a) in edges}
        late = {b for _, b in edges} - {a for a, _ in mutual}
        assert len(mutual) == 2 and len(late) == 1
        (t,) = late
        assert {(a, t) for a in {x for x, _ in mutual}} <= edges
        assert not any(a == t for a, _ in edges)  # nothing is ordered after the late one's barrier


def test_quorum_never_reached_deadlocks_every_arrival():
    from litmus.model.barriers import barrier_outcomes

    (out,) = barrier_outcomes([[qbar(4)], [qbar(4)], [qbar(4)]], [(0, 0)] * 3)
    assert out.blocked == {0: 0, 1: 0, 2: 0} and out.edges == ()
