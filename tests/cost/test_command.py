"""litmus cost (litmus.cost.command): every variant with a flag is measured, and a measurement
that fails costs that variant only, in one line that names the cause, never a traceback."""

from __future__ import annotations

import json
from typing import Any

import pytest
from click.testing import CliRunner

from litmus.cost import command
from litmus.cost.command import cost_command, failure_line, run_cost
from litmus.cost.measure import CostParams, Measurement
from litmus.cost.stats import agreement, summarize
from litmus.errors import LitmusError

TRACEBACK = "Traceback (most recent call last):\n  File \"x.py\", line 1, in f\nValueError: deep inside"


class FakeRunner:
    """A cpu backend stand-in that counts recoveries (and may fail to recover)."""

    name = "cpu"

    def __init__(self, recovers: bool = True) -> None:
        self.recovers, self.recovered, self.closed = recovers, 0, False

    def recover(self) -> None:
        self.recovered += 1
        if not self.recovers:
            raise RuntimeError("the worker pool is gone\n" + TRACEBACK)

    def close(self) -> None:
        self.closed = True


def _measured(sig: Any) -> Measurement:
    s = summarize([100.0])
    return Measurement(sig.test.id, sig.test.name, sig.test.variant, "cpu", sig.shape, "x", [s, s], agreement(s, s),
                       4, 4, 0, None, "host")


def _crash_on(monkeypatch: pytest.MonkeyPatch, variant: str, runner: FakeRunner) -> None:
    """Measure every variant at once, but raise a multi-line error with a traceback for ``variant``."""
    from litmus.cost import measure

    def fake(sig: Any, backend: Any, params: Any) -> Measurement:
        if sig.test.variant == variant:
            raise RuntimeError("Scalar 30064771073 is out of range for type int32\n" + TRACEBACK)
        return _measured(sig)

    monkeypatch.setattr(measure, "measure_backend", fake)
    monkeypatch.setattr(command, "_runner", lambda backend, params: (runner, {"device": "fake"}))


def test_a_crash_is_one_line_and_costs_that_variant_only(monkeypatch: pytest.MonkeyPatch) -> None:
    runner = FakeRunner()
    _crash_on(monkeypatch, "pr-499-release-vector", runner)
    (fam,), _ = run_cost(("BUG-mscclpp-497",), None, "cpu", CostParams(), None, progress=False)
    rows = {r.variant: r for r in fam.rows}
    assert rows["pr-499-release-vector"].measurement is None
    assert rows["pr-499-release-vector"].skipped == "RuntimeError: Scalar 30064771073 is out of range for type int32"
    assert all(rows[v].measurement is not None for v in ("buggy-relaxed-vector", "fixed-snd-then-release-fst"))
    assert runner.recovered == 1 and runner.closed  # the backend recovered for the variants after it


def test_the_table_shows_a_crash_without_its_traceback(monkeypatch: pytest.MonkeyPatch) -> None:
    _crash_on(monkeypatch, "pr-499-release-vector", FakeRunner())
    res = CliRunner().invoke(cost_command, ["BUG-mscclpp-497", "--backend", "cpu"])
    assert res.exit_code == 0, res.output
    assert "out of range for type int32" in res.output
    assert "Traceback" not in res.output and "deep inside" not in res.output


def test_a_backend_that_cannot_recover_says_so_for_the_variants_left(monkeypatch: pytest.MonkeyPatch) -> None:
    _crash_on(monkeypatch, "buggy-relaxed-vector", FakeRunner(recovers=False))  # the first variant
    (fam,), _ = run_cost(("BUG-mscclpp-497",), None, "cpu", CostParams(), None, progress=False)
    left = [r.skipped for r in fam.rows if r.variant != "buggy-relaxed-vector"]
    assert left == ["not started: the cpu backend could not recover: RuntimeError: the worker pool is gone"] * 2


def test_failure_lines_name_the_cause_in_one_line() -> None:
    worker = LitmusError("X[v] (x.yaml), round 0: cpu worker 0 (pid 7) running X[v]: InterpreterError: "
                         "ValueError('bad')\n--- worker traceback ---\n" + TRACEBACK)
    assert failure_line(worker) == ("X[v] (x.yaml), round 0: cpu worker 0 (pid 7) running X[v]: InterpreterError: "
                                    "ValueError('bad')")

    class CompilationError(Exception):
        error_message = "Unsupported ptr type\n  <['1'], int64> in `tl.atomic_cas`"

    assert failure_line(CompilationError("at 3:4:\n    x = tl.atomic_cas(p)\n    ^")) == (
        "CompilationError: Unsupported ptr type <['1'], int64> in `tl.atomic_cas`")
    assert failure_line(KeyError("desc")) == "KeyError: 'desc'"


def test_every_variant_with_a_flag_is_measured_on_the_cpu_backend() -> None:
    # 64-bit locations (cub's packed descriptor) and a view read of a vector element (mscclpp's fst)
    res = CliRunner().invoke(cost_command, ["BUG-mscclpp-497", "BUG-cub-591", "--backend", "cpu", "-n", "3", "-k", "1",
                                            "--warmup", "0", "--json"])
    assert res.exit_code == 0, res.output
    rows = {r["id"]: r for f in json.loads(res.output)["families"] for r in f["rows"]}
    assert len(rows) == 8 and {i for i, r in rows.items() if r["cost"] is None} == set(), \
        {i: r["skipped"] for i, r in rows.items() if r["cost"] is None}
    assert all(r["cost"]["round_trips"] == r["cost"]["asked"] == 2 * 3 for r in rows.values())
    assert rows["BUG-cub-591[fixed-packed-scalar-b64]"]["correct"]
    assert not rows["BUG-mscclpp-497[pr-499-release-vector]"]["correct"]
