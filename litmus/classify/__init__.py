"""Label observed outcomes against the model and give each variant a verdict.

Labels of one outcome (a final state over :func:`litmus.model.observables`):

- ``timeout``: a bounded spin ran out of reads (the registers are not a final state);
- ``hang``: the instance provably hung (:data:`litmus.status.HUNG`: every thread finished or
  stuck in a spin that can never exit) and the model allows the test to hang
  (``possible_hang``); a proven hang the model does not allow is ``forbidden``;
- ``forbidden``: not allowed by the PTX model, or in the condition's target outcome while the
  variant declares that outcome ``forbidden``;
- ``sc``: allowed under sequential consistency;
- ``weak``: allowed by PTX but not by SC.

Verdicts of a variant:

- ``VIOLATION``: a forbidden outcome was observed (hardware, compiler or model is wrong);
- ``racy-witnessed``: the model allows the target outcome and it was observed;
- ``racy-unseen``: allowed, but not observed in N completed instances (95 % upper bound on its
  rate: 3/N);
- ``correct``: forbidden by the model and not observed in N completed instances (bound 3/N);
- ``inconclusive``: no forbidden or target outcome was seen, but too few instances ended to
  say so: fewer than :data:`MIN_COMPLETED`, or fewer than :data:`MIN_COMPLETED_FRACTION` of all
  instances (the rest timed out in a bounded spin).  Absence needs evidence; a sighting
  (``VIOLATION``, ``racy-witnessed``) does not, so those stand whatever the count.

N counts only instances that *ended*: those that completed, and those that provably hung.  An
instance whose spin timed out has no final state for its registers, so it is no evidence of the
target's *absence*.  A proven hang is: the instance reached a state from which no execution
goes on (the hang the model allows), and the target, a condition on the final states of
executions that end, cannot hold in it.  The bound 3/N is then a bound per instance *run*;
:attr:`Verdict.bound_completed` (3 over the completed ones alone) bounds the rate among the
runs that got past their spins, and is reported beside it.

**Hang witnesses.** A timed-out (or hung) instance still has final *memory*: it is read after the kernel
ends, when every write has landed.  When the model says the variant may hang
(``possible_hang``), its condition names memory only, and a timed-out instance's final memory
satisfies the target and equals the memory of a target state the model allows, that instance
witnesses the target (the lost signal of a flag-reset race is seen as the hang it causes).
Such instances count in ``target_count`` and ``hang_witnesses``; they never make a
``VIOLATION`` and never count as completed (a hung one counts as ended, as any proven hang).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Mapping, Sequence

from litmus.bound import rule_of_three
from litmus.condition import evaluate, terms
from litmus.status import COMPLETED, HUNG, TIMED_OUT
from litmus.condition import in_target as condition_in_target
from litmus.ir import Const, LitmusTest, LocRef

LABELS = ("sc", "weak", "forbidden", "timeout", "hang")
VERDICTS = ("VIOLATION", "racy-witnessed", "racy-unseen", "correct", "inconclusive")

MIN_COMPLETED = 100
"""Fewest ended instances behind a ``correct`` or ``racy-unseen`` verdict (3/N = 3 %)."""

MIN_COMPLETED_FRACTION = 0.5
"""Smallest share of a run's instances that must end (complete, or provably hang) for
``correct`` or ``racy-unseen``: when most instances time out, the ones that end are not a fair
sample of the test."""


def in_target(test: LitmusTest, state: Mapping[str, int]) -> bool:
    """Whether ``state`` lies in the condition's target outcome (prop; not prop for forall)."""
    return condition_in_target(test.condition.kind, evaluate(test.condition.prop, state))


@dataclass(frozen=True)
class Bin:
    """One histogram bin: an outcome, how often it was seen, and its label."""

    state: tuple[tuple[str, int], ...]
    count: int
    label: str
    target: bool


