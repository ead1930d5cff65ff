"""Rounds of the ``warm_reads`` stress: the backend runs the warmed test
(:func:`litmus.codegen.warm.warmed`) and reports its outcomes over the test's own observables.

That is sound: dropping the warm loads from any execution the PTX model allows for the warmed
test leaves an execution it allows for the test (the model's axioms only forbid cycles, and
removing events removes edges), so no outcome shows that the test itself forbids.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Callable

from litmus.codegen.warm import warmed
from litmus.ir import LitmusTest
from litmus.observables import observables
from litmus.run.backend import Round, Row, merge_rows
from litmus.run.config import RunConfig


def project(rows: list[Row], test: LitmusTest) -> list[Row]:
    """``rows`` of the warmed test over ``test``'s observables (the warm registers dropped).
    Raises ``RuntimeError`` for a row that lacks one of them: it was not counted as the warmed
    test's."""
    keys = observables(test)
    for s, _, _ in rows:
        if missing := [k for k in keys if k not in s]:
            raise RuntimeError(f"{test.id}: a warm round's row has no {', '.join(missing)}: "
                               "it was not counted with the warmed test's layout")
    return merge_rows([({k: s[k] for k in keys}, status, n) for s, status, n in rows])


def warm_round(run: Callable[[LitmusTest, RunConfig, int], Round], test: LitmusTest, config: RunConfig,
               round_index: int) -> Round | None:
    """The round ``run`` makes of ``test`` warmed, over ``test``'s observables, when
    ``config``'s environment warms reads and ``test`` has any; else None (run ``test`` as it is)."""
    if not config.stress.warm_reads:
        return None
    warm = warmed(test)
    if warm is test:
        return None
    plain = replace(config, stress=replace(config.stress, warm_reads=False))
    r = run(warm, plain, round_index)
    return replace(r, rows=project(r.rows, test), extra={**r.extra, "warm_reads": True})
