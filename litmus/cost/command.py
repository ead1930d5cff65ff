"""``litmus cost``: the click command (the lead registers it in ``litmus.cli``)."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import click

from litmus.cost.measure import BACKENDS
from litmus.errors import LitmusError


def _meta(backend: str, params: Any, describe: dict[str, Any]) -> dict[str, Any]:
    import importlib.metadata

    def version(pkg: str) -> str | None:
        try:
            return importlib.metadata.version(pkg)
        except importlib.metadata.PackageNotFoundError:
            return None

    return {"backend": backend, "params": params.as_dict(), "device": describe.get("device"),
            "torch": version("torch"), "triton": version("triton"),
            "method": "docs/performance.md, 'What signalling costs'"}


def run_cost(args: tuple[str, ...], variant: str | None, backend: str, params: Any, results: str | None,
             progress: bool = True, deadline: float | None = None) -> tuple[list[Any], dict[str, Any]]:
    """Measure every variant named by ``args``; the ranked families and the report's metadata.

    ``deadline`` (a ``time.monotonic()`` value): variants not started by then are listed as
    skipped for time. A variant whose measurement fails is listed with one line saying why;
    the others are still measured (the backend recovers first)."""
    import time

    from litmus.cost.ranking import Row, rank
    from litmus.cost.verdicts import hardware_verdicts, model_verdict
    from litmus.spec import load_tests

    tests = load_tests(list(args), variant)
    if not tests:
        raise LitmusError(f"litmus cost: no variant matches {list(args)}" + (f" --variant {variant}" if variant else ""))
    if results and not Path(results).is_file():
        raise LitmusError.at(results, None, "--results: no such file; give the JSONL file `litmus run --out` wrote")
    hardware = hardware_verdicts(Path(results)) if results else {}
    runner, describe = _runner(backend, params)
    rows: list[tuple[str, Any]] = []
    lost: str | None = None  # why the backend cannot measure any more
    try:
        with _progress(progress, len(tests)) as step:
            for test in tests:
                step(test.id)
                m, skipped = None, None
                if lost or (deadline is not None and time.monotonic() > deadline):
                    skipped = f"not started: {lost or 'the time budget was spent'}"
                else:
                    sig, skipped = _signalling(test)
                    if sig is not None:
                        m, skipped = _measure(sig, backend, runner, params)
                        if m is None:
                            lost = _recover(runner)
                rows.append((test.name, Row(test.id, test.variant, model_verdict(test), m, hardware.get(test.id),
                                            skipped)))
    finally:
        if runner is not None:
            runner.close()
    return rank(rows), _meta(backend, params, describe)


def _runner(backend: str, params: Any) -> tuple[Any, dict[str, Any]]:
    """The run backend that measures (None for cuda, which launches its own kernel) and its description."""
    if backend in ("cpu", "ranks"):
        from litmus.run.registry import make_backend

        opts = {"world_size": params.world_size} if backend == "ranks" and params.world_size else {}
        runner = make_backend(backend, **opts)
        return runner, runner.describe()
    import torch

    if not torch.cuda.is_available():
        raise LitmusError("--backend cuda: torch sees no CUDA device; use --backend cpu to check the harness "
                          "on the Triton interpreter")
    return None, {"device": torch.cuda.get_device_name(0)}


def _signalling(test: Any) -> tuple[Any, str | None]:
    """``(the signalling of test, None)``, or ``(None, why cost cannot time it)``."""
    from litmus.cost.shape import signalling

    try:
        return signalling(test), None
    except LitmusError as e:
        return None, str(e).split(": litmus cost cannot time it: ")[-1]


def _measure(sig: Any, backend: str, runner: Any, params: Any) -> tuple[Any, str | None]:
    """``(measurement, None)``, or ``(None, why it failed, in one line)``."""
    from litmus.cost.measure import measure_backend, measure_cuda, measure_ranks

    try:
        if runner is None:
            return measure_cuda(sig, params), None
        if backend == "ranks":
            return measure_ranks(sig, runner, params), None
        return measure_backend(sig, runner, params), None
    except Exception as e:  # noqa: BLE001 - a crash costs this variant only, in one line
        return None, failure_line(e)


def failure_line(exc: BaseException) -> str:
    """One line naming why a measurement failed, never a traceback: a ``LitmusError``'s first
    line (a worker's error names the worker and the error it raised), a Triton compile error's
    own message (not its ``at 3:4:`` source excerpt), else the exception's kind and first line."""
    from litmus.session import error_line

    if isinstance(exc, LitmusError):
        text = str(exc).strip().splitlines()
        return text[0] if text else type(exc).__name__
    own = getattr(exc, "error_message", None)
    if isinstance(own, str) and own.strip():
        return f"{type(exc).__name__}: {' '.join(own.split())}"
    return error_line(exc)


def _recover(runner: Any) -> str | None:
    """Make ``runner`` usable after a variant failed (a worker may be dead or hold its state):
    None, or why the backend is lost for the variants still to come."""
    recover = getattr(runner, "recover", None)
    if recover is None:
        return None
    try:
        recover()
    except Exception as e:  # noqa: BLE001 - whatever stops recovery ends the measurements, in one line
        return f"the {runner.name} backend could not recover: {failure_line(e)}"
    return None


class _progress:
    """A rich progress bar on stderr over the variants (nothing when off)."""

    def __init__(self, on: bool, total: int) -> None:
        self.on, self.total = on, total
        self.bar: Any = None

    def __enter__(self) -> Any:
        if self.on:
            from rich.console import Console
            from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

            self.bar = Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                                TimeElapsedColumn(), console=Console(file=sys.stderr), transient=True)
            self.bar.__enter__()
            self.task = self.bar.add_task("cost", total=self.total)

        def step(name: str) -> None:
            if self.bar is not None:
                self.bar.update(self.task, description=name, completed=self.done)
                self.done += 1

        self.done = 0
        return step

    def __exit__(self, *exc: object) -> None:
        if self.bar is not None:
            self.bar.update(self.task, completed=self.total)
            self.bar.__exit__(*exc)


