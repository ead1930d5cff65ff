"""Dat3M's whole PTX corpus through the reader and the model: agreement and time.

Run: ``python benchmarks/bench_dat3m.py [--repeat N]`` (pin it to one core with
``taskset -c 0``).  Prints, per verdict list, how many verdicts agree, disagree or fail, and
the best-of-N wall time of reading every listed file and checking it under the list's model.
``--all`` then reads all 748 ``.litmus`` files and checks each under the default model, each
check stopped after ``--cap`` seconds (the CADP loop tests can take minutes; the count of
stopped checks is printed); ``--cli`` times ``litmus model <corpus>/litmus --json`` end to
end; ``--one FILE`` only times one file under each model.  ``--cat FILE`` (repeatable) reads a
``.cat`` model (``litmus.model.cat``): its verdict lists, as for the built-in models, then every
``.litmus`` file of the corpus under the cat model and under the built-in model of its profile,
counting the files whose allowed states, verdict and hang verdict agree and those that differ
(a file both refuse, e.g. a proxy test under v6.0, counts as refused; one refuses and the other
not counts as a disagreement), with the time of each side; ``--catalog`` adds the same
comparison on every variant of ``catalog/`` (run from the repository root).
"""

from __future__ import annotations

import argparse
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from litmus.errors import LitmusError
from litmus.interop import DAT3M_LISTS, dat3m_dir, read_expected, read_litmus
from litmus.ir import LitmusTest
from litmus.model import DEFAULT_MODEL, check
from litmus.model.relations import Model


def run_list(root: Path, name: str, model: str | Model) -> tuple[int, int, int, float]:
    """(agree, disagree, errors, seconds) of one verdict list under ``model``."""
    kind = DAT3M_LISTS[name][0]
    agree = disagree = errors = 0
    t0 = time.perf_counter()
    for rel, value in sorted(read_expected(root, name).items()):
        try:
            r = check(read_litmus(root / rel), model)
        except LitmusError:
            errors += 1
            continue
        got = (not r.possible_hang) if kind == "liveness" else r.validated
        if got == value:
            agree += 1
        else:
            disagree += 1
    return agree, disagree, errors, time.perf_counter() - t0


class _Stopped(Exception):
    pass


def _stop(signum: int, frame: object) -> None:
    raise _Stopped()


def run_all(root: Path, model: str, cap: int) -> tuple[int, int, int, float]:
    """(files, failures, stopped, seconds): read and check every ``.litmus`` file of the corpus,
    each check stopped after ``cap`` seconds."""
    files = sorted((root / "litmus").rglob("*.litmus"))
    failures = stopped = 0
    previous = signal.signal(signal.SIGALRM, _stop)
    t0 = time.perf_counter()
    try:
        for f in files:
            signal.alarm(cap)
            try:
                check(read_litmus(f), model)
            except LitmusError:
                failures += 1
            except _Stopped:
                stopped += 1
            finally:
                signal.alarm(0)
    finally:
        signal.signal(signal.SIGALRM, previous)
    return len(files), failures, stopped, time.perf_counter() - t0


def compare_cat(tests: list[tuple[str, LitmusTest]], cat: Model, builtin: str, cap: int) -> dict[str, float]:
    """Each ``(label, test)`` under ``cat`` and under ``builtin``: counts of tests that agree
    (same allowed states, verdict and hang verdict), differ, are refused by both (at the same
    places) or stopped after ``cap`` s, and the seconds each side spent checking."""
    out: dict[str, float] = {"tests": len(tests), "agree": 0, "differ": 0, "refused": 0, "stopped": 0,
                             "cat_s": 0.0, "builtin_s": 0.0}
    previous = signal.signal(signal.SIGALRM, _stop)
    try:
        for label, test in tests:
            got: list[object] = []
            for side, model in (("cat_s", cat), ("builtin_s", builtin)):
                signal.alarm(cap)
                t0 = time.perf_counter()
                try:
                    r = check(test, model)
                    got.append((set(r.allowed_states), r.validated, r.possible_hang))
                except LitmusError as err:  # the same refusal: the same places
                    got.append(("refused", [(p.file, p.line, p.column) for p in err.problems]))
                except _Stopped:
                    got.append(None)
                finally:
                    signal.alarm(0)
                    out[side] += time.perf_counter() - t0
            if None in got:
                out["stopped"] += 1
            elif got[0] != got[1]:
                out["differ"] += 1
                print(f"  differs: {label}: cat {got[0]!r:.200} / {builtin} {got[1]!r:.200}")
            elif got[0][0] == "refused":  # type: ignore[index]
                out["refused"] += 1
            else:
                out["agree"] += 1
    finally:
        signal.signal(signal.SIGALRM, previous)
    return out


