"""``litmus run``: variants on a backend, every outcome counted and classified, each record
appended as it finishes; a run that loses its backend goes on in a fresh process."""

from __future__ import annotations

import sys
from typing import Any, Sequence

import click

from litmus.cli.app import Interrupt, check_interrupt, exit_interrupted, friendly, main
from litmus.errors import LitmusError
from litmus.run.config import INTERPRETER_INSTANCES, INTERPRETER_TIME_BUDGET, PRESETS
from litmus.run.registry import backend_names
from litmus.run.schedule import FILL_STRETCH, HUNT_STRETCH
from litmus.run.tuned import AUTO


def _parse_ranks(text: str | None) -> list[int] | None:
    if text is None:
        return None
    try:
        ranks = [int(x) for x in text.split(",") if x.strip()]
    except ValueError:
        raise LitmusError(f"--ranks {text!r}: give comma-separated integers, e.g. --ranks 0,1") from None
    if not ranks or any(r < 0 for r in ranks):
        raise LitmusError(f"--ranks {text!r}: give non-negative integers, e.g. --ranks 0,1")
    return ranks


def _default_out(backend: str) -> str:
    import datetime as dt

    stamp = dt.datetime.now().strftime("%Y%m%d-%H%M%S")
    return f"litmus-results/{backend}-{stamp}.jsonl"


@main.command()
@click.argument("paths", nargs=-1)
@click.option("--variant", "-v", help="Only variants matching this name or shell pattern.")
@click.option("--backend", "-b", type=click.Choice(["auto", *backend_names()]), default="auto",
              show_default=True,
              help="auto: cuda when a GPU is visible, else cpu. cpu: the Triton interpreter, one process per "
                   "rank. cuda: one GPU, ranks played by groups of CTAs. ranks: one process per GPU "
                   "(torch.distributed + symmetric memory; gloo + interpreter without GPUs).")
@click.option("--iterations", "-n", type=click.IntRange(min=1), default=None,
              help=f"Rounds (launches) per variant. Default: 4 on GPUs; on the CPU (cpu, ranks on the CPU) a "
                   f"time budget of {INTERPRETER_TIME_BUDGET} s per variant instead, since an interpreted spin's "
                   "round costs a hundred times a straight one's.")
@click.option("--time-budget", "-t", type=click.FloatRange(min=0.0, min_open=True), default=None,
              help="Seconds per variant (overrides --iterations).")
@click.option("--instances", type=click.IntRange(min=1), default=None,
              help=f"Instances per round. Default: the backend's own: {INTERPRETER_INSTANCES} on cpu and on ranks "
                   "on the CPU, 1048576 on cuda, 65536 on ranks on GPUs.")
@click.option("--seed", type=int, default=0, show_default=True,
              help="Seed of every PRNG (instance shuffling, stress): a run is reproducible from it.")
@click.option("--until-bound", "stop_bound", type=click.FloatRange(min=0.0, min_open=True), default=None,
              help="Stop each variant as soon as its evidence is in: the target outcome was seen, or the "
                   "95 % bound 3/N over N ended instances (completed, or provably hung) is at most this "
                   "(e.g. 1e-9). --iterations still caps it; --time-budget too, except that a variant whose "
                   f"target the model forbids runs on, up to {FILL_STRETCH:g} budgets in all, while its rate says it reaches "
                   f"the bound by then, and one whose target is allowed runs on, up to {HUNT_STRETCH:g} budgets, while "
                   "it has ended too few instances for a verdict of absence (it would be 'inconclusive').")
@click.option("--stress", default=AUTO, show_default=True,
              help=f"{AUTO}: on the cuda backend, the settings 'litmus tune' kept for the GPU model found, else "
                   "the default preset (one program per SM), then the resident launch in rotation (the header "
                   "says which); the default preset elsewhere. Or a stress preset "
                   f"({', '.join(PRESETS)}) or a JSON file of Stress parameters (as 'litmus tune' writes); a file "
                   "of several environments is a rotation: round k of each variant runs environment k mod n. "
                   "See docs/performance.md for what each shows on a GPU.")
@click.option("--out", "-o", default=None,
              help="JSON Lines results file; one record is appended per finished variant. "
                   "Default: litmus-results/<backend>-<time>.jsonl")
@click.option("--resume", is_flag=True, help="Skip variants already recorded in --out for this backend.")
@click.option("--world-size", type=click.IntRange(min=1), default=None,
              help="ranks backend: number of processes (default: GPUs visible, or the most ranks a test needs).")
@click.option("--ranks", "ranks_text", default=None,
              help="ranks backend: world ranks playing the test's ranks 0,1,..., e.g. --ranks 0,1")
