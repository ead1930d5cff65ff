"""Plots of a results file as inline SVG (matplotlib, no pyplot, no display needed).

Each function returns one ``<svg>`` element as text, or ``""`` when there is nothing to plot.
Text stays text (``svg.fonttype: none``) so the page is small and searchable, and the output
is byte-for-byte reproducible (fixed hash salt, no date).
"""

from __future__ import annotations

import io
import re
from typing import Any, Callable, Mapping, Sequence

from litmus.report.rates import LABEL_COLOURS, VERDICT_COLOURS, rate_interval
from litmus.report.record import RunRecord

RC = {
    "svg.fonttype": "none",
    "svg.hashsalt": "litmus",
    "font.size": 8,
    "font.family": "sans-serif",
    "axes.titlesize": 8,
    "axes.spines.top": False,
    "axes.spines.right": False,
}

MAX_HISTOGRAMS = 48


def _svg(draw: Callable[[Any], None], width: float, height: float) -> str:
    import matplotlib
    from matplotlib.figure import Figure

    with matplotlib.rc_context(RC):
        fig = Figure(figsize=(width, height), layout="constrained")
        draw(fig)
        buf = io.StringIO()
        fig.savefig(buf, format="svg", metadata={"Date": None, "Creator": "litmus (matplotlib)"})
    text = buf.getvalue()
    text = text[text.index("<svg"):]  # drop the XML declaration and DOCTYPE: inline in HTML
    return re.sub(r"<metadata>.*?</metadata>\s*", "", text, flags=re.S)


def _legend_handles(labels: Mapping[str, str]) -> list[Any]:
    from matplotlib.patches import Patch

    return [Patch(color=c, label=k) for k, c in labels.items()]


def rates_svg(records: Sequence[RunRecord]) -> str:
    """One row per record: the target outcome's rate with its Wilson 95 % interval when seen,
    its 95 % upper bound 3/N (a left-pointing triangle) when not, on a log axis."""
    rows = [(r, iv) for r in records if (iv := rate_interval(r)) is not None]
    if not rows:
        return ""
    rows.sort(key=lambda x: (x[1][0] if x[1][0] > 0 else x[1][2] * 1e-3, x[1][2]))

    def draw(fig: Any) -> None:
        ax = fig.add_subplot()
        for y, (r, (rate, low, high)) in enumerate(rows):
            colour = VERDICT_COLOURS.get(str(r.get("verdict")), "#555555")
            if rate > 0:
                ax.errorbar([rate], [y], xerr=[[rate - low], [high - rate]], fmt="o", ms=3.5,
                            color=colour, ecolor=colour, elinewidth=1, capsize=2)
            else:
                ax.plot([high], [y], marker="<", ms=4.5, color=colour, linestyle="none")
        ax.set_yticks(range(len(rows)), [str(r.get("id")) for r, _ in rows], fontsize=6)
        ax.set_ylim(-0.7, len(rows) - 0.3)
        ax.set_xscale("log")
        ax.set_xlabel("rate of the target outcome (completed instances); ● seen with its 95 % "
                      "interval, ◀ not seen: 95 % upper bound 3/N")
        ax.grid(axis="x", which="major", alpha=0.3)
        present = {str(r.get("verdict")) for r, _ in rows}
        ax.legend(handles=_legend_handles({k: c for k, c in VERDICT_COLOURS.items() if k in present}),
                  loc="lower right", fontsize=7, framealpha=0.9)

    return _svg(draw, 9.0, max(2.0, 0.13 * len(rows) + 1.0))


def first_witness_svg(records: Sequence[RunRecord]) -> str:
    """Seconds from the start of a variant's run to its first sighting of the target outcome."""
    rows = [r for r in records if isinstance(r.get("seconds_to_first"), (int, float)) and r.get("target_count")]
    if not rows:
        return ""
    rows.sort(key=lambda r: float(r["seconds_to_first"]))

    def draw(fig: Any) -> None:
        ax = fig.add_subplot()
        ys = range(len(rows))
        ax.barh(ys, [max(float(r["seconds_to_first"]), 1e-6) for r in rows],
                color=[VERDICT_COLOURS.get(str(r.get("verdict")), "#555555") for r in rows])
        ax.set_yticks(ys, [str(r.get("id")) for r in rows], fontsize=6)
        ax.set_ylim(-0.7, len(rows) - 0.3)
        ax.set_xscale("log")
        ax.set_xlabel("seconds to the first sighting of the target outcome")
        ax.grid(axis="x", which="major", alpha=0.3)

    return _svg(draw, 9.0, max(1.6, 0.14 * len(rows) + 0.9))


