"""The plugin's command-line flags and ini settings, read into one :class:`PluginOptions`."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pytest

from litmus.run.config import PRESETS
from litmus.run.registry import backend_names

BACKENDS: tuple[str, ...] = ("auto", *backend_names(), "model")
"""--litmus-backend choices: auto, every registered backend, and model (check expectations only)."""
DEFAULT_PATHS: tuple[str, ...] = ("catalog",)


def add_options(parser: pytest.Parser) -> None:
    """Register ``--litmus*`` flags and the ``litmus*`` ini settings."""
    group = parser.getgroup("litmus", "litmus: memory-model litmus tests as pytest items")
    group.addoption("--litmus", action="store_true", default=None,
                    help="Collect litmus YAML patterns (litmus_paths, and YAML files named on the "
                         "command line) as test items. Same as ini 'litmus = true'.")
    group.addoption("--litmus-backend", choices=BACKENDS, default=None,
                    help="Where variants run: auto (cuda when a GPU is visible, else cpu), cpu (Triton "
                         "interpreter), cuda, ranks (one process per GPU) or model (only check each "
                         "declared expectation against the PTX model). Default: ini litmus_backend, else auto.")
    group.addoption("--litmus-iterations", type=int, default=None, metavar="N",
                    help="Rounds (launches) per variant. Default: ini litmus_iterations, else 1.")
    group.addoption("--litmus-time", type=float, default=None, metavar="S",
                    help="Seconds per variant (overrides --litmus-iterations).")
    group.addoption("--litmus-instances", type=int, default=None, metavar="K",
                    help="Instances per round. Default: ini litmus_instances, else the backend's default "
                         "(small on cpu).")
    group.addoption("--litmus-seed", type=int, default=None, metavar="SEED",
                    help="Seed of every PRNG of a run (default 0); the failure report repeats it.")
    group.addoption("--litmus-stress", default=None, metavar="PRESET",
                    help=f"Stress preset ({', '.join(PRESETS)}) or a JSON file. Default: default.")
    group.addoption("--litmus-require-witness", action="store_true", default=None,
                    help="Also fail a variant the model allows (racy) if its target outcome was never seen.")
    parser.addini("litmus", "Collect litmus YAML patterns as test items (like --litmus).", type="bool",
                  default=False)
    parser.addini("litmus_paths", "Files/folders of litmus YAML patterns (default: catalog).", type="paths",
                  default=[])
    parser.addini("litmus_backend", "Default --litmus-backend.", default="auto")
    parser.addini("litmus_iterations", "Default --litmus-iterations.", default="1")
    parser.addini("litmus_instances", "Default --litmus-instances (empty: the backend's default).", default="")
    parser.addini("litmus_stress", "Default --litmus-stress.", default="default")


@dataclass(frozen=True)
class PluginOptions:
    """Everything the plugin was asked to do in this session."""

    paths: tuple[Path, ...]  # existing litmus_paths (absolute)
    backend: str
    iterations: int
    time_budget: float | None
    instances: int | None
    seed: int
    stress: str
    require_witness: bool


def _ini_int(config: pytest.Config, name: str) -> int | None:
    text = str(config.getini(name)).strip()
    if not text:
        return None
    try:
        return int(text)
    except ValueError:
        raise pytest.UsageError(f"ini setting {name} = {text!r}: give a whole number") from None


def _first(*values: int | None) -> int | None:
    """The first value that is not None (0 counts as given)."""
    return next((v for v in values if v is not None), None)


def is_enabled(config: pytest.Config) -> bool:
    """Whether ``--litmus`` or ini ``litmus = true`` asked for YAML collection."""
    flag = config.getoption("litmus", default=None)
    return bool(flag) if flag is not None else bool(config.getini("litmus"))


def read_options(config: pytest.Config) -> PluginOptions:
    """The plugin's options from flags, then ini settings, then defaults; bad values: UsageError."""
    configured = [Path(p) for p in config.getini("litmus_paths")]
    missing = [p for p in configured if not p.exists()]
    if missing and is_enabled(config):
        raise pytest.UsageError(
            "ini setting litmus_paths names " + ", ".join(str(p) for p in missing)
            + ", which does not exist; fix the path or remove it"
        )
    if not configured:
        configured = [config.rootpath / d for d in DEFAULT_PATHS]
    backend = config.getoption("litmus_backend") or str(config.getini("litmus_backend")).strip() or "auto"
    if backend not in BACKENDS:
        raise pytest.UsageError(f"litmus_backend = {backend!r}; choose one of {', '.join(BACKENDS)}")
    iterations = _first(config.getoption("litmus_iterations"), _ini_int(config, "litmus_iterations"), 1)
    instances = _first(config.getoption("litmus_instances"), _ini_int(config, "litmus_instances"))
    time_budget = config.getoption("litmus_time")
    for name, value in (("--litmus-iterations", iterations), ("--litmus-instances", instances),
                        ("--litmus-time", time_budget)):
        if value is not None and value <= 0:
            raise pytest.UsageError(f"{name} {value}: give a positive number")
    return PluginOptions(
        paths=tuple(p.resolve() for p in configured if p.exists()),
        backend=backend,
        iterations=int(iterations or 1),
        time_budget=time_budget,
        instances=instances,
        seed=_first(config.getoption("litmus_seed"), 0) or 0,
        stress=config.getoption("litmus_stress") or str(config.getini("litmus_stress")).strip() or "default",
        require_witness=bool(config.getoption("litmus_require_witness")),
    )
