"""``litmus audit``: each variant compiled on the CPU, its code checked for the ordering it asks for."""

from __future__ import annotations

import json
import sys
from collections import Counter
from typing import Any, Sequence

import click

from litmus.cli.app import friendly, main
from litmus.codegen.targets import AUDIT_TARGETS


@main.command()
@click.argument("paths", nargs=-1)
@click.option("--variant", "-v", help="Only variants matching this name or shell pattern.")
@click.option("--target", "targets", default=",".join(AUDIT_TARGETS), show_default=True,
              help="Comma-separated targets: cuda:<sm> (PTX), hip:<gfx> (AMDGCN), sass (NVIDIA SASS "
                   "via the cuobjdump that ships with triton).")
@click.option("--jobs", "-j", type=click.IntRange(min=1), default=None,
              help="Parallel compile processes (default: all cores).")
@click.option("--json", "as_json", is_flag=True, help="One JSON object per (variant, target) per line.")
@click.option("--run-kernels/--no-run-kernels", default=True, show_default=True,
              help="Also compile the kernels 'litmus run --backend cuda' launches (grid mode with the run "
                   "harness, and parallel mode) and check each op compiles to the same code shape as in the "
                   "audited kernel (about three times the compile time).")
@friendly
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
    A triton outside the supported range (litmus doctor) gets a warning; the audit still runs.

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
    from litmus.toolchain import support_message

    supported, why = support_message()
    if not supported:
        click.echo(f"warning: {why}", err=True)
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