def run_cli(root: Path, model: str) -> tuple[int, float]:
    """(exit status, seconds) of ``litmus model <root>/litmus --json --model <model>``."""
    cmd = [sys.executable, "-m", "litmus", "model", str(root / "litmus"), "--json", "--model", model]
    t0 = time.perf_counter()
    proc = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
    return proc.returncode, time.perf_counter() - t0


def main() -> None:
    """Parse arguments and print the table."""
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--all", action="store_true", help="also check every corpus file once")
    ap.add_argument("--cap", type=int, default=10, help="seconds after which --all stops one check")
    ap.add_argument("--cli", action="store_true", help="also time the litmus model command end to end")
    ap.add_argument("--one", metavar="FILE", help="only time checking FILE under ptx, ptx75 and sc")
    ap.add_argument("--cat", metavar="FILE", action="append", default=[],
                    help="a .cat model to compare with the built-in model of its profile (repeatable)")
    ap.add_argument("--catalog", action="store_true", help="with --cat: also compare on every catalog variant")
    args = ap.parse_args()
    if args.one:
        test = read_litmus(args.one)
        for model in ("ptx", "ptx75", "sc"):
            t0 = time.perf_counter()
            check(test, model)
            print(f"{model:6s} {time.perf_counter() - t0:7.2f} s")
        return
    root = dat3m_dir()
    if root is None:
        print("skipped: Dat3M PTX corpus not found (../shared/dat3m-ptx or $LITMUS_DAT3M_PTX)")
        return
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    print(f"cores available to this process: {cores}")
    print(f"{'list':32s} {'model':12s} {'agree':>5s} {'disagree':>8s} {'errors':>6s} {'seconds':>8s}")
    for name, (_, model) in DAT3M_LISTS.items():
        models = [model] + (["ptx75"] if model == "ptx" else [])
        for m in models:
            best = None
            for _ in range(args.repeat):
                res = run_list(root, name, m)
                best = res if best is None or res[3] < best[3] else best
            a, d, e, s = best  # type: ignore[misc]
            print(f"{name:32s} {m:12s} {a:5d} {d:8d} {e:6d} {s:8.2f}")
    for path in args.cat:
        from litmus.model.cat import read_cat

        t0 = time.perf_counter()
        cat = read_cat(path)
        load_s = time.perf_counter() - t0
        for name, (_, model) in DAT3M_LISTS.items():
            if cat.profile == model or (cat.profile == "ptx75" and model == "ptx"):
                a, d, e, s = run_list(root, name, cat.model)
                print(f"{name:32s} {cat.model.name:12s} {a:5d} {d:8d} {e:6d} {s:8.2f}")
        corpus = [(str(f.relative_to(root)), read_litmus(f)) for f in sorted((root / "litmus").rglob("*.litmus"))]
        suites = [("corpus files", corpus)]
        if args.catalog:
            from litmus.spec import load_paths

            suites.append(("catalog variants", [(t.id, t) for t in load_paths([Path("catalog")])]))
        for what, tests in suites:
            cmp = compare_cat(tests, cat.model, cat.profile, args.cap)
            print(f"{path} (read in {load_s:.3f} s) vs built-in {cat.profile}, all {cmp['tests']:.0f} {what}: "
                  f"{cmp['agree']:.0f} agree, {cmp['differ']:.0f} differ, {cmp['refused']:.0f} refused by both, "
                  f"{cmp['stopped']:.0f} stopped after {args.cap} s; checking took {cmp['cat_s']:.1f} s (cat) "
                  f"and {cmp['builtin_s']:.1f} s ({cat.profile})")
    if args.all:
        n, fails, stopped, secs = run_all(root, DEFAULT_MODEL, args.cap)
        print(f"all {n} files, read + check under {DEFAULT_MODEL}: {secs:.1f} s "
              f"({fails} failed, {stopped} stopped after {args.cap} s)")
    if args.cli:
        runs = [run_cli(root, DEFAULT_MODEL) for _ in range(args.repeat)]
        print(f"litmus model {root / 'litmus'} --json --model {DEFAULT_MODEL}: exit {runs[0][0]}, "
              f"{', '.join(f'{s:.2f}' for _, s in runs)} s")


if __name__ == "__main__":
    main()
