"""The ``litmus`` command line: list, show, validate, model, audit, run, doctor."""

from __future__ import annotations

import functools
import json
import sys
from collections import Counter, defaultdict
from typing import Any, Callable, Sequence

import click

from litmus.classify import VERDICTS
from litmus.errors import LitmusError
from litmus.model import MODELS
from litmus.run.config import PRESETS
from litmus.run.registry import backend_names

EPILOG_PATHS = (
    "PATHS may be YAML catalog files, PTX .litmus files, folders of either, or pattern names "
    "from the default catalog (e.g. MP). With no PATHS, the whole default catalog."
)


def _friendly(fn: Callable[..., Any]) -> Callable[..., Any]:
    """Print LitmusError as 'file:line: message' lines and exit 2: never a traceback."""

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return fn(*args, **kwargs)
        except LitmusError as err:
            for problem in err.problems:
                click.echo(f"error: {problem}", err=True)
            sys.exit(2)
        except KeyboardInterrupt:
            click.echo("interrupted", err=True)
            sys.exit(130)

    return wrapper


@click.group(context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100})
@click.version_option(package_name="litmus-gpu")
def main() -> None:
    """Memory-model litmus tests for multi-GPU atomics.

    \b
    A catalog of signalling patterns (message passing, iris's CAS flag spin,
    symm_mem's blockwise barrier, SB, LB, IRIW, ...) in YAML. For each variant:
      litmus model     which outcomes the PTX (and SC) memory model allows
      litmus audit     whether the compiled PTX / AMDGCN carries the ordering asked for
      litmus run       what the hardware (or the CPU interpreter) actually did
      litmus tune      which stress settings make weak behaviour show most
      litmus report    a results file: verdicts, and the mutation score (--mutation)

    \b
    Start with:
      litmus list                    the catalog, one row per pattern
      litmus show MP                 one pattern and its variants
      litmus model MP --variant '*sys*'
    """


@main.command("list")
@click.argument("paths", nargs=-1)
@click.option("--json", "as_json", is_flag=True, help="One JSON object per variant per line.")
@_friendly
def list_cmd(paths: Sequence[str], as_json: bool) -> None:
    """List patterns and their variants.

    The table has one row per pattern: how many variants, how many of them are declared
    forbidden (the outcome must never appear) and allowed (racy). With --json, one object per
    variant: test, variant, id, expect, why, source, origin.

    \b
    Examples:
      litmus list
      litmus list catalog/mp.yaml --json | jq .id
    """
    from litmus.spec import load_tests

    tests = load_tests(paths)
    if as_json:
        for t in tests:
            click.echo(json.dumps(_variant_record(t)))
        return
    from rich.console import Console
    from rich.table import Table

    table = Table(title=f"{len({t.name for t in tests})} patterns, {len(tests)} variants")
    for col in ("pattern", "variants", "forbidden", "allowed", "file"):
        table.add_column(col)
    by_pattern: dict[tuple[str, str], list] = defaultdict(list)
    for t in tests:
        by_pattern[(t.name, t.source_file)].append(t)
    for (name, file), group in by_pattern.items():
        counts = Counter(t.expect.outcome if t.expect else "-" for t in group)
        table.add_row(name, str(len(group)), str(counts["forbidden"]), str(counts["allowed"]), _rel(file))
    Console().print(table)


def _rel(path: str) -> str:
    """``path`` relative to the current folder when it lies below it."""
    from pathlib import Path

    try:
        return str(Path(path).resolve().relative_to(Path.cwd()))
    except ValueError:
        return path


def _variant_record(t: Any) -> dict[str, Any]:
    return {
        "test": t.name,
        "variant": t.variant,
        "id": t.id,
        "expect": t.expect.outcome if t.expect else None,
        "why": t.expect.why if t.expect else None,
        "may_hang": t.expect.may_hang if t.expect else False,
        "source": t.source_file,
        "line": t.source_line,
        "origin": t.origin,
        "params": dict(t.params),
    }


@main.command()
@click.argument("paths", nargs=-1, required=True)
@_friendly
def validate(paths: Sequence[str]) -> None:
    """Check catalog files; list every problem with file:line:column.

    Exit status 0 when all files are valid, 1 when any problem was found.

    \b
    Example:
      litmus validate catalog/ my_patterns/sb_gpus.yaml
    """
    from litmus.spec import load_tests

    try:
        tests = load_tests(paths)
    except LitmusError as err:
        for problem in err.problems:
            click.echo(f"error: {problem}", err=True)
        click.echo(f"{len(err.problems)} problem(s)", err=True)
        sys.exit(1)
    click.echo(f"ok: {len({(t.name, t.source_file) for t in tests})} patterns, {len(tests)} variants")


