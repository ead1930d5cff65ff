"""Percentiles, spread and the two-run agreement rule of ``litmus cost``."""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from typing import Any, Sequence

AGREE_TOLERANCE = 0.05
"""Two runs of one variant in one call must agree within this fraction at p50."""


@dataclass(frozen=True)
class Summary:
    """Latency samples in nanoseconds: how many, p50, p99, mean, standard deviation, min, max."""

    n: int
    p50: float
    p99: float
    mean: float
    stdev: float
    low: float
    high: float

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready fields."""
        return {k: (round(v, 3) if isinstance(v, float) else v) for k, v in asdict(self).items()}


def percentile(sorted_values: Sequence[float], q: float) -> float:
    """The ``q``-th percentile (0..100) of ascending ``sorted_values``, linearly interpolated."""
    if not sorted_values:
        raise ValueError("percentile of no samples")
    if len(sorted_values) == 1:
        return float(sorted_values[0])
    pos = (len(sorted_values) - 1) * q / 100.0
    lo = math.floor(pos)
    hi = min(lo + 1, len(sorted_values) - 1)
    return float(sorted_values[lo] + (sorted_values[hi] - sorted_values[lo]) * (pos - lo))


def summarize(samples: Sequence[float]) -> Summary:
    """The :class:`Summary` of ``samples`` (at least one)."""
    xs = sorted(float(x) for x in samples)
    if not xs:
        raise ValueError("summarize: no samples")
    mean = sum(xs) / len(xs)
    var = sum((x - mean) ** 2 for x in xs) / (len(xs) - 1) if len(xs) > 1 else 0.0
    return Summary(len(xs), percentile(xs, 50), percentile(xs, 99), mean, math.sqrt(var), xs[0], xs[-1])


@dataclass(frozen=True)
class Agreement:
    """Whether two runs agree at p50: ``spread`` = |a - b| / min(a, b)."""

    p50_a: float
    p50_b: float
    spread: float
    ok: bool
    tolerance: float = AGREE_TOLERANCE

    def words(self) -> str:
        """``agree (2.1 %)`` or ``DISAGREE (7.9 % > 5 %)``."""
        pct = f"{100 * self.spread:.1f} %"
        return f"agree ({pct})" if self.ok else f"DISAGREE ({pct} > {100 * self.tolerance:g} %)"

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready fields."""
        return {"p50_a": round(self.p50_a, 3), "p50_b": round(self.p50_b, 3), "spread": round(self.spread, 4),
                "ok": self.ok, "tolerance": self.tolerance}


def agreement(a: Summary, b: Summary, tolerance: float = AGREE_TOLERANCE) -> Agreement:
    """Compare two runs' p50 (relative to the smaller; two zero p50s agree)."""
    lo, hi = sorted((a.p50, b.p50))
    spread = 0.0 if hi == 0 else (math.inf if lo <= 0 else (hi - lo) / lo)
    return Agreement(a.p50, b.p50, spread, spread <= tolerance, tolerance)
