"""Wall time of ``litmus.model.check`` on the dense RMW reproducers (``tests/model/data/*.yaml``).

Run: ``taskset -c 0 python benchmarks/bench_model_dense.py [--models ptx,ptx75,sc] [--repeat N]
[--guess --cap S]``.  Prints, per variant and model, the best-of-N seconds, the enumeration steps
(``litmus.model.budget``) and the number of allowed states.  ``--guess`` times the value-guessing
path instead (``checker.SYMBOLIC = False``, the path every test took before), each check cut after
``--cap`` seconds.
"""

from __future__ import annotations

import argparse
import signal
import time
from pathlib import Path
from typing import Any

import litmus
from litmus.model import check, checker
from litmus.spec import load_paths

ROOT = Path(litmus.__file__).resolve().parent.parent
DATA = ROOT / "tests" / "model" / "data"


class _Cut(Exception):
    pass


def _alarm(signum: int, frame: Any) -> None:
    raise _Cut()


def main() -> None:
    """Parse arguments and time every reproducer."""
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--models", default="ptx,ptx75,sc")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--guess", action="store_true", help="time the value-guessing path")
    ap.add_argument("--cap", type=int, default=60, help="seconds per check before it is cut")
    args = ap.parse_args()
    checker.SYMBOLIC = not args.guess
    signal.signal(signal.SIGALRM, _alarm)
    tests = [t for f in sorted(DATA.glob("*.yaml")) for t in load_paths([f])]
    total = 0.0
    for t in tests:
        for model in args.models.split(","):
            best, r = float("inf"), None
            for _ in range(args.repeat):
                signal.alarm(args.cap)
                t0 = time.perf_counter()
                try:
                    r = check(t, model)
                except _Cut:
                    r = None
                    break
                finally:
                    signal.alarm(0)
                best = min(best, time.perf_counter() - t0)
            if r is None:
                print(f"{t.id:40s} {model:6s}  cut after {args.cap} s")
                total += args.cap
                continue
            total += best
            print(f"{t.id:40s} {model:6s} {best:7.3f} s  {r.steps:7d} steps  {len(r.allowed_states):6d} states")
    print(f"total {total:.2f} s")


if __name__ == "__main__":
    main()
