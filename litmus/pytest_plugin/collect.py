"""Litmus YAML files as pytest collectors: one item per variant, one failing item per bad file."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any, Iterator

import pytest

from litmus.audit.declared import DECLARED_MISCOMPILE
from litmus.errors import LitmusError, Problem
from litmus.ir import LitmusTest
from litmus.pytest_plugin.ci import INCONCLUSIVE
from litmus.pytest_plugin.report import (DeclaredMiscompileSeen, LitmusFailure, StaleDeclaration, declared_seen,
                                         inconclusive, model_disagreement, observed_clean, observed_forbidden,
                                         unwitnessed)
from litmus.pytest_plugin.state import get_state

if TYPE_CHECKING:
    from litmus.audit.declared import DeclaredMiscompile
    from litmus.pytest_plugin.result import LitmusResult
    from litmus.report.record import RunRecord

MULTIGPU_GROUP = "litmus-multigpu"


def display_path(path: Path, config: pytest.Config) -> str:
    """``path`` relative to where pytest was started (as the user would type it)."""
    try:
        return os.path.relpath(path, config.invocation_params.dir)
    except ValueError:
        return str(path)


def add_backend_markers(item: pytest.Item, kind: str, test: LitmusTest | None) -> None:
    """Mark ``item`` litmus, plus gpu (cuda) or multigpu (ranks; one xdist group for multi-rank tests)."""
    item.add_marker(pytest.mark.litmus)
    if kind == "cuda":
        item.add_marker(pytest.mark.gpu)
    elif kind == "ranks":
        item.add_marker(pytest.mark.multigpu)
        if test is None or len(test.ranks) > 1:
            item.add_marker(pytest.mark.xdist_group(MULTIGPU_GROUP))


class LitmusFile(pytest.File):
    """A YAML file of litmus patterns."""

    def collect(self) -> Iterator[pytest.Item]:
        from litmus.spec import load_paths

        try:
            tests = load_paths([display_path(self.path, self.config)])
        except LitmusError as e:
            yield LoadErrorItem.from_parent(self, name="load", problems=list(e.problems))
            return
        state = get_state(self.config)
        kind = state.backend_kind
        for test in tests:
            item = VariantItem.from_parent(self, name=test.id, test=test, declared=state.declared(test))
            add_backend_markers(item, kind, test)
            add_declared_marker(item)
            yield item


def add_declared_marker(item: VariantItem) -> None:
    """Mark an item whose runs execute a declared miscompile as an expected failure: strict when
    the model says the miscompile shows as a forbidden outcome (not seeing it then means the
    declaration is stale), not strict when its effect is not modelled, none when it cannot show."""
    declared = item.declared
    if declared is None or declared.visible is False:
        return
    strict = bool(declared.visible)
    reason = declared.reason() + ("" if strict else " (its effect on outcomes is not modelled)")
    item.add_marker(pytest.mark.xfail(reason=reason, strict=strict, raises=DeclaredMiscompileSeen))


class LoadErrorItem(pytest.Item):
    """A YAML file that does not load: fails with its ``file:line: message`` problems."""

    def __init__(self, *, problems: list[Problem], **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.problems = problems

    def runtest(self) -> None:
        raise LitmusError(self.problems)

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None) -> str:
        if isinstance(excinfo.value, LitmusError):
            return str(excinfo.value)
        return str(super().repr_failure(excinfo, style=style))

    def reportinfo(self) -> tuple[Path, int | None, str]:
        return self.path, 0, f"litmus: {display_path(self.path, self.config)} does not load"


class VariantItem(pytest.Item):
    """One variant: its expectation agrees with the model, and no forbidden outcome appears
    (unless a declared miscompile explains it: then the item is an expected failure)."""

    def __init__(self, *, test: LitmusTest, declared: DeclaredMiscompile | None = None, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.test = test
        self.declared = declared
        self.litmus_record: RunRecord | None = None  # the run's JSONL record, handed to the report

    def runtest(self) -> None:
        from litmus.model import check, hang_problem, ptx_model_for
        from litmus.pytest_plugin.runner import plugin_config, run_on

        state = get_state(self.config)
        opts = state.options
        test = self.test
        parts: list[str] = []
        # once per item: the run below is classified against it too (ptx75 for proxy tests)
        ptx = check(test, ptx_model_for(test))
        reachable = ptx.target_reachable
        self.user_properties += [
            ("litmus_expect", test.expect.outcome if test.expect else "none"),
            ("litmus_model_target_reachable", reachable),
        ]
        if test.expect is not None and reachable != (test.expect.outcome == "allowed"):
            parts.append(model_disagreement(test, reachable))
        hang = hang_problem(ptx)
        if hang is not None:
            parts.append(f"may_hang disagrees with the model: {hang}")
        if opts.backend == "model":
            if parts:
                raise LitmusFailure(test, parts)
            return
        backend, reason = state.pool.get(opts.backend)
        if backend is not None:
            reason = backend.skip_reason(test)
            reason = f"{test.id} on {backend.name}: {reason}" if reason else None
        if reason is not None:
            if parts:
                raise LitmusFailure(test, parts + [f"(not run: {reason})"])
            raise pytest.skip.Exception(reason, _use_item_location=True)  # report at the YAML file
        config = plugin_config(opts, backend, state.pool.on_gpu(backend))
        state.compile_ahead(backend, config, lambda: [i.test for i in self.session.items if isinstance(i, VariantItem)])
        with state.pool.turn(backend):
            result = run_on(test, backend, config, ptx=ptx, stress=opts.stress)
        declared = self.declared
        seen = bool(declared is not None and not parts and declared.explains_all(o.state for o in result.forbidden))
        self._keep(result, backend, ptx, DECLARED_MISCOMPILE if seen else result.verdict)
        if seen and declared is not None:
            raise DeclaredMiscompileSeen(declared_seen(result, declared.reason()))
        if result.forbidden_count:
            parts.append(observed_forbidden(result))
        elif result.verdict == "inconclusive":
            parts.append(inconclusive(result))  # no verdict without evidence: never a pass
        elif parts:
            parts.append(observed_clean(result))
        elif declared is not None and declared.visible:
            self.user_properties.append(("litmus_stale", True))
            raise StaleDeclaration(declared.stale_line(result.backend, result.ended, result.bound_95))
        if opts.require_witness and result.model_allows_target and result.target_count == 0:
            parts.append(unwitnessed(result))
        if result.verdict == "inconclusive" and len(parts) == 1 and not opts.strict:
            self.user_properties.append(INCONCLUSIVE)
            raise pytest.skip.Exception(f"inconclusive: {inconclusive_line(result)}", _use_item_location=True)
        if parts:
            raise LitmusFailure(test, parts)

    def _keep(self, result: LitmusResult, backend: Any, ptx: Any, verdict: str) -> None:
        """The run's JUnit properties and its JSONL record (the report carries it to the writer)."""
        from litmus.model.facts import model_facts
        from litmus.session import result_record

        state = get_state(self.config)
        machine = state.pool.describe(backend)
        toolchain = state.toolchain
        props = [(k, verdict if k == "litmus_verdict" else v) for k, v in result.properties()]
        props += [("litmus_device", machine.get("device", "")), ("litmus_triton", toolchain.triton)]
        if toolchain.ptxas:
            props.append(("litmus_ptxas", toolchain.ptxas))
        if self.declared is not None:
            props.append(("litmus_declared", self.declared.reason()))
        self.user_properties += props
        if state.options.jsonl is not None:
            record = result_record(self.test, result.detail, backend, result.config, result.seconds, result.rounds,
                                   model_facts(self.test, ptx))
            if verdict != record["verdict"]:
                record["verdict"] = verdict
                record["notes"] = [*record["notes"], self.declared.reason() if self.declared else verdict]
            # plain JSON types (describe() holds str subclasses such as torch's version), as the
            # line will hold them: xdist must serialise the record to carry it to the controller
            self.litmus_record = json.loads(json.dumps(record))

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None) -> str:
        if isinstance(excinfo.value, (LitmusFailure, LitmusError, StaleDeclaration, DeclaredMiscompileSeen)):
            return str(excinfo.value)
        return str(super().repr_failure(excinfo, style=style))

    def reportinfo(self) -> tuple[Path, int | None, str]:
        line = (self.test.source_line - 1) if self.test.source_line else 0
        return self.path, line, f"litmus {self.test.id}"


def inconclusive_line(result: LitmusResult) -> str:
    """One line: how few instances ended, and what would decide the variant."""
    return (f"{result.test.id} on {result.backend}: only {result.ended:,} of {result.instances:,} instances ended "
            f"({result.timeout_count:,} timed out in a bounded spin) in {result.rounds} round(s), too few to decide; "
            f"run longer (--litmus-time), or --litmus-strict to fail on it; reproduce: {result.reproduce}")
