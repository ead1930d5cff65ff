"""The model checker's work budget: a check that would run past it stops with a located error
that says how far it got and which limit to raise, never a silent stall (docs/model.md,
"Dense RMW tests: reads-from first, and the work budget").

One *step* is one unit of enumeration: a trace of one thread, a combination of traces, a node
of the reads-from search (kept or pruned), a coherence (or Fence-SC) order tried.  :func:`litmus.model.check` opens a
budget of ``LITMUS_MAX_MODEL_STEPS`` steps (the convention of :mod:`litmus.limits`: a default
far above what any catalog or corpus test needs, raised with an environment variable); the
enumeration charges it.  Code that enumerates outside ``check`` (tests calling
``consistent_finals`` directly) runs with no budget.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field

from litmus.errors import LitmusError

ENV = "LITMUS_MAX_MODEL_STEPS"
DEFAULT = 500_000
"""About 10-20 s of enumeration on one core.  The heaviest of the 3,072 (test, model) checks of
the catalog and Dat3M's whole corpus takes 8,158 steps (``SEQLOCK``, ``CADP/3_threads_4_instructions``),
the heaviest dense reproducer of ``tests/model/data`` 261,810."""


def limit() -> int:
    """The budget in force: ``$LITMUS_MAX_MODEL_STEPS`` when it is a positive integer, else
    :data:`DEFAULT` (read when a check starts)."""
    raw = os.environ.get(ENV, "").strip()
    if raw:
        try:
            v = int(raw)
        except ValueError:
            return DEFAULT
        if v > 0:
            return v
    return DEFAULT


@dataclass
class Budget:
    """Steps spent by one check, its limit, and what it had done (for the error)."""

    left: int
    total: int
    progress: dict[str, int] = field(default_factory=dict)

    @property
    def spent(self) -> int:
        return self.total - self.left


_current: list[Budget] = []


def start() -> Budget:
    """Open a budget for one check (the innermost one is charged)."""
    b = Budget(limit(), limit())
    _current.append(b)
    return b


def stop(b: Budget) -> None:
    """Close ``b``."""
    if _current and _current[-1] is b:
        _current.pop()


class OutOfSteps(Exception):
    """The budget ran out; :func:`litmus.model.check` turns it into a located :class:`BudgetExceeded`."""


class BudgetExceeded(LitmusError):
    """A model check ran out of steps before it decided the test (the message says how far it got)."""


def charge(n: int = 1) -> None:
    """Spend ``n`` steps of the current budget (none open: free)."""
    if _current:
        b = _current[-1]
        b.left -= n
        if b.left < 0:
            raise OutOfSteps()


def note(key: str, n: int = 1) -> None:
    """Count ``n`` of ``key`` (e.g. trace combinations done) for the error's "how far"."""
    if _current:
        p = _current[-1].progress
        p[key] = p.get(key, 0) + n


def current_spent() -> int:
    """Steps spent so far by the innermost open budget (0 with none)."""
    return _current[-1].spent if _current else 0


def error(b: Budget, file: str | None, line: int | None, test_id: str, model: str) -> BudgetExceeded:
    """The located error of a check that ran out of steps."""
    far = "; ".join(f"{k}: {v}" for k, v in b.progress.items()) or "nothing finished"
    return BudgetExceeded.at(file, line, (
        f"{test_id}: the {model} model checker stopped after {b.total} steps of enumeration "
        f"(traces, trace combinations, reads-from search nodes, orders) without deciding the test; "
        f"it got as far as: {far}. The test is too large for exhaustive enumeration: make it "
        f"smaller, or raise the limit with the environment variable {ENV}=<larger number> "
        f"(now {b.total})"))