@main.command()
@click.argument("name")
@click.option("--variant", "-v", help="Only variants matching this name or shell pattern.")
@click.option("--kernel", is_flag=True, help="Print the generated Triton kernel source.")
@click.option("--ptx", is_flag=True, help="Print the compiled PTX (compiled on the CPU).")
@click.option("--amdgcn", is_flag=True, help="Print the compiled AMDGCN (compiled on the CPU).")
@click.option("--target", help="Compile target for --ptx/--amdgcn, e.g. cuda:90 or hip:gfx942.")
@_friendly
def show(name: str, variant: str | None, kernel: bool, ptx: bool, amdgcn: bool, target: str | None) -> None:
    """Show a pattern and its expanded variants, readably.

    NAME is a pattern name from the catalog (e.g. MP) or a file. Each variant is printed in
    the PTX litmus format with its expectation. --kernel, --ptx and --amdgcn show what the
    variant compiles to instead.

    \b
    Examples:
      litmus show MP
      litmus show MP --variant relacq-sys --ptx
    """
    from litmus.spec import load_tests

    tests = load_tests([name], variant)
    if kernel or ptx or amdgcn:
        _show_compiled(tests, kernel, ptx, amdgcn, target)
        return
    from dataclasses import replace

    from litmus.interop import write_litmus

    first = tests[0]
    click.echo(f"{first.name}: {first.title}")
    if first.origin:
        click.echo(f"source: {first.origin}")
    if first.description:
        click.echo(first.description.rstrip())
    click.echo(f"file: {first.source_file}")
    for t in tests:
        click.echo("")
        short = [f"{k}={v}" for k, v in t.params if len(v) <= 24]
        click.echo(f"── {t.id}  " + ", ".join(short))
        if t.expect:
            hang = " (may hang)" if t.expect.may_hang else ""
            click.echo(f"   expect: {t.expect.outcome}{hang} — {t.expect.why}")
        click.echo(write_litmus(replace(t, description="")).rstrip())


def _show_compiled(tests: Sequence[Any], kernel: bool, ptx: bool, amdgcn: bool, target: str | None) -> None:
    from litmus import codegen

    for t in tests:
        click.echo(f"── {t.id}")
        if kernel:
            click.echo(codegen.generate(t, codegen.CodegenOptions()).text)
        for flag, default_target, key in ((ptx, "cuda:90", "ptx"), (amdgcn, "hip:gfx942", "amdgcn")):
            if flag:
                chosen = target if target and target.startswith(default_target.split(":")[0]) else default_target
                click.echo(f"   ({key} for {chosen}, triton compiled on this machine)")
                click.echo(codegen.compile_variant(t, chosen).text(key))


def main_entry() -> None:  # pragma: no cover - console script shim
    main()


@main.command()
@click.argument("paths", nargs=-1)
@click.option("--model", "model_name", type=click.Choice(list(MODELS)), default="ptx", show_default=True,
              help="Memory model: the scoped PTX model, or sequential consistency as a reference.")
@click.option("--variant", "-v", help="Only variants matching this name or shell pattern.")
@click.option("--json", "as_json", is_flag=True, help="One JSON object per variant per line.")
@_friendly
def model(paths: Sequence[str], model_name: str, variant: str | None, as_json: bool) -> None:
    """Ask the memory model which final states each variant allows. No GPU needed.

    Text output is herd style: 'States n', the allowed states (over the condition's registers
    and locations), then 'Ok' if the condition is validated ('No' otherwise), and whether the
    variant's declared expectation agrees. --json prints one object per variant with test,
    variant, source, model, condition_kind, condition, validated, target_reachable,
    allowed_states (over all observable registers and locations), possible_hang, expect,
    agrees and seconds. Exit status 1 if any declared expectation disagrees with the model.

    \b
    Examples:
      litmus model MP --variant '*-sys'
      litmus model ../shared/ptx-litmus/Manual/MP-gpu.litmus
      litmus model catalog/ --json --model sc
    """
    from litmus.model import check
    from litmus.report.model_text import model_record, render_model_text
    from litmus.spec import load_tests

    disagreements = 0
    for t in load_tests(paths, variant):
        result = check(t, model_name)
        record = model_record(result)
        if record["agrees"] is False:
            disagreements += 1
        if as_json:
            click.echo(json.dumps(record))
        else:
            click.echo(render_model_text(result))
    if disagreements:
        click.echo(f"{disagreements} variant(s) disagree with their declared expectation", err=True)
        sys.exit(1)


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
              help="Rounds (launches) per variant. Default 4 unless --time-budget is given.")
