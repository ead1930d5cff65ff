"""Small IR tests for the run backends, built in code (no catalog dependency)."""

from __future__ import annotations

from litmus.ir import And, Cmp, Condition, Const, Expectation, LitmusTest, Load, Location, RegRef, Rmw, Spin, SpinRead, Store, Thread


def _mp_condition() -> Condition:
    return Condition("exists", And((Cmp(RegRef("P1", "r0"), "==", Const(1)), Cmp(RegRef("P1", "r1"), "==", Const(0)))),
                     "P1:r0 == 1 /\\ P1:r1 == 0")


def mp_release_acquire(rank: int = 1, cta: int = 0) -> LitmusTest:
    """MP with a release store of the flag and an acquire load of it, sys scope: forbidden."""
    return LitmusTest(
        name="MP", variant=f"relacq-r{rank}c{cta}",
        locations=(Location("x", 0, rank), Location("flag", 0, rank)),
        threads=(Thread("P0", 0, 0, (Store("x", Const(1)), Store("flag", Const(1), sem="release", scope="sys"))),
                 Thread("P1", rank, cta, (Load("r0", "flag", sem="acquire", scope="sys"), Load("r1", "x")))),
        condition=_mp_condition(),
        expect=Expectation("forbidden", "release/acquire at sys scope"),
        source_file="tests/run/irs.py",
    )


def mp_payload_first_mislabelled() -> LitmusTest:
    """The reader reads the payload *before* the flag handshake, yet the test claims MP's target
    (flag seen, payload stale) is forbidden.  P1 reads x, then raises `go`; P0 waits for `go`
    before writing x and the flag; P1 waits for the flag.  Every SC execution reaches the target,
    so a run must report a VIOLATION of the (wrong) declaration."""
    spin = SpinRead("load", "acquire", "sys")
    return LitmusTest(
        name="MP-payload-first", variant="mislabelled",
        locations=(Location("x", 0, 0), Location("flag", 0, 1), Location("go", 0, 0)),
        threads=(
            Thread("P0", 0, 0, (Spin("go", 1, spin, bound=1000), Store("x", Const(1)),
                                Store("flag", Const(1), sem="release", scope="sys"))),
            Thread("P1", 1, 0, (Load("r1", "x", sem="acquire", scope="sys"),
                                Store("go", Const(1), sem="release", scope="sys"),
                                Spin("flag", 1, spin, bound=1000, reg="r0"))),
        ),
        condition=_mp_condition(),
        expect=Expectation("forbidden", "deliberately wrong: the payload is read before the handshake"),
        source_file="tests/run/irs.py",
    )


def spin_never() -> LitmusTest:
    """P1 waits for flag == 2, which nobody writes: every instance times out."""
    return LitmusTest(
        name="SpinNever", variant="",
        locations=(Location("x", 0, 0), Location("flag", 0, 0)),
        threads=(Thread("P0", 0, 0, (Store("x", Const(1)), Store("flag", Const(1), sem="release", scope="sys"))),
                 Thread("P1", 1, 0, (Spin("flag", 2, SpinRead("load", "acquire", "sys"), bound=5, reg="r0"),
                                     Load("r1", "x")))),
        condition=_mp_condition(),
        expect=Expectation("forbidden", "", may_hang=True),
        source_file="tests/run/irs.py",
    )


def unsupported_rmw() -> LitmusTest:
    """An ``atom.inc``, which codegen cannot emit (the worker's code generation raises)."""
    return LitmusTest(
        name="IncOnly", variant="",
        locations=(Location("x", 0, 0),),
        threads=(Thread("P0", 0, 0, (Rmw("inc", "r0", "x", Const(5)),)),),
        condition=Condition("exists", Cmp(RegRef("P0", "r0"), "==", Const(0)), "P0:r0 == 0"),
        source_file="tests/run/irs.py",
    )


def mutual_wait() -> LitmusTest:
    """P0 waits for a == 1 and P1 for b == 1, and nobody writes either: every instance hangs,
    with both threads waiting at once (no thread ever finishes first)."""
    return LitmusTest(
        name="MutualWait", variant="",
        locations=(Location("a", 0, 0), Location("b", 0, 1)),
        threads=(Thread("P0", 0, 0, (Spin("a", 1, SpinRead("load", "acquire", "sys"), bound=100000, reg="r0"),)),
                 Thread("P1", 1, 0, (Spin("b", 1, SpinRead("load", "acquire", "sys"), bound=100000, reg="r0"),))),
        condition=Condition("exists", Cmp(RegRef("P1", "r0"), "==", Const(1)), "P1:r0 == 1"),
        expect=Expectation("forbidden", "nobody writes the flags", may_hang=True),
        source_file="tests/run/irs.py",
    )


def handshake() -> LitmusTest:
    """Each thread raises its flag (release) and waits for the other's (acquire): every instance
    completes, however late the other thread's flag comes.  It declares ``may_hang`` only so that
    its kernels quiesce: a proof of a hang here would be a false one."""
    return LitmusTest(
        name="Handshake", variant="",
        locations=(Location("a", 0, 0), Location("b", 0, 1)),
        threads=(Thread("P0", 0, 0, (Store("b", Const(1), sem="release", scope="sys"),
                                     Spin("a", 1, SpinRead("load", "acquire", "sys"), bound=100000, reg="r0"))),
                 Thread("P1", 1, 0, (Store("a", Const(1), sem="release", scope="sys"),
                                     Spin("b", 1, SpinRead("load", "acquire", "sys"), bound=100000, reg="r0")))),
        condition=Condition("exists", Cmp(RegRef("P1", "r0"), "==", Const(0)), "P1:r0 == 0"),
        expect=Expectation("forbidden", "both flags are raised before either wait", may_hang=True),
        source_file="tests/run/irs.py",
    )
