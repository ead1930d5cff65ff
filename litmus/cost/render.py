"""The cost report: a rich table per family, the same as Markdown, and JSON for tools."""

from __future__ import annotations

from typing import Any, Sequence

from litmus.cost.ranking import CHEAPEST, Family, Row

COLUMNS: tuple[str, ...] = ("#", "variant", "model", "hardware", "p50 µs", "p99 µs", "stdev µs",
                            "runs A/B", "signals/s", "round trips", "mark")


NUMERIC = {"#", "p50 µs", "p99 µs", "stdev µs", "signals/s", "round trips"}


def _us(ns: float) -> str:
    return f"{ns / 1e3:.3f}"


def cells(k: int, row: Row) -> list[str]:
    """The plain text cells of one row (see :data:`COLUMNS`)."""
    m = row.measurement
    if m is None:
        return [str(k), row.variant, row.model.words, row.hardware or "-", "-", "-", "-", "-", "-", "-",
                f"skipped: {row.skipped}"]
    both = [x for r in m.runs for x in (r.p99, r.stdev)]
    p99 = max(both[0::2])
    stdev = max(both[1::2])
    rate = f"{m.signals_per_s:.3g}" if m.signals_per_s else "-"
    return [str(k), row.variant, row.model.words, row.hardware or "-", _us(m.p50), _us(p99), _us(stdev),
            m.agreement.words(), rate, f"{m.round_trips:,}/{m.asked:,}", row.mark]


def what(fam: Family) -> str:
    """What the family's latency figures are: a message's one-way latency or a barrier round."""
    shapes = {r.measurement.shape for r in fam.rows if r.measurement is not None}
    if shapes == {"barrier"}:
        return "time per barrier round"
    if shapes == {"message"}:
        return "one-way latency (round trip / 2)"
    return "one-way latency of a message, time per round of a barrier"


def family_table(fam: Family) -> Any:
    """A rich Table of one family, cheapest first."""
    from rich.markup import escape
    from rich.table import Table

    table = Table(title=escape(f"{fam.name}: {what(fam)}, cheapest first"))
    for col in COLUMNS:
        table.add_column(col, justify="right" if col in NUMERIC else "left", overflow="fold")
    for k, row in enumerate(fam.rows, 1):
        c = [escape(x) for x in cells(k, row)]
        style = "bold green" if row.mark == CHEAPEST else ("red" if not row.correct else "")
        if style:
            c[1] = f"[{style}]{c[1]}[/{style}]"
            c[-1] = f"[{style}]{c[-1]}[/{style}]"
        table.add_row(*c)
    return table


def markdown(families: Sequence[Family]) -> str:
    """Every family as a Markdown table."""
    out: list[str] = []
    for fam in families:
        out += [f"### {fam.name}", "", f"{what(fam)}, cheapest first.", "",
                "| " + " | ".join(COLUMNS) + " |", "|" + "---|" * len(COLUMNS)]
        for k, row in enumerate(fam.rows, 1):
            c = cells(k, row)
            if row.mark == CHEAPEST:
                c[1] = f"**{c[1]}**"
            out.append("| " + " | ".join(x.replace("|", "\\|") for x in c) + " |")
        out.append("")
    return "\n".join(out)


def report_dict(families: Sequence[Family], meta: dict[str, Any]) -> dict[str, Any]:
    """The JSON report: ``meta`` (backend, parameters, versions) and every family."""
    return {**meta, "families": [f.as_dict() for f in families]}
