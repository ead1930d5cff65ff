"""``litmus tune``: search the stress settings that make weak outcomes show most."""

from __future__ import annotations

from typing import Any, Sequence

import click

from litmus.cli.app import friendly, main
from litmus.run.registry import backend_names
from litmus.tune import OBJECTIVES


@main.command()
@click.argument("paths", nargs=-1, required=True)
@click.option("--variant", "-v", help="Only variants matching this name or shell pattern.")
@click.option("--backend", "-b", type=click.Choice(["auto", *backend_names()]), default="auto", show_default=True,
              help="Where the trials run (auto: cuda when a GPU is visible, else cpu).")
@click.option("--trials", type=click.IntRange(min=1), default=20, show_default=True,
              help="Environments to try after the default preset: on a GPU first each role of an "
                   "instance at home in turn; then half random draws, half one setting moved from "
                   "the best so far.")
@click.option("--time-budget", "-t", type=click.FloatRange(min=0.0, min_open=True), default=1.0, show_default=True,
              help="Seconds per variant per trial.")
@click.option("--instances", type=click.IntRange(min=1), default=None,
              help="Instances per round (default: the backend's).")
@click.option("--seed", type=int, default=0, show_default=True,
              help="Seed of the search and of every run: the same seed draws the same environments.")
@click.option("--out", "-o", default="tuned.json", show_default=True,
              help="Where to write the best environment: a stress JSON file for 'litmus run --stress FILE'.")
@click.option("--keep", type=click.IntRange(min=1), default=1, show_default=True,
              help="Write a rotation of up to this many environments: the best, then those that witness "
                   "variants the ones before did not ('litmus run' cycles through them round by round).")
@click.option("--save-for-device/--no-save-for-device", default=True, show_default=True,
              help="On the cuda backend, also keep the result as the tuned settings of this GPU model on this "
                   "machine ($LITMUS_CACHE/tuned/), which 'litmus run' uses when given no --stress.")
@click.option("--objective", type=click.Choice(OBJECTIVES), default="wall", show_default=True,
              help="Rank trials by target outcomes per second of the run as you wait for it (wall), or of "
                   "the kernels alone (kernel: the figure cuda-litmus reports; counting and host work left out).")
@click.option("--log", "log_path", default=None,
              help="Also write every trial (settings, rate, counts) as JSON Lines here.")
@friendly
def tune(paths: Sequence[str], variant: str | None, backend: str, trials: int, time_budget: float,
         instances: int | None, seed: int, out: str, keep: int, save_for_device: bool, objective: str,
         log_path: str | None) -> None:
    """Search for the stress settings under which weak behaviour shows most often.

    Search in the manner of MC Mutants: after the default preset, on a GPU, one trial per
    role of an instance placed at home; then half the trials draw every stress parameter
    (shuffling, start barriers, stride, memory stress and its pattern, pre-stress, parallel
    launch and its barrier percentage, ...) from a seeded PRNG, and half move one parameter of
    the best trial so far. Each trial runs each variant for --time-budget seconds and is scored
    by target outcomes seen per second (--objective: of the run, or of its kernels). Only
    variants whose target the PTX model allows (mutants) are tuned on: a correct variant has
    nothing to show. The best environment is written to --out; pass it to
    'litmus run --stress FILE'. On a GPU it is also kept as the tuned settings of that GPU
    model, which 'litmus run' then uses without --stress (--no-save-for-device: not). A
    progress bar shows the trials; a killed search keeps the --log lines of every finished
    trial.

    \b
    Examples:
      litmus tune MP SB LB --variant 'relaxed-*' --trials 30 -t 0.5 --out docs/results/h200-tuned.json
      litmus tune MP --variant relaxed-xgpu-sys --backend cpu --trials 3 -t 0.2 --instances 256
      litmus tune catalog/ --trials 16 -t 0.3 --keep 3 --out rotation.json
      litmus run catalog/ --stress docs/results/h200-tuned.json
    """
    from pathlib import Path

    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    from litmus.report.jsonl import append_record
    from litmus.run.registry import make_backend
    from litmus.spec import load_tests
    from litmus.run.config import write_stress
    from litmus.tune import pick_rotation, score, trial_record, trials_text, tunable, tune as search

    tests = tunable(load_tests(paths, variant))
    console = Console(stderr=True)
    backend_obj = make_backend(backend)
    device = backend_obj.describe().get("device") if backend_obj.name == "cuda" else None
    try:
        console.print(f"[bold]tuning[/bold] {len(tests)} variant(s) on {backend_obj.name}: {trials} trials + the "
                      f"default preset, {time_budget:g} s per variant each")
        with Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                      console=console) as progress:
            task = progress.add_task("trials", total=trials + 1)

            def on_trial(trial: Any) -> None:
                progress.advance(task)
                if log_path:
                    append_record(Path(log_path), trial_record(trial))

            ranked = search(tests, backend_obj, trials=trials, seconds=time_budget, seed=seed, instances=instances,
                            on_trial=on_trial, objective=objective)
    finally:
        backend_obj.close()
    click.echo(trials_text(ranked))
    chosen = pick_rotation(ranked, keep, objective)
    loaded = write_stress(Path(out), [t.stress for t in chosen])
    click.echo(f"best: {ranked[0].stress.name}, {score(ranked[0], objective)[0]:.4g} target outcomes per "
               f"{objective}-second; written to {out} (litmus run --stress {out}); as loaded: "
               f"{', '.join(s.name for s in loaded)}")
    if save_for_device and device:
        from litmus.run.tuned import save_for_device as keep_for

        kept = keep_for(device, [t.stress for t in chosen])
        click.echo(f"kept as the tuned settings of {device} on this machine ({kept}): 'litmus run' without "
                   "--stress uses them")
    if keep > 1:
        witnessed = {v for t in chosen for v, n in t.seen_by.items() if n}
        click.echo(f"rotation of {len(chosen)}: {', '.join(t.stress.name for t in chosen)}; together they "
                   f"witnessed {len(witnessed)} of {len(tests)} variant(s)")
