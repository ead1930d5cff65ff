"""Litmus YAML files as pytest collectors: one item per variant, one failing item per bad file."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Iterator

import pytest

from litmus.errors import LitmusError, Problem
from litmus.ir import LitmusTest
from litmus.pytest_plugin.report import (LitmusFailure, inconclusive, model_disagreement, observed_clean,
                                         observed_forbidden, unwitnessed)
from litmus.pytest_plugin.state import get_state

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
        kind = get_state(self.config).backend_kind
        for test in tests:
            item = VariantItem.from_parent(self, name=test.id, test=test)
            add_backend_markers(item, kind, test)
            yield item


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
    """One variant: its expectation agrees with the model, and no forbidden outcome appears."""

    def __init__(self, *, test: LitmusTest, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.test = test

    def runtest(self) -> None:
        from litmus.model import check, hang_problem, ptx_model_for
        from litmus.pytest_plugin.runner import instances_for, run_on
        from litmus.session import run_config

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
        config = run_config(backend, iterations=opts.iterations, time_budget=opts.time_budget,
                            instances=instances_for(backend, opts.instances), seed=opts.seed,
                            stress=opts.stress)
        result = run_on(test, backend, config, ptx=ptx)
        self.user_properties += result.properties()
        if result.forbidden_count:
            parts.append(observed_forbidden(result))
        elif result.verdict == "inconclusive":
            parts.append(inconclusive(result))  # no verdict without evidence: never a pass
        elif parts:
            parts.append(observed_clean(result))
        if opts.require_witness and result.model_allows_target and result.target_count == 0:
            parts.append(unwitnessed(result))
        if parts:
            raise LitmusFailure(test, parts)

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None) -> str:
        if isinstance(excinfo.value, (LitmusFailure, LitmusError)):
            return str(excinfo.value)
        return str(super().repr_failure(excinfo, style=style))

    def reportinfo(self) -> tuple[Path, int | None, str]:
        line = (self.test.source_line - 1) if self.test.source_line else 0
        return self.path, line, f"litmus {self.test.id}"
