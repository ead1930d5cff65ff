"""The ``litmus`` command line: list, show, validate, model, audit, run, doctor."""

from __future__ import annotations

import os
import signal
import threading


def _interrupted_at_startup(signum: int, frame: Any) -> None:
    """Ctrl-C while the command line's modules load: say so in one line, no traceback."""
    os.write(2, b"interrupted while starting; nothing was run\n")
    os._exit(130)


def _set_sigint(handler: Any) -> Any:
    """Install a SIGINT handler (main thread only); the previous one, or None."""
    if threading.current_thread() is not threading.main_thread():
        return None
    try:
        return signal.signal(signal.SIGINT, handler)
    except (ValueError, OSError):
        return None


_SIGINT_BEFORE_IMPORTS = _set_sigint(_interrupted_at_startup)

import functools  # noqa: E402 - after the start-up Ctrl-C handler
import json  # noqa: E402
import sys  # noqa: E402
from collections import Counter, defaultdict  # noqa: E402
from typing import Any, Callable, Sequence  # noqa: E402

import click  # noqa: E402

from litmus.classify import VERDICTS  # noqa: E402
from litmus.errors import LitmusError  # noqa: E402
from litmus.model import DEFAULT_MODEL, MODELS  # noqa: E402
from litmus.run.config import PRESETS  # noqa: E402
from litmus.run.schedule import FILL_STRETCH, HUNT_STRETCH  # noqa: E402
from litmus.run.registry import backend_names  # noqa: E402
from litmus.cost.command import cost_command as _cost_command  # noqa: E402 - litmus cost: its own stage
from litmus.lint.command import lint as _lint_command  # noqa: E402 - litmus lint: its own stage

if _SIGINT_BEFORE_IMPORTS is not None:
    _set_sigint(_SIGINT_BEFORE_IMPORTS)

EPILOG_PATHS = (
    "PATHS may be YAML catalog files, PTX .litmus files, folders of either, or pattern names "
    "from the default catalog (e.g. MP). With no PATHS, the whole default catalog."
)


class _Interrupt:
    """Whether Ctrl-C came: a library that swallows KeyboardInterrupt (some imports do) cannot
    make the command carry on, since :func:`_check_interrupt` raises it again."""

    seen = False


def _on_sigint(signum: int, frame: Any) -> None:
    _Interrupt.seen = True
    raise KeyboardInterrupt


def _exit_interrupted() -> None:
    """Exit 130 after Ctrl-C, certainly: ignore further Ctrl-C, stop child processes that are
    still starting, flush, and leave without the interpreter's shutdown (which could otherwise
    still end the process by SIGINT, status -2, when a Ctrl-C lands while a worker starts)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    import multiprocessing

    children = multiprocessing.active_children()
    for child in children:
        child.terminate()
    for child in children:
        child.join(5)
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):
            pass
    os._exit(130)


def _check_interrupt() -> None:
    """Raise KeyboardInterrupt if Ctrl-C came (even if something swallowed it)."""
    if _Interrupt.seen:
        raise KeyboardInterrupt


def _friendly(fn: Callable[..., Any]) -> Callable[..., Any]:
    """Print LitmusError as 'file:line: message' lines and exit 2; Ctrl-C prints one line and
    exits 130: never a traceback."""

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        _Interrupt.seen = False
        before = _set_sigint(_on_sigint)
        try:
            return fn(*args, **kwargs)
        except KeyboardInterrupt:
            click.echo("interrupted", err=True)
            _exit_interrupted()
        except Exception as err:
            # After a Ctrl-C, any error is its echo: something swallowed the KeyboardInterrupt (a
            # half-done import) or wrapped it (Python raises RuntimeError when it lands in a class
            # body's __set_name__, e.g. while a dataclass is defined).
            if _Interrupt.seen:
                click.echo("interrupted", err=True)
                _exit_interrupted()
            if not isinstance(err, LitmusError):
                raise
            for problem in err.problems:
                click.echo(f"error: {problem}", err=True)
            sys.exit(2)
        finally:
            if before is not None:
                _set_sigint(before)

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
      litmus cost      what each variant's signalling costs, the cheapest correct one marked
      litmus lint      your own Triton kernel's signalling, checked against the model
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

    Besides the format, each variant's declared may_hang must agree with the PTX model's hang
    analysis (ptx, or ptx75 for tests with proxies).

    Exit status 0 when all files are valid, 1 when any problem was found.

    \b
    Example:
      litmus validate catalog/ my_patterns/sb_gpus.yaml
    """
    from litmus.model import check, hang_problem, ptx_model_for
    from litmus.spec import load_tests

    try:
        tests = load_tests(paths)
    except LitmusError as err:
        for problem in err.problems:
            click.echo(f"error: {problem}", err=True)
        click.echo(f"{len(err.problems)} problem(s)", err=True)
        sys.exit(1)
    # may_hang is checked like an expectation: the PTX model must agree with it
    problems = [p for t in tests if t.expect is not None
                for p in [hang_problem(check(t, ptx_model_for(t)))] if p]
    for problem in problems:
        click.echo(f"error: {problem}", err=True)
    if problems:
        click.echo(f"{len(problems)} problem(s)", err=True)
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
    from litmus.codegen.options import AUDITED_KERNEL, audited_kernel

    for t in tests:
        click.echo(f"── {t.id}")
        if kernel:
            click.echo(codegen.generate(t, AUDITED_KERNEL).text)
        for flag, default_target, key in ((ptx, "cuda:90", "ptx"), (amdgcn, "hip:gfx942", "amdgcn")):
            if flag:
                chosen = target if target and target.startswith(default_target.split(":")[0]) else default_target
                click.echo(f"   ({key} for {chosen}, triton compiled on this machine)")
                click.echo(codegen.compile_variant(t, chosen, audited_kernel(chosen.split(":")[0])).text(key))


