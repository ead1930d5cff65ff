"""The failure text of a litmus item: what disagreed, what was seen, and how to reproduce it."""

from __future__ import annotations

from dataclasses import dataclass, field

from litmus.bound import rule_of_three
from litmus.ir import LitmusTest
from litmus.pytest_plugin.result import LitmusResult


def condition_text(test: LitmusTest) -> str:
    """The condition as written: ``exists P1:r0 == 1 /\\ P1:r1 == 0``."""
    from litmus.condition import format_prop, kind_text

    return f"{kind_text(test.condition.kind)} {test.condition.text or format_prop(test.condition.prop)}"


def where(test: LitmusTest) -> str:
    """``file:line`` of the variant (or of its pattern)."""
    return f"{test.source_file}:{test.source_line}" if test.source_line else test.source_file


def model_disagreement(test: LitmusTest, reachable: bool) -> str:
    """The declared expectation and what the PTX model says instead."""
    declared = test.expect.outcome if test.expect else "?"
    why = f' ("{test.expect.why}")' if test.expect and test.expect.why else ""
    says = "ALLOWS" if reachable else "FORBIDS"
    other = "allowed" if declared == "forbidden" else "forbidden"
    pick = f" --variant {test.variant}" if test.variant else ""
    return (
        f"expectation: declared {declared}{why},\n"
        f"  but the PTX model {says} the target outcome of {condition_text(test)}\n"
        f"  fix: declare `expect: {other}` for this variant, or change its ops "
        f"(`litmus model {test.source_file}{pick}` shows the allowed states)"
    )


def observed_forbidden(result: LitmusResult) -> str:
    """The forbidden outcomes seen, with counts, the histogram, the model's explanation of the
    most frequent one (``litmus explain``: the axiom and cycle the hardware or compiler broke,
    or the execution that reaches it where the declared expectation is the mistake) and the
    reproduce command."""
    from litmus.explain import outcome_text
    from litmus.model import ptx_model_for

    n = result.instances
    rows = [f"  {o.count} x {o.text()}" + ("  (target outcome)" if o.target else "") for o in result.forbidden]
    worst = max(result.forbidden, key=lambda o: o.count)
    why = outcome_text(result.test, worst.state, ptx_model_for(result.test))
    return "\n".join([
        f"observed on {result.backend} (seed {result.config.seed}, {result.rounds} round(s)): "
        f"forbidden outcome(s) in {result.forbidden_count} of {n} instances:",
        *rows,
        result.histogram_text(),
        f"what the PTX model says of {worst.text()} (litmus explain):",
        *("  " + line for line in why.splitlines()),
        f"reproduce: {result.reproduce}",
    ])


def observed_clean(result: LitmusResult) -> str:
    """What a run that saw no forbidden outcome saw (shown when another check failed)."""
    return "\n".join([
        f"observed on {result.backend} (seed {result.config.seed}, {result.rounds} round(s)): no forbidden "
        f"outcome; target outcome in {result.target_count} of {result.instances} instances",
        result.histogram_text(),
        f"reproduce: {result.reproduce}",
    ])


def inconclusive(result: LitmusResult) -> str:
    """A run with too few ended instances to claim that nothing forbidden happens."""
    from litmus.classify import MIN_COMPLETED, MIN_COMPLETED_FRACTION

    return "\n".join([
        f"inconclusive on {result.backend} (seed {result.config.seed}, {result.rounds} round(s)): only "
        f"{result.ended} of {result.instances} instances ended ({result.completed} completed, {result.hung_count} "
        f"provably hung, {result.timeout_count} timed out in a bounded spin); an absence needs >= {MIN_COMPLETED} "
        "ended instances and >= "
        f"{MIN_COMPLETED_FRACTION:.0%} of them, so nothing is proved. Fix: run more instances or rounds "
        "(--litmus-instances, --litmus-time), or raise the spin bound if the spins time out",
        result.histogram_text(),
        f"reproduce: {result.reproduce}",
    ])


def unwitnessed(result: LitmusResult) -> str:
    """A racy variant whose target outcome never appeared (with --litmus-require-witness)."""
    bound = f"{rule_of_three(result.ended):.2g}" if result.ended else "?"
    return "\n".join([
        f"not witnessed: the model allows the target outcome of {condition_text(result.test)}, "
        f"but it appeared in 0 of {result.ended} ended instances on {result.backend} "
        f"(seed {result.config.seed}; 95 % bound on its rate: {bound}); run longer or under more stress",
        result.histogram_text(),
        f"reproduce: {result.reproduce}",
    ])


def declared_seen(result: LitmusResult, reason: str) -> str:
    """The forbidden outcomes a declared miscompile explains (the xfail's message)."""
    return "\n".join([
        f"{result.test.id}: {result.forbidden_count} of {result.instances} instances forbidden on {result.backend}, "
        f"all explained by the {reason}",
        result.histogram_text(),
        f"reproduce: {result.reproduce}",
    ])


class DeclaredMiscompileSeen(Exception):
    """A run showed the forbidden outcomes of its variant's declared miscompile (the strict xfail
    of the item expects exactly this exception)."""


class StaleDeclaration(Exception):
    """A run on a toolchain a declared miscompile covers showed none of its forbidden outcomes:
    one line, the exception's message."""


@dataclass
class LitmusFailure(Exception):
    """Raised by a litmus item: each part is one paragraph of the failure report."""

    test: LitmusTest
    parts: list[str] = field(default_factory=list)

    def __str__(self) -> str:
        head = f"litmus {self.test.id} ({where(self.test)}) failed"
        return "\n".join([head, *self.parts])
