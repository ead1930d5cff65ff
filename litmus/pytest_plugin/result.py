"""What one litmus run inside pytest produced: counts, histogram, verdict and assertion helpers."""

from __future__ import annotations

import shlex
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping

from litmus.condition import ConditionSyntaxError, evaluate, parse_prop, state_key, terms
from litmus.errors import LitmusError
from litmus.ir import Const, LitmusTest, Prop
from litmus.run.config import RunConfig
from litmus.spec.select import INLINE_FILE  # the file name problems and results of inline YAML carry

TOP_ROWS = 8


@dataclass(frozen=True)
class Outcome:
    """One histogram row: a final state, how many instances ended in it, and its label."""

    state: Mapping[str, int]
    count: int
    label: str  # sc / weak / forbidden / timeout / hang (litmus.classify)
    target: bool  # in the condition's target outcome

    @property
    def timed_out(self) -> bool:
        """A bounded spin ran out of reads, or the instance provably hung: either way the
        registers are not a final state."""
        return self.label in ("timeout", "hang")

    def text(self) -> str:
        """``P1:r0=1 P1:r1=0``."""
        return " ".join(f"{k}={v}" for k, v in self.state.items())


def reproduce_command(test: LitmusTest, backend: str, config: RunConfig, stress: str | None = None) -> str:
    """The ``litmus run`` command line that repeats this run of ``test``; ``stress``: the
    ``--stress`` the run was given (a preset, a file or ``auto``), when known.

    An inline pattern is shown as ``PATTERN.yaml`` (save the text there to rerun it).
    """
    if test.source_file in ("", INLINE_FILE):
        where = "PATTERN.yaml"
    else:
        path = Path(test.source_file)
        try:
            where = str(path.resolve().relative_to(Path.cwd()))
        except ValueError:
            where = str(path)
    words = ["litmus", "run", where]
    if test.variant:
        words += ["--variant", test.variant]
    words += ["--backend", backend, "--seed", str(config.seed)]
    if config.time_budget is not None:
        words += ["--time-budget", f"{config.time_budget:g}"]
        if config.stop_bound is not None:
            words += ["--until-bound", f"{config.stop_bound:g}"]
    else:
        words += ["--iterations", str(config.iterations or 1)]
    words += ["--instances", str(config.instances)]
    if stress is not None:
        if stress != "auto":  # litmus run's own default
            words += ["--stress", stress]
    elif config.stress.name != "default":
        words += ["--stress", config.stress.name]
    return " ".join(shlex.quote(w) for w in words)


