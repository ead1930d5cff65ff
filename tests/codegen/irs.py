"""IR tests built in code for the codegen tests (no catalog dependency)."""

from __future__ import annotations

from litmus.ir import (
    Barrier,
    Branch,
    Cmp,
    Compute,
    Condition,
    Const,
    Fence,
    Label,
    LitmusTest,
    Load,
    Location,
    Reg,
    RegRef,
    Rmw,
    Spin,
    SpinRead,
    Store,
    Thread,
    And,
)


def mp_condition() -> Condition:
    """``exists (P1:r0 == 1 /\\ P1:r1 == 0)``."""
    return Condition("exists", And((Cmp(RegRef("P1", "r0"), "==", Const(1)), Cmp(RegRef("P1", "r1"), "==", Const(0)))),
                     "P1:r0 == 1 /\\ P1:r1 == 0")


def mp(variant: str, writer: tuple, reader: tuple, *, reader_rank: int = 0, reader_cta: int = 1,
       flag_home: int = 0) -> LitmusTest:
    """Message passing: P0 runs ``writer``, P1 runs ``reader``; locations x, flag."""
    return LitmusTest(
        name="MP",
        variant=variant,
        locations=(Location("x", 0, 0), Location("flag", 0, flag_home)),
        threads=(Thread("P0", 0, 0, writer), Thread("P1", reader_rank, reader_cta, reader)),
        condition=mp_condition(),
        source_file="tests/codegen/irs.py",
    )


def mp_plain() -> LitmusTest:
    """P0: x=1; flag=1 / P1: r0=flag; r1=x (plain accesses, same rank, different CTAs)."""
    return mp("plain", (Store("x", Const(1)), Store("flag", Const(1))),
              (Load("r0", "flag"), Load("r1", "x")))


def mp_cas_release_acquire() -> LitmusTest:
    """Release CAS on the flag, acquire CAS read (iris style), sys scope."""
    return mp("cas-rel-acq-sys",
              (Store("x", Const(1)), Rmw("cas", None, "flag", Const(1), Const(0), sem="release", scope="sys")),
              (Rmw("cas", "r0", "flag", Const(0), Const(1), sem="acquire", scope="sys"), Load("r1", "x")),
              reader_rank=1)


def mp_volatile() -> LitmusTest:
    """Volatile flag store and load."""
    return mp("volatile",
              (Store("x", Const(1)), Store("flag", Const(1), sem="relaxed", scope="sys", volatile=True)),
              (Load("r0", "flag", sem="relaxed", scope="sys", volatile=True), Load("r1", "x")))


def mp_fences(sem: str = "acq_rel", scope: str = "gpu") -> LitmusTest:
    """Relaxed flag accesses with fences between."""
    return mp(f"fence-{sem}-{scope}",
              (Store("x", Const(1)), Fence(sem, scope), Store("flag", Const(1), sem="relaxed", scope=scope)),
              (Load("r0", "flag", sem="relaxed", scope=scope), Fence(sem, scope), Load("r1", "x")))


def mp_barrier() -> LitmusTest:
    """bar.sync then plain store of x, release exchange of the flag."""
    return mp("barrier",
              (Store("x", Const(1)), Barrier(), Rmw("exch", None, "flag", Const(1), sem="release", scope="sys")),
              (Load("r0", "flag", sem="acquire", scope="sys"), Load("r1", "x")))


def mp_cas_spin() -> LitmusTest:
    """Reader spins with atomic_cas(flag, 1, 0, acquire, sys) (iris), then reads x."""
    return mp("cas-spin",
              (Store("x", Const(1)), Store("flag", Const(1), sem="release", scope="sys")),
              (Spin("flag", 1, SpinRead("cas", "acquire", "sys", reset=0), bound=64, reg="r0"), Load("r1", "x")))


def mp_load_spin(volatile: bool = True) -> LitmusTest:
    """Reader spins with loads of the flag, then reads x."""
    read = SpinRead("load", "relaxed", "sys", volatile=volatile)
    return mp("load-spin",
              (Store("x", Const(1)), Store("flag", Const(1), sem="release", scope="sys")),
              (Spin("flag", 1, read, bound=64, reg="r0"), Load("r1", "x")))


def mp_counter_spin(cmp: str, until: int, mask: int | None) -> LitmusTest:
    """The writer bumps a counter flag (init 5) to r + 2 = 7 with a register expression; the
    reader spins with ``(flag & mask) cmp until`` on loads."""
    t = mp(f"counter-{cmp}-{until}-{mask}",
           (Store("x", Const(1)), Compute("e0", "add", Reg("c"), Const(2)),
            Store("flag", Reg("e0"), sem="release", scope="sys")),
           (Spin("flag", until, SpinRead("load", "acquire", "sys"), bound=64, reg="r0", cmp=cmp, mask=mask),
            Load("r1", "x")))
    p0 = t.threads[0]
    return LitmusTest(t.name, t.variant, (Location("x", 0, 0), Location("flag", 5, 0)),
                      (Thread(p0.name, p0.rank, p0.cta, p0.instrs, reg_init=(("c", 5),)), t.threads[1]),
                      t.condition, source_file=t.source_file)


