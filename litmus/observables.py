"""The keys of a final state: which registers and locations an outcome names, in one order.

The model, codegen (the ``out`` columns) and every backend's histogram use these keys, so they
are defined once, here.
"""

from __future__ import annotations

import re

from litmus.condition import terms
from litmus.ir import Compute, LitmusTest, Load, RegRef, Rmw, Spin


def _natural(s: str) -> tuple[int | str, ...]:
    """Sort key that puts ``r2`` before ``r10``."""
    return tuple(int(p) if p.isdigit() else p for p in re.split(r"(\d+)", s))


def written_registers(test: LitmusTest) -> set[tuple[str, str]]:
    """``(thread, reg)`` for every register some instruction of ``test`` writes."""
    regs: set[tuple[str, str]] = set()
    for t in test.threads:
        for ins in t.instrs:
            if isinstance(ins, (Load, Rmw, Spin)) and ins.reg is not None:
                regs.add((t.name, ins.reg))
            elif isinstance(ins, Compute):
                regs.add((t.name, ins.dst))
    return regs


def condition_registers(test: LitmusTest) -> set[tuple[str, str]]:
    """``(thread, reg)`` for every register the condition names."""
    return {(term.thread, term.reg) for term in terms(test.condition.prop) if isinstance(term, RegRef)}


def observable_registers(test: LitmusTest) -> tuple[tuple[str, str], ...]:
    """Written registers plus condition registers: by thread (in the test's order; threads the
    test does not have last, by name), then by register name with numbers compared as numbers."""
    order = {t.name: k for k, t in enumerate(test.threads)}
    regs = written_registers(test) | condition_registers(test)
    return tuple(sorted(regs, key=lambda tr: (order.get(tr[0], len(order)), _natural(tr[0]), _natural(tr[1]))))


def observables(test: LitmusTest) -> tuple[str, ...]:
    """Outcome keys: every observable register as ``"P1:r0"``, then every location name in
    declaration order (views included; the element views of vector accesses left out)."""
    return tuple(f"{t}:{r}" for t, r in observable_registers(test)) + tuple(
        l.name for l in test.locations if not l.is_element)