@click.option("--time-budget", "-t", type=click.FloatRange(min=0.0, min_open=True), default=None,
              help="Seconds per variant (overrides --iterations).")
@click.option("--instances", type=click.IntRange(min=1), default=None,
              help="Instances per round. Default: 65536 on cpu/ranks-on-cpu, 4Mi on cuda.")
@click.option("--seed", type=int, default=0, show_default=True,
              help="Seed of every PRNG (instance shuffling, stress): a run is reproducible from it.")
@click.option("--until-bound", "stop_bound", type=click.FloatRange(min=0.0, min_open=True), default=None,
              help="Stop each variant as soon as its evidence is in: the target outcome was seen, or the "
                   "95 % bound 3/N over N completed instances is at most this (e.g. 1e-9). --time-budget or "
                   "--iterations still cap it.")
@click.option("--stress", default="default", show_default=True,
              help=f"Stress preset ({', '.join(PRESETS)}) or a JSON file of Stress parameters (as 'litmus tune' "
                   "writes); see docs/performance.md for what each shows on an H200.")
@click.option("--out", "-o", default=None,
              help="JSON Lines results file; one record is appended per finished variant. "
                   "Default: litmus-results/<backend>-<time>.jsonl")
@click.option("--resume", is_flag=True, help="Skip variants already recorded in --out for this backend.")
@click.option("--world-size", type=click.IntRange(min=1), default=None,
              help="ranks backend: number of processes (default: GPUs visible, or the most ranks a test needs).")
@click.option("--ranks", "ranks_text", default=None,
              help="ranks backend: world ranks playing the test's ranks 0,1,..., e.g. --ranks 0,1")
@_friendly
def run(paths: Sequence[str], variant: str | None, backend: str, iterations: int | None,
        time_budget: float | None, instances: int | None, seed: int, stop_bound: float | None, stress: str,
        out: str | None, resume: bool, world_size: int | None, ranks_text: str | None) -> None:
    """Run variants on hardware (or the CPU interpreter) and classify every outcome.

    Each variant runs round after round (--iterations or --time-budget); each round runs many
    independent instances at once. Every outcome is labelled against the model: sc (allowed
    under SC), weak (allowed by PTX only), forbidden, or timeout (a bounded spin ran out).
    Verdicts: VIOLATION (a forbidden outcome was seen), racy-witnessed, racy-unseen (rate below
    3/N at 95 %), correct (forbidden and unseen in N instances), inconclusive (nothing seen, but
    fewer than 100 instances, or under half of them, completed: N counts completed instances only).

    Results are appended to --out as each variant finishes, so a killed run keeps every
    finished variant; --resume skips them. Exit status 1 if any variant is a VIOLATION.

    \b
    Examples:
      litmus run MP --iterations 2
      litmus run catalog/ --backend cuda --time-budget 5 --stress heavy --out h200.jsonl
      litmus run catalog/ --out h200.jsonl --resume
      litmus run catalog/ --backend cuda --stress parallel --time-budget 2 --until-bound 1e-9
      litmus run SYMM-barrier-p1 --backend ranks --world-size 2
    """
    from pathlib import Path

    from rich.console import Console

    from litmus.report.table import results_table, verdict_summary
    from litmus.run.config import load_stress
    from litmus.run.registry import make_backend
    from litmus.session import run_config
    from litmus.spec import load_tests

    tests = load_tests(paths, variant)
    stress_cfg = load_stress(stress)
    console = Console(stderr=True)
    ranks = _parse_ranks(ranks_text)
    if backend != "ranks" and (world_size is not None or ranks is not None):
        raise LitmusError("--world-size and --ranks apply to --backend ranks only")
    opts: dict[str, Any] = {"world_size": world_size, "ranks": ranks} if backend == "ranks" else {}
    backend_obj = make_backend(backend, **opts)
    try:
        desc = backend_obj.describe()
        config = run_config(backend_obj, iterations=iterations, time_budget=time_budget,
                            instances=instances, seed=seed, stress=stress_cfg, stop_bound=stop_bound)
        out_path = Path(out or _default_out(backend_obj.name))
        console.print(f"[bold]backend[/bold] {backend_obj.name} on {desc.get('device', '?')}")
        if desc.get("note"):
            console.print(f"[dim]{desc['note']}[/dim]")
        console.print(f"[bold]results[/bold] {out_path} (appended per variant)")
        results = _run_with_progress(tests, backend_obj, config, out_path, resume, console)
    finally:
        backend_obj.close()
    Console().print(results_table(results, title=f"{backend_obj.name}: {len(results)} variants"))
    summary = verdict_summary(results)
    Console().print(", ".join(f"{k}: {v}" for k, v in sorted(summary.items())))
    if summary.get("VIOLATION"):
        sys.exit(1)


