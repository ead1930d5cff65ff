"""The end-of-session table: verdicts by count, the weakest bound, the slowest variants, the
declared miscompiles seen, what stayed inconclusive, and the machine.

It is built from the items' reports (their ``user_properties``, the JUnit properties), so under
pytest-xdist the controller, which receives every worker's reports, prints one table for all.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Iterable, Mapping

SLOWEST = 3
NOT_RUN = "not run"


@dataclass(frozen=True)
class Row:
    """One litmus item's properties, as its report carries them."""

    name: str  # PATTERN[variant]
    props: Mapping[str, Any]

    @property
    def verdict(self) -> str:
        """Its run's verdict, or ``not run`` (skipped before a run, or the model backend)."""
        return str(self.props.get("litmus_verdict", NOT_RUN))


@dataclass
class Summary:
    """Rows collected from the items' call reports (:meth:`add`); :meth:`lines` renders them."""

    rows: list[Row] = field(default_factory=list)

    def add(self, name: str, properties: Iterable[tuple[str, Any]]) -> None:
        """Keep one litmus item's properties (a report without ``litmus_expect`` is no item)."""
        props = dict(properties)
        if "litmus_expect" in props:
            self.rows.append(Row(name, props))

    def lines(self) -> list[str]:
        """The table, one line a row (empty when no litmus item reported)."""
        if not self.rows:
            return []
        counts = Counter(r.verdict for r in self.rows)
        table = [("verdicts", ", ".join(f"{v} {n}" for v, n in sorted(counts.items(), key=lambda c: (-c[1], c[0]))))]
        bounded = [r for r in self.rows if r.props.get("litmus_bound_95") is not None]
        if bounded:
            weakest = max(bounded, key=lambda r: float(r.props["litmus_bound_95"]))
            table.append(("weakest bound", f"3/N = {float(weakest.props['litmus_bound_95']):.2g}  {weakest.name} "
                                           f"({int(weakest.props.get('litmus_ended', 0)):,} ended)"))
        timed = sorted((r for r in self.rows if r.props.get("litmus_seconds") is not None),
                       key=lambda r: -float(r.props["litmus_seconds"]))[:SLOWEST]
        if timed:
            table.append(("slowest", "; ".join(f"{float(r.props['litmus_seconds']):.2f} s {r.name}" for r in timed)))
        for r in self.rows:
            if r.verdict == "declared-miscompile":
                table.append(("declared seen", f"{r.name}: {r.props.get('litmus_forbidden_count', 0):,} forbidden "
                                               f"outcome(s); {r.props.get('litmus_declared', '')}"))
        for r in self.rows:
            if r.props.get("litmus_stale"):
                table.append(("stale", f"{r.name}: {r.props.get('litmus_declared', '')}"))
        for r in self.rows:
            if r.verdict == "inconclusive":
                table.append(("inconclusive", f"{r.name}: {int(r.props.get('litmus_ended', 0)):,} of "
                                              f"{int(r.props.get('litmus_instances', 0)):,} instances ended "
                                              f"({int(r.props.get('litmus_timeout_count', 0)):,} timed out in a spin)"))
        table += [("machine", m) for m in sorted({_machine(r.props) for r in self.rows if "litmus_backend" in r.props})]
        width = max(len(label) for label, _ in table)
        return [f"{label:<{width}}  {text}" for label, text in table]


def _machine(props: Mapping[str, Any]) -> str:
    """``cuda: NVIDIA H100; triton 3.6.0, ptxas 12.8.93``."""
    words = [f"triton {props.get('litmus_triton', '?')}"]
    if props.get("litmus_ptxas"):
        words.append(f"ptxas {props['litmus_ptxas']}")
    return f"{props.get('litmus_backend')}: {props.get('litmus_device', '?')}; {', '.join(words)}"
