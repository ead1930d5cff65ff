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


def test_an_op_that_no_path_runs_asks_nothing() -> None:
    """A retry whose exit test holds for every value the location can hold never runs its second
    iteration; the compiler may delete it (LLVM does on gfx942), so the audit asks nothing of it."""
    from litmus.model.checker import unreachable_instructions
    from litmus.spec import load_text

    text = """name: RETRY-DEAD
locations:
  l1: {init: 0, bits: 16}
threads:
  P0:
    at: {rank: 0, cta: 0}
    do:
      - store: {loc: l1, value: 2}
  P1:
    at: {rank: 0, cta: 1}
    do:
      - retry:
          times: 2
          until: "r1 >= {bound}"
          do:
            - volatile_load: {reg: r1, loc: l1}
            - fence: {sem: sc, scope: cta}
exists: "P1:r1 == 2"
expect: allowed
why: probe
"""
    dead = load_text(text.replace("{bound}", "0"), "dead.yaml")[0]
    live = load_text(text.replace("{bound}", "2"), "live.yaml")[0]
    gone = unreachable_instructions(dead)["P1"]
    assert gone and unreachable_instructions(live)["P1"] == frozenset()
    assert unreachable_instructions(dead)["P0"] == frozenset()
    kept = {(r.thread, r.instr_index) for r in requirements(dead)}
    assert kept and not any(("P1", k) in kept for k in gone)
    assert {(r.thread, r.instr_index) for r in requirements(live)} > kept  # the second load and fence


def test_a_thread_with_a_path_cut_short_is_never_called_dead() -> None:
    """A spin that may never exit cuts the model's paths short, so ops the paths did not reach
    may still run: such a thread is not answered, and all its ops ask."""
    from litmus.model.checker import unreachable_instructions
    from litmus.spec import load_text

    test = load_text("""name: SPIN-THEN-RETRY
locations:
  f: {init: 0}
  l1: {init: 0, bits: 16}
threads:
  P0:
    at: {rank: 0, cta: 0}
    do:
      - store: {loc: l1, value: 2}
  P1:
    at: {rank: 0, cta: 1}
    do:
      - spin: {loc: f, until: 1, cmp: ">=", read: {kind: load, sem: relaxed, scope: gpu}, bound: 100}
      - retry:
          times: 2
          until: "r1 >= 0"
          do:
            - volatile_load: {reg: r1, loc: l1}
exists: "P1:r1 == 2"
expect: allowed
why: probe
""", "spin.yaml")[0]
    assert "P1" not in unreachable_instructions(test)
    loads = [r for r in requirements(test) if r.thread == "P1" and r.op_kind == "load" and r.loc == "l1"]
    assert len(loads) == 2  # the retry's second load too