def main_entry() -> None:  # pragma: no cover - console script shim
    main()


@main.command()
@click.argument("paths", nargs=-1)
@click.option("--model", "model_name", type=click.Choice(list(MODELS)), default=DEFAULT_MODEL, show_default=True,
              help="Memory model: ptx75 (PTX 7.5 with proxies), ptx (PTX 6.0), or sc (sequential "
                   "consistency, a reference: expectations are not judged).")
@click.option("--cat", "cat_file", metavar="FILE.cat",
              help="Use the model this herd-style .cat file defines instead of --model (e.g. Dat3M's "
                   "ptx-v7.5.cat); what a cat file cannot say comes from the built-in model it fits "
                   "(docs/model.md, 'Models as text').")
@click.option("--variant", "-v", help="Only variants matching this name or shell pattern.")
@click.option("--json", "as_json", is_flag=True, help="One JSON object per variant per line.")
@_friendly
def model(paths: Sequence[str], model_name: str, cat_file: str | None, variant: str | None, as_json: bool) -> None:
    """Ask the memory model which final states each variant allows. No GPU needed.

    Text output is herd style: 'States n', the allowed states (over the condition's registers
    and locations), then 'Ok' if the condition is validated ('No' otherwise), and whether the
    variant's declared expectation agrees. --json prints one object per variant with test,
    variant, source, model, condition_kind, condition, validated, target_reachable,
    allowed_states (over all observable registers and locations), possible_hang, expect,
    agrees, may_hang_agrees and seconds. Files are read one by one: a file that fails prints its
    errors (file:line:col) and the others still get results. Under --model sc (a reference)
    the states are reported and no expectation is judged. Exit status 1 if any input failed,
    or a declared expectation or may_hang disagrees with the model. A bad .cat file is one
    located error and exit status 2.

    \b
    Examples:
      litmus model MP --variant '*-sys'
      litmus model ../shared/ptx-litmus/Manual/MP-gpu.litmus
      litmus model catalog/ --json --model sc
      litmus model --cat ../shared/dat3m-ptx/cat/ptx-v7.5.cat catalog/mp.yaml
    """
    import dataclasses

    from litmus.model import check, hang_problem, judges_expectations, load_cat
    from litmus.report.model_text import model_record, render_model_text
    from litmus.spec import filter_variants, load_tests

    cat = None if cat_file is None else load_cat(cat_file)
    judged = judges_expectations(model_name if cat is None else cat)
    failed = disagreements = 0
    tests = []
    for item in _batch_items(paths):  # one file at a time: a bad file does not stop the rest
        try:
            tests.extend(load_tests([item]))
        except LitmusError as err:
            failed += 1
            for problem in err.problems:
                click.echo(f"error: {problem}", err=True)
    if variant is not None and tests:
        tests = filter_variants(tests, variant)
    for t in tests:
        try:
            result = check(t, model_name if cat is None else cat)
        except LitmusError as err:
            failed += 1
            for problem in err.problems:
                click.echo(f"error: {problem}", err=True)
            continue
        if not judged:  # a reference model reports its states; PTX expectations are not its to judge
            result = dataclasses.replace(result, test=dataclasses.replace(t, expect=None))
        record = model_record(result)
        if record["agrees"] is False:
            disagreements += 1
        hang = hang_problem(result, cat)
        if as_json:
            record["may_hang_agrees"] = None if result.test.expect is None else hang is None
            click.echo(json.dumps(record))
        else:
            click.echo(render_model_text(result))
        if hang is not None:
            disagreements += 1
            click.echo(f"error: {hang}", err=True)
    if failed:
        click.echo(f"{failed} input(s) failed: see the errors above", err=True)
    if disagreements:
        click.echo(f"{disagreements} disagreement(s) with declared expectations", err=True)
    if failed or disagreements:
        sys.exit(1)


