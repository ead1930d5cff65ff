"""Families of variants ranked by cost; the cheapest correct variant of each marked."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from litmus.cost.measure import Measurement
from litmus.cost.verdicts import ModelVerdict

CHEAPEST = "cheapest correct"
CHEAPER_INCORRECT = "cheaper, but incorrect"
HW_BAD = ("VIOLATION",)


def unranked_reason(m: Measurement) -> str | None:
    """Why a measurement's p50 cannot stand as a cost (runs disagree, round trips missing), or None."""
    if not m.agreement.ok:
        return f"not ranked: the two runs {m.agreement.words()}"
    if m.round_trips < m.asked:
        return f"not ranked: {m.round_trips:,} of {m.asked:,} round trips completed"
    return None


@dataclass
class Row:
    """One variant of a family: its measurement (None when skipped), verdicts and its mark."""

    test_id: str
    variant: str
    model: ModelVerdict
    measurement: Measurement | None
    hardware: str | None = None
    skipped: str | None = None
    mark: str = ""

    @property
    def correct(self) -> bool:
        """Correct under the model and not contradicted by a hardware VIOLATION."""
        return self.model.correct and not (self.hardware or "").startswith(HW_BAD)

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready fields."""
        return {"id": self.test_id, "variant": self.variant, "model": self.model.words,
                "correct": self.correct, "hardware": self.hardware, "mark": self.mark, "skipped": self.skipped,
                "cost": self.measurement.as_dict() if self.measurement else None}


@dataclass
class Family:
    """The variants of one pattern, cheapest first (skipped ones last)."""

    name: str
    rows: list[Row] = field(default_factory=list)

    @property
    def cheapest_correct(self) -> Row | None:
        """The first correct row whose measurement stands (both runs agree, every round trip done)."""
        return next((r for r in self.rows if r.measurement is not None and r.correct
                     and unranked_reason(r.measurement) is None), None)

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready fields."""
        best = self.cheapest_correct
        return {"family": self.name, "cheapest_correct": best.test_id if best else None,
                "rows": [r.as_dict() for r in self.rows]}


def rank(rows: list[tuple[str, Row]]) -> list[Family]:
    """Group ``(family name, row)`` pairs by family, sort each by p50 (skipped last) and mark the
    cheapest correct row and every incorrect row cheaper than it.  A row whose two runs disagree
    or whose round trips did not all complete is marked as not ranked and is never the cheapest
    correct one: its p50 is no cost."""
    families: dict[str, Family] = {}
    for name, row in rows:
        families.setdefault(name, Family(name)).rows.append(row)
    for fam in families.values():
        fam.rows.sort(key=lambda r: (r.measurement is None, r.measurement.p50 if r.measurement else 0.0, r.test_id))
        best = fam.cheapest_correct
        for r in fam.rows:
            r.mark = ""
        if best is not None:
            best.mark = CHEAPEST
        for r in fam.rows:
            if r is best:
                break
            if r.measurement is not None and not r.correct:
                r.mark = CHEAPER_INCORRECT
        if best is None:
            for r in fam.rows:
                if r.measurement is not None and not r.correct:
                    r.mark = "incorrect (no correct variant measured)"
        for r in fam.rows:  # a cost that does not stand says so
            reason = unranked_reason(r.measurement) if r.measurement is not None else None
            if reason:
                r.mark = f"{r.mark}; {reason}" if r.mark else reason
    return list(families.values())
