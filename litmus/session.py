"""A run session: variants on a backend round after round, classified, appended as they finish.

This stage ties the pipeline together (model -> run backend -> classify -> JSONL record), so the
backends in :mod:`litmus.run` import neither ``model`` nor ``report``.  Every
:class:`~litmus.run.config.RunConfig` of the CLI and the pytest plugin is built by
:func:`run_config`.
"""

from __future__ import annotations

import datetime as _dt
import time
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Sequence

from litmus.bound import rule_of_three
from litmus.classify import Verdict, classify, enough_evidence, hang_target_memories, shows_target
from litmus.errors import LitmusError
from litmus.ir import LitmusTest
from litmus.model import ModelResult, check, ptx_model_for
from litmus.model.budget import BudgetExceeded
from litmus.model.facts import ModelFacts, model_facts
from litmus.report.jsonl import append_record, finished_ids
from litmus.run.backend import Backend, Row, merge_rows
from litmus.run.config import RunConfig, Stress, load_stresses
from litmus.run.schedule import RoundPlan, keeps_filling, keeps_hunting, may_wait
from litmus.status import ended
from litmus.report.record import RunRecord

if TYPE_CHECKING:
    from litmus.audit.declared import Toolchain

DEFAULT_ITERATIONS = 4
"""Rounds per variant when neither iterations nor a time budget is given."""


class ChecksumError(LitmusError, RuntimeError):
    """A backend counted a different number of outcomes than instances it ran (a backend bug)."""


class BackendLost(LitmusError, RuntimeError):
    """A variant's failure left the backend unusable in this process (a CUDA context poisoned by
    a device fault): the remaining variants need a fresh process."""


ERROR = "error"
"""The verdict of a variant whose run failed (a device fault, a compile error, a dead worker):
it costs that variant only, and ``--resume`` runs it again."""


@dataclass
class VariantResult:
    """One variant's outcome: a verdict, or the reason it was skipped."""

    test: LitmusTest
    verdict: Verdict | None
    skipped: str | None
    seconds: float
    record: RunRecord | None
    error: str | None = None  # one line: what failed, when the variant's run raised


@dataclass(frozen=True)
class VariantRun:
    """One variant's run: its verdict, the seconds and rounds spent, and the model results
    (``ptx``, ``sc``) it was classified against."""

    verdict: Verdict
    seconds: float
    rounds: int
    ptx: ModelResult
    sc: ModelResult | None  # None: the SC check ran past its budget (sc_reference)
    kernel_seconds: float = 0.0  # the rounds' launches as the backend timed them (else their seconds)


ProgressHook = Callable[[LitmusTest, float], None]  # (test, fraction done)


def run_config(
    backend: Backend,
    *,
    iterations: int | None = None,
    time_budget: float | None = None,
    instances: int | None = None,
    seed: int = 0,
    stress: str | Stress | Sequence[Stress] = "default",
    default_iterations: int = DEFAULT_ITERATIONS,
    stop_bound: float | None = None,
) -> RunConfig:
    """The run configuration for ``backend``: a time budget overrides iterations (else
    ``iterations`` rounds; with neither, the backend's ``default_time_budget`` when it has one,
    else ``default_iterations`` rounds); instances default to the backend's own;
    ``stress`` is a preset name, a JSON file (one environment or a rotation), a :class:`Stress`
    or several (a rotation: round ``k`` runs the ``k``-th modulo their number); ``stop_bound``
    ends a variant early once its evidence is in (see :func:`run_variant`)."""
    envs = (stress,) if isinstance(stress, Stress) else load_stresses(stress) if isinstance(stress, str) else tuple(stress)
    if not envs:
        raise LitmusError("run_config: stress is an empty rotation; give at least one environment")
    if instances is None:
        instances = int(backend.describe().get("default_instances", 1 << 16))
    if iterations is None and time_budget is None:
        time_budget = getattr(backend, "default_time_budget", None)
    return RunConfig(
        iterations=None if time_budget is not None else (iterations or default_iterations),
        time_budget=time_budget,
        instances=int(instances),
        seed=seed,
        stress=envs[0],
        rotation=envs[1:],
        stop_bound=stop_bound,
    )


