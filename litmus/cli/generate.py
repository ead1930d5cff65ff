"""``litmus generate``: diy7-style tests from relaxation cycles."""

from __future__ import annotations

from typing import Sequence

import click

from litmus.cli.app import friendly, main
from litmus.cli.catalog import rel_path


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
@friendly
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
        click.echo(f"{g.name:<28} {g.forbidden:>3} forbidden {g.allowed:>3} allowed  {g.cycle}  -> {rel_path(str(g.path))}")
    click.echo(f"{len(made)} patterns, {sum(g.forbidden + g.allowed for g in made)} variants in {out}")
