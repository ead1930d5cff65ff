"""The report page's explanations: for each variant that showed an outcome worth a question (a
forbidden one, or a race's target), what the model says of it (``litmus explain``), as text
and, where graphviz's ``dot`` is installed, as the picture."""

from __future__ import annotations

import html
import re
from dataclasses import dataclass
from typing import Any, Mapping, Sequence

from litmus.report.record import RunRecord

EXPLAINED = ("VIOLATION", "declared-miscompile", "racy-witnessed")
"""Verdicts whose row links to an explanation of the outcome it saw."""

MAX_EXPLAINED = 40
"""Explanations one page holds (each costs a model search and a drawing); the rest are named."""


@dataclass(frozen=True)
class Explained:
    """One record's explanation: the outcome, the model's text, and its picture (None: no
    ``dot``, or nothing to draw)."""

    test_id: str
    state: Mapping[str, int]
    text: str
    svg: str | None


def why_anchor(test_id: str) -> str:
    """The HTML id of a record's explanation."""
    return "why-" + re.sub(r"[^A-Za-z0-9_-]+", "_", test_id).strip("_")


def observed_state(record: RunRecord) -> Mapping[str, int] | None:
    """The outcome a record's explanation is about: the most frequent forbidden one for a
    violation, the most frequent target one for a witnessed race."""
    label = "forbidden" if record.get("verdict") != "racy-witnessed" else None
    bins = [b for b in record.get("histogram") or []
            if (b.get("label") == label if label else b.get("target"))]
    if not bins:
        return None
    return dict(max(bins, key=lambda b: int(b.get("count", 0)))["state"])


def explain_records(records: Sequence[RunRecord], tests: Mapping[str, Any]) -> tuple[list[Explained], list[str]]:
    """The explanations of ``records`` whose verdict is in :data:`EXPLAINED` and whose test is in
    ``tests`` (at most :data:`MAX_EXPLAINED`), and the ids left out for that limit."""
    from litmus.errors import LitmusError
    from litmus.explain import explain, render_text, svg_text
    from litmus.model import ptx_model_for

    out: list[Explained] = []
    left: list[str] = []
    for r in records:
        rid = str(r.get("id"))
        state = observed_state(r) if r.get("verdict") in EXPLAINED else None
        if state is None or rid not in tests:
            continue
        if len(out) == MAX_EXPLAINED:
            left.append(rid)
            continue
        test = tests[rid]
        text_state = " /\\ ".join(f"{k}={v}" for k, v in state.items())
        try:
            x = explain(test, text_state, ptx_model_for(test))
        except LitmusError as e:
            out.append(Explained(rid, state, f"(no explanation: {str(e).splitlines()[0]})", None))
            continue
        try:
            svg: str | None = svg_text(x)
        except LitmusError:
            svg = None
        out.append(Explained(rid, state, render_text(x), svg))
    return out, left


def explanations_html(explained: Sequence[Explained], left: Sequence[str]) -> str:
    """One block per explanation (its anchor, the text, the picture), then the ids left out."""
    parts = []
    for x in explained:
        state = " ".join(f"{k}={v}" for k, v in x.state.items())
        picture = f"<div class=plot>{_inline(x.svg)}</div>" if x.svg else ""
        parts.append(f'<div id="{why_anchor(x.test_id)}" class=why><h3 class=mono>{html.escape(x.test_id)}: '
                     f'{html.escape(state)}</h3><pre class=cmd>{html.escape(x.text)}</pre>{picture}</div>')
    if explained and not any(x.svg for x in explained):
        parts.insert(0, "<p class=muted>No pictures: graphviz's dot program is not installed here (apt-get install "
                        "graphviz); the text says the same.</p>")
    if left:
        parts.append(f"<p class=muted>Not explained here ({len(left)}, past {MAX_EXPLAINED}): "
                     + ", ".join(html.escape(i) for i in left) + "; <code>litmus explain</code> explains each.</p>")
    return "".join(parts)


def _inline(svg: str) -> str:
    """An SVG document as markup to place in the page (its XML prologue and doctype dropped)."""
    start = svg.find("<svg")
    return svg[start:] if start >= 0 else ""
