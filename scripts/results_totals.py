"""Completed instances and target outcomes of variants, summed per device over every results
file (JSON Lines written by ``litmus run``) under the given folders or files.

    python3 scripts/results_totals.py docs/results 'ISA2[relaxed-mid-sys]' 'WRC[relacq-sys-weakx]'

Lines that are not run records (audit or tune logs kept beside them) are passed over; a torn last
line (a killed run) is skipped, as ``litmus report`` skips it, and a record found in two files
counts once. ``litmus report`` gives one run's
rows; this adds up every run of a variant, for "0 in N instances" over all of them.
"""

from __future__ import annotations

import json
import sys
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from litmus.errors import LitmusError  # noqa: E402
from litmus.report.jsonl import read_records  # noqa: E402
from litmus.report.rates import completed  # noqa: E402


def totals(paths: list[Path], ids: set[str]) -> dict[str, dict[str, list[int]]]:
    """``id -> device -> [completed, target outcomes, runs]`` over the ``*.jsonl`` files of ``paths``."""
    out: dict[str, dict[str, list[int]]] = defaultdict(lambda: defaultdict(lambda: [0, 0, 0]))
    seen: set[str] = set()  # a record copied into two files is one run
    for f in (f for p in paths for f in (sorted(p.rglob("*.jsonl")) if p.is_dir() else [p])):
        for r in read_records(f):
            if isinstance(r, dict) and r.get("id") in ids and "verdict" in r:
                if (key := json.dumps(r, sort_keys=True)) in seen:
                    continue
                seen.add(key)
                t = out[r["id"]][str(r.get("device") or "unknown device")]
                t[0] += completed(r)
                t[1] += int(r.get("target_count") or 0)
                t[2] += 1
    return out


def main(argv: list[str]) -> int:
    paths = [Path(a) for a in argv if Path(a).exists()]
    ids = {a for a in argv if not Path(a).exists()}
    if not paths or not ids:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    try:
        found = totals(paths, ids)
    except LitmusError as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    for i in sorted(ids):
        for device, (done, target, runs) in sorted(found.get(i, {}).items()):
            print(f"{i}  {device}: target {target} in {done:,} completed instances ({runs} runs)")
        if i not in found:
            print(f"{i}: in no results file")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