def state_text(state: Mapping[str, Any]) -> str:
    """``P1:r0=1 P1:r1=0 x=1``."""
    return " ".join(f"{k}={v}" for k, v in state.items())


def histograms_svg(records: Sequence[RunRecord]) -> tuple[str, int]:
    """Outcome histograms, one panel per record that saw its target (or a forbidden outcome),
    the most frequent first; at most :data:`MAX_HISTOGRAMS` panels. Returns the SVG and how
    many records qualified."""
    rows = [r for r in records if r.get("histogram") and (r.get("target_count") or
                                                           (r.get("counts") or {}).get("forbidden"))]
    if not rows:
        return "", 0
    rows.sort(key=lambda r: -(rate_interval(r) or (0.0, 0.0, 0.0))[0])
    shown = rows[:MAX_HISTOGRAMS]
    ncols = 2
    nrows = (len(shown) + ncols - 1) // ncols

    from matplotlib.ticker import LogLocator, NullFormatter

    def draw(fig: Any) -> None:
        axes = fig.subplots(nrows, ncols, squeeze=False)
        for ax in axes.flat[len(shown):]:
            ax.set_axis_off()
        for ax, r in zip(axes.flat, shown):
            bins = sorted(r["histogram"], key=lambda b: -int(b.get("count", 0)))[:8]
            ys = range(len(bins))
            ax.barh(ys, [max(int(b.get("count", 0)), 1) for b in bins],
                    color=[LABEL_COLOURS.get(str(b.get("label")), "#999999") for b in bins],
                    edgecolor=["black" if b.get("target") else "none" for b in bins],
                    hatch=None, linewidth=1.2)
            ax.set_yticks(ys, [("▶ " if b.get("target") else "") + state_text(b.get("state", {}))
                               for b in bins], fontsize=5.5)
            ax.invert_yaxis()
            ax.set_xscale("log")
            top = max(int(b.get("count", 0)) for b in bins)
            ax.set_xlim(0.8, max(10.0, top * 3.0))
            ax.xaxis.set_major_locator(LogLocator(numticks=6))
            ax.xaxis.set_minor_formatter(NullFormatter())
            ax.set_title(str(r.get("id")), fontsize=7.5, loc="left")
            ax.tick_params(axis="x", labelsize=6)
        fig.legend(handles=_legend_handles(LABEL_COLOURS), loc="outside lower center", ncols=4, fontsize=7)

    return _svg(draw, 10.0, 1.2 * nrows + 0.6), len(rows)


def compare_svg(pairs: Sequence[tuple[str, RunRecord, RunRecord]], a_name: str, b_name: str) -> str:
    """Rate in run A against rate in run B (log-log), one point per variant in both; unseen
    rates are drawn at their 95 % bound with an open marker."""
    pts = []
    for _id, a, b in pairs:
        ia, ib = rate_interval(a), rate_interval(b)
        if ia is None or ib is None or (not a.get("target_count") and not b.get("target_count")):
            continue
        pts.append((ia[0] or ia[2], ib[0] or ib[2], bool(a.get("target_count")), bool(b.get("target_count")),
                    str(b.get("verdict"))))
    if not pts:
        return ""

    def draw(fig: Any) -> None:
        ax = fig.add_subplot()
        for xa, xb, seen_a, seen_b, verdict in pts:
            colour = VERDICT_COLOURS.get(verdict, "#555555")
            full = seen_a and seen_b
            ax.plot([xa], [xb], marker="o", ms=4, linestyle="none", color=colour,
                    markerfacecolor=colour if full else "none")
        lo = min(min(p[0], p[1]) for p in pts) / 2
        hi = max(max(p[0], p[1]) for p in pts) * 2
        ax.plot([lo, hi], [lo, hi], color="#888888", linewidth=0.8, linestyle="--")
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlim(lo, hi)
        ax.set_ylim(lo, hi)
        ax.set_xlabel(f"rate in A ({a_name})")
        ax.set_ylabel(f"rate in B ({b_name})")
        ax.set_title("target-outcome rate per variant seen in A or B (open: unseen in one, at its 95 % bound)",
                     fontsize=7)
        ax.grid(alpha=0.3)

    return _svg(draw, 5.5, 5.0)
