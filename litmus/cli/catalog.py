"""``litmus list``, ``litmus validate`` and ``litmus show``: what the catalog holds."""

from __future__ import annotations

import json
import sys
from collections import Counter, defaultdict
from typing import Any, Sequence

import click

from litmus.cli.app import friendly, main
from litmus.codegen.targets import DEFAULT_TARGETS
from litmus.errors import LitmusError


@main.command("list")
@click.argument("paths", nargs=-1)
@click.option("--json", "as_json", is_flag=True, help="One JSON object per variant per line.")
@friendly
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
        table.add_row(name, str(len(group)), str(counts["forbidden"]), str(counts["allowed"]), rel_path(file))
    Console().print(table)


def rel_path(path: str) -> str:
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
@friendly
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
@friendly
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
        for flag, key in ((ptx, "ptx"), (amdgcn, "amdgcn")):
            default_target = DEFAULT_TARGETS[key]
            if flag:
                chosen = target if target and target.startswith(default_target.split(":")[0]) else default_target
                click.echo(f"   ({key} for {chosen}, triton compiled on this machine)")
                click.echo(codegen.compile_variant(t, chosen, audited_kernel(chosen.split(":")[0])).text(key))