def _run_with_progress(tests: Sequence[Any], backend: Any, config: Any, out: Any, resume: bool,
                       console: Any) -> list[Any]:
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
            task = current.get(test.id)
            if task is None:
                task = progress.add_task(f"  {test.id}", total=100)
                current[test.id] = task
            progress.update(task, completed=int(frac * 100))

        def on_result(res: Any) -> None:
            task = current.pop(res.test.id, None)
            if task is not None:
                progress.remove_task(task)
            progress.advance(overall)
            if res.verdict is not None and res.verdict.verdict == "VIOLATION":
                progress.console.print(f"[bold red]VIOLATION[/bold red] {res.test.id}")

        return run_tests(tests, backend, config, out=out, resume=resume,
                         on_progress=on_progress, on_result=on_result)


@main.command()
@click.argument("paths", nargs=-1, required=True)
@click.option("--variant", "-v", help="Only variants matching this name or shell pattern.")
@click.option("--backend", "-b", type=click.Choice(["auto", *backend_names()]), default="auto", show_default=True,
              help="Where the trials run (auto: cuda when a GPU is visible, else cpu).")
@click.option("--trials", type=click.IntRange(min=1), default=20, show_default=True,
              help="Random environments to try (the default preset runs first as a baseline).")
@click.option("--time-budget", "-t", type=click.FloatRange(min=0.0, min_open=True), default=1.0, show_default=True,
              help="Seconds per variant per trial.")
@click.option("--instances", type=click.IntRange(min=1), default=None,
              help="Instances per round (default: the backend's).")
@click.option("--seed", type=int, default=0, show_default=True,
              help="Seed of the search and of every run: the same seed draws the same environments.")
@click.option("--out", "-o", default="tuned.json", show_default=True,
              help="Where to write the best environment: a stress JSON file for 'litmus run --stress FILE'.")
@click.option("--log", "log_path", default=None,
              help="Also write every trial (settings, rate, counts) as JSON Lines here.")
@_friendly
def tune(paths: Sequence[str], variant: str | None, backend: str, trials: int, time_budget: float,
         instances: int | None, seed: int, out: str, log_path: str | None) -> None:
    """Search for the stress settings under which weak behaviour shows most often.

    Random search in the manner of MC Mutants: each trial draws every stress parameter
    (shuffling, start barriers, stride, memory stress and its pattern, pre-stress, parallel
    launch and its barrier percentage, ...) from a seeded PRNG, runs each variant for
    --time-budget seconds, and scores the trial by target outcomes seen per second. Only
    variants whose target the PTX model allows (mutants) are tuned on: a correct variant has
    nothing to show. The best environment is written to --out; pass it to
    'litmus run --stress FILE'. A progress bar shows the trials; a killed search keeps the
    --log lines of every finished trial.

    \b
    Examples:
      litmus tune MP SB LB --variant 'relaxed-*' --trials 30 -t 0.5 --out docs/results/h200-tuned.json
      litmus tune MP --variant relaxed-xgpu-sys --backend cpu --trials 3 -t 0.2 --instances 256
      litmus run catalog/ --stress docs/results/h200-tuned.json
    """
    from pathlib import Path

    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    from litmus.model import check
    from litmus.report.jsonl import append_record
    from litmus.run.registry import make_backend
    from litmus.spec import load_tests
    from litmus.tune import trial_record, trials_text, tune as search, write_stress

    tests = [t for t in load_tests(paths, variant) if check(t, "ptx").target_reachable]
    console = Console(stderr=True)
    backend_obj = make_backend(backend)
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
                            on_trial=on_trial)
    finally:
        backend_obj.close()
    click.echo(trials_text(ranked))
    best = write_stress(Path(out), ranked[0].stress)
    click.echo(f"best: {ranked[0].stress.name}, {ranked[0].rate:.4g} target outcomes/s; written to {out} "
               f"(litmus run --stress {out}); as loaded: {best.name}")