def _batch_items(paths: Sequence[str]) -> list[str]:
    """``paths`` with each folder replaced by the files under it that litmus reads (sorted), so
    that each file loads, and fails, on its own; no paths: the default catalog."""
    from pathlib import Path

    from litmus.spec.loader import default_catalog_dir
    from litmus.spec.select import known_suffixes

    items: list[str] = []
    for arg in paths or [str(default_catalog_dir())]:
        folder = Path(arg)
        if folder.is_dir():
            items += [str(p) for p in sorted(folder.rglob("*"))
                      if p.is_file() and p.suffix in known_suffixes()]
        else:
            items.append(arg)
    return items


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


@main.command("generate")
@click.argument("cycles", nargs=-1)
@click.option("--edges", help="Enumerate every cycle over these comma-separated edges (shell patterns "
                               "allowed: 'Rfe,Fre,Coe,Pod*').")
@click.option("--max-length", type=int, help="Longest enumerated cycle (with --edges; default 4).")
@click.option("--scopes", help="Scope options, comma-separated: cta,gpu,sys (the default).")
@click.option("--sems", help="Access options: weak, relaxed, volatile, relacq, exch, exch-relaxed "
                              "(default relaxed,relacq).")
@click.option("--places", help="Placements: samecta, xcta, xgpu (default xcta,xgpu).")
@click.option("--out", "out", required=True, help="Folder for the YAML files, one per cycle.")
@_friendly
def generate_cmd(cycles: Sequence[str], edges: str | None, max_length: int | None, scopes: str | None,
                 sems: str | None, places: str | None, out: str) -> None:
    """Generate diy7-style litmus tests from relaxation cycles (docs/generate.md).

    Each CYCLE (edges such as Rfe Fre Coe PodWR FencedWW) becomes one catalog file whose
    variants are places x sems x scopes, each expectation computed by the PTX model.

    \b
    Examples:
      litmus generate 'PodWW Rfe PodRR Fre' --out gen/          # MP
      litmus generate --edges 'Rfe,Fre,Coe,Pod*' --max-length 6 --out gen/
    """
    from litmus.diy import generate

    made = generate(cycles, edges=edges, max_length=max_length, scopes=scopes, sems=sems, places=places, out=out)
    for g in made:
        click.echo(f"{g.name:<28} {g.forbidden:>3} forbidden {g.allowed:>3} allowed  {g.cycle}  -> {_rel(str(g.path))}")
    click.echo(f"{len(made)} patterns, {sum(g.forbidden + g.allowed for g in made)} variants in {out}")


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
              help="Instances per round. Default: the backend's own: 16384 on cpu, 1048576 on cuda, 65536 on ranks.")
@click.option("--seed", type=int, default=0, show_default=True,
              help="Seed of every PRNG (instance shuffling, stress): a run is reproducible from it.")
@click.option("--until-bound", "stop_bound", type=click.FloatRange(min=0.0, min_open=True), default=None,
              help="Stop each variant as soon as its evidence is in: the target outcome was seen, or the "
                   "95 % bound 3/N over N ended instances (completed, or provably hung) is at most this "
                   "(e.g. 1e-9). --iterations still caps it; --time-budget too, except that a variant whose "
                   f"target the model forbids runs on, up to {FILL_STRETCH:g} budgets in all, while its rate says it reaches "
                   f"the bound by then, and one whose target is allowed runs on, up to {HUNT_STRETCH:g} budgets, while "
                   "it has ended too few instances for a verdict of absence (it would be 'inconclusive').")
