"""The final table of a run, and plain text tables: names are never cut.

A rich table wraps a cell that does not fit (``overflow="fold"``) instead of ending it with an
ellipsis; :func:`print_wide` prints it at its natural width when stdout is not a terminal, and
:func:`text_table` lays out plain text as wide as its widest cell.
"""

from __future__ import annotations

import sys
from typing import Any, Sequence

VERDICT_STYLE = {
    "VIOLATION": "bold red",
    "declared-miscompile": "dark_orange",
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
        ("hung", "right"),
        ("rate", "right"),
    ):
        table.add_column(col, justify=just, overflow="fold")  # type: ignore[arg-type]
    for res in results:
        t = res.test
        expect = t.expect.outcome if t.expect else "-"
        if res.verdict is None:
            error = getattr(res, "error", None)
            shown = (f"[bold red]error[/bold red]: {escape(error)}" if error is not None
                     else f"[dim]skipped: {escape(res.skipped or '')}[/dim]")
            table.add_row(escape(t.name), escape(t.variant), expect, shown, *["-"] * 7)
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
            f"{v.counts.get('hang', 0):,}",
            _rate(res),
        )
    return table


def verdict_summary(results: Sequence[Any]) -> dict[str, int]:
    """How many variants got each verdict (and how many were skipped)."""
    out: dict[str, int] = {}
    for res in results:
        key = res.verdict.verdict if res.verdict else ("error" if getattr(res, "error", None) else "skipped")
        out[key] = out.get(key, 0) + 1
    return out


def print_wide(renderable: Any, stderr: bool = False) -> None:
    """Print a rich renderable; when the stream is not a terminal, as wide as it needs (a pipe
    or file gets whole lines, never names cut to the default 80 columns)."""
    from rich.console import Console

    stream = sys.stderr if stderr else sys.stdout
    console = Console(file=stream)
    if not console.is_terminal:
        width = console.measure(renderable, options=console.options.update_width(1 << 16)).maximum
        console = Console(file=stream, width=max(80, width))
    console.print(renderable)


def text_table(headers: Sequence[str], rows: Sequence[Sequence[Any]], right: Sequence[int] = (),
               sep: str = "  ") -> str:
    """Plain text columns, each as wide as its widest cell: nothing is ever cut. ``right``: the
    indexes of right-aligned (numeric) columns. Trailing spaces are trimmed."""
    cells = [[str(h) for h in headers]] + [["" if c is None else str(c) for c in row] for row in rows]
    widths = [max(len(r[i]) if i < len(r) else 0 for r in cells) for i in range(len(headers))]
    right_set = set(right)
    lines = []
    for n, row in enumerate(cells):
        parts = [(row[i].rjust(w) if i in right_set else row[i].ljust(w)) for i, w in enumerate(widths)]
        lines.append(sep.join(parts).rstrip())
        if n == 0:
            lines.append(sep.join("-" * w for w in widths))
    return "\n".join(lines) + "\n"
