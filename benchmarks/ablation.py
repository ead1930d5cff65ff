"""Which stress factor makes weak outcomes show: each factor changed alone, from a tuned base.

    python benchmarks/ablation.py --base docs/results/h200-tuned.json --seconds 1 --json OUT.json
    python benchmarks/ablation.py --backend cpu --seconds 0.3 --tests MP --only base stride-1   # smoke, no GPU

For relaxed MP, SB and LB (``bench_weak.VARIANTS``), the litmus cuda backend runs the base
environment (a stress file ``litmus tune`` wrote), then each row of :data:`FACTORS`: the base
with one factor changed, and the ``resident`` preset (every SM's resident programs; the
``default`` preset before one program per SM) with one factor added.  Each row is
measured the way ``bench_weak`` measures (``bench_weak.run_litmus``: the first round compiles and
is not counted).  The table gives weak outcomes per kernel-second (the GPU's time in the test
kernel, CUDA events), per wall-second (the round: reset, launch, count) and per instance, and
each row's kernel-second rate against the base row of the same test.
"""

from __future__ import annotations

import argparse
import sys
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from benchmarks.bench_weak import DEFAULT_TESTS, VARIANTS, catalog_test, run_litmus, versions, write_json  # noqa: E402

FACTORS: dict[str, tuple[str, dict[str, Any]]] = {
    "base": ("base", {}),
    "occupancy-resident": ("base", {"parallel_programs": 0}),
    "occupancy-512": ("base", {"parallel_programs": 512}),
    "pre-stress-off": ("base", {"pre_stress": 0}),
    "stride-1": ("base", {"stride": 1}),
    "stride-64": ("base", {"stride": 64}),
    "shuffle-off": ("base", {"shuffle": False}),
    "kernel-barrier-all": ("base", {"kernel_barrier": True, "barrier_pct": 100}),
    "mem-stress-on": ("base", {"mem_stress": True, "stress_programs": 64, "stress_iterations": 1024}),
    "launch-grid": ("base", {"launch": "grid"}),
    "round-2^24": ("base", {}),
    "resident": ("resident", {}),
    "resident+occupancy-128": ("resident", {"parallel_programs": 128}),
    "resident+stride-16": ("resident", {"stride": 16}),
    "resident+pre-stress-16": ("resident", {"pre_stress": 16, "scratch_words": 65536}),
    "resident+occupancy-64": ("resident", {"parallel_programs": 64}),
    "resident+occupancy-256": ("resident", {"parallel_programs": 256}),
    "resident+1-per-sm": ("resident", {"programs_per_sm": 1}),
    "resident+2-per-sm": ("resident", {"programs_per_sm": 2}),
    "resident+1-per-sm+kernel-barrier": ("resident", {"programs_per_sm": 1, "kernel_barrier": True}),
    "resident+1-per-sm+shuffle-off": ("resident", {"programs_per_sm": 1, "shuffle": False}),
}
"""Row name -> (what it starts from: the base file or the ``resident`` preset, the parameters it
changes).  ``round-2^24`` is the base at 2^24 instances per round instead of ``--instances``."""

BIG_ROUND = 1 << 24


def environments(base_spec: str, only: list[str] | None) -> list[tuple[str, Any, int | None]]:
    """``(row, Stress, instances or None)`` per row of :data:`FACTORS` (``only``: those rows)."""
    from litmus.run.config import PRESETS, load_stress, validate_stress

    base = load_stress(base_spec)
    rows = []
    for name, (start, changes) in FACTORS.items():
        if only and name not in only:
            continue
        stress = replace(base if start == "base" else PRESETS["resident"], name=name, **changes)
        validate_stress(stress)
        rows.append((name, stress, BIG_ROUND if name == "round-2^24" else None))
    return rows


def table(rows: list[dict[str, Any]]) -> str:
    """The rows as text: test, row, weak per kernel-second and per wall-second, per instance, and
    the kernel-second rate against the base row of the same test."""
    base = {r["test"]: r["weak_per_kernel_s"] for r in rows if r["row"] == "base"}
    head = ("test", "row", "instances", "weak", "weak/kernel-s", "weak/wall-s", "weak/instance", "vs base")
    lines = [head]
    for r in rows:
        ref = base.get(r["test"])
        lines.append((r["test"], r["row"], f"{r['instances']:,}", f"{r['weak']:,}", f"{r['weak_per_kernel_s']:.3g}",
                      f"{r['weak_per_s']:.3g}", f"{r['weak_per_instance']:.2e}",
                      f"{r['weak_per_kernel_s'] / ref:.2f}x" if ref else "-"))
    widths = [max(len(line[i]) for line in lines) for i in range(len(head))]
    return "\n".join("  ".join(c.ljust(w) if i < 2 else c.rjust(w) for i, (c, w) in enumerate(zip(line, widths)))
                     for line in lines)


def main(argv: list[str] | None = None) -> dict[str, Any]:
    """Measure every row, print the table, write ``--json``; returns the JSON document."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--backend", choices=["cuda", "cpu"], default="cuda")
    ap.add_argument("--base", default="docs/results/h200-tuned.json", help="the tuned stress file the rows change")
    ap.add_argument("--seconds", type=float, default=1.0, help="round time per row and test (default 1)")
    ap.add_argument("--instances", type=int, default=None, help="instances per round (default 2^20; cpu 64)")
    ap.add_argument("--tests", nargs="+", choices=list(VARIANTS), default=list(DEFAULT_TESTS))
    ap.add_argument("--only", nargs="+", choices=list(FACTORS), default=None, help="only these rows")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--json", type=Path, default=None, help="write the rows and parameters here")
    args = ap.parse_args(argv)

    from litmus.run.registry import make_backend

    cpu = args.backend == "cpu"
    instances = args.instances or (64 if cpu else 1 << 20)
    envs = environments(args.base, args.only)
    tests = {name: catalog_test(name) for name in args.tests}
    rows: list[dict[str, Any]] = []
    t0 = time.time()
    with make_backend(args.backend) as backend:
        described = backend.describe()
        for name, test in tests.items():
            for row, stress, big in envs:
                r = run_litmus(backend, test, stress, big or instances, args.seconds, args.seed)
                kernel_s = float(r.detail.get("kernel_seconds") or 0.0)
                rows.append({**r.as_dict(), "row": row,
                             "weak_per_kernel_s": r.weak / kernel_s if kernel_s > 0 else 0.0})
                print(f"{name} {row}: {r.weak:,} weak in {r.instances:,} instances, {r.rounds} rounds, "
                      f"{kernel_s:.3f} kernel-s of {r.seconds:.3f} s", flush=True)
    print()
    print(table(rows))
    doc = {"command": ["benchmarks/ablation.py", *(argv if argv is not None else sys.argv[1:])],
           "backend": described, "versions": versions(), "base": args.base, "seconds_per_row": args.seconds,
           "instances": instances, "wall_seconds": time.time() - t0, "rows": rows}
    write_json(args.json, doc)
    return doc


def _script() -> int:
    """``main`` as a script: its JSON document is for callers, the exit status 0."""
    main()
    return 0


if __name__ == "__main__":
    from litmus.errors import run_script

    run_script(_script, "ablation.py")  # bad input: one line naming it, not a traceback
