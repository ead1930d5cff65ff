"""Why `litmus cost`'s signals per second under load split into two groups 100x apart (issue 16).

    python3 scripts/cost_load_probe.py 'MP[relaxed-xcta-cta]' 'MP[relaxed-xcta-sys]' ... [--pairs 32 --block 32]

For each variant: the cost loop kernel (as `litmus cost` builds it) launched with the load shape
(``--pairs`` programs per party, ``--block`` lanes each, ``--trips`` round trips), ``--launches``
times.  Per launch it prints the event time, the trips each program completed (min / median /
max), the programs whose spin timed out, and signals per second two ways: with the fewest trips
any program completed (what `litmus cost` reports) and with the trips every program completed.
With ``--fence-threads N --warps 4 --pairs 1 --block 1`` it is the latency shape of `litmus cost
--fence-threads`, whose spins timed out for ``COST-signal[threadfence-volatile-*]`` with 1 or 8
fencing threads.  Needs a GPU.
"""

from __future__ import annotations

import argparse
import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))


def main() -> int:
    """Launch and print one line per variant and launch."""
    from litmus.codegen.options import detect_features
    from litmus.cost.compile import load_cost_kernel
    from litmus.cost.kernel import cost_kernel
    from litmus.cost.launch import launch_loop
    from litmus.cost.measure import _signals_per_trip
    from litmus.cost.shape import signalling
    from litmus.spec import load_tests

    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("tests", nargs="+")
    ap.add_argument("--pairs", type=int, default=32)
    ap.add_argument("--block", type=int, default=32)
    ap.add_argument("--trips", type=int, default=1000)
    ap.add_argument("--launches", type=int, default=3)
    ap.add_argument("--spin-bound", type=int, default=100000)
    ap.add_argument("--warps", type=int, default=1)
    ap.add_argument("--fence-threads", type=int, default=None,
                    help="only threads %%tid.x < N run the variant's fences (as `litmus cost --fence-threads`)")
    args = ap.parse_args()
    tests = load_tests(args.tests)
    print(f"{'variant':30} {'launch':>6} {'ms':>8} {'trips min/med/max':>20} {'timed out':>9} "
          f"{'per_s (min)':>12} {'per_s (all)':>12}")
    for test in tests:
        sig = signalling(test)
        ck = cost_kernel(sig, backend="cuda", features=detect_features(), spin_bound=args.spin_bound,
                         fence_threads=args.fence_threads)
        module = load_cost_kernel(ck)
        launch_loop(module, ck, args.trips, args.pairs, args.block, num_warps=args.warps)  # compile, warm
        for k in range(args.launches):
            run = launch_loop(module, ck, args.trips, args.pairs, args.block, num_warps=args.warps)
            secs = (run.event_ms or 0.0) / 1e3
            per = _signals_per_trip(sig) * args.block / secs if secs > 0 else 0.0
            trips = run.trips
            print(f"{test.id:30} {k:6d} {run.event_ms:8.3f} "
                  f"{min(trips):6d}/{int(statistics.median(trips)):6d}/{max(trips):6d} "
                  f"{sum(1 for s in run.status if s):9d} {per * min(trips) * args.pairs:12.3g} "
                  f"{per * sum(trips[: args.pairs]):12.3g}")
    return 0


if __name__ == "__main__":
    from litmus.errors import run_script

    run_script(main, "cost_load_probe.py")  # bad input: one line naming it, not a traceback
