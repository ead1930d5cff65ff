"""Dat3M's whole PTX corpus through the reader and the model: agreement and time.

Run: ``python benchmarks/bench_dat3m.py [--repeat N]`` (pin it to one core with
``taskset -c 0``).  Prints, per verdict list, how many verdicts agree, disagree or fail, and
the best-of-N wall time of reading every listed file and checking it under the list's model.
``--all`` then reads all 748 ``.litmus`` files and checks each under the default model, each
check stopped after ``--cap`` seconds (the CADP loop tests can take minutes; the count of
stopped checks is printed); ``--cli`` times ``litmus model <corpus>/litmus --json`` end to
end; ``--one FILE`` only times one file under each model.
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
from litmus.model import DEFAULT_MODEL, check


def run_list(root: Path, name: str, model: str) -> tuple[int, int, int, float]:
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
    print(f"{'list':32s} {'model':6s} {'agree':>5s} {'disagree':>8s} {'errors':>6s} {'seconds':>8s}")
    for name, (_, model) in DAT3M_LISTS.items():
        models = [model] + (["ptx75"] if model == "ptx" else [])
        for m in models:
            best = None
            for _ in range(args.repeat):
                res = run_list(root, name, m)
                best = res if best is None or res[3] < best[3] else best
            a, d, e, s = best  # type: ignore[misc]
            print(f"{name:32s} {m:6s} {a:5d} {d:8d} {e:6d} {s:8.2f}")
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
