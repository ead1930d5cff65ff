"""Run configuration: how many instances, how long, which stress, which seed."""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field, fields, replace
from pathlib import Path
from typing import Any, Sequence

from litmus.errors import LitmusError


INTERPRETER_INSTANCES = 1 << 12
"""Instances per round on the Triton interpreter (the cpu backend, ranks on the CPU) unless told:
the largest round, a variant's first (which also loads its kernels) included, that a spin under
the interpreter runs in well under a second."""

INTERPRETER_TIME_BUDGET = 0.3
"""Seconds per variant, after its first round, on the Triton interpreter unless told: a
straight-line variant runs many rounds of :data:`INTERPRETER_INSTANCES` in it, a spinning one a
few smaller ones (``litmus.run.schedule.RoundPlan``), so every variant costs about the same and
the whole catalog runs in minutes on two cores."""


@dataclass(frozen=True)
class Stress:
    """Stress parameters in the manner of GPUHarbor / MC Mutants.

    ``shuffle``: permute which program plays which instance (seeded); ``barrier``: a start
    barrier between the processes that play the roles (cpu and ranks backends);
    ``kernel_barrier``: an in-kernel start barrier among the programs of one launch (cuda
    backend); ``stride``: distance between instances' locations (in words), to spread them
    over cache lines; ``mem_stress``: extra programs (``stress_programs``, each
    ``stress_iterations`` iterations) hammer a scratch region while the test runs, with
    ``stress_pattern`` (``store-store``, ``store-load``, ``load-store``, ``load-load``);
    ``pre_stress``: passes each testing program makes over the scratch words before its test
    ops (cuda backend); ``scratch_words``: the scratch region's size (a power of two).

    Parallel launch (cuda backend only; see docs/performance.md): ``launch`` is ``grid`` (one
    group of programs per role) or ``parallel`` (codegen's parallel mode: only resident programs,
    each playing every role, partners striped over other programs, iterations in one launch);
    ``barrier_pct``: the percentage of those programs, chosen per round from the seed, that meet
    at the in-kernel start barrier when ``kernel_barrier`` is on; ``programs_per_sm``: at most
    this many programs per SM (0: as many as fit); ``parallel_programs``: at most
    this many programs (0: as many as are resident at once); ``role_rotation``: program ``pid``
    of a spin-free test plays the roles in the rotation starting at role ``(pid + it) % R`` in
    iteration ``it`` instead of every program playing them in one order
    (``CodegenOptions.role_rotation``); ``order_pick`` (parallel launch): which of those op orders a
    program plays in an iteration: ``program`` (``(pid + it) % n``), ``iteration`` (every program
    ``it % n``, so all roles of an instance keep one relative order within the iteration), or a
    number ``K`` (every program order ``K % n`` throughout; with ``shuffle`` off, which keeps an
    instance's roles on one lane of their programs, this is an instance's schedule);
    ``role_map`` (parallel launch): which role plays an instance in the program the instance
    belongs to (the *home* role; the others play it in programs striped away from it, in role
    order, cyclically after it): ``first`` (role 0), ``rotate`` (a seeded role each round), or a
    number ``K`` (role ``K % R``).

    ``warm_reads`` (cpu, cuda and ranks backends): each thread loads every location it later
    reads with a plain load ahead of that read (after the last fence or acquire before it), so
    its SM may hold a line that a plain load after a relaxed spin then reads stale
    (:mod:`litmus.run.warm`).
    """

    name: str = "none"
    mem_stress: bool = False
    stress_programs: int = 0
    stress_pattern: str = "store-load"
    stress_iterations: int = 0
    pre_stress: int = 0
    shuffle: bool = True
    barrier: bool = True
    kernel_barrier: bool = False
    stride: int = 1
    scratch_words: int = 4096
    launch: str = "grid"
    barrier_pct: int = 100
    parallel_programs: int = 0
    programs_per_sm: int = 0
    role_rotation: bool = False
    warm_reads: bool = False
    order_pick: str = "program"
    role_map: str = "first"

    def as_dict(self) -> dict[str, Any]:
        """The parameters as a JSON-ready dict."""
        return asdict(self)