@click.option("--stress", default="default", show_default=True,
              help=f"Stress preset ({', '.join(PRESETS)}) or a JSON file of Stress parameters (as 'litmus tune' "
                   "writes); a file of several environments is a rotation: round k of each variant runs "
                   "environment k mod n. See docs/performance.md for what each shows on an H200.")
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
@_friendly
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
        from litmus.session import run_config
        from litmus.spec import load_tests

        tests = load_tests(paths, variant)
        stress_cfg = load_stresses(stress)
        console = Console(stderr=True)
        ranks = _parse_ranks(ranks_text)
        if backend != "ranks" and (world_size is not None or ranks is not None):
            raise LitmusError("--world-size and --ranks apply to --backend ranks only")
        opts: dict[str, Any] = {"world_size": world_size, "ranks": ranks} if backend == "ranks" else {}
        _check_interrupt()
        where["stage"] = "starting the backend"
        backend_obj = make_backend(backend, **opts)
        try:
            _check_interrupt()
            desc = backend_obj.describe()
            config = run_config(backend_obj, iterations=iterations, time_budget=time_budget,
                                instances=instances, seed=seed, stress=stress_cfg, stop_bound=stop_bound)
            out_path = Path(out or _default_out(backend_obj.name))
            where.update(out=out_path, backend=backend_obj.name, total=len(tests))
            console.print(f"[bold]backend[/bold] {backend_obj.name} on {desc.get('device', '?')}")
            if desc.get("note"):
                console.print(f"[dim]{desc['note']}[/dim]")
            console.print(f"[bold]results[/bold] {out_path} (appended per variant)")
            _check_interrupt()
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
        if not _Interrupt.seen:
            raise
        where["interrupted"] = True  # an error that follows a Ctrl-C: swallowed or wrapped (see _friendly)
    if where.get("interrupted"):  # (a results file a frame still holds open is then flushed and closed)
        click.echo(_interrupted_run(where, paths, backend), err=True)
        _exit_interrupted()
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
            _check_interrupt()
            task = current.get(test.id)
            if task is None:
                task = progress.add_task(f"  {test.id}", total=100)
                current[test.id] = task
            progress.update(task, completed=int(frac * 100))

        def on_result(res: Any) -> None:
            _check_interrupt()
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
@click.option("--keep", type=click.IntRange(min=1), default=1, show_default=True,
              help="Write a rotation of up to this many environments: the best, then those that witness "
                   "variants the ones before did not ('litmus run' cycles through them round by round).")
@click.option("--log", "log_path", default=None,
              help="Also write every trial (settings, rate, counts) as JSON Lines here.")
