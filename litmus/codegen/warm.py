"""The warmed test (the ``warm_reads`` stress): a plain load, ahead of each thread's first op, of
every location the thread later reads with a plain load, so its SM's L1 may hold that line when
the later load runs.

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

from litmus.ir import Load, LitmusTest, Thread

WARM_REG = "warm"
"""Registers of the warm loads are ``warm0``, ``warm1``, ... (a number more where a thread
already has such a name)."""


def _plain_reads(thread: Thread) -> list[str]:
    """Locations ``thread`` reads with a plain, scalar, generic load, in first-use order."""
    locs: list[str] = []
    for ins in thread.instrs:
        if (isinstance(ins, Load) and ins.sem == "weak" and not ins.volatile and ins.group is None
                and ins.proxy == "generic" and ins.loc not in locs):
            locs.append(ins.loc)
    return locs


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
    """``test`` with a plain load of each of a thread's plainly read locations ahead of its first
    op; ``test`` itself when no thread reads plainly."""
    threads: list[Thread] = []
    for t in test.threads:
        locs = _plain_reads(t)
        if not locs:
            threads.append(t)
            continue
        regs = _fresh_regs(t, len(locs))
        warm = tuple(Load(reg=r, loc=loc, line=t.line, warm=True) for r, loc in zip(regs, locs))
        threads.append(replace(t, instrs=warm + t.instrs))
    if all(a is b for a, b in zip(threads, test.threads)):
        return test
    return replace(test, threads=tuple(threads))
