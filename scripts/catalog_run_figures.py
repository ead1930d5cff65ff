"""The figures docs/results/h200-detect.md quotes for a whole-catalog run, per results file: the
conformance variants (target forbidden) bounded by 3/N <= BOUND, those not bounded, the
VIOLATIONs, the sum of the variants' seconds, and, for each ``--id``, that variant's row.

    python3 scripts/catalog_run_figures.py docs/results/h200-detect-21.jsonl docs/results/h200-detect-22.jsonl \\
        --id 'BUG-vllm-8558[buggy-one-set-relacq]'

"Bounded" is what the run recorded: ``target_count`` 0 and ``bound_95`` (3/N over the ended
instances) at most BOUND. The mutation score is ``litmus report FILE --mutation``. Nothing here
needs a GPU.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from litmus.errors import LitmusError  # noqa: E402
from litmus.report.jsonl import read_results  # noqa: E402


def is_bounded(record: Mapping[str, Any], bound: float) -> bool:
    """Whether a conformance record never showed its target and reached 3/N <= ``bound``."""
    b = record.get("bound_95")
    return record.get("target_count") == 0 and b is not None and b <= bound


def run_figures(records: Sequence[Mapping[str, Any]], bound: float, ids: Sequence[str]) -> list[str]:
    """The lines this script prints for one results file's records."""
    conformance = [r for r in records if r["expect"] == "forbidden"]
    unbounded = [r for r in conformance if not is_bounded(r, bound)]
    by_id = {r["id"]: r for r in records}
    lines = [
        f"conformance bounded by 3/N <= {bound:g}: {len(conformance) - len(unbounded)} / {len(conformance)}",
        *(f"  not bounded: {r['id']} {r['verdict']} 3/N={r.get('bound_95')}" for r in unbounded),
        "VIOLATION: " + (", ".join(r["id"] for r in records if r["verdict"] == "VIOLATION") or "none"),
        f"sum of variant seconds: {sum(r['seconds'] for r in records):.1f}",
    ]
    for i in ids:
        r = by_id.get(i)
        if r is None:
            lines.append(f"  {i}: not in this file")
            continue
        lines.append(f"  {i}: {r['verdict']}, {r['seconds']:.2f} s, {r['instances']:,} instances, "
                     f"{r['completed']:,} completed, {r['hung']:,} hung, target {r['target_count']:,}, "
                     f"{r['rounds']} rounds, 3/N={r.get('bound_95')}")
    return lines


def main(argv: Sequence[str] | None = None) -> int:
    """Print each results file's figures; a bad file is one line naming it, exit 2."""
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("results", nargs="+", type=Path, help="litmus run JSONL files, each read as one run")
    ap.add_argument("--bound", type=float, default=1e-9, help="the 3/N a conformance variant must reach (1e-9)")
    ap.add_argument("--id", dest="ids", action="append", default=[], help="a variant id to show (repeatable)")
    args = ap.parse_args(argv)
    for path in args.results:
        try:
            records = read_results(path)
        except LitmusError as e:
            print(f"error: {e}", file=sys.stderr)
            return 2
        print(f"== {path}")
        print("\n".join(run_figures(records, args.bound, args.ids)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
