"""What a run record keeps of the model's answer, so that reports read it instead of checking
the model again: the model's name, whether it allows the target, whether some execution hangs,
the allowed final states on the keys the condition names, and, for a test across GPUs, whether
the target stays allowed with every rank on one GPU (a mutant only several GPUs can show)."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, Mapping

from litmus.condition import format_term, terms
from litmus.ir import Const, LitmusTest
from litmus.model.result import ModelResult


def condition_keys(test: LitmusTest) -> list[str]:
    """The state keys the condition mentions, in order, without repeats."""
    keys: list[str] = []
    for term in terms(test.condition.prop):
        if not isinstance(term, Const):
            key = format_term(term)
            if key not in keys:
                keys.append(key)
    return keys


def on_one_gpu(test: LitmusTest) -> LitmusTest:
    """``test`` with every rank placed on GPU 0: each distinct (rank, cta) becomes its own CTA
    (threads that shared a CTA still do) and every location lives in GPU 0's memory."""
    ctas: dict[tuple[int, int], int] = {}
    for t in test.threads:
        ctas.setdefault((t.rank, t.cta), len(ctas))
    threads = tuple(replace(t, rank=0, cta=ctas[(t.rank, t.cta)]) for t in test.threads)
    locations = tuple(replace(loc, home=0) for loc in test.locations)
    return replace(test, threads=threads, locations=locations)


def spans_gpus(test: LitmusTest) -> bool:
    """Whether ``test`` places threads or locations on more than one rank."""
    return len({t.rank for t in test.threads} | {loc.home for loc in test.locations}) > 1


@dataclass(frozen=True)
class ModelFacts:
    """The model's answer for one variant, as a run record keeps it (:meth:`as_dict`)."""

    model: str
    target_reachable: bool
    possible_hang: bool
    keys: tuple[str, ...]  # the condition's keys
    states: tuple[tuple[int, ...], ...]  # allowed final states on ``keys``, sorted, without repeats
    one_gpu_target_reachable: bool | None = None  # a test across GPUs, every rank on GPU 0; else None

    def as_dict(self) -> dict[str, Any]:
        return {"model": self.model, "target_reachable": self.target_reachable, "possible_hang": self.possible_hang,
                "keys": list(self.keys), "states": [list(s) for s in self.states],
                "one_gpu_target_reachable": self.one_gpu_target_reachable}

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> "ModelFacts":
        return cls(str(d["model"]), bool(d["target_reachable"]), bool(d["possible_hang"]), tuple(d["keys"]),
                   tuple(tuple(int(v) for v in s) for s in d["states"]), d.get("one_gpu_target_reachable"))

    @property
    def needs_several_gpus(self) -> bool:
        """The target is allowed across GPUs and forbidden with every rank on one GPU."""
        return self.target_reachable and self.one_gpu_target_reachable is False


def model_facts(test: LitmusTest, result: ModelResult) -> ModelFacts:
    """The facts of ``result`` (the model's answer for ``test``); a test across GPUs whose target
    is allowed is checked once more with every rank on one GPU."""
    from litmus.model.checker import check

    keys = tuple(condition_keys(test)) or (tuple(k for k, _ in result.allowed_states[0]) if result.allowed_states else ())
    states = sorted({tuple(dict(s).get(k, 0) for k in keys) for s in result.allowed_states})
    one_gpu = None
    if spans_gpus(test) and result.target_reachable:
        one_gpu = check(on_one_gpu(test), result.model).target_reachable
    return ModelFacts(result.model, result.target_reachable, result.possible_hang, keys, tuple(states), one_gpu)
