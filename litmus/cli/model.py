"""``litmus model``: the final states the memory model allows, herd style or as JSON."""

from __future__ import annotations

import json
import sys
from typing import Sequence

import click

from litmus.cli.app import friendly, main
from litmus.errors import LitmusError
from litmus.model import DEFAULT_MODEL, MODELS


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
@friendly
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
