"""Summaries of a results file (JSON Lines written by ``litmus run``), as text or Markdown."""

from __future__ import annotations

from collections import Counter
from typing import Iterable

from litmus.report.record import RunRecord


def rate_text(r: RunRecord) -> str:
    """The observed rate of the target outcome, or ``< bound`` (3/N) when it was not seen."""
    if r.get("target_count"):
        return f"{r['rate']:.3g}"
    return f"< {r['bound_95']:.2g}" if r.get("bound_95") is not None else "-"


def _first(r: RunRecord) -> str:
    s = r.get("seconds_to_first")
    return f"{s:.2f}" if isinstance(s, (int, float)) else "-"


def markdown_table(records: Iterable[RunRecord]) -> str:
    """One Markdown row per record: pattern, variant, expectation, verdict, counts, rate."""
    lines = [
        "| pattern | variant | expect | verdict | instances | target seen | weak | forbidden | timeout | hung | rate (or 95 % bound) | s to first |",
        "|---|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in records:
        c = r.get("counts", {})
        verdict = f"**{r['verdict']}**" if r["verdict"] == "VIOLATION" else r["verdict"]
        lines.append(
            f"| {r['test']} | {r['variant']} | {r.get('expect') or '-'} | {verdict} | {r['instances']:,} | "
            f"{r['target_count']:,} | {c.get('weak', 0):,} | {c.get('forbidden', 0):,} | {c.get('timeout', 0):,} | "
            f"{c.get('hang', 0):,} | {rate_text(r)} | {_first(r)} |"
        )
    return "\n".join(lines) + "\n"


def verdict_counts(records: Iterable[RunRecord]) -> Counter[str]:
    """How many records carry each verdict."""
    return Counter(r["verdict"] for r in records)


def machine_line(records: list[RunRecord]) -> str:
    """Backend, device and versions of the first record (they are the same for one run)."""
    if not records:
        return "no records"
    r = records[0]
    keys = ("backend", "device", "arch", "world_size", "torch", "triton")
    return ", ".join(f"{k} {r[k]}" for k in keys if r.get(k) is not None)
