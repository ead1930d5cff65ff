"""Small IR builders for the model tests."""

from __future__ import annotations

from litmus.condition import parse_prop
from litmus.ir import Condition, Instr, LitmusTest, Location, Thread


def th(name: str, *instrs: Instr, rank: int = 0, cta: int = 0,
       reg_init: tuple[tuple[str, int], ...] = ()) -> Thread:
    """A thread on (rank, cta)."""
    return Thread(name, rank, cta, tuple(instrs), reg_init)


def mk(threads: list[Thread], cond: str, kind: str = "exists", locs: str = "x y",
       init: dict[str, int] | None = None, name: str = "T") -> LitmusTest:
    """A test over the space-separated locations ``locs`` (initially 0 unless ``init``)."""
    init = init or {}
    locations = tuple(Location(l, init.get(l, 0)) for l in locs.split())
    return LitmusTest(name, "", locations, tuple(threads), Condition(kind, parse_prop(cond), cond))


def trace_picks(t: LitmusTest) -> int:
    """How many combinations of per-thread traces the checker enumerates for ``t`` (the product
    of each thread's trace count at the default unroll): what a check's time grows with."""
    import math

    from litmus.model import checker
    from litmus.model.executions import test_traces

    return math.prod(len(p) for p in test_traces(t, checker.DEFAULT_UNROLL))