# What each preset holds follows the stress sweeps on the H200 (docs/performance.md,
# benchmarks/stress_sweep.py): shuffling shows weak outcomes, the memory-stress kernel showed
# the most for MP, and stride 32, the in-kernel barrier and pre-stress showed fewer; so
# ``heavy`` is shuffle + memory stress, and only ``full`` turns the rest on.
PRESETS: dict[str, Stress] = {
    "none": Stress(name="none", shuffle=False, barrier=False),
    # one program per SM: 88x (MP) to 468x (LB) the weak outcomes per kernel-second of every SM's
    # resident programs on an H100 (docs/detection.md, "Why the peer saw more": benchmarks/ablation.py)
    # programs take turns at every cyclic order of the roles: 1.04x (MP) to 1.75x (RWC) the weak
    # outcomes per kernel-second of one order on an H100 (docs/results/h100-role-rotation.json)
    # a seeded home role each round: 2.08x (MP), 1.62x (WRC), 1.48x (RWC), 1.33x (IRIW) and
    # 1.05-1.07x (SB, LB, 2+2W) the weak outcomes per kernel-second of role 0 at home on an H100
    # (docs/results/h100-lanes/maps.json, default-rotated against shuffled-map-rotate)
    "default": Stress(name="default", shuffle=True, barrier=True, stride=1, launch="parallel", programs_per_sm=1,
                      role_rotation=True, role_map="rotate"),
    # every SM's resident programs: more instances per launch, and spinning instances that one
    # program per SM leaves timed out end here (the default rotation, litmus.run.tuned, has both)
    "resident": Stress(name="resident", shuffle=True, barrier=True, stride=1, launch="parallel"),
    "grid": Stress(name="grid", shuffle=True, barrier=True, stride=1),
    "spread": Stress(name="spread", shuffle=True, barrier=True, stride=32),
    "heavy": Stress(
        name="heavy",
        mem_stress=True,
        stress_programs=64,
        stress_pattern="store-load",
        stress_iterations=64,
        shuffle=True,
        barrier=True,
        stride=1,
    ),
    "full": Stress(
        name="full",
        mem_stress=True,
        stress_programs=64,
        stress_pattern="store-load",
        stress_iterations=64,
        pre_stress=16,
        shuffle=True,
        barrier=True,
        kernel_barrier=True,
        stride=32,
    ),
}
# cuda-litmus-style parallel testing: resident programs only, every program plays every role with
# partners striped over other programs, iterations inside one launch (docs/detection.md); the
# H200 figures of docs/results/h200-detect.md (weak MP outcomes per second 360x the grid launch's)
# made it the default launch; 'grid' is the launch before it.
PRESETS["parallel"] = replace(PRESETS["resident"], name="parallel")
PRESETS["parallel-heavy"] = replace(PRESETS["heavy"], name="parallel-heavy", launch="parallel")

PATTERNS = ("store-store", "store-load", "load-store", "load-load")
LAUNCHES = ("grid", "parallel")
ORDER_PICKS = ("program", "iteration")
"""``Stress.order_pick`` values besides a fixed order's number."""
ROLE_MAPS = ("first", "rotate")
"""``Stress.role_map`` values besides a fixed role's number."""


def validate_stress(stress: Stress) -> None:
    """Raise ``LitmusError`` naming the bad parameter when ``stress`` cannot be run."""
    where = f"stress {stress.name!r}"
    if stress.stress_pattern not in PATTERNS:
        raise LitmusError(f"{where}: stress_pattern {stress.stress_pattern!r}; use one of {', '.join(PATTERNS)}")
    if stress.stride < 1:
        raise LitmusError(f"{where}: stride {stress.stride}; use 1 or more words")
    for name in ("stress_programs", "stress_iterations", "pre_stress", "scratch_words"):
        if getattr(stress, name) < 0:
            raise LitmusError(f"{where}: {name} {getattr(stress, name)} is negative; use 0 or more")
    if stress.mem_stress and (stress.stress_programs < 1 or stress.stress_iterations < 1):
        raise LitmusError(f"{where}: mem_stress needs stress_programs >= 1 and stress_iterations >= 1")
    if (stress.mem_stress or stress.pre_stress) and (
            stress.scratch_words < 64 or stress.scratch_words & (stress.scratch_words - 1)):
        raise LitmusError(f"{where}: scratch_words {stress.scratch_words}; use a power of two >= 64")
    if stress.launch not in LAUNCHES:
        raise LitmusError(f"{where}: launch {stress.launch!r}; use one of {', '.join(LAUNCHES)}")
    if not 0 <= stress.barrier_pct <= 100:
        raise LitmusError(f"{where}: barrier_pct {stress.barrier_pct}; use a percentage from 0 to 100")
    if stress.programs_per_sm < 0:
        raise LitmusError(f"{where}: programs_per_sm {stress.programs_per_sm} is negative; use 0 (as many as fit) or more")
    if stress.parallel_programs < 0:
        raise LitmusError(f"{where}: parallel_programs {stress.parallel_programs} is negative; use 0 (resident) or more")
    for name, named, what in (("order_pick", ORDER_PICKS, "an order's"), ("role_map", ROLE_MAPS, "a role's")):
        value = getattr(stress, name)
        if value not in named and not (value.isdigit() and int(value) < 64):
            raise LitmusError(f"{where}: {name} {value!r}; use {' or '.join(named)}, or {what} number (0 to 63)")