@dataclass(frozen=True)
class StopRule:
    """When one variant's run is done (:meth:`done`), and how far along it is for a progress bar
    (:meth:`progress`).

    A run is done when its iterations, or its time budget (counted from the end of the first
    round, which also compiles), are spent.  With ``config.stop_bound`` it is done as soon as
    the evidence is in: the target was witnessed, or the bound 3/N over the N ended instances
    is at most the stop bound (with enough of them ended for a verdict of absence).  Under both
    a budget and a bound, a spent budget ends the run only when neither :func:`keeps_filling`
    (a conformance variant near its bound) nor :func:`keeps_hunting` (a hunting variant that
    would be ``inconclusive``) asks for more.
    """

    config: RunConfig
    plan: RoundPlan

    def budget_spent(self, rounds: int, spent: float) -> bool:
        """Whether the iterations, or the seconds after the first round, are used up."""
        if self.config.time_budget is not None:
            return rounds > 1 and spent >= self.config.time_budget
        return rounds >= max(1, self.config.iterations or 1)

    def evidence_in(self, instances: int, n_ended: int, witnessed: bool) -> bool:
        """Whether a stop bound is set and met: the target seen, or 3/N at most the bound."""
        bound = self.config.stop_bound
        if bound is None:
            return False
        return witnessed or (enough_evidence(instances, n_ended) and (rule_of_three(n_ended) or 1.0) <= bound)

    def done(self, rounds: int, spent: float, instances: int, n_ended: int, witnessed: bool) -> bool:
        """Whether the variant stops after ``rounds`` rounds, ``spent`` seconds after the first,
        with ``n_ended`` of ``instances`` instances ended and its target ``witnessed`` or not."""
        if self.evidence_in(instances, n_ended, witnessed):
            return True
        if not self.budget_spent(rounds, spent):
            return False
        budget, bound = self.config.time_budget, self.config.stop_bound
        if budget is None or bound is None:
            return True
        if self.plan.fill:
            return not keeps_filling(spent, budget, n_ended, instances, bound, self.plan.fill_rate(),
                                     self.plan.warmed)
        return not keeps_hunting(spent, budget, n_ended, enough_evidence(instances, n_ended))

    def progress(self, rounds: int, spent: float) -> float:
        """How far along a run that is not done is, in [0, 0.99]: the budget or the iterations."""
        if self.config.time_budget is not None:
            frac = spent / self.config.time_budget if rounds > 1 else 0.0
        else:
            frac = rounds / max(1, self.config.iterations or 1)
        return min(0.99, frac)


def sc_reference(test: LitmusTest) -> ModelResult | None:
    """The SC model's result for ``test``, or None when the SC check ran past the model's step
    budget.  SC only splits allowed outcomes into ``sc`` and ``weak``; the verdict rests on the
    PTX model alone, so a test whose SC enumeration is too large still runs."""
    try:
        return check(test, "sc")
    except BudgetExceeded:
        return None


def run_variant(
    test: LitmusTest,
    backend: Backend,
    config: RunConfig,
    on_progress: ProgressHook | None = None,
    ptx: ModelResult | None = None,
    sc: ModelResult | None = None,
) -> VariantRun:
    """Run one variant until its iterations or time budget are spent, and classify it.

    Which environment each round runs, and how many instances, is :class:`RoundPlan`'s choice:
    the rotation in order, then (a variant run to a bound whose target the model forbids) the
    environment that completes instances fastest; under a budget, rounds that would overrun it
    are made smaller.

    When it stops is :class:`StopRule`'s call.
    ``ptx`` and ``sc`` are the model results of ``test`` when the caller has them already; they
    are computed otherwise (``sc``: :func:`sc_reference`), and returned either way.
    """
    ptx = ptx if ptx is not None else check(test, ptx_model_for(test))
    sc = sc if sc is not None else sc_reference(test)
    plan = RoundPlan(config, fill=config.stop_bound is not None and not ptx.target_reachable,
                     spins=may_wait(test))
    rule = StopRule(config, plan)
    rows: list[Row] = []
    hang_memories = hang_target_memories(test, ptx)  # final memories by which a hang shows the target
    start = time.perf_counter()
    first: float | None = None
    rounds = 0
    warm = start
    total = n_ended = 0
    kernel = 0.0
    while True:
        r = backend.run_round(test, plan.next(), rounds)
        plan.record(r)
        rounds += 1
        kernel += float(r.extra.get("kernel_seconds", r.seconds))
        if sum(n for _, _, n in r.rows) != r.instances:
            raise ChecksumError(
                f"{test.id}: histogram checksum failed on {backend.name}: "
                f"{sum(n for _, _, n in r.rows)} outcomes counted for {r.instances} instances"
            )
        rows.extend(r.rows)
        rows = merge_rows(rows)
        total += r.instances
        n_ended += sum(n for _, status, n in r.rows if ended(status))
        now = time.perf_counter()
        if rounds == 1:
            warm = now  # the first round also compiles the kernel: the budget starts after it
        if first is None and any(n and shows_target(test, s, int(t), hang_memories) for s, t, n in r.rows):
            first = now - start
        spent = now - warm if rounds > 1 else 0.0
        stop = rule.done(rounds, spent, total, n_ended, witnessed=first is not None)
        if on_progress:
            on_progress(test, 1.0 if stop else rule.progress(rounds, spent))
        if stop:
            break
    verdict = classify(test, rows, ptx, sc, seconds_to_first=first)
    return VariantRun(verdict, time.perf_counter() - start, rounds, ptx, sc, kernel)