@main.command()
@click.argument("paths", nargs=-1)
@click.option("--variant", "-v", help="Only variants matching this name or shell pattern.")
@click.option("--target", "targets", default="cuda:90,hip:gfx942", show_default=True,
              help="Comma-separated targets: cuda:<sm> (PTX), hip:<gfx> (AMDGCN), sass (NVIDIA SASS "
                   "via the cuobjdump that ships with triton).")
@click.option("--jobs", "-j", type=click.IntRange(min=1), default=None,
              help="Parallel compile processes (default: all cores).")
@click.option("--json", "as_json", is_flag=True, help="One JSON object per (variant, target) per line.")
@click.option("--run-kernels/--no-run-kernels", default=True, show_default=True,
              help="Also compile the kernels 'litmus run --backend cuda' launches (grid mode with the run "
                   "harness, and parallel mode) and check each op compiles to the same code shape as in the "
                   "audited kernel (about three times the compile time).")
@_friendly
def audit(paths: Sequence[str], variant: str | None, targets: str, jobs: int | None, as_json: bool,
          run_kernels: bool) -> None:
    """Compile each variant on the CPU and check the code carries the ordering it asks for.

    Every variant is turned into a Triton kernel and compiled for each target with
    triton.compile(..., target=GPUTarget(...)) -- no GPU needed. For every op that needs
    ordering (release/acquire atomics, volatile accesses, fences, bar.sync) the compiled code
    must hold the matching instructions, in order, per the rule tables in docs/audit.md.

    The audited code must be what runs: the kernels the cuda backend launches (with the run
    harness, and in parallel mode) are compiled too, and every op must match the same code
    shape there as in the audited kernel.

    A cell is pass, finding, declared (a finding the variant expects: audit_expect in its
    YAML), differs (a run kernel compiles an op differently; each difference is printed) or
    unsupported (with the reason). Exit status 1 on any finding not declared, or any difference.

    \b
    Examples:
      litmus audit
      litmus audit MP --variant '*sys*' --target cuda:90,sass
      litmus audit catalog/ --json > audit.jsonl
    """
    from rich.console import Console
    from rich.markup import escape
    from rich.progress import Progress
    from rich.table import Table

    from litmus.audit.batch import audit_many
    from litmus.spec import load_tests

    tests = load_tests(paths, variant)
    target_list = [t.strip() for t in targets.split(",") if t.strip()]
    console = Console(stderr=True)
    with Progress(console=console, transient=True) as progress:
        task = progress.add_task("compiling and auditing", total=len(tests) * len(target_list))
        cells = audit_many(tests, target_list, jobs, on_cell=lambda _c: progress.advance(task),
                           run_kernels=run_kernels)
    bad = [c for c in cells if c.status in ("finding", "differs")]
    if as_json:
        for c in cells:
            click.echo(json.dumps({
                "id": c.test.id, "source": c.test.source_file, "target": c.target,
                "status": c.status, "reason": c.result.reason, "seconds": round(c.result.seconds, 3),
                "findings": [{"op": f.op, "expected": f.expected, "found": f.found, "line": f.line,
                              "declared": f not in c.undeclared} for f in c.result.findings],
                "run_kernels": [{"kernel": k.kernel, "status": k.status, "differences": list(k.differences),
                                 "reason": k.reason} for k in c.kernels],
            }))
    else:
        style = {"pass": "green", "finding": "bold red", "declared": "yellow", "unsupported": "dim",
                 "differs": "bold magenta"}
        table = Table(title=f"audit: {len(tests)} variants x {len(target_list)} targets")
        table.add_column("variant")
        for t in target_list:
            table.add_column(t)
        by_test: dict[str, dict[str, Any]] = {}
        for c in cells:
            by_test.setdefault(f"{c.test.source_file}::{c.test.id}", {"id": c.test.id})[c.target] = c
        for row in by_test.values():
            table.add_row(escape(row["id"]), *[f"[{style[row[t].status]}]{row[t].status}[/]" for t in target_list])
        Console().print(table)
        for c in cells:
            for f in c.undeclared:
                click.echo(f"\nFINDING {c.test.id} on {c.target}: {f.op}\n  expected: {f.expected}\n"
                           f"  found:    {f.found}" + "".join(f"\n    | {ln}" for ln in f.context_lines))
            for k in c.kernels:
                for d in k.differences:
                    click.echo(f"\nDIFFERS {c.test.id} on {c.target}: {d}")
            for d in c.stale:
                click.echo(f"\nnote: {c.test.id} on {c.target}: declared finding {d.op!r} did not occur "
                           f"(fixed in this triton?) — {d.why}")
        counts = Counter(c.status for c in cells)
        click.echo("\n" + ", ".join(f"{k}: {v}" for k, v in sorted(counts.items())))
    if bad:
        sys.exit(1)


