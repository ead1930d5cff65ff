"""What a CI job keeps of a session: the JSONL records and the end-of-session table.

One :class:`CiReporter` runs where every item's report arrives: the process of a session
without xdist, or the xdist controller, which receives each worker's reports with the record
they carry (``report.litmus_record``).  So one process appends to the JSONL file, a whole line
per record with fsync (:func:`litmus.report.jsonl.append_record`), and no two writers can
interleave in it, whatever the size of a record; a killed session keeps every record its
controller received.
"""

from __future__ import annotations

from typing import Any

import pytest

from litmus.pytest_plugin.state import PluginState

INCONCLUSIVE = ("litmus_outcome", "inconclusive")
"""The property that marks an item's skip as an inconclusive run, not a backend that is missing."""


class CiReporter:
    """Appends each litmus item's record to ``--litmus-jsonl`` and prints the summary table."""

    NAME = "litmus-ci-reporter"

    def __init__(self, state: PluginState) -> None:
        self.state = state

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        if report.when != "call" or not any(name == "litmus_expect" for name, _ in report.user_properties):
            return
        self.state.summary.add(report.nodeid.rsplit("::", 1)[-1], report.user_properties)
        record = getattr(report, "litmus_record", None)
        if record is not None and self.state.options.jsonl is not None:
            from litmus.report.jsonl import append_record

            append_record(self.state.options.jsonl, record)

    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        lines = self.state.summary.lines()
        if not lines:
            return
        terminalreporter.write_sep("=", "litmus summary")
        for line in lines:
            terminalreporter.write_line(line)
        path = self.state.options.jsonl
        if path is not None:
            terminalreporter.write_line(f"records: {path} (`litmus report {path} --html PAGE.html`)")
