"""Wall time of ``litmus.explain.explain`` per catalog variant, and its agreement with the model.

Run: ``taskset -c 0 python benchmarks/bench_explain.py [--models ptx75,ptx,sc] [--repeat N]
[--corpus DIR ...] [--cat FILE.cat ...] [--no-catalog]``.  For every catalog variant (the target of its condition) it
prints, per model, the total and the slowest explanations (best of N runs each) and how many
took a second or more (the target: none).  For every ``.litmus`` file of each ``--corpus``
folder (default ``../shared/ptx-litmus``) it also counts how often ``explain`` agrees with
``check`` on whether the target is reachable, and how many rejecting cycles do not close (the
target: every file agrees, every cycle closes).  ``--cat`` adds herd-style cat models.
"""

from __future__ import annotations

import argparse
import dataclasses
import time
from pathlib import Path

import litmus
from litmus.errors import LitmusError
from litmus.explain import explain
from litmus.ir import LitmusTest
from litmus.model import check, load_cat
from litmus.model.relations import Model
from litmus.spec import load_paths, load_tests

ROOT = Path(litmus.__file__).resolve().parent.parent


def timed(tests: list[LitmusTest], model: str | Model, repeat: int) -> list[tuple[float, str]]:
    """(best-of-``repeat`` seconds, test id) per test, slowest first."""
    out = []
    for t in tests:
        best = float("inf")
        for _ in range(repeat):
            fresh = dataclasses.replace(t)  # another object: explain checks it again (its cache is per object)
            t0 = time.perf_counter()
            explain(fresh, model=model)
            best = min(best, time.perf_counter() - t0)
        out.append((best, t.id))
    return sorted(out, reverse=True)


def agreement(folder: Path, model: str | Model) -> tuple[int, int, int, int, int, int, float]:
    """(files, tests, agree, differ, refused by both, open cycles, seconds) of ``explain``
    against ``check``."""
    files = sorted(folder.rglob("*.litmus"))
    tests = agree = differ = refused = open_cycles = 0
    t0 = time.perf_counter()
    for f in files:
        for t in load_tests([str(f)]):
            tests += 1
            try:
                reachable = check(t, model).target_reachable
            except LitmusError:  # a construct the model refuses (ptx: proxies): explain must refuse it too
                try:
                    explain(t, model=model)
                except LitmusError:
                    refused += 1
                    continue
                differ += 1
                print(f"  refused by the model, not by explain: {t.id} ({f})")
                continue
            x = explain(t, model=model)
            if x.allowed == reachable:
                agree += 1
            else:
                differ += 1
                print(f"  differs: {t.id} ({f})")
            open_cycles += sum(not g.closes for g in x.forbidden_by)
    return len(files), tests, agree, differ, refused, open_cycles, time.perf_counter() - t0


def main() -> None:
    """Parse arguments and run the benchmarks."""
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--models", default="ptx75,ptx,sc")
    ap.add_argument("--cat", action="append", default=[], metavar="FILE.cat")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--corpus", action="append", default=None, metavar="DIR")
    ap.add_argument("--no-catalog", action="store_true", help="Only the corpus agreement.")
    args = ap.parse_args()
    models: list[tuple[str, str | Model]] = [(m, m) for m in args.models.split(",") if m]
    models += [(Path(c).name, load_cat(c)) for c in args.cat]
    catalog = load_paths([ROOT / "catalog"])
    corpora = [Path(c) for c in (args.corpus or [str(ROOT.parent / "shared" / "ptx-litmus")])]
    for name, model in models:
        times = [] if args.no_catalog else timed(catalog, model, args.repeat)
        total = sum(s for s, _ in times)
        over = sum(s >= 1.0 for s, _ in times)
        if times:
            print(f"catalog {name:16s} {len(times):4d} variants  total {total:6.2f} s  at or over 1 s: {over}  "
                  f"slowest: {', '.join(f'{i} {s * 1000:.0f}ms' for s, i in times[:3])}")
        for folder in corpora:
            if not folder.is_dir():
                print(f"corpus  {name:16s} {folder}: not found, skipped")
                continue
            files, tests, agree, differ, refused, open_cycles, secs = agreement(folder, model)
            print(f"corpus  {name:16s} {folder}: {files} files, {tests} tests: {agree} agree, {differ} differ, "
                  f"{refused} refused by both, {open_cycles} open cycles; {secs:.1f} s")


if __name__ == "__main__":
    main()