def result_record(
    test: LitmusTest, verdict: Verdict, backend: Backend, config: RunConfig, seconds: float, rounds: int,
    facts: ModelFacts | None = None,
) -> RunRecord:
    """The JSON record of one finished variant (appended to the results file); ``facts``, the
    PTX model's answer the verdict rests on, goes in as ``model``, so that reports need not
    check the model again."""
    return {
        "id": test.id,
        "test": test.name,
        "variant": test.variant,
        "source": test.source_file,
        "expect": test.expect.outcome if test.expect else None,
        "verdict": verdict.verdict,
        "observation": verdict.observation,
        "instances": verdict.instances,
        "completed": verdict.completed,
        "hung": verdict.hung,
        "target_count": verdict.target_count,
        "hang_witnesses": verdict.hang_witnesses,
        "hung_witnesses": verdict.hung_witnesses,
        "counts": verdict.counts,
        "rate": verdict.rate,
        "bound_95": verdict.bound_95,
        "bound_completed": verdict.bound_completed,
        "seconds_to_first": verdict.seconds_to_first,
        "seconds": round(seconds, 4),
        "rounds": rounds,
        "histogram": [
            {"state": dict(b.state), "count": b.count, "label": b.label, "target": b.target}
            for b in verdict.bins
        ],
        "notes": list(verdict.notes),
        "config": config.as_dict(),
        "seed": config.seed,
        "finished_at": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
        **({"model": facts.as_dict()} if facts is not None else {}),
        **{k: v for k, v in backend.describe().items() if k != "note"},
    }


def declared_or_violation(test: LitmusTest, verdict: Verdict, backend: Backend,
                          toolchain: Toolchain | None = None) -> Verdict:
    """``verdict``; or, when it is ``VIOLATION`` and a declared miscompile the run executes with
    ``toolchain`` (default: the installed one) explains every forbidden outcome,
    ``declared-miscompile`` with the declaration in its notes (:mod:`litmus.audit.declared`)."""
    if verdict.verdict != "VIOLATION":
        return verdict
    from litmus.audit.declared import DECLARED_MISCOMPILE, declared_miscompile, installed_toolchain

    declared = declared_miscompile(test, backend.name, toolchain or installed_toolchain(),
                                   str(backend.describe().get("device", "")))
    if declared is None or not declared.explains_all(b.state for b in verdict.bins if b.label == "forbidden"):
        return verdict
    return replace(verdict, verdict=DECLARED_MISCOMPILE, notes=(*verdict.notes, declared.reason()))


def error_line(exc: BaseException) -> str:
    """One line saying what failed: the exception's kind and the first line of its message."""
    text = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {text[0]}" if text else type(exc).__name__


def reproduce_command(test: LitmusTest, backend: Backend) -> str:
    """The command that runs ``test`` alone on ``backend``."""
    import shlex

    return shlex.join(["litmus", "run", test.source_file, "--variant", test.variant, "--backend", backend.name,
                       "--debug"])


