"""Where a variant's seconds go in a catalog run: setup and compile, kernels, counting.

    python benchmarks/bench_variant_time.py 'MP[relacq-xcta-sys]' SYMM-barrier --backend cuda \\
        --stress docs/results/h200-rotation-2.json --time-budget 1.5 --until-bound 1e-9 --json OUT
    python benchmarks/bench_variant_time.py 'MP[relacq-xcta-sys]' --backend cpu --instances 64 --time-budget 0.2

Each variant runs exactly as ``litmus run`` runs it (``litmus.session.run_variant``, with its
round plan), through a wrapper backend that keeps every round: environment, launch, instances,
completed and ended (completed, or proven hung) instances, round seconds, and the backend's ``kernel_seconds`` and ``count_seconds``.
The rest of a round (``other``) is setup: generating and compiling kernels on first use,
allocating and resetting buffers.  One table row per variant: rounds, completed instances,
seconds, the sums of kernel, count and other seconds, the first round's seconds, and the
resulting 3/N bound; ``--json`` keeps every round.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from litmus.status import ended  # noqa: E402


class RoundLog:
    """A backend wrapper that keeps a record of every round it runs."""

    def __init__(self, backend: Any) -> None:
        self.backend = backend
        self.name = backend.name
        self.rounds: list[dict[str, Any]] = []

    def __getattr__(self, item: str) -> Any:
        return getattr(self.backend, item)

    def run_round(self, test: Any, config: Any, round_index: int) -> Any:
        """``backend.run_round``, recorded."""
        r = self.backend.run_round(test, config, round_index)
        kernel = float(r.extra.get("kernel_seconds", 0.0))
        count = float(r.extra.get("count_seconds", 0.0))
        self.rounds.append({
            "round": round_index, "environment": config.stress.name, "launch": r.extra.get("launch"),
            "instances": r.instances, "completed": sum(n for _, t, n in r.rows if not t),
            "ended": sum(n for _, t, n in r.rows if ended(t)),
            "seconds": r.seconds, "kernel_seconds": kernel, "count_seconds": count,
            "other_seconds": r.seconds - kernel - count,
        })
        return r


def summary(test_id: str, verdict: str, seconds: float, rounds: list[dict[str, Any]]) -> dict[str, Any]:
    """One variant's totals from its rounds."""
    completed = sum(r["completed"] for r in rounds)
    n_ended = sum(r.get("ended", r["completed"]) for r in rounds)
    return {
        "id": test_id, "verdict": verdict, "rounds": len(rounds), "completed": completed, "seconds": seconds,
        "kernel_seconds": sum(r["kernel_seconds"] for r in rounds),
        "count_seconds": sum(r["count_seconds"] for r in rounds),
        "other_seconds": sum(r["other_seconds"] for r in rounds),
        "first_round_seconds": rounds[0]["seconds"] if rounds else 0.0,
        "environments": sorted({r["environment"] for r in rounds}),
        "bound": 3.0 / n_ended if n_ended else None,  # 3/N over ended instances, as classify counts
    }


def main(argv: list[str] | None = None) -> int:
    """Run the variants and print one row each."""
    from litmus.run.registry import make_backend
    from litmus.session import run_config, run_variant
    from litmus.spec.select import load_tests

    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("tests", nargs="+", help="patterns, variant ids or YAML files, as `litmus run` takes them")
    ap.add_argument("--backend", default="cuda")
    ap.add_argument("--stress", default="default")
    ap.add_argument("--instances", type=int, default=None)
    ap.add_argument("--time-budget", type=float, default=1.5)
    ap.add_argument("--until-bound", type=float, default=1e-9)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--json", type=Path, default=None, help="write every round of every variant here")
    args = ap.parse_args(argv)

    tests = load_tests(args.tests)
    backend = make_backend(args.backend)
    config = run_config(backend, time_budget=args.time_budget, instances=args.instances, seed=args.seed,
                        stress=args.stress, stop_bound=args.until_bound)
    out: list[dict[str, Any]] = []
    print(f"{'variant':48} {'verdict':15} {'rounds':>6} {'completed':>10} {'s':>6} {'kernel':>6} "
          f"{'count':>6} {'other':>6} {'first':>6} {'3/N':>8}")
    wall = time.perf_counter()
    for test in tests:
        if (why := backend.skip_reason(test)) is not None:
            print(f"{test.id:48} skipped: {why}")
            continue
        log = RoundLog(backend)
        ran = run_variant(test, log, config)
        row = summary(test.id, ran.verdict.verdict, ran.seconds, log.rounds)
        out.append({**row, "round_log": log.rounds})
        bound = f"{row['bound']:.1e}" if row["bound"] else "-"
        print(f"{test.id[:48]:48} {row['verdict']:15} {row['rounds']:6d} {row['completed']:10.3g} "
              f"{row['seconds']:6.2f} {row['kernel_seconds']:6.2f} {row['count_seconds']:6.2f} "
              f"{row['other_seconds']:6.2f} {row['first_round_seconds']:6.2f} {bound:>8}")
    total = {k: sum(r[k] for r in out) for k in ("seconds", "kernel_seconds", "count_seconds", "other_seconds")}
    print(f"{'total':48} {'':15} {'':6} {'':10} " + " ".join(f"{total[k]:6.2f}" for k in total)
          + f"   wall {time.perf_counter() - wall:.1f} s")
    if args.json:
        args.json.write_text(json.dumps({"command": sys.argv, "backend": backend.describe(),
                                         "variants": out}, indent=1))
    return 0


if __name__ == "__main__":
    from litmus.errors import run_script

    run_script(main, "bench_variant_time.py")  # bad input: one line naming it, not a traceback
