"""Two results files side by side: which verdicts got worse or better, which rates moved.

Variants are matched by id (``NAME[variant]``). A verdict *got worse* when it moved towards the
front of :data:`litmus.report.rates.VERDICT_ORDER` (VIOLATION, inconclusive, racy-unseen,
racy-witnessed, correct), or when a variant only B holds is a VIOLATION. A rate *moved* when the
95 % intervals of A and B do not overlap (Wilson when seen, [0, 3/N] when not). See docs/report.md.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Sequence

from litmus.report.rates import rate_cell, rate_interval, verdict_rank
from litmus.report.record import RunRecord

KINDS = ("worse", "better", "rate", "only-a", "only-b", "same")


@dataclass(frozen=True)
class Change:
    """One variant in A and/or B."""

    id: str
    a: RunRecord | None
    b: RunRecord | None

    @property
    def verdict_a(self) -> str | None:
        return None if self.a is None else str(self.a.get("verdict"))

    @property
    def verdict_b(self) -> str | None:
        return None if self.b is None else str(self.b.get("verdict"))

    @property
    def rate_move(self) -> str:
        """``up`` or ``down`` when the 95 % intervals of A and B are disjoint, else ``""``."""
        if self.a is None or self.b is None:
            return ""
        ia, ib = rate_interval(self.a), rate_interval(self.b)
        if ia is None or ib is None:
            return ""
        if ib[1] > ia[2]:
            return "up"
        if ib[2] < ia[1]:
            return "down"
        return ""

    @property
    def ratio(self) -> float | None:
        """Rate in B / rate in A, when both saw the target."""
        if self.a is None or self.b is None or not self.a.get("target_count") or not self.b.get("target_count"):
            return None
        ia, ib = rate_interval(self.a), rate_interval(self.b)
        return ib[0] / ia[0] if ia and ib and ia[0] else None

    @property
    def kind(self) -> str:
        """worse, better, rate (same verdict, the rate moved), only-a, only-b or same."""
        if self.a is None:
            return "worse" if self.verdict_b == "VIOLATION" else "only-b"
        if self.b is None:
            return "only-a"
        ra, rb = verdict_rank(self.verdict_a), verdict_rank(self.verdict_b)
        if rb < ra:
            return "worse"
        if rb > ra:
            return "better"
        return "rate" if self.rate_move else "same"

    def as_dict(self) -> dict[str, Any]:
        def side(r: RunRecord | None) -> dict[str, Any] | None:
            if r is None:
                return None
            iv = rate_interval(r)
            return {"verdict": r.get("verdict"), "instances": r.get("instances"), "completed": r.get("completed"),
                    "target_count": r.get("target_count"), "rate": iv[0] if iv else None,
                    "low_95": iv[1] if iv else None, "high_95": iv[2] if iv else None}

        return {"id": self.id, "change": self.kind, "rate_move": self.rate_move, "ratio": self.ratio,
                "a": side(self.a), "b": side(self.b)}


def compare_records(a: Sequence[RunRecord], b: Sequence[RunRecord]) -> list[Change]:
    """Every variant of A in A's order, then those only B holds; a later record of an id wins."""
    by_a = {str(r.get("id")): r for r in a}
    by_b = {str(r.get("id")): r for r in b}
    ids = list(by_a) + [i for i in by_b if i not in by_a]
    return [Change(i, by_a.get(i), by_b.get(i)) for i in ids]


def any_worse(changes: Sequence[Change]) -> bool:
    return any(c.kind == "worse" for c in changes)


def change_label(c: Change) -> str:
    """Text for the change column."""
    if c.kind == "worse":
        return "WORSE" if c.a is not None else "WORSE (new)"
    if c.kind == "rate":
        return f"rate {c.rate_move}"
    if c.kind in ("only-a", "only-b"):
        return f"only in {c.kind[-1].upper()}"
    return c.kind


def _ratio_text(c: Change) -> str:
    r = c.ratio
    return "-" if r is None else f"x{r:.3g}"


def counts_line(changes: Sequence[Change]) -> str:
    from collections import Counter

    counts = Counter(c.kind for c in changes)
    return ", ".join(f"{k}: {counts[k]}" for k in KINDS if counts.get(k)) or "nothing to compare"


def compare_rows(changes: Sequence[Change], everything: bool = False) -> list[list[str]]:
    """Rows for :func:`litmus.report.table.text_table`: change, id, verdict A, verdict B, rate A,
    rate B, B/A; worse first, then better, rates that moved, and variants only one run holds;
    unchanged ones only with ``everything``."""
    rows = []
    order = {"worse": 0, "better": 1, "rate": 2, "only-b": 3, "only-a": 4, "same": 5}
    for c in sorted(changes, key=lambda c: order[c.kind]):
        if c.kind == "same" and not everything:
            continue
        rows.append([change_label(c), c.id, c.verdict_a or "-", c.verdict_b or "-",
                     rate_cell(c.a) if c.a else "-", rate_cell(c.b) if c.b else "-", _ratio_text(c)])
    return rows


COMPARE_HEADERS = ("change", "variant", "verdict A", "verdict B", "rate A [95 %]", "rate B [95 %]", "B/A")
