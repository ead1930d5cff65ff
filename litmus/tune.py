"""``litmus tune``: random search over the testing environment (the stress parameters) for the
settings under which a backend shows the most weak behaviour, in the manner of MC Mutants'
per-test tuning.

On the cuda backend the first trials place each role of an instance at home in turn
(:func:`layout_sweep`); half of the others draw a :class:`~litmus.run.config.Stress` from
:data:`SPACE` with a seeded PRNG, and the last half move one parameter of the best so far
(:func:`neighbour`).  A trial runs every chosen variant for a fixed time budget through
:func:`litmus.session.run_variant` and is scored by the target outcomes seen per second (the
target of a mutant is its weak outcome) of run time, or of kernel time (:data:`OBJECTIVES`).
The best environment is written as a stress JSON file that ``litmus run --stress FILE`` takes;
with ``--keep N`` the file holds a rotation of up to N environments chosen to cover the most
variants (:func:`pick_rotation`), which a run cycles through round by round.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass, field, fields, replace
from typing import AbstractSet, Any, Callable, Sequence

from litmus.codegen.roles import cta_roles
from litmus.errors import LitmusError
from litmus.ir import LitmusTest
from litmus.run.backend import Backend
from litmus.run.config import PATTERNS, PRESETS, Stress, stress_json, validate_stress
from litmus.session import run_config, run_variant, sc_reference

SPACE: dict[str, tuple[Any, ...]] = {
    "shuffle": (True, False),
    "barrier": (True, False),
    "kernel_barrier": (False, True),
    "stride": (1, 2, 4, 8, 16, 32),
    "mem_stress": (False, True),
    "stress_programs": (16, 32, 64, 128, 256),
    "stress_pattern": PATTERNS,
    "stress_iterations": (16, 64, 256, 1024),
    "pre_stress": (0, 0, 4, 16, 64),
    "scratch_words": (1024, 4096, 16384, 65536),
    "launch": ("grid", "parallel"),
    "barrier_pct": (0, 25, 50, 100),
    "parallel_programs": (0, 0, 128, 256, 512),
    "programs_per_sm": (0, 1, 1, 2, 4),
    "role_rotation": (False, True),
    "warm_reads": (False, True),
    "order_pick": ("program", "iteration", "0", "1", "2", "3"),
    "role_map": ("first", "rotate", "0", "1", "2", "3"),
}
"""Every tunable stress parameter and the values a trial draws from (uniformly; a value listed
twice is drawn twice as often).  Parameters the installed :class:`Stress` does not have are
skipped, so the table can lead the dataclass."""


def _tunable() -> dict[str, tuple[Any, ...]]:
    """The entries of :data:`SPACE` that the installed :class:`Stress` has."""
    known = {f.name for f in fields(Stress)}
    return {k: v for k, v in SPACE.items() if k in known}


def layout_sweep(tests: Sequence[LitmusTest], base: Stress = PRESETS["default"]) -> list[Stress]:
    """``base`` with every role of an instance at one lane (``shuffle`` off) and each role in turn
    at home (``role_map``), for the most roles among ``tests``: on one H100 the right home role
    gave WRC, RWC and IRIW 4-6x the weak outcomes per kernel-second of the default
    (docs/detection.md), and which role is right depends on the test."""
    if base.launch != "parallel":
        return []
    roles = max((len(cta_roles(test)) for test in tests), default=0)
    return [replace(base, name=f"home{r}", shuffle=False, role_map=str(r)) for r in range(roles)]


def draw(rng: random.Random, base: Stress = PRESETS["default"], name: str = "tuned") -> Stress:
    """One environment: every parameter of :data:`SPACE` drawn from ``rng``, the rest from ``base``."""
    values = {k: rng.choice(v) for k, v in _tunable().items()}
    stress = replace(base, name=name, **values)
    validate_stress(stress)
    return stress


@dataclass(frozen=True)
class Trial:
    """One environment and what it showed: target outcomes per second over the variants."""

    index: int
    stress: Stress
    seen: int  # target outcomes over all variants
    instances: int
    seconds: float
    seen_by: dict[str, int] = field(default_factory=dict)  # variant id -> target outcomes
    kernel_seconds: float = 0.0  # the launches alone (the backend's timing; else the rounds')

    @property
    def rate(self) -> float:
        """Target outcomes per second of run time."""
        return self.seen / self.seconds if self.seconds > 0 else 0.0

    @property
    def kernel_rate(self) -> float:
        """Target outcomes per second of kernel time."""
        return self.seen / self.kernel_seconds if self.kernel_seconds > 0 else 0.0

    @property
    def per_instance(self) -> float:
        """Target outcomes per instance."""
        return self.seen / self.instances if self.instances else 0.0


OBJECTIVES = ("wall", "kernel")
"""What a trial's rate counts seconds of: the run as a user waits for it (``wall``: launches,
counting, host work), or the launches alone (``kernel``: the figure cuda-litmus reports)."""


def check_objective(objective: str) -> None:
    """Raise :class:`LitmusError` unless ``objective`` is one of :data:`OBJECTIVES`."""
    if objective not in OBJECTIVES:
        raise LitmusError(f"litmus tune: unknown objective {objective!r}; choose one of {', '.join(OBJECTIVES)}")


def score(trial: Trial, objective: str = "wall") -> tuple[float, float]:
    """How trials are ranked: target outcomes per second of ``objective``, then per instance."""
    check_objective(objective)
    return (trial.kernel_rate if objective == "kernel" else trial.rate, trial.per_instance)


TrialHook = Callable[[Trial], None]

NOTHING_TO_TUNE = "litmus tune: no variant to tune; name patterns whose target the model allows"


def tunable(tests: Sequence[LitmusTest]) -> list[LitmusTest]:
    """The mutants among ``tests`` (the PTX model allows their target: something to show);
    raises :class:`LitmusError` when there are none."""
    from litmus.model import check, ptx_model_for

    kept = [t for t in tests if check(t, ptx_model_for(t)).target_reachable]
    if not kept:
        raise LitmusError(NOTHING_TO_TUNE)
    return kept


def neighbour(rng: random.Random, best: Stress, name: str, tried: AbstractSet[str] = frozenset()) -> Stress:
    """``best`` with one parameter of :data:`SPACE` moved to another of its values, drawn from
    ``rng``; one not in ``tried`` (environments as :func:`stress_key`) when a few draws find it."""
    keys = [k for k, v in _tunable().items() if len(set(v)) > 1]
    moved = best
    for _ in range(16):
        key = rng.choice(keys)
        moved = replace(best, name=name, **{key: rng.choice([v for v in dict.fromkeys(SPACE[key])
                                                              if v != getattr(best, key)])})
        if stress_key(moved) not in tried:
            break
    validate_stress(moved)
    return moved


def stress_key(stress: Stress) -> str:
    """An environment's parameters without its name, as one comparable string."""
    return repr(sorted((k, v) for k, v in stress.as_dict().items() if k != "name"))


