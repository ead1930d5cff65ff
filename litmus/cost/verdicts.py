"""Each variant's verdict: the memory model's, and the hardware's when a results file is given."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from litmus.ir import LitmusTest


@dataclass(frozen=True)
class ModelVerdict:
    """The model's word on a variant: ``correct`` when the bug outcome is unreachable and no spin can hang."""

    model: str
    bug_allowed: bool
    may_hang: bool

    @property
    def correct(self) -> bool:
        """No bad outcome and no hang under the model."""
        return not (self.bug_allowed or self.may_hang)

    @property
    def words(self) -> str:
        """``correct`` / ``INCORRECT (bug outcome allowed, may hang)``."""
        if self.correct:
            return "correct"
        parts = (["bug outcome allowed"] if self.bug_allowed else []) + (["may hang"] if self.may_hang else [])
        return f"INCORRECT ({', '.join(parts)})"


def model_verdict(test: LitmusTest, model: str | None = None) -> ModelVerdict:
    """The model's verdict on ``test`` (unless named, the PTX model every stage after the model
    judges with: :func:`litmus.model.ptx_model_for`)."""
    from litmus.model import check, ptx_model_for

    name = model or ptx_model_for(test)
    result = check(test, name)
    return ModelVerdict(name, result.target_reachable, result.possible_hang)


def hardware_verdicts(path: Path) -> dict[str, str]:
    """``NAME[variant]`` -> the verdict of its last record in a ``litmus run`` results file
    (with the backend: ``racy-witnessed (cuda)``)."""
    from litmus.report.jsonl import read_records

    out: dict[str, str] = {}
    for rec in read_records(path):
        if rec.get("id") and rec.get("verdict"):
            out[str(rec["id"])] = f"{rec['verdict']} ({rec.get('backend', '?')})"
    return out
