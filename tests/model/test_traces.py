"""Per-thread traces: value guessing, branches, spin loops, unrolling."""

from __future__ import annotations

from litmus.ir import Branch, Compute, Const, Label, Load, Reg, Rmw, Store
from litmus.model.traces import thread_traces

from .irs import th


def test_each_read_value_gives_a_trace_and_branches_follow_it():
    t = th("P0", Load("r0", "x"), Branch("skip", "eq", Reg("r0"), Const(0)), Store("y", Const(1)),
           Label("skip"))
    trs = thread_traces(t, {"x": (0, 1), "y": (0, 1)}, unroll=2)
    kinds = sorted(tuple(e.kind for e in tr.events) for tr in trs)
    assert kinds == [("R",), ("R", "W")]
    w = [tr for tr in trs if len(tr.events) == 2][0].events[1]
    assert w.ctrl == frozenset({0})  # control dependent on the read


def test_pure_spin_iteration_is_not_repeated_but_gives_a_stuck_trace():
    t = th("P0", Label("L"), Load("r0", "f"), Branch("L", "ne", Reg("r0"), Const(1)), Load("r1", "x"))
    trs = thread_traces(t, {"f": (0, 1, 2), "x": (0,)}, unroll=5)
    done = [tr for tr in trs if tr.status == "done"]
    stuck = [tr for tr in trs if tr.status == "stuck"]
    assert len(done) == 1 and len(done[0].events) == 2
    assert len(stuck) == 2 and all(tr.events[-1].hang for tr in stuck)


def test_loop_with_side_effects_is_unrolled_up_to_the_bound():
    t = th("P0", Compute("r1", "mov", Const(0)), Label("L"), Compute("r1", "add", Reg("r1"), Const(1)),
           Store("x", Reg("r1")), Branch("L", "lt", Reg("r1"), Const(5)))
    trs = thread_traces(t, {"x": (0,)}, unroll=2)
    assert [tr.status for tr in trs] == ["stuck"]
    trs = thread_traces(t, {"x": (0,)}, unroll=4)
    assert [tr.status for tr in trs] == ["done"]
    assert [e.value for e in trs[0].events] == [1, 2, 3, 4, 5]


def test_failed_cas_is_only_a_read():
    t = th("P0", Rmw("cas", "r0", "x", Const(5), expected=Const(1)))
    trs = thread_traces(t, {"x": (0, 1)}, unroll=2)
    by_value = {tr.events[0].value: [e.kind for e in tr.events] for tr in trs}
    assert by_value == {0: ["R"], 1: ["R", "W"]}