@click.option("--compile-workers", type=click.IntRange(min=0), default=None,
              help="cuda backend: processes that compile the next variants' kernels while the GPU runs "
                   "(0: compile in the run). Default: the CPUs but two, at most 12; 0 with 4 CPUs or fewer.")
@click.option("--debug", is_flag=True, help="Print the traceback of each variant that errored (they are in "
                                            "the results file either way).")
@click.option("--keep-errors", is_flag=True, hidden=True,
              help="With --resume, also skip variants recorded as error (a restart after a lost backend).")
@friendly
def run(paths: Sequence[str], variant: str | None, backend: str, iterations: int | None,
        time_budget: float | None, instances: int | None, seed: int, stop_bound: float | None, stress: str,
        out: str | None, resume: bool, world_size: int | None, ranks_text: str | None,
        compile_workers: int | None, debug: bool, keep_errors: bool) -> None:
    """Run variants on hardware (or the CPU interpreter) and classify every outcome.

    Each variant runs round after round (--iterations or --time-budget); each round runs many
    independent instances at once. Every outcome is labelled against the model: sc (allowed
    under SC), weak (allowed by PTX only), forbidden, timeout (a bounded spin ran out), or hang
    (the instance provably hung: every thread finished or stuck in a spin that cannot exit, in a
    variant that declares may_hang). Verdicts: VIOLATION (a forbidden outcome was seen),
    racy-witnessed, racy-unseen (rate below 3/N at 95 %), correct (forbidden and unseen in N
    instances), inconclusive (nothing seen, but fewer than 100 instances, or under half of them,
    ended: N counts the instances that completed or provably hung, never timed-out ones).

    Results are appended to --out as each variant finishes, so a killed run keeps every
    finished variant; --resume skips them. A variant whose run fails (a device fault, a kernel
    that does not compile, a dead worker) is recorded as error, with one line and the command
    that reproduces it alone, and the run goes on; a fault that poisons the GPU context goes on
    in a fresh process. --resume runs errored variants again. Exit status 1 if any variant is a
    VIOLATION or errored.

    \b
    Examples:
      litmus run MP --iterations 2
      litmus run catalog/ --backend cuda --time-budget 5 --stress heavy --out h200.jsonl
      litmus run catalog/ --out h200.jsonl --resume
      litmus run catalog/ --backend cuda --stress parallel --time-budget 2 --until-bound 1e-9
      litmus run SYMM-barrier-p1 --backend ranks --world-size 2
    """
    where: dict[str, Any] = {"stage": "loading the tests"}
    restart = False
    try:  # a Ctrl-C anywhere from here on gets the one line of _interrupted_run
        from pathlib import Path

        from rich.markup import escape

        from litmus.session import BackendLost

        from rich.console import Console

        from litmus.report.table import print_wide, results_table, verdict_summary
        from litmus.run.config import load_stresses
        from litmus.run.registry import make_backend
        from litmus.run.tuned import choose_stress
        from litmus.session import run_config
        from litmus.spec import load_tests

        tests = load_tests(paths, variant)
        if stress != AUTO:
            load_stresses(stress)  # bad input fails before a backend starts
        console = Console(stderr=True)
        ranks = _parse_ranks(ranks_text)
        if backend != "ranks" and (world_size is not None or ranks is not None):
            raise LitmusError("--world-size and --ranks apply to --backend ranks only")
        opts: dict[str, Any] = {"world_size": world_size, "ranks": ranks} if backend == "ranks" else {}
        check_interrupt()
        where["stage"] = "starting the backend"
        backend_obj = make_backend(backend, **opts)
        try:
            check_interrupt()
            desc = backend_obj.describe()
            chosen = choose_stress(stress, backend_obj.name, desc.get("device"))
            config = run_config(backend_obj, iterations=iterations, time_budget=time_budget,
                                instances=instances, seed=seed, stress=chosen.environments, stop_bound=stop_bound)
            out_path = Path(out or _default_out(backend_obj.name))
            where.update(out=out_path, backend=backend_obj.name, total=len(tests))
            console.print(f"[bold]backend[/bold] {backend_obj.name} on {desc.get('device', '?')}")
            if desc.get("note"):
                console.print(f"[dim]{desc['note']}[/dim]")
            console.print(f"[bold]stress[/bold] {escape(chosen.origin)}")
            console.print(f"[bold]results[/bold] {out_path} (appended per variant)")
            check_interrupt()
            where["stage"] = "running"
            if compile_workers is None:
                from litmus.run.ahead import default_workers

                compile_workers = default_workers()
            try:
                results = _run_with_progress(tests, backend_obj, config, out_path, resume, console,
                                             compile_workers, retry_errors=not keep_errors)
            except BackendLost as exc:
                console.print(f"[bold red]{escape(str(exc))}[/bold red]; the rest runs in a fresh process")
                restart = True
        finally:
            backend_obj.close()
        if restart:
            _restart_resumed(out_path)
    except KeyboardInterrupt:
        where["interrupted"] = True  # reported below, once the exception and its frames are gone
    except Exception:
        if not Interrupt.seen:
            raise
        where["interrupted"] = True  # an error that follows a Ctrl-C: swallowed or wrapped (see friendly)
    if where.get("interrupted"):  # (a results file a frame still holds open is then flushed and closed)
        click.echo(_interrupted_run(where, paths, backend), err=True)
        exit_interrupted()
    print_wide(results_table(results, title=f"{backend_obj.name}: {len(results)} variants"))
    summary = verdict_summary(results)
    Console().print(", ".join(f"{k}: {v}" for k, v in sorted(summary.items())))
    errored = [r for r in results if r.error is not None]
    for r in errored:
        click.echo(f"error: {r.test.id}: {r.error}; alone: {r.record['reproduce']}", err=True)
        if debug:
            click.echo(r.record["traceback"], err=True)
    if errored:
        click.echo(f"{len(errored)} variant{'s' if len(errored) != 1 else ''} errored (recorded in {out_path}); "
                   f"--resume runs {'them' if len(errored) != 1 else 'it'} again", err=True)
    if summary.get("VIOLATION") or errored:
        sys.exit(1)


