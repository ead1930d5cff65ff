"""The warmed test (the ``warm_reads`` stress): a plain load of every location a thread later
reads with a plain load, placed where its SM's L1 may still hold that line when the later load
runs: after the last op ahead of that read that invalidates L1 (:func:`invalidates_l1`), or
ahead of the thread's first op when none does. A read gets none where only plain loads would
come between the two (nothing there for another thread's store to overtake) or where a plain
load of the same location already does (:func:`_warm_slots`).

A plain ``ld.global`` may be served from L1, which no other SM's store updates; an acquire
invalidates L1 (``CCTL.IVALL`` on sm_90) and a relaxed read does not. So a plain payload load
after a relaxed spin shows a stale value only where the line was in L1 before the payload was
written, which the catalog's tests never arrange on their own
(``benchmarks/experiments/mp_stale_line.yaml``, docs/detection.md). The run backends launch
the warmed test's kernels (:mod:`litmus.run.warm`) and ``litmus audit`` checks them
(:mod:`litmus.audit.run_kernels`).
"""

from __future__ import annotations

from dataclasses import replace
from functools import lru_cache

from litmus.ir import Branch, Fence, Label, Load, LitmusTest, Rmw, Spin, Thread

WARM_REG = "warm"
"""Registers of the warm loads are ``warm0``, ``warm1``, ... (a number more where a thread
already has such a name)."""


ACQUIRING = ("acquire", "acq_rel", "sc")
"""Sems whose read half is an acquire: on sm_90 one wider than the CTA ends with ``CCTL.IVALL``."""


def invalidates_l1(ins: object) -> bool:
    """Whether ``ins`` may invalidate its SM's L1 wider than the CTA (sm_90: ``CCTL.IVALL`` after
    an acquire or a fence): a line warmed ahead of it may not survive it."""
    if isinstance(ins, Fence):
        return ins.scope != "cta"
    if isinstance(ins, (Load, Rmw)):
        return ins.sem in ACQUIRING and ins.scope != "cta"
    if isinstance(ins, Spin):
        return ins.read.sem in ACQUIRING and ins.read.scope != "cta"
    return False


def _is_plain_load(ins: object) -> bool:
    """A plain, scalar, generic load: one the SM's L1 may serve."""
    return (isinstance(ins, Load) and ins.sem == "weak" and not ins.volatile and ins.group is None
            and ins.proxy == "generic")


def _warm_slots(thread: Thread) -> list[tuple[str, int]]:
    """``(location, where its warm load goes)`` for each location ``thread`` reads with a plain
    load (:func:`_is_plain_load`) that a warm load can serve stale, in first-use order: the
    first such read whose slot (:func:`_warm_slot`) is apart from it by some op other than a
    plain load, and by no plain load of the location itself."""
    out: dict[str, int] = {}
    for r, ins in enumerate(thread.instrs):
        if not _is_plain_load(ins) or ins.loc in out:
            continue
        slot = _warm_slot(thread, r)
        between = thread.instrs[slot:r]
        if (not all(_is_plain_load(i) for i in between)
                and not any(_is_plain_load(i) and i.loc == ins.loc for i in between)):
            out[ins.loc] = slot
    return list(out.items())


def _warm_slot(thread: Thread, read_index: int) -> int:
    """Where the warm load of a read at ``read_index`` goes: after the last op ahead of it that
    invalidates L1, else first.  A thread with branches keeps them all at the top, outside any
    loop the branches make."""
    if any(isinstance(i, (Branch, Label)) for i in thread.instrs):
        return 0
    return max((k + 1 for k in range(read_index) if invalidates_l1(thread.instrs[k])), default=0)


def original_index(thread: Thread, index: int) -> int | None:
    """The index in the unwarmed thread of op ``index`` of warmed ``thread`` (None: a warm load)."""
    ins = thread.instrs[index]
    if isinstance(ins, Load) and ins.warm:
        return None
    return index - sum(1 for i in thread.instrs[:index] if isinstance(i, Load) and i.warm)


def _fresh_regs(thread: Thread, n: int) -> list[str]:
    """``n`` register names ``thread`` does not use."""
    used = ({getattr(i, "reg", None) for i in thread.instrs} | {getattr(i, "dst", None) for i in thread.instrs}
            | {r for r, _ in thread.reg_init})
    names: list[str] = []
    k = 0
    while len(names) < n:
        if f"{WARM_REG}{k}" not in used:
            names.append(f"{WARM_REG}{k}")
        k += 1
    return names


@lru_cache(maxsize=1024)  # every round of a warm environment asks again (litmus.run.warm)
def warmed(test: LitmusTest) -> LitmusTest:
    """``test`` with a warm plain load of each of a thread's plainly read locations (module
    docstring: where each goes); ``test`` itself when no thread reads plainly."""
    threads: list[Thread] = []
    for t in test.threads:
        placed = _warm_slots(t)
        if not placed:
            threads.append(t)
            continue
        slots: dict[int, list[Load]] = {}
        for reg, (loc, slot) in zip(_fresh_regs(t, len(placed)), placed):
            slots.setdefault(slot, []).append(Load(reg=reg, loc=loc, line=t.line, warm=True))
        instrs: list[object] = []
        for k, ins in enumerate(t.instrs):
            instrs += slots.get(k, [])
            instrs.append(ins)
        threads.append(replace(t, instrs=tuple(instrs)))
    if all(a is b for a, b in zip(threads, test.threads)):
        return test
    return replace(test, threads=tuple(threads))
