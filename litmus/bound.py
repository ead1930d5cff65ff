"""The rule of three: the 95 % upper bound on the rate of an outcome never seen in N ended
instances is 3/N.  The run's stopping rule, the schedule, the verdicts, the report and the
pytest plugin all bound an absence this one way."""

from __future__ import annotations


def rule_of_three(n: int) -> float | None:
    """95 % upper confidence bound on the rate of an event never seen in ``n`` trials (3/n);
    None without a trial."""
    return 3.0 / n if n > 0 else None


def trials_for(bound: float) -> float:
    """How many trials without the event bring :func:`rule_of_three` down to ``bound``."""
    return 3.0 / bound
