"""On every file of the PTX corpus (../shared/ptx-litmus), under every built-in model,
``explain`` agrees with ``model`` on whether the condition's target is reachable, and every
rejecting cycle closes (each explanation is also re-checked inside ``explain``)."""

from __future__ import annotations

from pathlib import Path

import pytest

from litmus.explain import explain
from litmus.model import check
from litmus.spec import load_tests

CORPUS = Path(__file__).resolve().parents[3] / "shared" / "ptx-litmus"


@pytest.mark.parametrize("model", ["ptx75", "ptx", "sc"])
def test_explain_agrees_with_the_model_on_the_corpus(model: str) -> None:
    files = sorted(CORPUS.rglob("*.litmus"))
    if not files:
        pytest.skip(f"the PTX corpus is not at {CORPUS}")
    differ, open_cycles = [], []
    for f in files:
        for t in load_tests([str(f)]):
            x = explain(t, model=model)
            if x.allowed != check(t, model).target_reachable:
                differ.append(t.id)
            open_cycles += [f"{t.id}: {g.axiom}" for g in x.forbidden_by if not g.closes]
            assert x.allowed or x.forbidden_by or x.no_candidate, t.id
    assert not differ, f"explain and model disagree on {differ}"
    assert not open_cycles, open_cycles
    assert len(files) >= 90
