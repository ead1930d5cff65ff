"""A/B timing of the model checker: two checkouts of litmus, the whole catalog, interleaved.

    git worktree add /tmp/old <commit>
    python benchmarks/ab_model.py /tmp/old .        # old tree, new tree

Each tree runs ``check(test, "ptx")`` over its own catalog in a fresh interpreter pinned to
core 1 (``taskset``), three times per turn, three turns, alternating; the best CPU time of each
turn is printed, so load on a shared machine hits both trees alike.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys

CODE = """
import sys, time
sys.path.insert(0, sys.argv[1])
from litmus.spec import load_paths
from litmus.model import check
tests = load_paths([sys.argv[1] + "/catalog"])
best = float("inf")
for _ in range(3):
    t0 = time.process_time()
    for t in tests:
        check(t, "ptx")
    best = min(best, time.process_time() - t0)
print(best)
"""


def main(argv: list[str] | None = None) -> None:
    """Print each tree's best CPU seconds per turn."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("old")
    ap.add_argument("new")
    ap.add_argument("--turns", type=int, default=3)
    args = ap.parse_args(argv)
    env = dict(os.environ, LITMUS_NO_SPEC_CACHE="1")
    times: dict[str, list[str]] = {args.old: [], args.new: []}
    for _ in range(args.turns):
        for tree in (args.old, args.new):
            proc = subprocess.run(["taskset", "-c", "1", sys.executable, "-c", CODE, os.path.abspath(tree)],
                                  capture_output=True, text=True, env=env)
            times[tree].append(proc.stdout.strip() if proc.returncode == 0 else "failed: " + proc.stderr[-200:])
    for tree, ts in times.items():
        print(f"{tree}: {', '.join(ts)}")


if __name__ == "__main__":
    main()
