"""Weak outcomes per second and per instance of relaxed MP, SB and LB: litmus vs a cuda-litmus-style kernel.

    python benchmarks/bench_weak.py --backend cuda --seconds 5 --stress default heavy [--json OUT]
    python benchmarks/bench_weak.py --backend cpu --seconds 1 --tests MP       # smoke check, no GPU
    python benchmarks/bench_weak.py --tests WRC IRIW --role-orders all          # every order of the roles

For each test (catalog variants in :data:`VARIANTS`: relaxed accesses, the two sides in
different CTAs) and each ``--stress`` value (a preset name or a stress JSON file: anything
``litmus.run.config.load_stress`` accepts), the litmus backend runs rounds through its public
API (``make_backend``, ``RunConfig``, ``backend.run_round``; weak outcomes counted by
``benchmarks.bench_run.count_weak``, i.e. the test's own target condition) for ``--seconds`` of
round time; then the hand-written reference (``benchmarks/reference_weak.py``: resident
programs only, every lane plays one role of two instances, relaxed gpu-scope PTX loads and
stores) runs for the same time.  ``--role-orders all`` runs each test once per order of its
roles (threads grouped by rank and CTA): a parallel-launch program plays the roles one after
another in that order, so it fixes which role of an instance starts first.  One table: test,
side, instances, weak, weak/s, weak per instance, instances/s; ``--json`` writes the rows with
every parameter behind them.

Seconds are round seconds as each side measures them: for litmus ``Round.seconds`` (reset,
launch, count); for the reference the same three steps.  The first round of each side and
configuration compiles and is not counted.  The litmus side first runs one timed round to learn
the round time, then as many more as fill the budget (two ``count_weak`` calls, seeds
``seed`` and ``seed + 2`` so no round repeats a permutation).

On ``--backend cpu`` everything is tiny and interpreted (litmus's cpu backend: one worker
process per role; the reference: the Triton interpreter in this process): a smoke check of
the script, where weak outcomes are not expected (docs/performance.md).
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Sequence

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from litmus.run.tuned import AUTO  # noqa: E402

VARIANTS: dict[str, tuple[str, str]] = {
    "MP": ("mp.yaml", "relaxed-xcta-gpu"),
    "SB": ("sb.yaml", "relaxed-sys"),
    "LB": ("lb.yaml", "relaxed-sys"),
    "2+2W": ("two_plus_two_w.yaml", "relaxed-sys"),
    "WRC": ("wrc.yaml", "relaxed-sys"),
    "RWC": ("rwc.yaml", "relaxed-sys"),
    "IRIW": ("iriw.yaml", "relaxed-sys"),
    "ISA2": ("isa2.yaml", "relaxed-sys"),
}
"""Test -> (catalog file, variant).  MP: relaxed gpu-scope flag and payload, writer and reader
in different CTAs of one GPU (the reference's shape exactly).  SB and LB have one relaxed
variant each in the catalog, at sys scope across two ranks (on the cuda backend: two groups of
CTAs of one grid)."""

DEFAULT_TESTS: tuple[str, ...] = ("MP", "SB", "LB")
"""The tests run unless ``--tests`` names others; the rest are the cuda-litmus tests of the same
shape (``benchmarks/peer/side_by_side.sh``), which have no hand-written reference here."""

CPU_SIZES: dict[str, int] = {"instances": 64, "programs": 4, "block": 8, "iterations": 2}
"""Sizes of the ``--backend cpu`` smoke path (litmus instances per round; reference shape)."""


@dataclass(frozen=True)
class Row:
    """One line of the table: a test (``MP``, ``SB``, ``LB``) on one side (``litmus/<stress>`` or
    ``reference``); ``detail`` holds the variant and every parameter behind the figures."""

    test: str
    side: str
    instances: int
    weak: int
    seconds: float
    rounds: int
    detail: dict[str, Any]

    @property
    def weak_per_s(self) -> float:
        """Weak outcomes per second of round time."""
        return self.weak / self.seconds if self.seconds > 0 else 0.0

    @property
    def weak_per_instance(self) -> float:
        """Weak outcomes per instance run."""
        return self.weak / self.instances if self.instances else 0.0

    @property
    def instances_per_s(self) -> float:
        """Instances per second of round time."""
        return self.instances / self.seconds if self.seconds > 0 else 0.0

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready form, rates included."""
        return {"test": self.test, "side": self.side, "instances": self.instances, "weak": self.weak,
                "seconds": self.seconds, "rounds": self.rounds, "weak_per_s": self.weak_per_s,
                "weak_per_instance": self.weak_per_instance, "instances_per_s": self.instances_per_s,
                **self.detail}


class TallyBackend:
    """A backend wrapper that adds up the instances and kernel seconds of timed rounds
    (``round_index >= 1``; ``count_weak`` runs round 0 untimed), so ``count_weak`` is reused as is."""

    def __init__(self, backend: Any) -> None:
        self.backend = backend
        self.instances = 0
        self.rounds = 0
        self.kernel_seconds = 0.0
        self.count_seconds = 0.0
        self.last_extra: dict[str, Any] = {}

    def run_round(self, test: Any, config: Any, round_index: int) -> Any:
        """``backend.run_round``, tallied when timed."""
        r = self.backend.run_round(test, config, round_index)
        if round_index >= 1:
            self.instances += sum(int(c) for _, _, c in r.rows)
            self.rounds += 1
            self.kernel_seconds += float(r.extra.get("kernel_seconds", 0.0))
            self.count_seconds += float(r.extra.get("count_seconds", 0.0))
            self.last_extra = r.extra
        return r


def catalog_test(name: str, variant: str | None = None) -> Any:
    """The catalog variant measured for ``name`` (``MP``, ``SB``, ``LB``), or ``variant`` of it."""
    from litmus.spec import load_paths

    file, default = VARIANTS[name]
    want = variant or default
    for t in load_paths([ROOT / "catalog" / file]):
        if t.variant == want:
            return t
    raise SystemExit(f"bench_weak: no variant {want!r} of {name} in catalog/{file}")


def run_litmus(backend: Any, test: Any, stress: Any, instances: int, seconds: float, seed: int,
               label_roles: bool = False) -> Row:
    """Rounds of ``test`` under ``stress`` for about ``seconds`` of round time; weak outcomes by
    ``count_weak``; ``label_roles``: name the role order in the row's side."""
    from benchmarks.bench_run import count_weak
    from litmus.run.config import RunConfig

    tally = TallyBackend(backend)
    cfg = RunConfig(instances=instances, stress=stress, seed=seed)
    weak, spent = count_weak(tally, test, cfg, 1)  # learn the round time
    batch, per_round = 1, spent
    # A round's time is re-learnt from each batch: the first timed round can be many times slower
    # than the rest (memory stress warming up), and one estimate from it ran a tenth of the time.
    while spent < seconds and per_round > 0:
        batch = max(1, min(math.ceil((seconds - spent) / per_round), 4 * batch))
        w, s = count_weak(tally, test, replace(cfg, seed=seed + 1 + tally.rounds), batch)
        weak, spent, per_round = weak + w, spent + s, s / batch
    detail = {"variant": test.id, "role_order": role_label(test), "stress": stress.as_dict(),
              "instances_per_round": tally.instances // max(1, tally.rounds),
              "instances_requested": instances, "kernel_seconds": tally.kernel_seconds,
              "count_seconds": tally.count_seconds, "seed": seed,
              "fallbacks": list(tally.last_extra.get("fallbacks", []))}
    side = f"litmus/{stress.name}" + (f" roles {role_label(test)}" if label_roles else "")
    return Row(test.name, side, tally.instances, weak, spent, tally.rounds, detail)


def role_orders(test: Any) -> list[Any]:
    """``test`` with its roles (threads grouped by rank and CTA) in every order, the catalog's
    first: in the parallel launch each program plays the roles in this order, one after
    another, so the order fixes which role of an instance starts first."""
    from itertools import permutations

    from litmus.codegen.roles import cta_roles

    return [replace(test, threads=tuple(t for g in order for t in g)) for order in permutations(cta_roles(test))]


def role_label(test: Any) -> str:
    """The role order of ``test``: its roles' first threads, in order."""
    from litmus.codegen.roles import cta_roles

    return "-".join(role[0].name for role in cta_roles(test))


def has_reference(name: str) -> bool:
    """Whether the hand-written reference kernel has test ``name``."""
    from benchmarks import reference_weak as rw

    return name in rw.WEAK_CODE


def run_reference(name: str, backend_name: str, seconds: float, seed: int, block: int | None,
                  iterations: int | None, access: str | None, programs: int | None,
                  programs_per_sm: int | None) -> Row:
    """The hand-written reference for ``name`` for ``seconds`` of round time."""
    from benchmarks import reference_weak as rw

    cpu = backend_name == "cpu"
    block = block or (CPU_SIZES["block"] if cpu else 256)
    iterations = iterations or (CPU_SIZES["iterations"] if cpu else 16)
    access = access or ("plain" if cpu else "relaxed")
    how: dict[str, Any] = {}
    if programs is None:
        if cpu:
            programs = CPU_SIZES["programs"]
        else:
            programs, how = rw.resident_programs(name, block, iterations, access, programs_per_sm)
    ref = rw.WeakReference(name, programs, block, iterations, access, "cpu" if cpu else "cuda", seed)
    t = rw.run_for(ref, seconds)
    detail = {"variant": f"{access}, {programs}x{block}x{iterations}", "programs": programs, "block": block,
              "iterations": iterations, "access": access, "instances_per_round": ref.instances,
              "kernel_seconds": t["kernel_seconds"], "counts_by_code": t["counts"],
              "weak_code": rw.WEAK_CODE[name], "seed": seed, "kernel": ref.kernel_info(), "programs_from": how}
    return Row(name, "reference", t["instances"], t["weak"], t["seconds"], t["rounds"], detail)


def format_table(rows: Sequence[Row]) -> str:
    """The rows as an aligned text table."""
    head = ("test", "side", "variant", "instances", "weak", "weak/s", "weak/instance", "instances/s")
    lines = [head] + [(r.test, r.side, str(r.detail.get("variant", "")), str(r.instances), str(r.weak),
                       f"{r.weak_per_s:.3g}", f"{r.weak_per_instance:.3g}", f"{r.instances_per_s:.3g}")
                      for r in rows]
    widths = [max(len(line[i]) for line in lines) for i in range(len(head))]
    return "\n".join("  ".join(c.ljust(w) if i < 3 else c.rjust(w) for i, (c, w) in enumerate(zip(line, widths)))
                     for line in lines)


def progress(row: Row) -> str:
    """One line saying what a row measured, printed as soon as it is done."""
    return (f"{row.test} {row.side} ({row.detail.get('variant', '')}): {row.instances} instances in "
            f"{row.rounds} rounds, {row.weak} weak, {row.seconds:.2f} s")


def versions() -> dict[str, Any]:
    """Python, torch and triton versions (and the GPU name when there is one)."""
    import importlib.metadata
    import platform

    import torch

    out: dict[str, Any] = {"python": platform.python_version(), "torch": torch.__version__}
    try:
        out["triton"] = importlib.metadata.version("triton")
    except importlib.metadata.PackageNotFoundError:
        out["triton"] = None
    if torch.cuda.is_available():
        out["device"] = torch.cuda.get_device_name(0)
    return out


def write_json(path: Path | None, doc: dict[str, Any], announce: bool = True) -> None:
    """Write a benchmark's JSON document to ``path`` (nothing when None) and, with ``announce``,
    say so."""
    if path is not None:
        path.write_text(json.dumps(doc, indent=2, default=str) + "\n")
        if announce:
            print(f"wrote {path}")


def auto_stress(backend: str, device: str | None) -> Any:
    """The first environment ``litmus run`` uses without ``--stress`` on ``backend``, named
    ``auto`` (its origin is printed)."""
    from litmus.run.tuned import choose_stress

    choice = choose_stress(AUTO, backend, device)
    print(f"auto: {choice.origin}", flush=True)
    return replace(choice.environments[0], name="auto")


def main(argv: list[str] | None = None) -> dict[str, Any]:
    """Run the benchmark, print the table, write ``--json``; returns the JSON document."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--backend", choices=["cuda", "cpu"], default="cuda")
    ap.add_argument("--seconds", type=float, default=None, help="round time per test and side (default 5; cpu 1)")
    ap.add_argument("--stress", nargs="+", default=["default"],
                    help="litmus stress: preset names, stress JSON files, or auto (what `litmus run` uses "
                         "without --stress: the settings tuned for this GPU), run side by side")
    ap.add_argument("--tests", nargs="+", choices=list(VARIANTS), default=list(DEFAULT_TESTS),
                    help=f"tests to run (default: {' '.join(DEFAULT_TESTS)}); the reference kernel exists for "
                         "MP, SB and LB only")
    ap.add_argument("--variant", action="append", default=[], metavar="TEST=VARIANT",
                    help="measure another catalog variant, e.g. MP=relaxed-xgpu-sys")
    ap.add_argument("--instances", type=int, default=None, help="litmus instances per round (default 2^24; cpu 64)")
    ap.add_argument("--programs", type=int, default=None, help="reference programs per launch (default: resident)")
    ap.add_argument("--programs-per-sm", type=int, default=None, help="reference occupancy instead of the estimate")
    ap.add_argument("--block", type=int, default=None, help="reference lanes per program (default 256; cpu 8)")
    ap.add_argument("--iterations", type=int, default=None, help="reference iterations per launch (default 16; cpu 2)")
    ap.add_argument("--access", choices=["relaxed", "rmw", "plain"], default=None,
                    help="reference accesses (default relaxed PTX; cpu plain)")
    ap.add_argument("--role-orders", choices=["catalog", "all"], default="catalog",
                    help="catalog: the roles in the catalog's order; all: every order of the test's roles, a row "
                         "each (in the parallel launch a program plays the roles one after another in this order)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--json", type=Path, default=None, help="write the rows and parameters here")
    args = ap.parse_args(argv)

    from litmus.run.config import load_stress
    from litmus.run.registry import make_backend

    cpu = args.backend == "cpu"
    seconds = args.seconds if args.seconds is not None else (1.0 if cpu else 5.0)
    instances = args.instances or (CPU_SIZES["instances"] if cpu else 1 << 24)
    chosen = dict(v.split("=", 1) for v in args.variant)
    unknown = sorted(set(chosen) - set(VARIANTS))
    if unknown:
        ap.error(f"--variant for unknown test(s) {unknown}; use {', '.join(VARIANTS)}")
    for spec in args.stress:
        if spec != AUTO:
            load_stress(spec)  # bad input fails before the backend starts
    tests = {name: catalog_test(name, chosen.get(name)) for name in args.tests}
    rows: list[Row] = []
    t0 = time.time()
    with make_backend(args.backend) as backend:
        described, versions_here = backend.describe(), versions()

        def document() -> dict[str, Any]:
            return {"command": ["benchmarks/bench_weak.py", *(argv if argv is not None else sys.argv[1:])],
                    "backend": described, "versions": versions_here, "seconds_per_side": seconds,
                    "wall_seconds": time.time() - t0, "rows": [r.as_dict() for r in rows]}

        def keep(row: Row) -> None:  # every finished row is in --json at once: a killed run keeps them
            rows.append(row)
            print(progress(row), flush=True)
            write_json(args.json, document(), announce=False)

        stresses = [auto_stress(backend.name, described.get("device")) if spec == AUTO else load_stress(spec)
                    for spec in args.stress]
        every = args.role_orders == "all"
        for name, test in tests.items():
            for stress in stresses:
                for ordered in role_orders(test) if every else [test]:
                    keep(run_litmus(backend, ordered, stress, instances, seconds, args.seed, label_roles=every))
            if not has_reference(name):
                continue
            keep(run_reference(name, args.backend, seconds, args.seed, args.block, args.iterations,
                               args.access, args.programs, args.programs_per_sm))
    print()
    print(format_table(rows))
    doc = document()
    write_json(args.json, doc)
    return doc


def _script() -> int:
    """``main`` as a script: its JSON document is for callers, the exit status 0."""
    main()
    return 0


if __name__ == "__main__":
    from litmus.errors import run_script

    run_script(_script, "bench_weak.py")  # bad input: one line naming it, not a traceback
