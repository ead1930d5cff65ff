"""Mutation score of a hardware run, as MC Mutants (Levine et al., ASPLOS 2023) defines it.

The catalog's variants split in two by the PTX model:

- **conformance tests**: the model forbids the target outcome; seeing it is a ``VIOLATION``;
- **mutants**: the model allows it (a weaker sem, a narrower scope, a missing fence or barrier).
  A testing environment is as strong as the share of mutants it *kills* (witnesses).

Score = mutants witnessed / mutants.  Some mutants cannot be shown by the machine that ran
them: ranks played by CTAs of one GPU share that GPU, so a scope that is too narrow only across
GPUs (``gpu`` scope between ranks) is as good as ``sys`` there.  A mutant is such a *multi-GPU
mutant* when the model forbids its target once every rank is placed on one GPU (each (rank, cta)
its own CTA, every location in that GPU's memory); these are counted apart, never dropped.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Iterable, Mapping

from litmus.ir import LitmusTest
from litmus.model.facts import ModelFacts, model_facts
from litmus.report.rates import ended
from litmus.report.record import RunRecord

WITNESSED = ("racy-witnessed", "VIOLATION")


def record_facts(record: RunRecord | None) -> ModelFacts | None:
    """The model's answer a run record kept (its ``model`` field), or None: an error record, or
    one written before records kept it."""
    kept = (record or {}).get("model")
    return ModelFacts.from_dict(kept) if kept else None


def checked_facts(test: LitmusTest) -> ModelFacts:
    """The PTX model's answer for ``test``, checked here (a variant whose record keeps none)."""
    from litmus.model import check, ptx_model_for

    return model_facts(test, check(test, ptx_model_for(test)))


@dataclass(frozen=True)
class Unseen:
    """A mutant the run did not witness, and why."""

    id: str
    verdict: str  # racy-unseen, inconclusive, or skipped
    reason: str
    multi_gpu: bool  # only several GPUs can show it


@dataclass
class MutationScore:
    """Conformance tests and mutants of one run, with the score and the unseen list."""

    machine_gpus: int  # GPUs the run's ranks were spread over (1: the cuda backend)
    conformance: int = 0
    violations: list[str] = field(default_factory=list)
    mutants: int = 0
    witnessed: list[str] = field(default_factory=list)
    multi_gpu_mutants: int = 0
    unseen: list[Unseen] = field(default_factory=list)

    @property
    def score(self) -> float | None:
        """Mutants witnessed / mutants (None without mutants)."""
        return len(self.witnessed) / self.mutants if self.mutants else None

    @property
    def showable(self) -> int:
        """Mutants this machine can show (all of them on several GPUs)."""
        return self.mutants - (self.multi_gpu_mutants if self.machine_gpus < 2 else 0)

    @property
    def showable_score(self) -> float | None:
        """Mutants witnessed / mutants this machine can show."""
        return len(self.witnessed) / self.showable if self.showable else None

    def as_dict(self) -> dict[str, Any]:
        """A JSON-ready summary."""
        return {
            "conformance": self.conformance, "violations": self.violations, "mutants": self.mutants,
            "witnessed": len(self.witnessed), "score": self.score, "machine_gpus": self.machine_gpus,
            "multi_gpu_mutants": self.multi_gpu_mutants, "showable": self.showable,
            "showable_score": self.showable_score,
            "unseen": [u.__dict__ for u in self.unseen],
        }


def _unseen_reason(record: RunRecord | None, multi_gpu: bool, one_gpu_run: bool) -> tuple[str, str]:
    if record is None:
        return "skipped", "not in the results (skipped or not run)"
    verdict = str(record.get("verdict"))
    if multi_gpu and one_gpu_run:
        why = ("needs several GPUs: with every rank on one GPU the model forbids the target "
               "(a scope too narrow only across GPUs)")
    elif verdict == "inconclusive":
        why = f"inconclusive: {ended(record):,} of {record.get('instances', '?')} instances ended"
    else:
        bound = record.get("bound_95")
        why = f"not seen in {ended(record):,} ended instances (rate < {bound:.2g} at 95 %)" if bound else "not seen"
    return verdict, why


def mutation_score(tests: Iterable[LitmusTest], records: Iterable[RunRecord],
                   facts: Mapping[str, ModelFacts] | None = None) -> MutationScore:
    """The mutation score of ``records`` (a run's JSONL records) over ``tests`` (the variants
    it was asked to run).  What the PTX model says of each comes from ``facts``, else from its
    record's ``model`` field (:func:`record_facts`); only a variant with neither is checked here."""
    by_id = {str(r["id"]): r for r in records}
    gpus = max((int(r.get("world_size") or 1) for r in by_id.values()), default=1)
    if any(r.get("backend") == "cuda" for r in by_id.values()):
        gpus = 1
    score = MutationScore(machine_gpus=gpus)
    for test in tests:
        record = by_id.get(test.id)
        known = (facts or {}).get(test.id) or record_facts(record)
        fact = known if known is not None else checked_facts(test)
        allowed = fact.target_reachable
        if not allowed:
            score.conformance += 1
            if record is not None and record.get("verdict") == "VIOLATION":
                score.violations.append(test.id)
            continue
        score.mutants += 1
        multi = fact.needs_several_gpus
        score.multi_gpu_mutants += multi
        if record is not None and record.get("verdict") in WITNESSED:
            score.witnessed.append(test.id)
            continue
        verdict, why = _unseen_reason(record, multi, gpus < 2)
        score.unseen.append(Unseen(test.id, verdict, why, multi))
    return score


def score_text(score: MutationScore) -> str:
    """The score in a few lines, then every unseen mutant with its reason."""
    pct = (lambda x: f"{100 * x:.1f} %" if x is not None else "-")
    lines = [
        f"conformance tests: {score.conformance} (target forbidden), violations: {len(score.violations)}",
        f"mutants: {score.mutants} (target allowed), witnessed: {len(score.witnessed)}, "
        f"mutation score: {pct(score.score)}",
    ]
    if score.machine_gpus < 2:
        lines.append(f"on one GPU: {score.multi_gpu_mutants} mutant(s) need several GPUs; score over the "
                     f"{score.showable} it can show: {pct(score.showable_score)}")
    if score.unseen:
        lines.append(f"unseen mutants ({len(score.unseen)}):")
        lines += [f"  {u.id:<48} {u.verdict:<13} {u.reason}" for u in score.unseen]
    return "\n".join(lines)
