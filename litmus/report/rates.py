"""Rates of a results record with their 95 % bounds, and the order of verdicts."""

from __future__ import annotations

import math

from litmus.bound import rule_of_three
from litmus.report.record import RunRecord

Z95 = 1.959963984540054

VERDICT_ORDER = ("VIOLATION", "declared-miscompile", "inconclusive", "racy-unseen", "racy-witnessed", "correct")
"""Verdicts from worst to best (see docs/report.md): a forbidden outcome seen; one a miscompile
the catalog declares explains; no evidence; a mutant the harness did not kill; a race the model
allows, shown; forbidden and never seen."""

VERDICT_COLOURS = {
    "VIOLATION": "#d62728",
    "declared-miscompile": "#b07a00",
    "racy-witnessed": "#f0a202",
    "racy-unseen": "#3b8fc4",
    "correct": "#2ca02c",
    "inconclusive": "#9467bd",
}

LABEL_COLOURS = {"sc": "#7f9fbf", "weak": "#f0a202", "forbidden": "#d62728", "timeout": "#9467bd", "hang": "#8c564b"}


def verdict_rank(verdict: str | None) -> int:
    """0 for the worst verdict (VIOLATION) up to 5 for ``correct``; unknown verdicts rank 1."""
    try:
        return VERDICT_ORDER.index(str(verdict))
    except ValueError:
        return 1


def completed(r: RunRecord) -> int:
    """Instances that completed (records without ``completed``: instances less timeouts and hangs,
    as :attr:`litmus.classify.Verdict.completed` counts them)."""
    if r.get("completed") is not None:
        return int(r["completed"])
    counts = r.get("counts") or {}
    return max(0, int(r.get("instances") or 0) - int(counts.get("timeout", 0)) - int(counts.get("hang", 0)))


def ended(r: RunRecord) -> int:
    """Instances that are evidence of absence: completed, or provably hung (``counts["hang"]``;
    litmus.classify)."""
    return completed(r) + int((r.get("counts") or {}).get("hang", 0))


def timed_out_witnesses(r: RunRecord) -> int:
    """Hang witnesses that timed out rather than provably hung (records without ``hung_witnesses``
    made before hangs were proven: all of them)."""
    return int(r.get("hang_witnesses") or 0) - int(r.get("hung_witnesses") or 0)


def wilson(k: int, n: int, z: float = Z95) -> tuple[float, float]:
    """The Wilson score interval of ``k`` successes in ``n`` trials (95 % by default)."""
    if n <= 0:
        return 0.0, 1.0
    p = min(max(k, 0), n) / n
    den = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / den
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / den
    return max(0.0, centre - half), min(1.0, centre + half)


def rate_interval(r: RunRecord) -> tuple[float, float, float] | None:
    """(rate, low, high) of the target outcome at 95 %: Wilson when seen, (0, 0, 3/N) when not
    (the rule of three, as the record's ``bound_95``); None without ended instances.

    A seen target's trials are the ended instances plus the timed-out hang witnesses, which
    count in ``target_count`` (litmus.classify), so the rate equals the record's ``rate``."""
    k = int(r.get("target_count") or 0)
    if k == 0:
        n = ended(r)
        if n <= 0:
            return None
        bound = r.get("bound_95")
        return 0.0, 0.0, float(bound) if bound is not None else min(1.0, rule_of_three(n) or 1.0)
    n = ended(r) + timed_out_witnesses(r)
    if n <= 0:
        return None
    low, high = wilson(k, n)
    return k / n, low, high


def rate_cell(r: RunRecord) -> str:
    """``0.0159 [0.0158, 0.016]`` when seen, ``< 2.9e-09`` when not, ``-`` without instances."""
    iv = rate_interval(r)
    if iv is None:
        return "-"
    rate, low, high = iv
    if not r.get("target_count"):
        return f"< {high:.2g}"
    return f"{rate:.3g} [{low:.3g}, {high:.3g}]"