def error_record(test: LitmusTest, backend: Backend, config: RunConfig, exc: BaseException,
                 seconds: float) -> RunRecord:
    """The JSON record of a variant whose run raised: verdict ``error``, what failed in one line,
    the traceback, and the command that reproduces it alone."""
    import traceback

    return {
        "id": test.id, "test": test.name, "variant": test.variant, "source": test.source_file,
        "expect": test.expect.outcome if test.expect else None,
        "verdict": ERROR, "observation": "", "error": error_line(exc),
        "traceback": "".join(traceback.format_exception(type(exc), exc, exc.__traceback__)),
        "reproduce": reproduce_command(test, backend),
        "instances": 0, "completed": 0, "hung": 0, "target_count": 0, "hang_witnesses": 0, "hung_witnesses": 0,
        "counts": {}, "rate": 0.0, "bound_95": None, "bound_completed": None, "seconds_to_first": None,
        "seconds": round(seconds, 4), "rounds": 0, "histogram": [], "notes": [],
        "config": config.as_dict(), "seed": config.seed,
        "finished_at": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
        **{k: v for k, v in backend.describe().items() if k != "note"},
    }


def _recover(backend: Backend) -> None:
    """Make ``backend`` usable after a variant failed (its optional ``recover``), or raise
    :class:`BackendLost`."""
    recover = getattr(backend, "recover", None)
    if recover is None:
        return
    try:
        recover()
    except BackendLost:
        raise
    except Exception as exc:  # noqa: BLE001 - any failure to recover means this process cannot go on
        raise BackendLost(f"the {backend.name} backend could not recover: {error_line(exc)}") from exc


def run_tests(
    tests: Sequence[LitmusTest],
    backend: Backend,
    config: RunConfig,
    out: Path | None = None,
    resume: bool = False,
    on_progress: ProgressHook | None = None,
    on_result: Callable[[VariantResult], None] | None = None,
    compile_workers: int = 0,
    retry_errors: bool = True,
) -> list[VariantResult]:
    """Run every test; append each finished variant to ``out`` at once (JSON Lines).

    With ``resume``, variants already in ``out`` for this backend are skipped, except those
    recorded as ``error``, which run again unless ``retry_errors`` is false.  A variant whose run
    raises (anything but an interrupt) is recorded as ``error`` and the run goes on; the
    backend's ``recover`` makes it usable again first, and when it cannot,
    :class:`BackendLost` ends the run here (every finished variant is in ``out``).  With
    ``compile_workers`` and a backend that can (``compile_ahead``: cuda), that many processes
    compile the next variants' kernels while the GPU runs (:mod:`litmus.run.ahead`).
    """
    done = finished_ids(out, backend.name, with_errors=not retry_errors) if (out is not None and resume) else set()
    ahead = getattr(backend, "compile_ahead", None)
    if compile_workers > 0 and ahead is not None:
        ahead([t for t in tests if f"{t.source_file}::{t.id}" not in done], config, compile_workers)
    results: list[VariantResult] = []
    for test in tests:
        key = f"{test.source_file}::{test.id}"
        if key in done:
            res = VariantResult(test, None, "already in the results file (--resume)", 0.0, None)
        elif (reason := backend.skip_reason(test)) is not None:
            res = VariantResult(test, None, reason, 0.0, None)
        else:
            t0 = time.perf_counter()
            try:
                ran = run_variant(test, backend, config, on_progress)
            except (KeyboardInterrupt, BackendLost):
                raise
            except Exception as exc:  # noqa: BLE001 - a failed variant costs that variant only
                record = error_record(test, backend, config, exc, time.perf_counter() - t0)
                if out is not None:
                    append_record(out, record)
                res = VariantResult(test, None, None, record["seconds"], record, error=record["error"])
                results.append(res)
                if on_result:
                    on_result(res)
                _recover(backend)
                continue
            verdict = declared_or_violation(test, ran.verdict, backend)
            record = result_record(test, verdict, backend, config, ran.seconds, ran.rounds, model_facts(test, ran.ptx))
            if out is not None:
                append_record(out, record)
            res = VariantResult(test, verdict, None, ran.seconds, record)
        results.append(res)
        if on_result:
            on_result(res)
    return results