@dataclass(frozen=True)
class LitmusResult:
    """The outcome of running one variant on one backend (see :mod:`litmus.classify`)."""

    test: LitmusTest
    backend: str
    config: RunConfig
    detail: Any  # litmus.classify.Verdict
    model_allows_target: bool  # the PTX model allows the condition's target outcome
    rounds: int
    seconds: float
    stress: str | None = None  # the --stress it was run with (a preset, a file or auto), when known

    @property
    def verdict(self) -> str:
        """``VIOLATION``, ``racy-witnessed``, ``racy-unseen``, ``correct`` or ``inconclusive``
        (too few instances completed to claim an absence; see :mod:`litmus.classify`)."""
        return str(self.detail.verdict)

    @property
    def instances(self) -> int:
        """Instances run, over all rounds."""
        return int(self.detail.instances)

    @property
    def completed(self) -> int:
        """Instances that reached a final state (every spin exited)."""
        return int(self.detail.completed)

    @property
    def ended(self) -> int:
        """Instances that are evidence of absence: completed, or provably hung."""
        return int(self.detail.ended)

    @property
    def bound_95(self) -> float | None:
        """3/N over the N ended instances when the target was never seen (else None)."""
        return self.detail.bound_95

    @property
    def hung_count(self) -> int:
        """Instances that provably hung (every thread finished or stuck in a spin that cannot exit)."""
        return int(self.detail.hung)

    @property
    def target_count(self) -> int:
        """Instances whose outcome lies in the condition's target outcome."""
        return int(self.detail.target_count)

    @property
    def forbidden_count(self) -> int:
        """Instances whose outcome is forbidden (by the model or by the declared expectation)."""
        return int(self.detail.forbidden_count)

    @property
    def timeout_count(self) -> int:
        """Instances in which a bounded spin ran out of reads."""
        return int(self.detail.counts.get("timeout", 0))

    @property
    def histogram(self) -> tuple[Outcome, ...]:
        """Every observed outcome with its count, most frequent first."""
        return tuple(Outcome(dict(b.state), b.count, b.label, b.target) for b in self.detail.bins)

    @property
    def forbidden(self) -> tuple[Outcome, ...]:
        """The observed outcomes labelled forbidden."""
        return tuple(o for o in self.histogram if o.label == "forbidden")

    @property
    def reproduce(self) -> str:
        """The ``litmus run`` command that repeats this run."""
        return reproduce_command(self.test, self.backend, self.config, self.stress)

    def _prop(self, condition: str) -> Prop:
        from litmus.model import observables

        try:
            prop = parse_prop(condition)
        except ConditionSyntaxError as e:
            raise LitmusError(f"bad condition {condition!r}: {e}") from None
        known = observables(self.test)
        unknown = sorted({state_key(t) for t in terms(prop) if not isinstance(t, Const)} - set(known))
        if unknown:
            raise LitmusError(
                f"condition {condition!r} names {', '.join(unknown)}, which {self.test.id} does not "
                f"observe; observed registers and locations: {', '.join(known)}"
            )
        return prop

    def witnessed(self, condition: str) -> int:
        """How many instances ended in a state where ``condition`` holds (0 = never; truthy if seen)."""
        prop = self._prop(condition)
        return sum(o.count for o in self.histogram if not o.timed_out and evaluate(prop, o.state))

    def never(self, condition: str) -> None:
        """Assert ``condition`` held in no observed final state; AssertionError shows the histogram.

        Absence needs evidence: it also fails when too few instances completed (see
        :func:`litmus.classify.enough_evidence`).  Only completed instances count here, not
        proven hangs: ``condition`` may name final memory, which a hung instance also has.
        """
        __tracebackhide__ = True
        from litmus.classify import enough_evidence

        prop = self._prop(condition)
        hits = [o for o in self.histogram if not o.timed_out and evaluate(prop, o.state)]
        if not hits and not enough_evidence(self.instances, self.completed):
            raise AssertionError(
                f"{self.test.id}: inconclusive: only {self.completed} of {self.instances} instances completed "
                f"on {self.backend} (seed {self.config.seed}), too few to show {condition!r} never holds\n"
                + self.histogram_text() + f"\nreproduce: {self.reproduce}"
            )
        if hits:
            seen = sum(o.count for o in hits)
            raise AssertionError(
                f"{self.test.id}: {condition!r} held in {seen} of {self.instances} instances "
                f"on {self.backend} (seed {self.config.seed})\n"
                + self.histogram_text() + f"\nreproduce: {self.reproduce}"
            )

    def histogram_text(self, top: int = TOP_ROWS) -> str:
        """The most frequent ``top`` rows as an aligned table (``<- target`` marks target rows)."""
        rows = self.histogram
        head = f"histogram ({len(rows)} outcome(s), {self.instances} instances"
        head += f", top {top}):" if len(rows) > top else "):"
        width = max((len(str(o.count)) for o in rows), default=1)
        lines = [head]
        for o in rows[:top]:
            mark = "  <- target" if o.target else ""
            lines.append(f"  {o.count:>{width}}  {o.label:<9}  {o.text()}{mark}")
        if len(rows) > top:
            rest = sum(o.count for o in rows[top:])
            lines.append(f"  ... {len(rows) - top} more outcome(s), {rest} instances")
        return "\n".join(lines)

    def properties(self) -> list[tuple[str, Any]]:
        """The counts as (name, value) pairs for JUnit XML ``<property>`` elements."""
        return [
            ("litmus_backend", self.backend),
            ("litmus_seed", self.config.seed),
            ("litmus_instances", self.instances),
            ("litmus_completed", self.completed),
            ("litmus_hung", self.hung_count),
            ("litmus_target_count", self.target_count),
            ("litmus_forbidden_count", self.forbidden_count),
            ("litmus_timeout_count", self.timeout_count),
            ("litmus_ended", self.ended),
            ("litmus_bound_95", self.bound_95),
            ("litmus_rounds", self.rounds),
            ("litmus_seconds", round(self.seconds, 3)),
            ("litmus_verdict", self.verdict),
            ("litmus_reproduce", self.reproduce),
        ]
