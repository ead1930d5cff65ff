"""The model checker's result type and the observable keys of a test."""

from __future__ import annotations

import re
from dataclasses import dataclass

from litmus.condition import terms
from litmus.ir import Compute, Load, LitmusTest, RegRef, Rmw, Spin

State = tuple[tuple[str, int], ...]
"""A final state: sorted ``(key, value)`` pairs, keys ``"P1:r0"`` and ``"x"``."""


@dataclass(frozen=True)
class ModelResult:
    """What a model allows for one test.

    ``validated`` has herd's meaning: ``exists`` is validated iff some allowed state satisfies
    the condition, ``not_exists`` iff none does, ``forall`` iff all do.  ``target_reachable``:
    some allowed state is in the condition's target outcome.  ``possible_hang``: some
    consistent execution spins forever or deadlocks at a barrier.
    """

    test: LitmusTest
    model: str
    allowed_states: tuple[State, ...]
    validated: bool
    target_reachable: bool
    possible_hang: bool
    seconds: float


def _natural(s: str) -> tuple:
    return tuple(int(p) if p.isdigit() else p for p in re.split(r"(\d+)", s))


def observables(test: LitmusTest) -> tuple[str, ...]:
    """The keys of a final state: every register some instruction writes and every register
    the condition names (``"P1:r0"``, by thread then register), then every location name."""
    order = {t.name: k for k, t in enumerate(test.threads)}
    regs: set[tuple[str, str]] = set()
    for t in test.threads:
        for i in t.instrs:
            if isinstance(i, Load):
                regs.add((t.name, i.reg))
            elif isinstance(i, (Rmw, Spin)) and i.reg:
                regs.add((t.name, i.reg))
            elif isinstance(i, Compute):
                regs.add((t.name, i.dst))
    for term in terms(test.condition.prop):
        if isinstance(term, RegRef):
            regs.add((term.thread, term.reg))
    keyed = sorted(regs, key=lambda tr: (order.get(tr[0], len(order)), _natural(tr[0]), _natural(tr[1])))
    return tuple(f"{t}:{r}" for t, r in keyed) + tuple(l.name for l in test.locations)
