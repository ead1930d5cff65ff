"""The enumeration short cuts of the checker agree with the plain definitions they replace:
trace combinations (``checker._picks``) and frames built from per-trace data
(``executions.build_frame``, whose per-test and per-trace caches must not change a frame)."""

from __future__ import annotations

from itertools import product

from hypothesis import given

from litmus.model.checker import _picks
from litmus.model import executions
from litmus.model.executions import build_frame
from litmus.model.layout import memory_layout
from tests.model.test_laws import SETTINGS, litmus_tests, spin_tests


def _plain_picks(per_thread, init) -> list[tuple[int, ...]]:
    """Every combination whose reads of non-initial values are all written by the combination."""
    out = []
    for pick in product(*(range(len(trs)) for trs in per_thread)):
        combo = [per_thread[t][k] for t, k in enumerate(pick)]
        given_ = {(e.loc, e.value) for tr in combo for e in tr.events if e.kind == "W"}
        needs = {(e.loc, e.value) for tr in combo for e in tr.events if e.kind == "R" and e.value != init[e.loc]}
        if needs <= given_:
            out.append(pick)
    return out


def _init(t, layout) -> dict:
    return dict(layout.init) if layout is not None else {l.name: l.init for l in t.locations}


def _assert_picks_are_the_plain_ones(t) -> None:
    layout = memory_layout(t)
    per_thread = executions.test_traces(t, 2, layout)
    assert list(_picks(per_thread, _init(t, layout))) == _plain_picks(per_thread, _init(t, layout))


@SETTINGS
@given(t=litmus_tests())
def test_picks_are_the_combinations_whose_reads_are_written(t) -> None:
    _assert_picks_are_the_plain_ones(t)


@SETTINGS
@given(t=spin_tests())
def test_picks_with_spins(t) -> None:
    _assert_picks_are_the_plain_ones(t)


@SETTINGS
@given(t=litmus_tests())
def test_a_frame_does_not_depend_on_what_was_built_before(t) -> None:
    # the same combination built twice (the second time from cached trace data), and from
    # lists (never cached), gives equal frames
    layout = memory_layout(t)
    per_thread = executions.test_traces(t, 2, layout)
    for combo in zip(*per_thread):
        first = build_frame(t, [tr.events for tr in combo], None, layout)
        again = build_frame(t, [tr.events for tr in combo], None, layout)
        fresh = build_frame(t, [list(tr.events) for tr in combo], None, layout)
        assert (first is None) == (again is None) == (fresh is None)
        if first is not None:
            assert first.__dict__ == again.__dict__ == fresh.__dict__