def _restart_resumed(out_path: Any) -> None:
    """Run this same ``litmus run`` again in a fresh process, resuming from ``out_path`` and
    skipping the variants that errored; exit with its status."""
    import subprocess

    args = [a for a in sys.argv[1:]]
    args += ["--out", str(out_path), "--resume", "--keep-errors"]
    sys.exit(subprocess.call([sys.executable, "-m", "litmus", *args]))


def _interrupted_run(where: dict[str, Any], paths: Sequence[str], backend: str) -> str:
    """The one line ``litmus run`` prints on Ctrl-C: what finished, and how to resume."""
    import shlex

    import gc

    out = where.get("out")
    if out is None:
        return f"interrupted while {where['stage']}; nothing was run or written"
    gc.collect()  # a file object left by the interrupted write flushes when it is collected
    from litmus.session import finished_ids

    try:
        recorded = len(finished_ids(out, where["backend"]))
    except Exception:  # noqa: BLE001 - an unreadable file must not turn Ctrl-C into a traceback
        recorded = 0
    if recorded == 0:
        again = shlex.join(["litmus", "run", *paths, "--backend", backend, "--out", str(out)])
        return (f"interrupted while {where['stage']}: nothing was recorded yet in {out} ({where['total']} "
                f"variants in this run); to start again: {again}")
    again = shlex.join(["litmus", "run", *paths, "--backend", backend, "--out", str(out), "--resume"])
    return (f"interrupted: {recorded} variant{'s' if recorded != 1 else ''} of this backend are recorded in "
            f"{out} ({where['total']} in this run); to finish the rest, run the same command with "
            f"--out {shlex.quote(str(out))} --resume, e.g. {again}")


def _run_with_progress(tests: Sequence[Any], backend: Any, config: Any, out: Any, resume: bool,
                       console: Any, compile_workers: int = 0, retry_errors: bool = True) -> list[Any]:
    from rich.markup import escape
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    from litmus.session import run_tests

    with Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=console,
        transient=False,
    ) as progress:
        overall = progress.add_task("all variants", total=len(tests))
        current: dict[str, Any] = {}

        def on_progress(test: Any, frac: float) -> None:
            check_interrupt()
            task = current.get(test.id)
            if task is None:
                task = progress.add_task(f"  {test.id}", total=100)
                current[test.id] = task
            progress.update(task, completed=int(frac * 100))

        def on_result(res: Any) -> None:
            check_interrupt()
            task = current.pop(res.test.id, None)
            if task is not None:
                progress.remove_task(task)
            progress.advance(overall)
            if res.verdict is not None and res.verdict.verdict == "VIOLATION":
                progress.console.print(f"[bold red]VIOLATION[/bold red] {res.test.id}")
            if res.error is not None:
                progress.console.print(f"[bold red]error[/bold red] {escape(res.test.id)}: {escape(res.error)}")

        return run_tests(tests, backend, config, out=out, resume=resume, on_progress=on_progress,
                         on_result=on_result, compile_workers=compile_workers, retry_errors=retry_errors)