@click.command("cost")
@click.argument("patterns", nargs=-1)
@click.option("--variant", "-v", default=None, help="Only variants whose name matches (as litmus run --variant).")
@click.option("--backend", type=click.Choice(list(BACKENDS)), default="cuda", show_default=True,
              help="cuda: two CTAs of one GPU, GPU timer; ranks: one process per GPU (--world-size), each "
                   "launching its parties' programs on symmetric memory, GPU timer; "
                   "cpu: the Triton interpreter (checks the harness, times nothing real).")
@click.option("--round-trips", "-n", default=1000, show_default=True, type=click.IntRange(2, 2048),
              help="Round trips per launch (cuda/ranks: up to 2048; cpu: capped by the 31 spins one launch holds).")
@click.option("--repeat", "-k", default=5, show_default=True, type=click.IntRange(1),
              help="Launches per run; every variant gets two runs that must agree within 5 % at p50.")
@click.option("--warmup", default=2, show_default=True, type=click.IntRange(0), help="Launches discarded first.")
@click.option("--load-pairs", default=32, show_default=True, type=click.IntRange(1),
              help="cuda/ranks: programs per party for signals per second under load.")
@click.option("--load-block", default=32, show_default=True, type=click.IntRange(1),
              help="cuda/ranks: independent lanes (instances) per program under load; a power of two.")
@click.option("--spin-bound", default=1_000_000, show_default=True, type=click.IntRange(1),
              help="Reads before a spin gives up (a timed-out round trip is counted, not timed).")
@click.option("--world-size", default=None, type=click.IntRange(1),
              help="ranks: processes (GPUs); 1 puts every party on rank 0 in CTAs of their own.")
