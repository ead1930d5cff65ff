"""Every verdict a run records has a rank, a colour and a terminal style."""

from __future__ import annotations

from litmus.audit.declared import DECLARED_MISCOMPILE
from litmus.classify import VERDICTS
from litmus.report.rates import VERDICT_COLOURS, VERDICT_ORDER, verdict_rank
from litmus.report.table import VERDICT_STYLE


def test_every_run_verdict_is_ranked_coloured_and_styled() -> None:
    run_verdicts = {*VERDICTS, DECLARED_MISCOMPILE}
    assert set(VERDICT_ORDER) == run_verdicts
    assert set(VERDICT_COLOURS) == run_verdicts and set(VERDICT_STYLE) == run_verdicts


def test_a_declared_miscompile_ranks_below_a_violation_and_above_everything_else() -> None:
    assert verdict_rank("VIOLATION") < verdict_rank(DECLARED_MISCOMPILE) < verdict_rank("inconclusive")
