"""The whole catalog on the CPU default, as a newcomer without a GPU first runs it: the wall time
of ``litmus run catalog/`` with no options (a fresh kernel cache), the slowest ten variants, and
the share of the variants' time that went to variants that spin or wait at a barrier.

    taskset -c 0,1 python benchmarks/bench_cpu_catalog.py [--catalog catalog/] [--keep OUT.jsonl]

Targets (issue "The CPU default, fast"): the whole run in at most 5 minutes on two cores, no
variant over 10 s, no error.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def waits(record_id: str, tests: dict[str, object]) -> bool:
    """Whether the variant spins, waits at a barrier or loops (its rounds can run long)."""
    from litmus.run.schedule import may_wait

    test = tests.get(record_id)
    return test is not None and may_wait(test)  # type: ignore[arg-type]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--catalog", default=str(ROOT / "catalog"))
    ap.add_argument("--keep", type=Path, default=None, help="keep the results file here")
    args = ap.parse_args(argv)
    from litmus.spec import load_tests

    tests = {t.id: t for t in load_tests([args.catalog])}
    with tempfile.TemporaryDirectory() as tmp:
        out = args.keep or Path(tmp) / "cpu.jsonl"
        env = dict(os.environ, LITMUS_CACHE=str(Path(tmp) / "cache"))
        t0 = time.perf_counter()
        proc = subprocess.run([sys.executable, "-m", "litmus", "run", args.catalog, "--out", str(out)],
                              env=env, cwd=tmp, capture_output=True, text=True)
        wall = time.perf_counter() - t0
        records = [json.loads(line) for line in out.read_text().splitlines() if line.strip()]
    seconds = [float(r["seconds"]) for r in records]
    spinning = sum(float(r["seconds"]) for r in records if waits(r["id"], tests))
    print(f"litmus run {args.catalog} (cpu default): exit {proc.returncode}, wall {wall:.1f} s, "
          f"{len(records)} of {len(tests)} variants")
    print("verdicts: " + ", ".join(f"{k} {v}" for k, v in sorted(Counter(r['verdict'] for r in records).items())))
    print(f"variant seconds: sum {sum(seconds):.1f}, max {max(seconds):.2f}; "
          f"{spinning / max(sum(seconds), 1e-9):.0%} of them in variants that spin or wait")
    print("slowest ten:")
    for r in sorted(records, key=lambda r: -float(r["seconds"]))[:10]:
        print(f"  {float(r['seconds']):6.2f} s  {r['id']}  {r['verdict']}  {r['instances']:,} instances, "
              f"{r['rounds']} rounds")
    return 0 if proc.returncode in (0, 1) else proc.returncode


if __name__ == "__main__":
    sys.exit(main())
