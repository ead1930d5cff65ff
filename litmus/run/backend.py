"""The interface every execution backend implements (cpu, cuda, ranks)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping, Protocol, Sequence

from litmus.ir import LitmusTest
from litmus.run.config import RunConfig

# One histogram row: (final state over observables(test), status, count), status one of
# litmus.status: COMPLETED (0), TIMED_OUT (1) or HUNG (2); only COMPLETED is false.
Row = tuple[Mapping[str, int], int, int]


@dataclass
class Round:
    """What one round (one launch on every rank) produced."""

    rows: list[Row]
    instances: int
    seconds: float
    extra: dict[str, Any] = field(default_factory=dict)


class Backend(Protocol):
    """Runs litmus tests and counts outcomes.

    Rank placement, per-rank heaps and world size are parameters of a backend, not
    assumptions of the driver.
    """

    name: str

    def describe(self) -> dict[str, Any]:
        """Backend, device name, world size, torch/triton versions, and a plain-words note."""
        ...

    def skip_reason(self, test: LitmusTest) -> str | None:
        """Why this backend cannot run ``test`` (e.g. too few ranks), or None."""
        ...

    def run_round(self, test: LitmusTest, config: RunConfig, round_index: int) -> Round:
        """Run ``config.instances`` instances of ``test`` once and count their outcomes."""
        ...

    def close(self) -> None:
        """Release processes and devices."""
        ...

    # Optional: ``recover(self) -> None``, called by the session after a variant's run raised:
    # make the backend usable for the next variant (restart workers, drop buffers), or raise
    # when this process cannot go on (a poisoned CUDA context).
    # Optional: ``default_time_budget: float``, the seconds per variant a run gets when it names
    # neither iterations nor a budget (a backend whose rounds cost very different times by the
    # variant's shape: a spin under the interpreter costs a hundred times a straight line).


def merge_rows(rows: Sequence[Row]) -> list[Row]:
    """Add up rows with the same state and status."""
    acc: dict[tuple[tuple[tuple[str, int], ...], int], int] = {}
    for state, status, count in rows:
        key = (tuple(sorted((k, int(v)) for k, v in state.items())), int(status))
        acc[key] = acc.get(key, 0) + int(count)
    return [(dict(k), t, n) for (k, t), n in acc.items()]
