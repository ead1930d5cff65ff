"""Wall time of ``litmus.model.check`` over the catalog and over the 92-test PTX corpus.

Run: ``python benchmarks/bench_model.py [--models ptx,sc] [--repeat N]``.  Prints the total
wall time per suite and model (best of N runs) and the five slowest tests.
"""

from __future__ import annotations

import argparse
import os
import time
from pathlib import Path

import litmus
from litmus.ir import LitmusTest
from litmus.model import check

ROOT = Path(litmus.__file__).resolve().parent.parent


def catalog_tests() -> list[LitmusTest] | None:
    """Every variant of every catalog pattern; None when the catalog or loader is missing."""
    try:
        from litmus.spec import load_paths
    except ImportError:
        return None
    folder = ROOT / "catalog"
    return load_paths([folder]) if folder.is_dir() else None


def corpus_tests() -> list[LitmusTest] | None:
    """The PTX corpus tests; None when the corpus or the reader is missing."""
    env = os.environ.get("LITMUS_PTX_CORPUS")
    folder = Path(env) if env else ROOT.parent / "shared" / "ptx-litmus"
    if not (folder / "expected.csv").is_file():
        return None
    try:
        from litmus.interop import read_litmus
    except ImportError:
        return None
    paths = [line.rsplit(",", 1)[0] for line in (folder / "expected.csv").read_text().splitlines() if line.strip()]
    return [read_litmus(folder / p) for p in paths]


def bench(name: str, tests: list[LitmusTest] | None, model: str, repeat: int) -> None:
    """Print the best-of-``repeat`` total wall time of checking ``tests`` under ``model``."""
    if not tests:
        print(f"{name:8s} {model:3s}  skipped (not found)")
        return
    best = float("inf")
    slowest: list[tuple[float, str]] = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        times = [(check(t, model).seconds, t.id) for t in tests]
        best = min(best, time.perf_counter() - t0)
        slowest = sorted(times, reverse=True)[:5]
    print(f"{name:8s} {model:3s}  {len(tests):4d} tests  {best:7.3f} s  "
          f"slowest: {', '.join(f'{i} {s * 1000:.0f}ms' for s, i in slowest)}")


def main() -> None:
    """Parse arguments and run the benchmarks."""
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--models", default="ptx,sc")
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    suites = [("catalog", catalog_tests()), ("corpus", corpus_tests())]
    for model in args.models.split(","):
        for name, tests in suites:
            bench(name, tests, model, args.repeat)


if __name__ == "__main__":
    main()
