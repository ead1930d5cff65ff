"""The reads-from pruning of ``Model.coherent`` (exclusive RMWs, CoRW/CoWR co edges, hang
sources that must stay co-maximal) drops only inconsistent executions: with and without it,
every model finds the same final states and the same hangs."""

from __future__ import annotations

import dataclasses

import pytest
from hypothesis import assume, given

from litmus.model import checker
from litmus.model.checker import MODELS, check
from tests.model.test_laws import SETTINGS, litmus_tests, spin_tests


def _unpruned(name: str):
    return dataclasses.replace(MODELS[name], name=f"{name}-unpruned", coherent=None)


MAX_PICKS = 5000
"""Largest product of per-thread trace counts compared: the unpruned check is the slow side.
Among 1,500 generated tests the largest had 46,656 picks and took 5 s to check pruned; an
unpruned check of one such test held a test worker for over ten minutes (py-spy)."""


def _same(t, name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    from tests.model.irs import trace_picks

    assume(trace_picks(t) <= MAX_PICKS)
    pruned = check(t, name)
    monkeypatch.setitem(checker.MODELS, name, _unpruned(name))
    plain = check(t, name)
    monkeypatch.undo()
    assert set(pruned.allowed_states) == set(plain.allowed_states)
    assert pruned.possible_hang == plain.possible_hang


@pytest.mark.parametrize("name", ["ptx75", "ptx", "sc"])
@SETTINGS
@given(t=litmus_tests())
def test_pruning_keeps_every_final_state(name: str, t) -> None:
    with pytest.MonkeyPatch.context() as mp:
        _same(t, name, mp)


@pytest.mark.parametrize("name", ["ptx75", "ptx", "sc"])
@SETTINGS
@given(t=spin_tests())
def test_pruning_keeps_every_hang(name: str, t) -> None:
    with pytest.MonkeyPatch.context() as mp:
        _same(t, name, mp)


@pytest.mark.parametrize("name", ["ptx75", "ptx", "sc"])
@SETTINGS
@given(t=litmus_tests())
def test_the_coherent_relation_is_symmetric(name: str, t) -> None:
    # the pruning reads Model.coherent as symmetric; a model whose relation is not would prune wrongly
    from litmus.model.executions import build_frame, test_traces
    from litmus.model.compiled import Evaluator
    from litmus.model.relations import r_inv

    model = MODELS[name]
    for combo in zip(*test_traces(t, 2)):
        frame = build_frame(t, [tr.events for tr in combo])
        if frame is None:
            continue
        rel = Evaluator(model, frame.n, frame.base).value(model.coherent)
        assert rel == r_inv(rel)
