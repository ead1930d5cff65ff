"""``litmus lint``: the click command (registered in ``litmus.cli``)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import click

from litmus.errors import LitmusError
from litmus.lint.rules import RULES

_RULES_HELP = "\n".join(f"  {name:15s} {what}" for name, what in RULES.items())


@click.command("lint", epilog="\b\nRules:\n" + _RULES_HELP)
@click.argument("file", type=click.Path(dir_okay=False))
@click.option("--kernel", "-k", default=None, help="Lint only this @triton.jit function.")
@click.option("--target", default=None,
              help="Compile target: cuda:<capability> (cuda:90) or hip:<gfx arch> (hip:gfx942). "
                   "Default: hip:gfx942 for a file that imports iris, else cuda:90.")
@click.option("--signature", "-s", default=None, metavar="NAME=TYPE,...",
              help="Argument types and constexpr values, e.g. 'flag=*i32,n=i32,BLOCK=128'. Without them, "
                   "types come from annotations, a launch kernel[grid](...) in the file, or how the kernel "
                   "uses each parameter (a note says what was inferred); these override all of that.")
@click.option("--helpers", default=None, metavar="HELPERS.yaml", type=click.Path(dir_okay=False),
              help="YAML describing your own device helper library: module.function -> its ordering, e.g. "
                   "'my_lib.signal: {op: atomic_xchg, sem: release, scope: sys}' (docs/lint.md). iris, "
                   "Triton-distributed and torch symm_mem helpers are known without it.")
@click.option("--peer", "peers", multiple=True, metavar="ARG",
              help="A pointer argument that points at (or is written by) another GPU. Repeatable.")
@click.option("--json", "as_json", is_flag=True, help="The report as one JSON object.")
@click.option("--emit-yaml", "emit", default=None, metavar="OUT.yaml",
              help="Write the litmus pattern of the file's signalling ('-' for stdout), for litmus model/audit/run.")
def lint(file: str, kernel: str | None, target: str | None, signature: str | None, helpers: str | None,
         peers: tuple[str, ...], as_json: bool, emit: str | None) -> None:
    """Check your own Triton kernels for signalling bugs, on a CPU-only machine.

    Compiles each @triton.jit kernel of FILE to TTIR for --target (no GPU needed), finds its
    flags, spins, fences and CTA barriers, and reports each shape the memory model lets go
    wrong: the line, the catalog pattern it is, the model's verdict and the fix. Exit status:
    0 clean, 1 a finding the model calls incorrect, 2 bad input.

    No signature is needed: parameter types are inferred (a note names each, to override with
    --signature). Modules absent here are stubbed to import FILE; iris, Triton-distributed
    and torch symm_mem helpers get stand-ins with their real ordering (a note says which).

    \b
    Examples:
      litmus lint my_kernels.py
      litmus lint my_kernels.py --helpers my_lib.yaml
      litmus lint allreduce.py --kernel ring_kernel --peer flags --signature 'flags=*i32,N=i32,BLOCK=256'
      litmus lint allreduce.py --emit-yaml mine.yaml && litmus model mine.yaml
    """
    from litmus.codegen.targets import parse_target
    from litmus.lint.api import lint_file
    from litmus.lint.report import render_text
    from litmus.lint.signature import parse_signature

    try:
        if as_json and emit == "-":
            raise LitmusError("--json and --emit-yaml - both write to stdout; give --emit-yaml a file name")
        if target is not None:
            parse_target(target)
        sig = parse_signature(signature) if signature else {}
        report = lint_file(Path(file), kernel, target, sig, peers, helpers=helpers)
        if emit is not None:
            text = report.emit_yaml()
            if not text:
                raise LitmusError.at(file, None, "--emit-yaml: no kernel here raises or waits for a flag, so there "
                                     "is no pattern to write")
            if emit == "-":
                click.echo(text, nl=False)
            else:
                try:
                    Path(emit).write_text(text)
                except OSError as exc:
                    raise LitmusError(f"--emit-yaml {emit}: cannot write it ({exc.strerror})") from None
    except LitmusError as err:
        for problem in err.problems:
            click.echo(f"error: {problem}", err=True)
        sys.exit(2)
    if as_json:
        click.echo(json.dumps(report.as_dict()))
    elif emit != "-":
        click.echo(render_text(report), nl=False)
        if emit:
            click.echo(f"wrote {emit}: `litmus model {emit}` gives the model's verdict on it")
    sys.exit(1 if report.incorrect else 0)
