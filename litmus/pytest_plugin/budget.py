"""How long one variant runs in a pytest session: fixed rounds, or until its evidence is in.

Asked for rounds (``--litmus-iterations``), a variant runs exactly that many.  Asked for time
(``--litmus-time S``, the default on a GPU), it runs under the session's stop rule
(:class:`litmus.session.StopRule`) with a base budget of ``S / FILL_STRETCH`` and a stop bound:
it stops as soon as its target is seen or 3/N reaches the bound, and one that lacks that
evidence runs on, as far as the stop rule lets it, which is ``FILL_STRETCH`` base budgets (S)
for a conformance variant that its rate says reaches the bound, and ``HUNT_STRETCH`` base
budgets (S/2) for a variant that would be inconclusive.  So S caps every variant (after its
first round, which compiles), and most stop after one round.
"""

from __future__ import annotations

from dataclasses import dataclass

from litmus.bound import rule_of_three
from litmus.run.schedule import FILL_STRETCH

GPU_TIME = 4.0
"""``--litmus-time`` on a GPU when neither rounds nor time are asked for.  Most variants stop
after their first round; the few whose instances time out in spins (6 of 319 on the H200,
docs/results/h200-detect-22.jsonl) need more to be decided, and get up to 2 s (hunting) or
4 s (filling) here."""

CPU_ITERATIONS = 1
"""Rounds on the Triton interpreter when neither rounds nor time are asked for: it is slow,
and one round of its instances is what a test suite can afford."""


@dataclass(frozen=True)
class RunLength:
    """The run-length part of a :class:`~litmus.run.config.RunConfig`."""

    iterations: int | None
    time_budget: float | None  # the stop rule's base budget (S / FILL_STRETCH)
    stop_bound: float | None


def run_length(*, on_gpu: bool, iterations: int | None, time: float | None, bound: float | None,
               instances: int) -> RunLength:
    """The rounds, or the base budget and stop bound, of one variant: ``iterations``/``time`` as
    asked (time wins), else :data:`GPU_TIME` on a GPU and :data:`CPU_ITERATIONS` elsewhere;
    ``bound`` defaults to what one full round of ``instances`` gives (3/instances)."""
    if time is None and iterations is None and on_gpu:
        time = GPU_TIME
    if time is None:
        return RunLength(iterations or CPU_ITERATIONS, None, None)
    return RunLength(None, time / FILL_STRETCH, bound if bound is not None else rule_of_three(instances))