def tune(tests: Sequence[LitmusTest], backend: Backend, *, trials: int, seconds: float, seed: int = 0,
         instances: int | None = None, baseline: Stress | None = PRESETS["default"],
         on_trial: TrialHook | None = None, objective: str = "wall") -> list[Trial]:
    """Run ``trials`` environments (plus ``baseline`` first, when given) on ``tests``, each
    variant for ``seconds``; return the trials, best first (see :func:`score`).  The first
    trials are, on the cuda backend, the baseline's :func:`layout_sweep` (as many as ``trials``
    allows); of the rest, the first half are random draws (:func:`draw`) and the second half
    each moves one parameter of the best trial so far (:func:`neighbour`): on one H100 the best
    2+2W and ISA2 environments of a random search differed from the default in stride, warm
    reads and role rotation together, which a random draw rarely hits again.

    Each variant first runs one round of the environment untimed and uncounted: that round
    compiles the environment's kernel when no earlier trial did, and counted, it scored a trial
    by its compile time (the first trial, the baseline, ran 0.8 s for a 0.3 s budget on an H100)."""
    if not tests:
        raise LitmusError(NOTHING_TO_TUNE)
    check_objective(objective)
    from litmus.model import check, ptx_model_for

    models = {t.id: (check(t, ptx_model_for(t)), sc_reference(t)) for t in tests}  # once, not once per trial
    rng, local_rng = random.Random(seed), random.Random(f"neighbour {seed}")
    # the layout knobs act on the cuda backend's parallel launch only
    swept = layout_sweep(tests, baseline)[:trials] if baseline is not None and backend.name == "cuda" else []
    n_drawn = (trials - len(swept) + 1) // 2
    planned = ([baseline] if baseline is not None else []) + swept + [draw(rng, name=f"trial{k}")
                                                                        for k in range(n_drawn)]
    n_local = trials - len(swept) - n_drawn
    done: list[Trial] = []
    tried: set[str] = set()
    for k in range(len(planned) + n_local):
        if k < len(planned):
            env = planned[k]
        else:
            env = neighbour(local_rng, max(done, key=lambda t: score(t, objective)).stress,
                            f"local{k - len(planned)}", tried)
        tried.add(stress_key(env))
        config = run_config(backend, time_budget=seconds, instances=instances, seed=seed + k, stress=env)
        seen = total = 0
        spent = kernel = 0.0
        seen_by: dict[str, int] = {}
        for test in tests:
            ptx, sc = models[test.id]
            backend.run_round(test, config, 0)
            ran = run_variant(test, backend, config, ptx=ptx, sc=sc)
            seen += ran.verdict.target_count
            seen_by[test.id] = ran.verdict.target_count
            total += ran.verdict.instances
            spent += ran.seconds
            kernel += ran.kernel_seconds
        trial = Trial(k, env, seen, total, spent, seen_by, kernel)
        done.append(trial)
        if on_trial is not None:
            on_trial(trial)
    return sorted(done, key=lambda t: score(t, objective), reverse=True)