@dataclass(frozen=True)
class Verdict:
    """The classification of one variant's run."""

    verdict: str
    observation: str  # herd's word for the target outcome: Never / Sometimes / Always
    instances: int  # every instance run, timed-out ones included
    target_count: int
    counts: dict[str, int]
    bins: tuple[Bin, ...]
    rate: float  # target_count / (ended + timed-out hang witnesses)
    bound_95: float | None  # 3/ended when the target outcome was never seen
    seconds_to_first: float | None = None
    notes: tuple[str, ...] = field(default=())
    hang_witnesses: int = 0  # timed-out or hung instances whose final memory shows the target (module doc)
    hung_witnesses: int = 0  # those of them that provably hung (they count in ``ended`` already)

    @property
    def completed(self) -> int:
        """Instances that reached a final state (every spin exited)."""
        return self.instances - self.counts.get("timeout", 0) - self.counts.get("hang", 0)

    @property
    def hung(self) -> int:
        """Instances that provably hung (:data:`litmus.status.HUNG`)."""
        return self.counts.get("hang", 0)

    @property
    def ended(self) -> int:
        """Instances that are evidence of absence: completed, or provably hung."""
        return self.completed + self.hung

    @property
    def bound_completed(self) -> float | None:
        """3/completed when the target was never seen: the bound among the instances whose
        spins all exited (the same as ``bound_95`` when none hung)."""
        return rule_of_three(self.completed) if self.target_count == 0 else None

    @property
    def forbidden_count(self) -> int:
        """Instances whose outcome was labelled forbidden."""
        return self.counts.get("forbidden", 0)


def _freeze(state: Mapping[str, int]) -> tuple[tuple[str, int], ...]:
    return tuple(sorted((k, int(v)) for k, v in state.items()))


def label(
    test: LitmusTest,
    state: Mapping[str, int],
    status: int,
    ptx_allowed: set[tuple[tuple[str, int], ...]],
    sc_allowed: set[tuple[tuple[str, int], ...]] | None,
    may_hang: bool = False,
) -> str:
    """The label of one observed outcome with :mod:`litmus.status` ``status`` (see the module
    docstring); ``may_hang``: the model's ``possible_hang`` for the test; ``sc_allowed`` None:
    no SC reference, allowed outcomes are ``sc``."""
    if status == TIMED_OUT:
        return "timeout"
    if status == HUNG:
        return "hang" if may_hang else "forbidden"
    frozen = _freeze(state)
    if frozen not in ptx_allowed:
        return "forbidden"
    if test.expect is not None and test.expect.outcome == "forbidden" and in_target(test, state):
        return "forbidden"
    return "sc" if sc_allowed is None or frozen in sc_allowed else "weak"


def hang_target_memories(test: LitmusTest, ptx_result: object) -> set[tuple[tuple[str, int], ...]]:
    """The final memories (``(location, value)`` pairs) a timed-out instance of ``test`` may show
    to witness its target: those of the allowed target states, when the model says ``test``
    may hang and its condition names only memory; otherwise none (see the module doc)."""
    if not getattr(ptx_result, "possible_hang", False) or not getattr(ptx_result, "target_reachable", False):
        return set()
    named = [t for t in terms(test.condition.prop) if not isinstance(t, Const)]
    if not named or not all(isinstance(t, LocRef) for t in named):
        return set()
    return {_memory(dict(state)) for state in ptx_result.allowed_states  # type: ignore[attr-defined]
            if in_target(test, dict(state))}


def shows_target(test: LitmusTest, state: Mapping[str, int], status: int,
                 hang_memories: set[tuple[tuple[str, int], ...]]) -> bool:
    """Whether one outcome witnesses ``test``'s target: a completed instance in the target, or a
    timed-out or hung one whose final memory is in ``hang_memories``
    (:func:`hang_target_memories`)."""
    if status == COMPLETED:
        return in_target(test, state)
    return _memory(state) in hang_memories


def _memory(state: Mapping[str, int]) -> tuple[tuple[str, int], ...]:
    """The location entries of a final state (keys without a thread: ``x``, not ``P0:r0``)."""
    return tuple(sorted((k, int(v)) for k, v in state.items() if ":" not in k))


def enough_evidence(instances: int, ended: int) -> bool:
    """Whether ``ended`` of ``instances`` instances (completed, or provably hung) can back a
    verdict of absence (``correct``, ``racy-unseen``): at least :data:`MIN_COMPLETED`, and at
    least :data:`MIN_COMPLETED_FRACTION` of all instances."""
    return ended >= MIN_COMPLETED and ended >= MIN_COMPLETED_FRACTION * instances


