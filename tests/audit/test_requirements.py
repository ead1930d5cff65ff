"""requirements(test) derivation and the must_follow order relation."""

from __future__ import annotations

from litmus.audit import Requirement, must_follow, requirements
from litmus.ir import (Barrier, Branch, Compute, Condition, Const, Fence, Label, LitmusTest, Load, Location, Rmw,
                       Spin, SpinRead, Store, Thread, TrueProp)


def _test(*threads: Thread) -> LitmusTest:
    return LitmusTest("T", "v", (Location("x"), Location("flag")), threads, Condition("exists", TrueProp()))


def test_every_memory_op_fence_and_barrier_becomes_a_requirement_in_program_order() -> None:
    p0 = Thread("P0", 0, 0, (
        Store("x", Const(1), line=3),
        Label("L"),
        Fence("sc", "gpu"),
        Compute("r5", "mov", Const(1)),
        Barrier(),
        Rmw("cas", "r0", "flag", Const(1), Const(0), "release", "sys"),
        Branch("L"),
    ))
    p1 = Thread("P1", 1, 0, (
        Spin("flag", 1, SpinRead("cas", "acquire", "sys", reset=0)),
        Spin("flag", 1, SpinRead("load", volatile=True)),
        Load("r1", "x", "acquire", "gpu"),
    ))
    reqs = requirements(_test(p0, p1))
    assert [r.key.describe() for r in reqs] == [
        "store", "fence sc gpu", "barrier sync", "rmw cas release sys",
        "rmw cas acquire sys", "load volatile", "load acquire gpu",
    ]
    assert [(r.thread, r.instr_index) for r in reqs] == [
        ("P0", 0), ("P0", 2), ("P0", 4), ("P0", 5), ("P1", 0), ("P1", 1), ("P1", 2)]
    assert reqs[0].line == 3 and reqs[0].loc == "x"


def _req(index: int, kind: str, sem: str = "-", loc: str = "x", volatile: bool = False, thread: str = "P0"):
    scope = "-" if sem == "-" else "sys"
    return Requirement(thread, index, kind, "cas" if kind == "rmw" else "", sem, scope, volatile, loc, None)


def test_must_follow_orders_only_what_the_model_orders() -> None:
    weak_st, weak_ld = _req(0, "store"), _req(1, "load", loc="y")
    rel = _req(1, "store", "release", "flag")
    acq = _req(0, "load", "acquire", "flag")
    relaxed_flag = _req(1, "store", "relaxed", "flag")
    assert must_follow(weak_st, rel)  # release keeps earlier ops before it
    assert must_follow(acq, weak_ld)  # acquire keeps later ops after it
    assert not must_follow(weak_st, relaxed_flag)  # weak then relaxed: compiler may reorder
    assert not must_follow(weak_st, weak_ld)
    assert must_follow(_req(0, "load", "relaxed", "x", True), _req(1, "store", "relaxed", "y", True))  # volatile pair
    assert must_follow(_req(0, "store", "relaxed", "x"), _req(1, "load", "relaxed", "x"))  # coherence
    assert must_follow(weak_st, _req(1, "fence", "sc", ""))
    assert not must_follow(rel, weak_st)  # program order is respected
    assert not must_follow(weak_st, _req(1, "store", "release", thread="P1"))  # other thread
