"""One CSV row per results record (``litmus report --csv``): the record's fields, its outcome
counts by label, and its rate with the 95 % interval."""

from __future__ import annotations

from typing import Any

from litmus.report.record import RunRecord



CSV_COLUMNS = ("id", "test", "variant", "source", "expect", "verdict", "instances", "completed", "target_count",
               "sc", "weak", "forbidden", "timeout", "hang", "rate", "low_95", "high_95", "seconds_to_first", "seconds",
               "backend", "device", "triton")


def csv_row(r: RunRecord) -> dict[str, Any]:
    from litmus.report.rates import completed, rate_interval

    iv = rate_interval(r)
    counts = r.get("counts") or {}
    return {**{k: r.get(k) for k in CSV_COLUMNS}, **{k: counts.get(k, 0) for k in ("sc", "weak", "forbidden", "timeout", "hang")},
            "completed": completed(r), "rate": iv[0] if iv else None,
            "low_95": iv[1] if iv else None, "high_95": iv[2] if iv else None}
