"""What signalling costs: ``litmus cost`` over pattern groups, within a time budget, to files.

    python benchmarks/bench_cost.py OUT [--backend cuda|ranks|cpu] [--budget 270] [--round-trips 1000]
                                        [--repeat 5] [--spin-bound 100000] [--world-size N] [--variant GLOB]
                                        [--warps 1] [--fence-threads N] [GROUP ...]

GROUPs (default: all, in this order): symm (symm_mem barrier patterns 0-2), iris (MP-iris and
the reset patterns), mp (MP, MP-mixed: every flag variant), axes (COST-signal of
catalog/signal_cost.yaml), vllm (COST-vllm-barrier, COST-barrier-threads), xla. --variant keeps
the variants whose name matches it as a shell pattern ('*-sys'). Each finished group is written
at once to OUT/cost.json (the JSON report of every group so far) and OUT/cost.md (a Markdown
table per family); no variant starts after --budget seconds (those left are listed as skipped).
A short table (the cheapest correct variant of each family) is printed last.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

GROUPS: dict[str, list[str]] = {
    "symm": ["SYMM-barrier", "SYMM-barrier-p0", "SYMM-barrier-p1", "SYMM-barrier-p2"],
    "iris": ["MP-iris", "MP-iris-volatile", "MP-iris-reset", "MP-iris-reset-war", "MP-reset-race"],
    "mp": ["MP", "MP-mixed"],
    "axes": ["COST-signal"],
    "vllm": ["COST-vllm-barrier", "COST-barrier-threads"],
    "xla": ["XLA-block-barrier"],
}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("out")
    ap.add_argument("groups", nargs="*", default=list(GROUPS))
    ap.add_argument("--backend", default="cuda", choices=["cuda", "ranks", "cpu"])
    ap.add_argument("--budget", type=float, default=270.0, help="seconds after which no variant starts")
    ap.add_argument("--round-trips", type=int, default=1000)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--warmup", type=int, default=2)
    ap.add_argument("--spin-bound", type=int, default=100_000)
    ap.add_argument("--world-size", type=int, default=None)
    ap.add_argument("--variant", default=None, help="only variants whose name matches (as litmus run --variant)")
    ap.add_argument("--warps", type=int, default=1)
    ap.add_argument("--fence-threads", type=int, default=None)
    args = ap.parse_args()
    bad = [g for g in args.groups if g not in GROUPS]
    if bad:
        print(f"error: unknown group(s) {bad}; use {', '.join(GROUPS)}", file=sys.stderr)
        return 2

    from litmus.cost.command import run_cost
    from litmus.cost.measure import CostParams
    from litmus.cost.render import markdown, report_dict
    from litmus.errors import LitmusError
    from litmus.report.table import text_table

    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    params = CostParams(round_trips=args.round_trips, repeat=args.repeat, warmup=args.warmup,
                        spin_bound=args.spin_bound, world_size=args.world_size, warps=args.warps,
                        fence_threads=args.fence_threads)
    t0 = time.monotonic()
    families, meta, skipped = [], {}, []
    for group in args.groups:
        if time.monotonic() - t0 > args.budget:
            skipped.append(group)
            continue
        try:
            fams, meta = run_cost(tuple(GROUPS[group]), args.variant, args.backend, params, None, progress=True,
                                  deadline=t0 + args.budget)
        except LitmusError as e:
            if "no variant match" in str(e):  # --variant names none of this group's variants
                continue
            print(f"error: group {group}: {e}", file=sys.stderr)
            return 2
        families += fams
        report = report_dict(families, {**meta, "groups_skipped_for_time": skipped,
                                        "seconds": round(time.monotonic() - t0, 1)})
        report["params"] = params.as_dict()
        (out / "cost.json").write_text(json.dumps(report, indent=1) + "\n")
        (out / "cost.md").write_text(markdown(families))
        print(f"{group}: {sum(len(f.rows) for f in fams)} variants, {time.monotonic() - t0:.0f} s", flush=True)
    if skipped:
        print(f"not started (budget {args.budget:g} s spent): {', '.join(skipped)}")
    rows = []
    for f in families:
        best = f.cheapest_correct
        cheaper_bad = sum(1 for r in f.rows if r.mark.startswith("cheaper"))
        rows.append([f.name, best.variant if best else "-", f"{best.measurement.p50 / 1e3:.3f}" if best else "-",
                     cheaper_bad, sum(1 for r in f.rows if r.measurement and not r.measurement.agreement.ok)])
    print(text_table(["family", "cheapest correct", "p50 us", "cheaper incorrect", "runs disagree"], rows,
                     right=(2, 3, 4)), end="")
    return 0


if __name__ == "__main__":
    sys.exit(main())
