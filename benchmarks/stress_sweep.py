"""Weak outcomes per second of relaxed MP/SB/LB on one GPU under several stress configurations.

    python benchmarks/stress_sweep.py [--rounds 20] [--instances 16777216]

Which stress parameters make the GPU show weak behaviour, in the manner of MC Mutants' tuning:
each configuration is a preset with some parameters changed; every row runs the same number of
instances of each test and prints the weak count and weak outcomes per second.
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import replace
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

CONFIGS: list[tuple[str, str, dict]] = [
    ("none", "none", {}),
    ("shuffle", "none", {"shuffle": True}),
    ("default", "default", {}),
    ("default, stride 32", "default", {"stride": 32}),
    ("memory stress", "default", {"mem_stress": True, "stress_programs": 64, "stress_iterations": 64}),
    ("memory stress, stride 32", "default", {"mem_stress": True, "stress_programs": 64, "stress_iterations": 64,
                                             "stride": 32}),
    ("pre-stress 16", "default", {"pre_stress": 16}),
    ("pre-stress 4", "default", {"pre_stress": 4}),
    ("pre-stress 1", "default", {"pre_stress": 1}),
    ("default, kernel barrier", "default", {"kernel_barrier": True}),
    ("heavy", "heavy", {}),
    ("full", "full", {}),
    ("full, no pre-stress", "full", {"pre_stress": 0}),
    ("full, no kernel barrier", "full", {"kernel_barrier": False}),
    ("parallel launch", "default", {"launch": "parallel"}),
    ("parallel launch, barrier 50%", "default", {"launch": "parallel", "kernel_barrier": True, "barrier_pct": 50}),
    ("parallel launch, memory stress", "default", {"launch": "parallel", "mem_stress": True, "stress_programs": 64,
                                                   "stress_iterations": 64}),
]
TESTS = [("mp.yaml", "relaxed-xgpu-sys"), ("sb.yaml", "relaxed-sys"), ("lb.yaml", "relaxed-sys")]


def main(argv: list[str] | None = None) -> None:
    """Print one row per stress configuration: weak count and rate per test."""
    from benchmarks.bench_run import count_weak
    from litmus.run.config import PRESETS, RunConfig
    from litmus.run.registry import make_backend
    from litmus.spec import load_paths

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=20)
    ap.add_argument("--instances", type=int, default=1 << 24)
    args = ap.parse_args(argv)
    tests = [next(t for t in load_paths([ROOT / "catalog" / f]) if t.variant == v) for f, v in TESTS]
    print(f"{args.rounds} rounds x {args.instances} instances per test and configuration")
    print(f"{'configuration':28s} " + " ".join(f"{t.id:>30s}" for t in tests))
    with make_backend("cuda") as backend:
        for label, base, changes in CONFIGS:
            stress = replace(PRESETS[base], name=label, **changes)
            cells = []
            for test in tests:
                cfg = RunConfig(instances=args.instances, stress=stress, seed=1)
                weak, seconds = count_weak(backend, test, cfg, args.rounds)
                cells.append(f"{weak:>9d} ({weak / seconds:9.3g}/s)")
            print(f"{label:28s} " + " ".join(f"{c:>30s}" for c in cells), flush=True)


if __name__ == "__main__":
    main()
