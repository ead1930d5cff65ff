"""Summarise a fuzz run's JSONL: verdicts, errors (one line each) and every VIOLATION.

    python3 scripts/fuzz_summary.py docs/results/h200-fuzz.jsonl [--patterns fuzz_gpu/]

With ``--patterns``, also counts the patterns that have no record (the run did not reach them).
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from pathlib import Path

from litmus.errors import LitmusError
from litmus.report.jsonl import read_results


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("jsonl", type=Path)
    ap.add_argument("--patterns", type=Path, default=None)
    args = ap.parse_args(argv)
    try:
        records = read_results(args.jsonl)
    except LitmusError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    verdicts = Counter(r["verdict"] for r in records)
    print(f"{len(records)} records: " + ", ".join(f"{k} {v}" for k, v in sorted(verdicts.items())))
    print(f"devices: {', '.join(sorted({str(r.get('device')) for r in records}))}")
    print(f"instances: {sum(int(r.get('instances') or 0) for r in records):,}")
    for r in records:
        if r["verdict"] == "error":
            print(f"error {r['id']} ({r['source']}): {r['error']}")
    for r in records:
        if r["verdict"] == "VIOLATION":
            print(f"VIOLATION {r['id']} ({r['source']}): {r['target_count']} of {r['instances']} instances")
    if args.patterns is not None:
        seen = {Path(r["source"]).name for r in records}
        missing = sorted(p.name for p in args.patterns.glob("*.yaml") if p.name not in seen)
        print(f"patterns without a record: {len(missing)}" + (f" (first: {missing[0]})" if missing else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
