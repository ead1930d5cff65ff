"""The final table of a run: one row per variant with its verdict and counts."""

from __future__ import annotations

from typing import Any, Sequence

VERDICT_STYLE = {
    "VIOLATION": "bold red",
    "racy-witnessed": "yellow",
    "racy-unseen": "cyan",
    "correct": "green",
    "inconclusive": "magenta",
}


def _rate(res: Any) -> str:
    v = res.verdict
    if v.target_count:
        return f"{v.rate:.3g}"
    return f"<{v.bound_95:.2g}" if v.bound_95 is not None else "-"


def results_table(results: Sequence[Any], title: str = "") -> Any:
    """A rich Table of :class:`litmus.session.VariantResult` s."""
    from rich.markup import escape
    from rich.table import Table

    table = Table(title=escape(title) if title else None)
    for col, just in (
        ("pattern", "left"),
        ("variant", "left"),
        ("expect", "left"),
        ("verdict", "left"),
        ("instances", "right"),
        ("target", "right"),
        ("weak", "right"),
        ("forbidden", "right"),
        ("timeout", "right"),
        ("rate", "right"),
    ):
        table.add_column(col, justify=just)  # type: ignore[arg-type]
    for res in results:
        t = res.test
        expect = t.expect.outcome if t.expect else "-"
        if res.verdict is None:
            table.add_row(escape(t.name), escape(t.variant), expect,
                          f"[dim]skipped: {escape(res.skipped or '')}[/dim]", *["-"] * 6)
            continue
        v = res.verdict
        style = VERDICT_STYLE.get(v.verdict, "")
        table.add_row(
            escape(t.name),
            escape(t.variant),
            expect,
            f"[{style}]{v.verdict}[/{style}]" if style else v.verdict,
            f"{v.instances:,}",
            f"{v.target_count:,}",
            f"{v.counts['weak']:,}",
            f"{v.counts['forbidden']:,}",
            f"{v.counts['timeout']:,}",
            _rate(res),
        )
    return table


def verdict_summary(results: Sequence[Any]) -> dict[str, int]:
    """How many variants got each verdict (and how many were skipped)."""
    out: dict[str, int] = {}
    for res in results:
        key = res.verdict.verdict if res.verdict else "skipped"
        out[key] = out.get(key, 0) + 1
    return out