def pick_rotation(ranked: Sequence[Trial], keep: int, objective: str = "wall") -> list[Trial]:
    """Up to ``keep`` trials for a rotation: the best (:func:`score`) first, then greedily the one
    that witnesses the most variants none of those chosen did (ties: the better score); stops
    early when no trial adds a variant."""
    if not ranked or keep < 1:
        return []
    chosen = [ranked[0]]
    covered = {v for v, n in ranked[0].seen_by.items() if n}
    rest = list(ranked[1:])
    while len(chosen) < keep and rest:
        gain = [len({v for v, n in t.seen_by.items() if n} - covered) for t in rest]
        best = max(range(len(rest)), key=lambda i: (gain[i], score(rest[i], objective)))
        if gain[best] == 0:
            break
        covered |= {v for v, n in rest[best].seen_by.items() if n}
        chosen.append(rest.pop(best))
    return chosen


def trials_text(ranked: Sequence[Trial], top: int = 10) -> str:
    """A table of the best ``top`` trials: rate per second of run and of kernel time, per
    instance, and what each changed."""
    base = PRESETS["default"].as_dict()
    lines = [f"{'trial':<8} {'target/s':>10} {'/kernel-s':>10} {'per instance':>13} {'seen':>10} "
             f"{'instances':>14}  settings"]
    for t in ranked[:top]:
        diff = {k: v for k, v in t.stress.as_dict().items() if k != "name" and base.get(k) != v}
        text = ", ".join(f"{k}={v}" for k, v in sorted(diff.items())) or "(default)"
        per = f"{t.per_instance:.2e}" if t.instances else "-"
        lines.append(f"{t.stress.name:<8} {t.rate:>10.4g} {t.kernel_rate:>10.4g} {per:>13} {t.seen:>10,} "
                     f"{t.instances:>14,}  {text}")
    return "\n".join(lines)


def trial_record(trial: Trial) -> dict[str, Any]:
    """A JSON-ready record of one trial (for the tuning log)."""
    return {"trial": trial.stress.name, "rate": trial.rate, "kernel_rate": trial.kernel_rate,
            "per_instance": trial.per_instance, "seen": trial.seen, "instances": trial.instances,
            "seconds": round(trial.seconds, 4), "kernel_seconds": round(trial.kernel_seconds, 4),
            "seen_by": trial.seen_by,
            "stress": stress_json(trial.stress),
            "log10_rate": math.log10(trial.rate) if trial.rate > 0 else None}
