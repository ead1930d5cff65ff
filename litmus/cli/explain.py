"""``litmus explain``: why the model allows or forbids a final state, as text, JSON or a picture."""

from __future__ import annotations

import json

import click

from litmus.cli.app import friendly, main
from litmus.errors import LitmusError
from litmus.model import DEFAULT_MODEL, MODELS


@main.command()
@click.argument("target", metavar="PATTERN_OR_FILE")
@click.option("--variant", "-v", help="Only variants matching this name or shell pattern.")
@click.option("--state", "state", metavar="STATE",
              help="The final state to explain, as a condition: 'P1:r0=1 /\\ x=0' (a register only one "
                   "thread has may drop its thread: 'r0=1'). Default: the target of the variant's condition "
                   "(its prop; for forall, a counter-example).")
@click.option("--model", "model_name", type=click.Choice(list(MODELS)), default=DEFAULT_MODEL, show_default=True,
              help="Memory model: ptx75 (PTX 7.5 with proxies), ptx (PTX 6.0) or sc.")
@click.option("--cat", "cat_file", metavar="FILE.cat", help="Use the model this herd-style .cat file defines "
              "instead of --model; axioms are named as the file names them.")
@click.option("--json", "as_json", is_flag=True, help="One JSON object per variant per line (docs/explain.md).")
@click.option("--svg", "svg_file", metavar="FILE", help="Draw the execution (or the rejecting cycle) as SVG; needs "
              "graphviz's dot program. One variant only.")
@click.option("--dot", "dot_file", metavar="FILE", help="Write the drawing as graphviz source (needs only the Python "
              "package graphviz). One variant only.")
@friendly
def explain(target: str, variant: str | None, state: str | None, model_name: str, cat_file: str | None,
            as_json: bool, svg_file: str | None, dot_file: str | None) -> None:
    """Explain why a final state is allowed or forbidden. No GPU needed.

    Allowed: one execution that reaches the state, per thread in program order, with its
    reads-from (from the initial state shown as such), coherence and from-reads edges, and the
    synchronisation it lacks (no morally strong pair, no release/acquire pattern, scopes that do
    not include each other). Forbidden: for the candidate executions that would reach it, the
    axiom that rejects each, with a shortest cycle in named relations, grouped by cycle; or that
    no candidate execution reaches it at all. Every explanation is re-checked before it is
    printed. PATTERN_OR_FILE is a catalog pattern name, a YAML file or a PTX .litmus file.

    \b
    Examples:
      litmus explain MP --variant relaxed-xcta-sys
      litmus explain MP --variant relacq-xcta-sys --svg mp.svg
      litmus explain SB --variant relaxed-sys --state 'P0:r0=0 /\\ P1:r0=0' --model sc
      litmus explain ../shared/ptx-litmus/Manual/MP-gpu.litmus --json
    """
    from litmus.explain import explain as explain_test
    from litmus.explain import render_svg, render_text
    from litmus.explain.graph import write_dot
    from litmus.model import load_cat
    from litmus.spec import filter_variants, load_tests

    model = model_name if cat_file is None else load_cat(cat_file)
    tests = load_tests([target])
    if variant is not None:
        tests = filter_variants(tests, variant)
    if (svg_file or dot_file) and len(tests) != 1:
        names = ", ".join(t.id for t in tests[:5]) + (" ..." if len(tests) > 5 else "")
        raise LitmusError(f"--svg and --dot draw one variant, and {target!r} has {len(tests)} ({names}); "
                          "pick one with --variant NAME")
    for k, t in enumerate(tests):
        x = explain_test(t, state, model)
        if as_json:
            click.echo(json.dumps(x.as_dict()))
        else:
            click.echo(("\n" if k else "") + render_text(x))
        if dot_file:
            write_dot(x, dot_file)
        if svg_file:
            render_svg(x, svg_file)
