"""The keys of a final state: which registers and locations an outcome names, in one order.

The model, codegen (the ``out`` columns) and every backend's histogram use these keys, so they
are defined once, here.
"""

from __future__ import annotations

import re

from litmus.condition import terms
from litmus.ir import Compute, LitmusTest, Load, Reg, RegRef, Rmw, Spin


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


def wide_registers(test: LitmusTest, bits: dict[str, int]) -> set[tuple[str, str]]:
    """``(thread, reg)`` of the registers that hold 64 bits: written by an access to a 64-bit
    name, or computed from such a register (``bits``: location name -> width).  Codegen gives
    them 64-bit registers and reads them back unsigned; the model keeps their values modulo
    2^64 to match."""
    wide: set[tuple[str, str]] = set()
    changed = True
    while changed:
        changed = False
        for t in test.threads:
            for ins in t.instrs:
                reg, is_wide = None, False
                if isinstance(ins, (Load, Rmw, Spin)) and ins.reg is not None:
                    reg, is_wide = ins.reg, bits.get(ins.loc, 32) == 64
                elif isinstance(ins, Compute):
                    reg = ins.dst
                    is_wide = any(isinstance(o, Reg) and (t.name, o.name) in wide for o in (ins.a, ins.b))
                if reg is not None and is_wide and (t.name, reg) not in wide:
                    wide.add((t.name, reg))
                    changed = True
    return wide
