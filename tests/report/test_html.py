"""The HTML page: self-contained, shows what the issue lists, reproducible."""

from __future__ import annotations

import re
from pathlib import Path

from click.testing import CliRunner

from litmus.cli import main
from litmus.report.explanations import why_anchor
from litmus.report.html import build_context, command_text, render_page
from tests.report.conftest import write_jsonl


def _no_network(page: str) -> None:
    """Nothing the browser would fetch: no external script, style, image, font or frame."""
    assert not re.search(r"<(script|img|iframe|link)[^>]*\b(src|href)=", page, re.I)
    assert not re.search(r"url\(\s*['\"]?(https?:)?//", page, re.I)
    assert not re.search(r"@import", page)


def test_page_shows_matrix_plots_model_mutation_machine_and_cost(h200_records, at_root) -> None:
    ctx = build_context(h200_records, "t", source="h200")
    page = render_page(ctx)
    _no_network(page)
    assert page.startswith("<!DOCTYPE html>")
    # rates, histograms, time to first witness; then one picture per explained outcome
    assert page.count("<svg") == 3 + sum(1 for x in ctx.explained if x.svg)
    assert 'id=matrix' in page and page.count('class="cell v-') == len(h200_records)
    assert len(re.findall(r'<tr id="row-', page)) == len(h200_records)
    # the model's allowed states, the mutation score, the machine and the command
    assert "forbids target" in page and "allows target" in page and "P1:r0=" in page
    assert "mutation score" in page and f"{ctx.mutation.mutants}, witnessed: {len(ctx.mutation.witnessed)}" in page
    assert "NVIDIA H200" in page and "triton" in page and "3.6.0" in page
    assert "litmus run catalog/" in page and "--time-budget 0.5" in page and "--seed 1" in page
    assert "id=cost" in page and "instances / s" in page
    # a witnessed variant's rate with its interval, an unseen one's bound
    assert re.search(r"0\.0159 \[0\.0158, 0\.016\]", page)
    assert "&lt; " in page
    assert "(may hang)" in page  # MP-reset-race: spins that can never exit
    # each witnessed race links to the execution that reaches the outcome it saw
    witnessed = [str(r["id"]) for r in h200_records if r["verdict"] == "racy-witnessed"]
    assert witnessed and [x.test_id for x in ctx.explained] == witnessed
    assert all(f'href="#{why_anchor(i)}"' in page and f'id="{why_anchor(i)}"' in page for i in witnessed)
    assert "One execution that reaches it" in page
    assert render_page(build_context(h200_records, "t", source="h200")) == page  # byte-for-byte reproducible


def test_audit_column_from_a_saved_audit(h200_records, at_root) -> None:
    audit = [{"id": "MP-iris-volatile[volatile-as-written]", "target": "hip:gfx942", "status": "finding",
              "findings": [{"op": "P1 #0 load volatile on x", "found": "lacks sc0", "declared": False}]},
             {"id": "MP-iris-volatile[volatile-as-written]", "target": "cuda:90", "status": "pass", "findings": []}]
    page = render_page(build_context(h200_records, "t", audit_records=audit))
    assert "<th class=\"\">audit cuda:90</th>" in page and "audit hip:gfx942" in page
    assert 'class="a-finding"' in page and "lacks sc0" in page


def test_audit_compiled_here_for_one_variant(at_root, h200_records) -> None:
    [rec] = [r for r in h200_records if r["id"] == "SB[relaxed-sys]"]
    ctx = build_context([rec], "t", audit=True, jobs=1)
    assert {t for _i, t in ctx.audit} == {"cuda:90", "hip:gfx942"}
    assert "compiled here with triton" in ctx.audit_note
    assert 'class="a-pass"' in render_page(ctx)


def test_missing_pattern_files_and_minimal_records(tmp_path: Path) -> None:
    recs = [{"id": "X[a]", "test": "X", "variant": "a", "source": str(tmp_path / "gone.yaml"),
             "verdict": "inconclusive", "instances": 50, "completed": 5, "target_count": 0},
            {"id": "X[b]", "test": "X", "variant": "b", "verdict": "VIOLATION", "instances": 10, "target_count": 1,
             "counts": {"forbidden": 1}, "histogram": [{"state": {"r": 1}, "count": 1, "label": "forbidden",
                                                         "target": True}]}]
    ctx = build_context(recs, "t")
    page = render_page(ctx)
    assert ctx.mutation is None and "gone.yaml" in page and "not here" in page
    assert "v-VIOLATION" in page and "v-inconclusive" in page
    assert render_page(build_context([], "empty")).count("<svg") == 0


def test_command_is_the_recorded_one_when_there_is_one() -> None:
    assert command_text([{"command": "litmus run MP -n 2"}]) == ("litmus run MP -n 2", True)
    text, exact = command_text([{"source": "a.yaml", "backend": "cpu", "config": {"iterations": 2, "seed": 0,
                                                                                 "stress": {"name": "heavy"}}}])
    assert not exact and text == "litmus run a.yaml --backend cpu --iterations 2 --seed 0 --stress heavy"


def test_cli_writes_the_page(h200_records, at_root, tmp_path: Path) -> None:
    results = write_jsonl(tmp_path / "r.jsonl", h200_records)
    out = tmp_path / "page.html"
    res = CliRunner().invoke(main, ["report", str(results), "--html", str(out), "--title", "My run"])
    assert res.exit_code == 0, res.output
    page = out.read_text()
    assert "<title>My run</title>" in page and "<svg" in page
    res = CliRunner().invoke(main, ["report", str(results), "--audit"])
    assert res.exit_code == 2 and "--html" in res.output
