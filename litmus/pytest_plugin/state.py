"""The plugin's per-session state, kept in ``config.stash``."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from litmus.pytest_plugin.options import PluginOptions, read_options

YAML_SUFFIXES = (".yaml", ".yml")


@dataclass
class PluginState:
    """Options, the shared backends and the paths whose YAML files become litmus items."""

    options: PluginOptions
    explicit: tuple[Path, ...] = ()  # files/folders named on the command line
    _pool: Any = None
    _resolved: str | None = None

    @property
    def pool(self) -> Any:
        """The session's :class:`~litmus.pytest_plugin.backends.BackendPool` (created on first use)."""
        if self._pool is None:
            from litmus.pytest_plugin.backends import BackendPool

            self._pool = BackendPool()
        return self._pool

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