@main.command()
@click.option("--json", "as_json", is_flag=True, help="The report as one JSON object.")
@click.option("--rendezvous", is_flag=True,
              help="Also try a one-rank symmetric-memory rendezvous on GPU 0 (slower; proves symm_mem works).")
@_friendly
def doctor(as_json: bool, rendezvous: bool) -> None:
    """Print what this node offers and which backends can run.

    GPUs (name, compute capability, memory), the peer-access matrix between them, whether
    PyTorch symmetric memory is available, torch/triton versions, and for each backend
    (cpu, cuda, ranks) whether it can run here and why not. Exit status 0 when some backend
    can run.

    \b
    Examples:
      litmus doctor
      litmus doctor --json --rendezvous
    """
    from litmus.run.doctor import doctor_main

    sys.exit(doctor_main(json=as_json, try_rendezvous=rendezvous))


def _print_mutation(records: Sequence[dict[str, Any]]) -> None:
    from pathlib import Path

    from litmus.report.mutation import mutation_score, score_text
    from litmus.spec import load_tests

    sources = sorted({str(r["source"]) for r in records if r.get("source")})
    missing = [s for s in sources if not Path(s).is_file()]
    if missing:
        raise LitmusError(f"--mutation needs the pattern files the records name; not found here: "
                          f"{', '.join(missing)} (run from the folder the run was made in)")
    click.echo(score_text(mutation_score(load_tests(sources), records)))
    click.echo("")


@main.command()
@click.argument("results", type=click.Path(exists=True, dir_okay=False))
@click.option("--markdown", is_flag=True, help="Print a Markdown table (for docs/results/).")
@click.option("--verdict", "verdicts", multiple=True,
              type=click.Choice(list(VERDICTS)),
              help="Only records with this verdict (repeatable).")
@click.option("--mutation", is_flag=True,
              help="Also print the mutation score: conformance tests (target forbidden by the model) and "
                   "mutants (target allowed), the share of mutants witnessed, the mutants one GPU cannot show "
                   "counted apart, and every unseen mutant with its reason. The variants are those of the "
                   "pattern files the records name, so skipped ones count as unseen.")
@_friendly
def report(results: str, markdown: bool, verdicts: Sequence[str], mutation: bool) -> None:
    """Summarise a results file written by 'litmus run' (JSON Lines).

    Prints the machine and versions the run recorded, the verdict counts, and one row per
    variant: expectation, verdict, instances, how often the target outcome was seen, the weak,
    forbidden and timed-out counts, the rate (or its 95 % upper bound 3/N when unseen) and the
    seconds to the first sighting. A torn last line (a killed run) is skipped.

    \b
    Examples:
      litmus report litmus-results/cuda-20261202-150000.jsonl
      litmus report docs/results/h200-single-gpu.jsonl --markdown --verdict racy-witnessed
      litmus report docs/results/h200-single-gpu.jsonl --mutation
    """
    from pathlib import Path

    from litmus.report.jsonl import read_records
    from litmus.report.summary import machine_line, markdown_table, rate_text, verdict_counts

    records = list(read_records(Path(results)))
    if mutation:
        _print_mutation(records)
    if verdicts:
        records = [r for r in records if r.get("verdict") in verdicts]
    click.echo(machine_line(records))
    click.echo(", ".join(f"{k}: {v}" for k, v in sorted(verdict_counts(records).items())))
    if markdown:
        click.echo("")
        click.echo(markdown_table(records), nl=False)
    else:
        for r in records:
            click.echo(f"{r['id']:<48} {r.get('expect') or '-':<9} {r['verdict']:<15} "
                       f"{r['instances']:>14,} seen {r['target_count']:>12,}  rate {rate_text(r)}")


if __name__ == "__main__":  # python -m litmus.cli (after every command is defined)
    main()
