"""The model checker's result type (the keys of a state are :func:`litmus.observables.observables`)."""

from __future__ import annotations

from dataclasses import dataclass

from litmus.ir import LitmusTest
from litmus.observables import observables

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
    steps: int = 0  # work units of enumeration spent (litmus.model.budget)


__all__ = ["ModelResult", "State", "observables"]
