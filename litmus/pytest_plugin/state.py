"""The plugin's per-session state, kept in ``config.stash``."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Sequence

import pytest

from litmus.pytest_plugin.options import PluginOptions, read_options
from litmus.pytest_plugin.summary import Summary

if TYPE_CHECKING:
    from litmus.audit.declared import DeclaredMiscompile, Toolchain
    from litmus.ir import LitmusTest

YAML_SUFFIXES = (".yaml", ".yml")


@dataclass
class PluginState:
    """Options, the shared backends and the paths whose YAML files become litmus items."""

    options: PluginOptions
    explicit: tuple[Path, ...] = ()  # files/folders named on the command line
    summary: Summary = field(default_factory=Summary)  # the items' results, for the end-of-session table
    _pool: Any = None
    _resolved: str | None = None
    _ahead: bool = False

    @property
    def pool(self) -> Any:
        """The session's :class:`~litmus.pytest_plugin.backends.BackendPool` (created on first use)."""
        if self._pool is None:
            from litmus.pytest_plugin.backends import BackendPool

            self._pool = BackendPool(share=self.options.gpu_share)
        return self._pool

    @property
    def toolchain(self) -> Toolchain:
        """The installed triton and its ptxas (``ptxas --version`` runs once per process)."""
        from litmus.audit.declared import installed_toolchain

        return installed_toolchain()

    def declared(self, test: LitmusTest) -> DeclaredMiscompile | None:
        """The declared miscompile that runs of ``test`` on this session's backend execute."""
        from litmus.audit.declared import INTERPRETER, declared_miscompile, executed_targets

        kind = self.backend_kind
        device = ""
        if kind == "ranks":
            from litmus.pytest_plugin.backends import cuda_device_count

            device = "" if cuda_device_count() > 0 else INTERPRETER
        if not executed_targets(kind, device):  # the interpreter: no compiler, no need to ask ptxas
            return None
        return declared_miscompile(test, kind, self.toolchain, device)

    def compile_ahead(self, backend: Any, config: Any, tests: Callable[[], Sequence[LitmusTest]]) -> None:
        """Once per session, outside xdist: compile the kernels of ``tests()`` (the session's
        variants, in run order) in worker processes while the GPU runs (backends that can:
        cuda); ``--litmus-compile-workers`` processes, else :func:`litmus.run.ahead.default_workers`.
        Under xdist a worker does not know which items it will get, so it compiles none ahead."""
        ahead = getattr(backend, "compile_ahead", None)
        if self._ahead or ahead is None:
            return
        self._ahead = True
        from litmus.pytest_plugin.devices import this_worker

        workers = self.options.compile_workers
        if workers is None:
            from litmus.run.ahead import default_workers

            workers = 0 if this_worker()[0] is not None else default_workers()
        if workers > 0:
            ahead(list(tests()), config, workers)

    def close(self) -> None:
        """Close every backend this session created."""
        if self._pool is not None:
            self._pool.close()

    def wants(self, path: Path) -> bool:
        """Whether the YAML file ``path`` lies under litmus_paths or a path named on the command line."""
        if path.suffix not in YAML_SUFFIXES:
            return False
        path = path.resolve()
        return any(path == root or root in path.parents for root in (*self.options.paths, *self.explicit))

    @property
    def backend_kind(self) -> str:
        """The backend items run on, with ``auto`` resolved (cuda when a GPU is visible, else cpu)."""
        if self._resolved is None:
            from litmus.pytest_plugin.backends import resolved_name

            self._resolved = resolved_name(self.options.backend)
        return self._resolved


STATE = pytest.StashKey[PluginState]()


def get_state(config: pytest.Config) -> PluginState:
    """This session's state (created on first use, e.g. by the ``litmus`` fixture with the plugin off)."""
    state = config.stash.get(STATE, None)
    if state is None:
        state = PluginState(read_options(config))
        config.stash[STATE] = state
    return state