def classify(
    test: LitmusTest,
    histogram: Sequence[tuple[Mapping[str, int], bool, int]],
    ptx_result: object,
    sc_result: object,
    seconds_to_first: float | None = None,
) -> Verdict:
    """Classify a run.

    ``histogram`` holds ``(state, status, count)`` rows over ``observables(test)``, status one
    of :mod:`litmus.status` (a bool reads as completed / timed out);
    ``ptx_result``/``sc_result`` are :class:`litmus.model.ModelResult` s of the same test;
    ``sc_result`` None (no SC reference: its check ran past the model's budget) counts every
    allowed outcome as ``sc``, since nothing shows it is not, and says so in a note.
    """
    ptx_allowed = set(ptx_result.allowed_states)  # type: ignore[attr-defined]
    sc_allowed = set(sc_result.allowed_states) if sc_result is not None else None  # type: ignore[attr-defined]
    counts = {name: 0 for name in LABELS}
    bins: list[Bin] = []
    instances = 0
    target_count = 0
    hang_witnesses = timed_out_witnesses = 0
    hang_memories = hang_target_memories(test, ptx_result)
    may_hang = bool(getattr(ptx_result, "possible_hang", False))
    for state, status, count in histogram:
        if count <= 0:
            continue
        status = int(status)
        lab = label(test, state, status, ptx_allowed, sc_allowed, may_hang)
        tgt = shows_target(test, state, status, hang_memories)
        witness = tgt and status != COMPLETED
        counts[lab] += count
        instances += count
        if tgt:
            target_count += count
        if witness:
            hang_witnesses += count
            timed_out_witnesses += count if status == TIMED_OUT else 0
        bins.append(Bin(_freeze(state), count, lab, tgt))
    bins.sort(key=lambda b: (-b.count, b.state))
    if instances == 0:
        observation = "Never"
    elif target_count == 0:
        observation = "Never"
    elif target_count == instances:
        observation = "Always"
    else:
        observation = "Sometimes"
    racy = bool(ptx_result.target_reachable)  # type: ignore[attr-defined]
    completed = instances - counts["timeout"] - counts["hang"]
    ended = completed + counts["hang"]
    notes: list[str] = []
    if counts["forbidden"] > 0:
        verdict = "VIOLATION"
    elif racy and target_count > 0:
        verdict = "racy-witnessed"
    elif not enough_evidence(instances, ended):
        verdict = "inconclusive"
        notes.append(f"only {ended:,} of {instances:,} instances ended (completed or provably hung; a verdict "
                     f"of absence needs >= {MIN_COMPLETED} and >= {MIN_COMPLETED_FRACTION:.0%}); run longer, or "
                     "raise the spin bound if the spins time out")
    else:
        verdict = "racy-unseen" if racy else "correct"
    if sc_allowed is None:
        notes.append("no SC reference (its model check ran past the step budget): allowed outcomes are all "
                     "counted as sc, none as weak")
    if counts["timeout"]:
        notes.append(f"{counts['timeout']} instance(s) timed out in a bounded spin")
    if counts["hang"]:
        notes.append(f"{counts['hang']:,} instance(s) provably hung (every thread finished or stuck in a spin "
                     "that cannot exit), as the model allows; they count as ended"
                     + (f"; among the {completed:,} that completed the bound is 3/N = {rule_of_three(completed):.2g}"
                        if target_count == 0 and completed else ""))
    if hang_witnesses:
        notes.append(f"{hang_witnesses:,} timed-out instance(s) ended with the target's final memory: the "
                     "hang the model allows, witnessed")
    return Verdict(
        verdict=verdict,
        observation=observation,
        instances=instances,
        target_count=target_count,
        counts=counts,
        bins=tuple(bins),
        rate=(target_count / (ended + timed_out_witnesses)) if ended + timed_out_witnesses else 0.0,
        bound_95=rule_of_three(ended) if target_count == 0 else None,
        seconds_to_first=seconds_to_first,
        notes=tuple(notes),
        hang_witnesses=hang_witnesses,
        hung_witnesses=hang_witnesses - timed_out_witnesses,
    )