def spin_ne_init() -> LitmusTest:
    """Spin until flag != 5 after the writer stored 7 (exits on its first read)."""
    return mp_counter_spin("!=", 5, None)


def spin_masked_low_byte() -> LitmusTest:
    """Spin until (flag & 0x3) == 3: 7 & 3 == 3, so the spin exits; r0 holds the whole 7."""
    return mp_counter_spin("==", 3, 0x3)


def spin_gt_never() -> LitmusTest:
    """Spin until flag > 7: 7 never is, so every instance times out with r0 = 7 (an ``==``
    spin on 7 would exit at once)."""
    return mp_counter_spin(">", 7, None)


def forward_branch() -> LitmusTest:
    """MP whose reader reads x only when it saw the flag: ``beq r0, 0, SKIP`` jumps over the load
    (r1 keeps its initial 7 then), and a second load of the flag after the label runs on every lane."""
    t = mp("forward-branch", (Store("x", Const(1)), Store("flag", Const(1), sem="release", scope="sys")),
           (Load("r0", "flag", sem="acquire", scope="sys"), Branch("SKIP", "eq", Reg("r0"), Const(0)),
            Load("r1", "x"), Label("SKIP"), Load("r2", "flag")))
    p1 = t.threads[1]
    return LitmusTest(t.name, t.variant, t.locations,
                      (t.threads[0], Thread(p1.name, p1.rank, p1.cta, p1.instrs, reg_init=(("r1", 7),))),
                      t.condition, source_file=t.source_file)


def forward_branch_skip() -> LitmusTest:
    """:func:`forward_branch` with the reader listed first, so its role runs first under the
    interpreter: it sees flag 0 and takes the branch."""
    t = forward_branch()
    return LitmusTest(t.name, "forward-branch-skip", t.locations, (t.threads[1], t.threads[0]), t.condition,
                      source_file=t.source_file)


def mp_shared_cta() -> LitmusTest:
    """Both threads on rank 0, CTA 0: played by one program, lanes split between them."""
    return mp("shared-cta", (Store("x", Const(1)), Store("flag", Const(1))),
              (Load("r0", "flag"), Load("r1", "x")), reader_cta=0)


def every_op() -> LitmusTest:
    """One thread per kind of op, over two ranks."""
    p0 = (
        Store("x", Const(1)),
        Store("x", Const(2), sem="relaxed", scope="gpu"),
        Store("x", Const(3), sem="release", scope="sys"),
        Store("y", Const(4), sem="relaxed", scope="sys", volatile=True),
        Rmw("add", "r1", "y", Const(1), sem="relaxed", scope="gpu"),
        Rmw("exch", "r2", "y", Const(5), sem="acq_rel", scope="sys"),
        Rmw("and", None, "y", Const(7), sem="release", scope="cta"),
        Rmw("or", None, "y", Const(8)),
        Rmw("xor", None, "y", Const(1)),
        Rmw("min", None, "y", Const(100)),
        Rmw("max", "r3", "y", Const(0)),
        Rmw("cas", "r4", "y", Const(9), Const(0), sem="acquire", scope="sys"),
        Fence("sc", "sys"),
        Fence("acq_rel", "cta"),
        Barrier(),
        Store("y", Reg("r1")),
    )
    p1 = (
        Load("r0", "x"),
        Load("r1", "x", sem="relaxed", scope="cta"),
        Load("r2", "x", sem="acquire", scope="gpu"),
        Load("r3", "y", sem="relaxed", scope="sys", volatile=True),
        Spin("x", 1, SpinRead("load", "acquire", "sys"), bound=8),
        Spin("y", 1, SpinRead("cas", "relaxed", "gpu", reset=0), bound=8, reg="r4"),
    )
    return LitmusTest("OPS", "all", (Location("x", 0, 0), Location("y", 0, 1)),
                      (Thread("P0", 0, 0, p0, reg_init=(("r9", 3),)), Thread("P1", 1, 0, p1)),
                      Condition("exists", Cmp(RegRef("P1", "r0"), "==", Const(1)), "P1:r0 == 1"),
                      source_file="tests/codegen/irs.py")


def with_branch() -> LitmusTest:
    """A PTX-corpus style thread with a label and a branch (unsupported by codegen)."""
    return LitmusTest("LB", "branch", (Location("x"),),
                      (Thread("P0", 0, 0, (Label("L0", line=7), Load("r0", "x"), Branch("L0", "eq", None, None, line=9))),),
                      Condition("exists", Cmp(RegRef("P0", "r0"), "==", Const(1))), source_file="corpus/LB.litmus")


def spin_never() -> LitmusTest:
    """P1 spins for flag == 2, which nobody writes: every instance must time out."""
    return mp("spin-never",
              (Store("x", Const(1)), Store("flag", Const(1), sem="release", scope="sys")),
              (Spin("flag", 2, SpinRead("load", "acquire", "sys"), bound=1000, reg="r0"), Load("r1", "x")))
