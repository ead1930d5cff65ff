"""The plugin's command-line flags and ini settings, read into one :class:`PluginOptions`."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pytest

from litmus.pytest_plugin.budget import GPU_TIME
from litmus.run.config import PRESETS
from litmus.run.registry import backend_names
from litmus.run.tuned import AUTO

BACKENDS: tuple[str, ...] = ("auto", *backend_names(), "model")
"""--litmus-backend choices: auto, every registered backend, and model (check expectations only)."""
DEFAULT_PATHS: tuple[str, ...] = ("catalog",)
PLUGIN_STRESS = "resident"
"""The plugin's stress unless told: it asserts that forbidden outcomes never appear, which needs
ended instances, and on an H100 the resident launch left every catalog variant decided where
``auto`` (one program per SM first) left 4 spinning variants inconclusive
(docs/results/h100-plugin-catalog.txt against h100-plugin-auto.txt)."""


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
                    help="Exactly N rounds (launches) per variant. Default: ini litmus_iterations; else 1 "
                         "round on the interpreter, and --litmus-time's default on a GPU.")
    group.addoption("--litmus-time", type=float, default=None, metavar="S",
                    help="At most about S seconds per variant after its first round (which compiles); a "
                         "variant stops as soon as its evidence is in (target seen, or 3/N <= "
                         "--litmus-bound), and one that lacks it runs on inside S. Overrides "
                         f"--litmus-iterations. Default: ini litmus_time; {GPU_TIME:g} on a GPU.")
    group.addoption("--litmus-bound", type=float, default=None, metavar="B",
                    help="With a time: the 95 %% bound 3/N at which a variant's evidence is in. Default: "
                         "what one full round gives (3/instances per round).")
    group.addoption("--litmus-instances", type=int, default=None, metavar="K",
                    help="Instances per round. Default: ini litmus_instances, else the backend's default "
                         "(small on cpu).")
    group.addoption("--litmus-seed", type=int, default=None, metavar="SEED",
                    help="Seed of every PRNG of a run (default 0); the failure report repeats it.")
    group.addoption("--litmus-stress", default=None, metavar="PRESET",
                    help=f"Stress preset ({', '.join(PRESETS)}), a JSON file, or {AUTO} (what `litmus run` uses "
                         "without --stress: on a GPU the settings litmus tune kept for it, else the default preset "
                         f"of one program per SM, then the resident launch). Default: ini litmus_stress, else "
                         f"{PLUGIN_STRESS}: the launch that ends the most spinning instances, so that every catalog "
                         "variant is decided in the default budget (docs/pytest-plugin.md).")
    group.addoption("--litmus-require-witness", action="store_true", default=None,
                    help="Also fail a variant the model allows (racy) if its target outcome was never seen.")
    group.addoption("--litmus-strict", action="store_true", default=None,
                    help="Fail inconclusive variants (too few instances ended to decide) instead of "
                         "reporting them as INCONCLUSIVE (a skip with the reason). Same as ini litmus_strict.")
    group.addoption("--litmus-jsonl", default=None, metavar="PATH",
                    help="Append each variant's run record to PATH (the records `litmus run --out` writes: "
                         "`litmus report PATH --html` and `--compare` read it). Under xdist only the "
                         "controller writes it.")
    group.addoption("--litmus-cache", default=None, metavar="DIR",
                    help="Kernel caches of this session and its xdist workers: LITMUS_CACHE=DIR and "
                         "TRITON_CACHE_DIR=DIR/triton (every kernel compiles once for all workers, and "
                         "again only when DIR is lost). Default: ini litmus_cache, else the environment's.")
    group.addoption("--litmus-gpu-share", action="store_true", default=None,
                    help="Let several xdist workers run stress on one GPU at once. Without it, `-n auto` "
                         "with a GPU backend starts one worker per visible GPU (worker gwK uses GPU K mod "
                         "G), and with more workers than GPUs (`-n N`) the workers of one GPU take turns "
                         "on it (a lock per GPU) while the rest of their work runs in parallel.")
    group.addoption("--litmus-compile-workers", type=int, default=None, metavar="N",
                    help="Processes that compile the next variants' cuda kernels while the GPU runs one. "
                         "Default: all CPUs but two (at most 12; none with 4 CPUs or fewer); 0 under xdist.")
    parser.addini("litmus", "Collect litmus YAML patterns as test items (like --litmus).", type="bool",
                  default=False)
    parser.addini("litmus_paths", "Files/folders of litmus YAML patterns (default: catalog).", type="paths",
                  default=[])
    parser.addini("litmus_backend", "Default --litmus-backend.", default="auto")
    parser.addini("litmus_iterations", "Default --litmus-iterations (empty: see --litmus-time).", default="")
    parser.addini("litmus_time", "Default --litmus-time (empty: none on cpu, the GPU default on a GPU).",
                  default="")
    parser.addini("litmus_instances", "Default --litmus-instances (empty: the backend's default).", default="")
    parser.addini("litmus_stress", "Default --litmus-stress.", default=PLUGIN_STRESS)
    parser.addini("litmus_strict", "Fail inconclusive variants (like --litmus-strict).", type="bool", default=False)
    parser.addini("litmus_cache", "Default --litmus-cache.", default="")


@dataclass(frozen=True)
class PluginOptions:
    """Everything the plugin was asked to do in this session."""

    paths: tuple[Path, ...]  # existing litmus_paths (absolute)
    backend: str
    iterations: int | None  # None: not asked for (the run length is litmus.pytest_plugin.budget's call)
    time_budget: float | None  # --litmus-time: the most seconds per variant
    instances: int | None
    seed: int
    stress: str
    require_witness: bool
    bound: float | None = None
    strict: bool = False
    jsonl: Path | None = None
    cache: Path | None = None
    gpu_share: bool = False
    compile_workers: int | None = None


def _ini_int(config: pytest.Config, name: str) -> int | None:
    text = str(config.getini(name)).strip()
    if not text:
        return None
    try:
        return int(text)
    except ValueError:
        raise pytest.UsageError(f"ini setting {name} = {text!r}: give a whole number") from None


def _ini_float(config: pytest.Config, name: str) -> float | None:
    text = str(config.getini(name)).strip()
    if not text:
        return None
    try:
        return float(text)
    except ValueError:
        raise pytest.UsageError(f"ini setting {name} = {text!r}: give a number of seconds") from None


def _path(config: pytest.Config, flag: str | None, ini: str) -> Path | None:
    """A path from the command line (relative to the cwd) or the ini file (relative to it)."""
    if flag:
        return Path(flag).resolve()
    text = str(config.getini(ini)).strip()
    if not text:
        return None
    base = config.inipath.parent if config.inipath is not None else config.rootpath
    return (base / text).resolve()


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
    iterations = _first(config.getoption("litmus_iterations"), _ini_int(config, "litmus_iterations"))
    instances = _first(config.getoption("litmus_instances"), _ini_int(config, "litmus_instances"))
    time_budget = config.getoption("litmus_time")
    if time_budget is None:
        time_budget = _ini_float(config, "litmus_time")
    bound = config.getoption("litmus_bound")
    workers = config.getoption("litmus_compile_workers")
    for name, value in (("--litmus-iterations", iterations), ("--litmus-instances", instances),
                        ("--litmus-time", time_budget), ("--litmus-bound", bound)):
        if value is not None and value <= 0:
            raise pytest.UsageError(f"{name} {value}: give a positive number")
    if workers is not None and workers < 0:
        raise pytest.UsageError(f"--litmus-compile-workers {workers}: give 0 or more")
    strict = config.getoption("litmus_strict")
    return PluginOptions(
        paths=tuple(p.resolve() for p in configured if p.exists()),
        backend=backend,
        iterations=iterations,
        time_budget=time_budget,
        instances=instances,
        seed=_first(config.getoption("litmus_seed"), 0) or 0,
        stress=config.getoption("litmus_stress") or str(config.getini("litmus_stress")).strip() or PLUGIN_STRESS,
        require_witness=bool(config.getoption("litmus_require_witness")),
        bound=bound,
        strict=bool(strict) if strict is not None else bool(config.getini("litmus_strict")),
        jsonl=Path(config.getoption("litmus_jsonl")).resolve() if config.getoption("litmus_jsonl") else None,
        cache=_path(config, config.getoption("litmus_cache"), "litmus_cache"),
        gpu_share=bool(config.getoption("litmus_gpu_share")),
        compile_workers=workers,
    )
