"""``litmus report``: a results file as a table, Markdown, JSON, CSV, an HTML page, the
mutation score, or two runs compared; the rendering itself is :mod:`litmus.report`'s."""

from __future__ import annotations

import json
import sys
from typing import Any, Sequence

import click

from litmus.cli.app import friendly, main
from litmus.errors import LitmusError
from litmus.report.csv_rows import CSV_COLUMNS, csv_row
from litmus.report.rates import VERDICT_ORDER
from litmus.report.record import RunRecord


def _load_sources(records: Sequence[RunRecord], flag: str) -> list[Any]:
    from pathlib import Path

    from litmus.spec import load_tests

    sources = sorted({str(r["source"]) for r in records if r.get("source")})
    missing = [s for s in sources if not Path(s).is_file()]
    if missing:
        raise LitmusError(f"{flag} needs the pattern files the records name; not found here: "
                          f"{', '.join(missing)} (run from the folder the run was made in)")
    return load_tests(sources)


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
              type=click.Choice([*VERDICT_ORDER, "error"]),
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
@friendly
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
                               "records": [csv_row(r) for r in records],
                               **({"mutation": score.as_dict()} if score is not None else {})}))
        return
    if as_csv:
        import csv
        import io

        buf = io.StringIO()
        writer = csv.DictWriter(buf, fieldnames=CSV_COLUMNS, lineterminator="\n")
        writer.writeheader()
        for r in records:
            writer.writerow(csv_row(r))
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
