"""``check``: every allowed final state of a test under a model."""

from __future__ import annotations

import time
from itertools import product

from litmus.condition import evaluate, target_reachable, validated
from litmus.errors import LitmusError
from litmus.ir import LitmusTest
from litmus.model.barriers import match_barriers
from litmus.model.executions import build_frame, consistent_finals, test_traces
from litmus.model.ptx import PTX
from litmus.model.relations import Model, bits
from litmus.model.result import ModelResult, State, observables
from litmus.model.sc import SC_MODEL
from litmus.model.traces import Trace

MODELS: dict[str, Model] = {"ptx": PTX, "sc": SC_MODEL}
"""Model name -> model (relation definitions and axioms)."""

DEFAULT_UNROLL = 2
"""How many times a loop that is not a plain spin may jump back before its path counts as stuck."""


def check(test: LitmusTest, model: str = "ptx", unroll: int = DEFAULT_UNROLL) -> ModelResult:
    """Every final state ``test`` may end in under ``model`` (``"ptx"`` or ``"sc"``), the
    verdict of its condition, and whether some execution may hang."""
    start = time.perf_counter()
    m = MODELS.get(model)
    if m is None:
        raise LitmusError(f"unknown memory model {model!r}; choose one of {', '.join(sorted(MODELS))}")
    keys = observables(test)
    per_thread = test_traces(test, unroll)
    states: set[State] = set()
    hang = False
    seen_hangs: set[tuple] = set()
    places = [(t.rank, t.cta) for t in test.threads]
    init = {l.name: l.init for l in test.locations}
    needs = [[_needs(tr, init) for tr in trs] for trs in per_thread]
    gives = [[_gives(tr) for tr in trs] for trs in per_thread]
    thread_names = [t.name for t in test.threads]
    for pick in product(*(range(len(trs)) for trs in per_thread)):
        combo = [per_thread[t][k] for t, k in enumerate(pick)]
        given = frozenset().union(*(gives[t][k] for t, k in enumerate(pick)))
        if not all(needs[t][k] <= given for t, k in enumerate(pick)):
            continue
        stuck = any(tr.status == "stuck" for tr in combo)
        if stuck and hang:
            continue
        outcome = match_barriers([tr.events for tr in combo], places)
        if outcome.blocked or stuck:
            if hang:
                continue
            evs = [tr.events[: outcome.blocked[t]] if t in outcome.blocked else tr.events
                   for t, tr in enumerate(combo)]
            key = tuple(evs)
            if key in seen_hangs:
                continue
            seen_hangs.add(key)
            frame = build_frame(test, evs)
            if frame is not None and any(True for _ in consistent_finals(m, frame)):
                hang = True
            continue
        frame = build_frame(test, [tr.events for tr in combo])
        if frame is None:
            continue
        regs = {f"{name}:{r}": v for name, tr in zip(thread_names, combo) for r, v in tr.regs}
        # Every state this combination could reach; once all are known allowed, no further
        # execution of it can add one, so its remaining rf/co choices are skipped.
        missing = _reachable_states(regs, frame, keys, init) - states
        if not missing:
            continue
        for finals in consistent_finals(m, frame):
            full = dict(regs)
            full.update(finals)
            state = tuple(sorted((k, full.get(k, init.get(k, 0))) for k in keys))
            states.add(state)
            missing.discard(state)
            if not missing:
                break
    allowed = tuple(sorted(states))
    cond = test.condition
    sat = [evaluate(cond.prop, dict(s)) for s in allowed]
    try:
        ok = validated(cond.kind, sat)
    except ValueError as e:
        raise LitmusError.at(test.source_file, test.source_line, str(e)) from None
    target = target_reachable(cond.kind, sat)
    return ModelResult(test, model, allowed, ok, target, hang, time.perf_counter() - start)


def _reachable_states(regs: dict[str, int], frame: object, keys: tuple[str, ...],
                      init: dict[str, int]) -> set[State]:
    """Every state with these registers and, per location, the value of any of its writes."""
    events = frame.events  # type: ignore[attr-defined]
    per_loc = [(name, sorted({events[w].value for w in bits(mask)}))
               for name, mask in frame.writes_by_loc.items()]  # type: ignore[attr-defined]
    out: set[State] = set()
    for values in product(*(v for _, v in per_loc)):
        full = dict(regs)
        full.update(zip((name for name, _ in per_loc), values))
        out.add(tuple(sorted((k, full.get(k, init.get(k, 0))) for k in keys)))
    return out


def _needs(tr: Trace, init: dict[str, int]) -> frozenset[tuple[str, int]]:
    return frozenset((e.loc, e.value) for e in tr.events if e.kind == "R" and e.value != init[e.loc])


def _gives(tr: Trace) -> frozenset[tuple[str, int]]:
    return frozenset((e.loc, e.value) for e in tr.events if e.kind == "W")