@click.option("--instances", default=1, show_default=True, type=click.IntRange(1),
              help="cpu: independent instances per launch (load).")
@click.option("--warps", default=1, show_default=True, type=click.IntRange(1, 32),
              help="cuda/ranks: warps per CTA (32 threads each).")
@click.option("--fence-threads", default=None, type=click.IntRange(1),
              help="cuda/ranks on GPUs: only threads %tid.x < N of each CTA execute the variant's fences (1: one thread, "
                   "ngpus: vLLM's lanes); default every thread.")
@click.option("--results", default=None, metavar="FILE.jsonl",
              help="A `litmus run` results file: adds each variant's hardware verdict.")
@click.option("--json", "as_json", is_flag=True, help="The report as one JSON object on stdout.")
@click.option("--out", default=None, metavar="FILE.json", help="Also write the JSON report here.")
def cost_command(patterns: tuple[str, ...], variant: str | None, backend: str, round_trips: int, repeat: int,
                 warmup: int, load_pairs: int, load_block: int, spin_bound: int, world_size: int | None,
                 instances: int, warps: int, fence_threads: int | None, results: str | None, as_json: bool,
                 out: str | None) -> None:
    """What each signalling variant costs, ranked, with the cheapest correct one marked.

    PATTERNS are catalog files, folders or pattern names (as for litmus run). For each
    variant the flag write and the spin (with the fences and CTA barriers next to them, as the
    variant writes them) run as a ping-pong between two CTAs, or, for barriers, round after
    round; the one-way latency (round trip / 2) or the barrier round is reported as p50 / p99
    over every round trip, with two runs that must agree within 5 %. The model's verdict (and
    the hardware's, with --results) says which variants are correct; cheaper incorrect ones
    are shown as what they are. Exit status: 0, or 2 for bad input.

    \b
    Examples:
      litmus cost catalog/signal_cost.yaml
      litmus cost MP MP-mixed --round-trips 2000 --repeat 10
      litmus cost SYMM-barrier SYMM-barrier-p1 SYMM-barrier-p2 SYMM-barrier-p0 XLA-block-barrier
      litmus cost MP-iris --results out/h200.jsonl --json > cost.json
      litmus cost COST-signal --variant fence-relaxed-sys-xcta --warps 4 --fence-threads 1
      litmus cost COST-signal --backend ranks --world-size 2
      litmus cost COST-signal --variant relacq-sys-xgpu --backend ranks --world-size 2  (CPU: gloo + interpreter)
      litmus cost COST-signal --variant relacq-sys-xcta --backend cpu -n 8 -k 2
    """
    from litmus.cost.measure import CostParams
    from litmus.cost.render import family_table, report_dict
    from litmus.report.table import print_wide

    if load_block & (load_block - 1):
        click.echo(f"error: --load-block {load_block}: use a power of two (tl.arange needs one)", err=True)
        sys.exit(2)
    params = CostParams(round_trips=round_trips, repeat=repeat, warmup=warmup, load_pairs=load_pairs,
                        load_block=load_block, spin_bound=spin_bound, world_size=world_size, instances=instances,
                        warps=warps, fence_threads=fence_threads)
    try:
        families, meta = run_cost(patterns, variant, backend, params, results, progress=not as_json)
    except LitmusError as err:
        for problem in err.problems:
            click.echo(f"error: {problem}", err=True)
        sys.exit(2)
    report = report_dict(families, meta)
    if out:
        Path(out).parent.mkdir(parents=True, exist_ok=True)
        Path(out).write_text(json.dumps(report, indent=1) + "\n")
    if as_json:
        click.echo(json.dumps(report))
        return
    for fam in families:
        print_wide(family_table(fam))
    bad = [r.test_id for f in families for r in f.rows if r.measurement and not r.measurement.agreement.ok]
    if bad:
        click.echo(f"runs did not agree within 5 % at p50 for {len(bad)} variant(s): {', '.join(bad)}")