def load_stresses(spec: str) -> tuple[Stress, ...]:
    """The environments of ``--stress SPEC``: a preset by name (a key of :data:`PRESETS`), or a
    JSON file holding one object of parameters, or ``{"environments": [object, ...]}`` (a
    rotation: round ``k`` of a variant runs environment ``k mod n``; ``litmus tune --keep N``
    writes one).  Environments of a file are named after its stem (``stem#2``, ... after the first)."""
    if spec in PRESETS:
        return (PRESETS[spec],)
    path = Path(spec)
    if not path.is_file():
        raise LitmusError(
            f"--stress {spec!r}: not a preset ({', '.join(PRESETS)}) and no such file"
        )
    try:
        data = json.loads(path.read_text())
    except json.JSONDecodeError as e:
        raise LitmusError.at(str(path), e.lineno, f"bad JSON: {e.msg}", e.colno) from None
    if isinstance(data, dict) and set(data) == {"environments"}:
        envs = data["environments"]
        if not isinstance(envs, list) or not envs:
            raise LitmusError.at(str(path), 1, '"environments" is a non-empty list of stress objects')
        return tuple(_environment(path, env, path.stem if k == 0 else f"{path.stem}#{k + 1}", k)
                     for k, env in enumerate(envs))
    return (_environment(path, data, path.stem, None),)


def _environment(path: Path, data: Any, name: str, index: int | None) -> Stress:
    """One environment of a stress file (``index``: its place in ``environments``, if any)."""
    where = "" if index is None else f"environments[{index}]: "
    if not isinstance(data, dict):
        what = ('a stress file is a JSON object of parameters, or {"environments": [object, ...]}'
                if index is None else "a stress environment is a JSON object of parameters")
        raise LitmusError.at(str(path), 1, f"{where}{what}")
    known = {f.name for f in fields(Stress)} - {"name"}
    unknown = sorted(set(data) - known)
    if unknown:
        raise LitmusError.at(
            str(path), None, f"{where}unknown stress parameter(s) {unknown}; accepted: {sorted(known)}"
        )
    kinds = {f.name: type(getattr(PRESETS["resident"], f.name)) for f in fields(Stress)}
    for key, value in data.items():
        # JSON true is no int here, nor 1 a bool: a wrong kind would be taken as truthy or as a count
        if type(value) is not kinds[key]:
            want = {bool: "true or false", int: "an integer", str: "a string"}[kinds[key]]
            raise LitmusError.at(str(path), None, f"{where}stress parameter {key!r} is {json.dumps(value)}; "
                                                  f"write {want}")
    # a file's unnamed parameters are the resident launch's: files written before programs_per_sm
    # existed (docs/results/) keep the launch they were measured with
    stress = replace(PRESETS["resident"], name=name, **data)
    try:
        validate_stress(stress)
    except LitmusError as e:
        raise LitmusError.at(str(path), None, f"{where}{e}") from None
    return stress


def stress_json(stress: Stress) -> dict[str, Any]:
    """The stress file contents for ``stress``: every parameter but its name (the file's stem
    becomes the name when ``litmus run --stress FILE`` loads it)."""
    data = stress.as_dict()
    data.pop("name")
    return data


def write_stress(path: Path, stresses: Stress | Sequence[Stress]) -> tuple[Stress, ...]:
    """Write one environment (a JSON object) or several (``{"environments": [...]}``, a
    rotation) as a stress file; return them as ``load_stresses`` reads them back."""
    envs = [stresses] if isinstance(stresses, Stress) else list(stresses)
    if not envs:
        raise LitmusError(f"{path}: no environment to write")
    doc: Any = stress_json(envs[0]) if len(envs) == 1 else {"environments": [stress_json(e) for e in envs]}
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(doc, indent=2, sort_keys=True) + "\n")
    return load_stresses(str(path))


def load_stress(spec: str) -> Stress:
    """One environment: a preset by name or a JSON file of one (see :func:`load_stresses`)."""
    envs = load_stresses(spec)
    if len(envs) > 1:
        raise LitmusError.at(spec, 1, f"holds {len(envs)} environments (a rotation); one is needed here")
    return envs[0]


@dataclass(frozen=True)
class RunConfig:
    """How long to run each variant and how."""

    iterations: int | None = 4  # rounds (launches) per variant, when no time budget
    time_budget: float | None = None  # seconds per variant; overrides iterations
    instances: int = 1 << 16  # instances per round
    seed: int = 0
    stress: Stress = field(default_factory=lambda: PRESETS["default"])
    spin_bound: int | None = None  # overrides each spin's bound when set
    stop_bound: float | None = None  # stop a variant once its target is seen or 3/completed <= this
    rotation: tuple[Stress, ...] = ()  # further environments (which round runs which: litmus.run.schedule)

    @property
    def environments(self) -> tuple[Stress, ...]:
        """Every environment rounds rotate through, ``stress`` first."""
        return (self.stress, *self.rotation)

    def as_dict(self) -> dict[str, Any]:
        """A JSON-ready description, stored in every result record."""
        d = asdict(self)
        d["stress"] = self.stress.as_dict()
        d["rotation"] = [s.as_dict() for s in self.rotation]
        return d