@_friendly
def tune(paths: Sequence[str], variant: str | None, backend: str, trials: int, time_budget: float,
         instances: int | None, seed: int, out: str, keep: int, log_path: str | None) -> None:
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
      litmus tune catalog/ --trials 16 -t 0.3 --keep 3 --out rotation.json
      litmus run catalog/ --stress docs/results/h200-tuned.json
    """
    from pathlib import Path

    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    from litmus.report.jsonl import append_record
    from litmus.run.registry import make_backend
    from litmus.spec import load_tests
    from litmus.tune import pick_rotation, trial_record, trials_text, tunable, tune as search, write_stress

    tests = tunable(load_tests(paths, variant))
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
    chosen = pick_rotation(ranked, keep)
    loaded = write_stress(Path(out), [t.stress for t in chosen])
    click.echo(f"best: {ranked[0].stress.name}, {ranked[0].rate:.4g} target outcomes/s; written to {out} "
               f"(litmus run --stress {out}); as loaded: {', '.join(s.name for s in loaded)}")
    if keep > 1:
        witnessed = {v for t in chosen for v, n in t.seen_by.items() if n}
        click.echo(f"rotation of {len(chosen)}: {', '.join(t.stress.name for t in chosen)}; together they "
                   f"witnessed {len(witnessed)} of {len(tests)} variant(s)")


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


def _load_sources(records: Sequence[dict[str, Any]], flag: str) -> list[Any]:
    from pathlib import Path

    from litmus.spec import load_tests

    sources = sorted({str(r["source"]) for r in records if r.get("source")})
    missing = [s for s in sources if not Path(s).is_file()]
    if missing:
        raise LitmusError(f"{flag} needs the pattern files the records name; not found here: "
                          f"{', '.join(missing)} (run from the folder the run was made in)")
    return load_tests(sources)


CSV_COLUMNS = ("id", "test", "variant", "source", "expect", "verdict", "instances", "completed", "target_count",
               "sc", "weak", "forbidden", "timeout", "hang", "rate", "low_95", "high_95", "seconds_to_first", "seconds",
               "backend", "device", "triton")


def _csv_row(r: dict[str, Any]) -> dict[str, Any]:
    from litmus.report.rates import completed, rate_interval

    iv = rate_interval(r)
    counts = r.get("counts") or {}
    return {**{k: r.get(k) for k in CSV_COLUMNS}, **{k: counts.get(k, 0) for k in ("sc", "weak", "forbidden", "timeout", "hang")},
            "completed": completed(r), "rate": iv[0] if iv else None,
            "low_95": iv[1] if iv else None, "high_95": iv[2] if iv else None}


def _report_compare(paths: Sequence[str], html_out: str | None, as_json: bool, everything: bool,
                    title: str | None) -> None:
    from pathlib import Path

    from litmus.report.compare import COMPARE_HEADERS, any_worse, compare_records, compare_rows, counts_line
    from litmus.report.jsonl import read_results
    from litmus.report.table import text_table

    if len(paths) != 2:
        raise LitmusError(f"--compare takes two results files, A then B; got {len(paths)}")
    a_path, b_path = paths
    a, b = read_results(Path(a_path)), read_results(Path(b_path))
    changes = compare_records(a, b)
    worse = any_worse(changes)
    if html_out:
        from litmus.report.html import render_compare

        page = render_compare(changes, a_path, b_path, a, b)
        if title:
            page = page.replace(f"litmus: {a_path} against {b_path}", title, 2)
        Path(html_out).write_text(page, encoding="utf-8")
        click.echo(f"wrote {html_out}", err=True)
    if as_json:
        click.echo(json.dumps({"a": a_path, "b": b_path, "worse": worse,
                               "changes": [c.as_dict() for c in changes if everything or c.kind != "same"]}))
    else:
        click.echo(f"A: {a_path}\nB: {b_path}")
        click.echo(counts_line(changes))
        rows = compare_rows(changes, everything)
        if rows:
            lines = text_table(COMPARE_HEADERS, rows, right=(4, 5, 6)).splitlines()
            click.echo("\n".join(lines[:2]))
            colour = {"WORSE": "red", "better": "green", "rate": "yellow"}
            for line, row in zip(lines[2:], rows):
                fg = next((c for k, c in colour.items() if row[0].startswith(k)), None)
                click.echo(click.style(line, fg=fg, bold=fg == "red") if fg else line)
    if worse:
        sys.exit(1)


@main.command()
@click.argument("results", nargs=-1, required=True, type=click.Path(exists=True, dir_okay=False))
@click.option("--markdown", is_flag=True, help="Print a Markdown table (for docs/results/).")
@click.option("--json", "as_json", is_flag=True,
              help="Print one JSON object: machine, verdict counts, one summary per record (with the rate's "
                   "95 % interval), and the mutation score with --mutation; with --compare, the changes.")
@click.option("--csv", "as_csv", is_flag=True, help="Print CSV, one row per record (a header row first).")
@click.option("--verdict", "verdicts", multiple=True,
              type=click.Choice(list(VERDICTS)),
              help="Only records with this verdict (repeatable).")
@click.option("--mutation", is_flag=True,
              help="Also print the mutation score: conformance tests (target forbidden by the model) and "
                   "mutants (target allowed), the share of mutants witnessed, the mutants one GPU cannot show "
                   "counted apart, and every unseen mutant with its reason. The variants are those of the "
                   "pattern files the records name, so skipped ones count as unseen.")
@click.option("--html", "html_out", default=None, metavar="OUT.html",
              help="Also write one self-contained page (no network needed): verdict matrix, plots, model states, "
                   "the mutation score when the pattern files are here, and a table to sort and filter.")
@click.option("--audit", is_flag=True,
              help="With --html: an audit column per target (cuda:90, hip:gfx942), compiled here with the "
                   "installed triton (slow: seconds per variant).")
@click.option("--audit-file", default=None, type=click.Path(exists=True, dir_okay=False),
              help="With --html: the audit column from a saved 'litmus audit --json' (e.g. made with the "
                   "run's triton version).")
@click.option("--compare", is_flag=True,
              help="Compare two results files A B: verdict and rate changes side by side (text, or --html). "
                   "Exit status 1 when a verdict got worse (order in docs/report.md: VIOLATION worst).")
@click.option("--all", "everything", is_flag=True, help="With --compare: list unchanged variants too.")
@click.option("--title", default=None, help="With --html: the page title.")
@click.option("--jobs", "-j", type=click.IntRange(min=1), default=None,
              help="With --audit: worker processes (default: all cores).")
@_friendly
def report(results: Sequence[str], markdown: bool, as_json: bool, as_csv: bool, verdicts: Sequence[str],
           mutation: bool, html_out: str | None, audit: bool, audit_file: str | None, compare: bool,
           everything: bool, title: str | None, jobs: int | None) -> None:
    """Summarise results files written by 'litmus run' (JSON Lines), or compare two.

    Prints the machine and versions the run recorded, the verdict counts, and one row per
    variant: expectation, verdict, instances, completed instances, how often the target outcome
    was seen, and its rate with the 95 % interval (or the upper bound 3/N when unseen). Names are
    never cut: the columns are as wide as their widest cell. Several RESULTS files are read as
    one run. A torn last line (a killed run) is skipped.

    --html writes a page to open in a browser: the verdict matrix, rates on a log axis, outcome
    histograms, time to first witness, the model's allowed states, the audit (--audit or
    --audit-file), the mutation score and the cost per pattern (docs/report.md).

    --compare A B lists the variants whose verdict got worse or better, or whose rate moved
    (the 95 % intervals do not overlap), and exits 1 when a verdict got worse.

    \b
    Examples:
      litmus report litmus-results/cuda-20261202-150000.jsonl
      litmus report docs/results/h200-single-gpu.jsonl --markdown --verdict racy-witnessed
      litmus report docs/results/h200-single-gpu.jsonl --mutation
      litmus report docs/results/h200-single-gpu.jsonl --html docs/results/h200-single-gpu.html \\
          --audit-file docs/results/audit-triton36-cpu.jsonl
      litmus report docs/results/h200-single-gpu-e16a260.jsonl docs/results/h200-single-gpu.jsonl --compare
      litmus report before.jsonl after.jsonl --compare --html compare.html
    """
    from pathlib import Path

    from litmus.report.jsonl import read_records, read_results
    from litmus.report.summary import machine_line, markdown_table, verdict_counts

    if sum((markdown, as_json, as_csv)) > 1:
        raise LitmusError("choose one of --markdown, --json and --csv")
    if compare:
        _report_compare(results, html_out, as_json, everything, title)
        return
    if (audit or audit_file) and not html_out:
        raise LitmusError("--audit and --audit-file fill a column of the --html page; add --html OUT.html")
    records = [r for path in results for r in read_results(Path(path))]
    if html_out:
        from litmus.report.html import build_context, render_page

        audit_records = list(read_records(Path(audit_file))) if audit_file else None
        ctx = build_context(records, title or f"litmus: {', '.join(results)}", source=", ".join(results),
                            audit=audit, audit_records=audit_records, jobs=jobs)
        Path(html_out).write_text(render_page(ctx), encoding="utf-8")
        click.echo(f"wrote {html_out}", err=True)
    score = None
    if mutation:
        from litmus.report.mutation import mutation_score, score_text

        score = mutation_score(_load_sources(records, "--mutation"), records)
        if not as_json:
            click.echo(score_text(score))
            click.echo("")
    if verdicts:
        records = [r for r in records if r.get("verdict") in verdicts]
    if as_json:
        click.echo(json.dumps({"machine": machine_line(records), "verdicts": dict(verdict_counts(records)),
                               "records": [_csv_row(r) for r in records],
                               **({"mutation": score.as_dict()} if score is not None else {})}))
        return
    if as_csv:
        import csv
        import io

        buf = io.StringIO()
        writer = csv.DictWriter(buf, fieldnames=CSV_COLUMNS, lineterminator="\n")
        writer.writeheader()
        for r in records:
            writer.writerow(_csv_row(r))
        click.echo(buf.getvalue(), nl=False)
        return
    click.echo(machine_line(records))
    click.echo(", ".join(f"{k}: {v}" for k, v in sorted(verdict_counts(records).items())))
    if markdown:
        click.echo("")
        click.echo(markdown_table(records), nl=False)
    else:
        from litmus.report.rates import completed, rate_cell
        from litmus.report.table import text_table

        rows = [[r.get("id"), r.get("expect") or "-", r.get("verdict"), f"{int(r.get('instances') or 0):,}",
                 f"{completed(r):,}", f"{int(r.get('target_count') or 0):,}", rate_cell(r)] for r in records]
        click.echo(text_table(("variant", "expect", "verdict", "instances", "completed", "target seen",
                               "rate [95 %]"), rows, right=(3, 4, 5, 6)), nl=False)


main.add_command(_lint_command)
main.add_command(_cost_command, name="cost")


if __name__ == "__main__":  # python -m litmus.cli (after every command is defined)
    main()
