"""Find a pattern (path, catalog name or inline YAML) and run one of its variants on a backend."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from litmus.errors import LitmusError
from litmus.ir import LitmusTest
from litmus.pytest_plugin.backends import BackendPool
from litmus.pytest_plugin.options import PluginOptions
from litmus.model import ModelResult
from litmus.pytest_plugin.result import LitmusResult
from litmus.run.config import RunConfig, load_stresses
from litmus.run.tuned import AUTO, choose_stress
from litmus.spec import filter_variants, load_text

if TYPE_CHECKING:
    from litmus.pytest_plugin.lint import LintResult

CPU_INSTANCES = 256  # the Triton interpreter is slow; a pytest run keeps rounds small


def is_inline(pattern: str) -> bool:
    """Whether ``pattern`` is YAML text rather than a path or a name (a newline, or ``name:``)."""
    return "\n" in pattern or pattern.lstrip().startswith("name:")


def find_tests(pattern: str, roots: tuple[Path, ...], base: Path) -> list[LitmusTest]:
    """The variants of ``pattern``: inline YAML, a YAML file (relative to ``base`` or the cwd),
    or a pattern name (``NAME`` or ``NAME[variant]``) in ``roots``."""
    if is_inline(pattern):
        return load_text(pattern)
    from litmus.spec import find_pattern, load_paths

    for candidate in (Path(pattern), base / pattern):
        if candidate.is_file():
            return load_paths([candidate])
    if pattern.endswith((".yaml", ".yml")):
        raise LitmusError.at(pattern, None, "no such file (give a path relative to the rootdir or the cwd)")
    return find_pattern(pattern, roots or ("catalog",))


def instances_for(backend: Any, asked: int | None) -> int | None:
    """Instances per round: the one asked for, else a small count on cpu, else None (the
    backend's default)."""
    if asked is not None:
        return asked
    return CPU_INSTANCES if backend.name == "cpu" else None


def plugin_config(options: PluginOptions, backend: Any, gpu: bool, *, iterations: int | None = None,
                  time: float | None = None, instances: int | None = None, seed: int | None = None,
                  stress: Any = None) -> RunConfig:
    """The run configuration of one variant on ``backend`` (``gpu``: it runs compiled kernels on a
    GPU): the keywords given, else the ``--litmus-*`` options; how long it runs is
    :func:`litmus.pytest_plugin.budget.run_length`'s call."""
    from dataclasses import replace

    from litmus.pytest_plugin.budget import run_length
    from litmus.session import run_config

    if iterations is None and time is None:
        iterations, time = options.iterations, options.time_budget
    spec = stress if stress is not None else options.stress
    config = run_config(backend, iterations=iterations or 1,
                        instances=instances_for(backend, instances if instances is not None else options.instances),
                        seed=options.seed if seed is None else seed,
                        stress=choose_stress(spec, backend.name, backend.describe().get("device")).environments
                        if isinstance(spec, str) else spec)
    length = run_length(on_gpu=gpu, iterations=iterations, time=time, bound=options.bound,
                        instances=config.instances)
    return replace(config, iterations=length.iterations, time_budget=length.time_budget,
                   stop_bound=length.stop_bound)


def run_on(test: LitmusTest, backend: Any, config: RunConfig, ptx: ModelResult | None = None,
           stress: str | None = None) -> LitmusResult:
    """Run ``test`` on ``backend`` until ``config``'s rounds or time are spent; classify it.

    ``ptx``: the test's PTX model result when the caller has it (it is computed otherwise);
    ``stress``: the ``--stress`` that ``config``'s environments came from, for the reproduce line.
    """
    from litmus.session import run_variant

    ran = run_variant(test, backend, config, ptx=ptx)
    return LitmusResult(
        test=test,
        backend=backend.name,
        config=config,
        detail=ran.verdict,
        model_allows_target=ran.ptx.target_reachable,
        rounds=ran.rounds,
        seconds=ran.seconds,
        stress=stress,
    )


@dataclass
class LitmusRunner:
    """The ``litmus`` fixture: run a pattern's variant and get a :class:`LitmusResult`."""

    options: PluginOptions
    pool: BackendPool
    rootdir: Path

    def lint(self, kernel: Any, *, target: str = "cuda:90", signature: dict[str, Any] | None = None,
             peers: tuple[str, ...] = ()) -> LintResult:
        """Lint a ``@triton.jit`` kernel on the CPU (:func:`litmus.pytest_plugin.lint.lint`)."""
        from litmus.pytest_plugin.lint import lint

        return lint(kernel, target=target, signature=signature, peers=peers)

    def load(self, pattern: str, variant: str | None = None) -> LitmusTest:
        """The litmus test named by ``pattern`` (path, catalog name or inline YAML) and ``variant``."""
        return filter_variants(find_tests(pattern, self.options.paths, self.rootdir), variant, one=True,
                               what=pattern)[0]

    def run(
        self,
        pattern: str,
        variant: str | None = None,
        *,
        iterations: int | None = None,
        instances: int | None = None,
        time: float | None = None,
        seed: int | None = None,
        backend: str | None = None,
        stress: str | None = None,
    ) -> LitmusResult:
        """Run one variant of ``pattern``; defaults come from the ``--litmus-*`` options.

        Skips the calling test when the backend is unavailable or cannot run the variant; a bad
        pattern fails it with the file:line problems.
        """
        try:
            test = self.load(pattern, variant)
            if (stress or self.options.stress) != AUTO:
                load_stresses(stress or self.options.stress)
        except LitmusError as e:
            pytest.fail(str(e), pytrace=False)
        name = backend or self.options.backend
        if name == "model":
            pytest.skip("--litmus-backend model runs nothing; litmus.run needs cpu, cuda, ranks or auto")
        backend_obj, reason = self.pool.get(name)
        if backend_obj is None:
            pytest.skip(reason)
        why_not = backend_obj.skip_reason(test)
        if why_not is not None:
            pytest.skip(f"{test.id} on {backend_obj.name}: {why_not}")
        config = plugin_config(self.options, backend_obj, self.pool.on_gpu(backend_obj), iterations=iterations,
                               time=time, instances=instances, seed=seed, stress=stress)
        with self.pool.turn(backend_obj):
            return run_on(test, backend_obj, config, stress=stress or self.options.stress)
