"""``check``: every allowed final state of a test under a model."""

from __future__ import annotations

import time
from itertools import product
from typing import Callable, Iterable, Iterator

from litmus.condition import evaluate, target_reachable, validated
from litmus.errors import LitmusError
from litmus.ir import LitmusTest, ProxyFence
from litmus.model.barriers import BarrierOutcome, barrier_outcomes
from litmus.model.executions import build_frame, consistent_finals, test_traces
from litmus.model.layout import Layout, memory_layout
from litmus.model.ptx import PTX
from litmus.model.ptx75 import PTX75
from litmus.model.relations import Model, bits
from litmus.model.result import ModelResult, State, observables
from litmus.model.sc import SC_MODEL
from litmus.model.traces import Trace

MODELS: dict[str, Model] = {"ptx": PTX, "ptx75": PTX75, "sc": SC_MODEL}
"""Model name -> model (relation definitions and axioms)."""

DEFAULT_MODEL = "ptx75"
"""The model ``check`` and ``litmus model`` use unless told otherwise: PTX 7.5 with proxies.  It
agrees with every verdict of Dat3M's PTX 6.0 and 7.5 lists and with ``ptx`` on every catalog
variant, and it reads the proxy tests ``ptx`` refuses (docs/model.md, "Which model")."""

def ptx_model_for(test: LitmusTest) -> str:
    """The PTX model that judges ``test`` in the run, tune, report and lint stages: ``ptx`` (6.0,
    the faster, same verdicts on every proxy-free test) unless the test uses proxies (``ptx75``)."""
    return "ptx75" if test.uses_proxies() else "ptx"


DEFAULT_UNROLL = 2
"""How many times a loop that is not a plain spin may jump back before its path counts as stuck."""


def check(test: LitmusTest, model: str = DEFAULT_MODEL, unroll: int = DEFAULT_UNROLL) -> ModelResult:
    """Every final state ``test`` may end in under ``model`` (a name in :data:`MODELS`), the
    verdict of its condition, and whether some execution may hang."""
    start = time.perf_counter()
    m = MODELS.get(model)
    if m is None:
        raise LitmusError(f"unknown memory model {model!r}; choose one of {', '.join(sorted(MODELS))}")
    if not m.proxies and test.uses_proxies():
        _refuse_proxies(test, m)
    return _check(test, m, unroll, memory_layout(test), start)


def _check(test: LitmusTest, m: Model, unroll: int, layout: Layout | None, start: float) -> ModelResult:
    """``check`` with the granules ``layout`` (None: the historical path of a test without
    widths; the laws force a layout on such tests to compare the two)."""
    keys = observables(test)
    per_thread = test_traces(test, unroll, layout)
    states: set[State] = set()
    hang = False
    seen_hangs: set[tuple] = set()
    places = [(t.rank, t.cta) for t in test.threads]
    if layout is None:
        init = {l.name: l.init for l in test.locations}
        aliases = {l.name: l.physical(test) for l in test.locations if l.alias_of is not None}
    else:
        init, aliases = dict(layout.init), {}
    thread_names = [t.name for t in test.threads]
    for pick in _picks(per_thread, init):
        combo = [per_thread[t][k] for t, k in enumerate(pick)]
        stuck = any(tr.status == "stuck" for tr in combo)
        if stuck and hang:
            continue
        for outcome in barrier_outcomes([tr.events for tr in combo], places):
            if outcome.blocked or stuck:
                if hang:
                    continue
                evs = [tr.events[: outcome.blocked[t]] if t in outcome.blocked else tr.events
                       for t, tr in enumerate(combo)]
                key = (tuple(evs), outcome.edges)
                if key in seen_hangs:
                    continue
                seen_hangs.add(key)
                frame = build_frame(test, evs, _truncate(outcome, evs), layout)
                if frame is not None and any(True for _ in consistent_finals(m, frame)):
                    hang = True
                continue
            frame = build_frame(test, [tr.events for tr in combo], outcome, layout)
            if frame is None:
                continue
            regs = {f"{name}:{r}": v for name, tr in zip(thread_names, combo) for r, v in tr.regs}
            # Every state this combination could reach; once all are known allowed, no further
            # execution of it can add one, so its remaining rf/co choices are skipped.
            missing = _reachable_states(regs, frame, keys, init, aliases, layout) - states
            if not missing:
                continue
            for finals in consistent_finals(m, frame):
                if layout is not None:
                    state = _composed_state(regs, finals, keys, layout)
                    states.add(state)
                    missing.discard(state)
                    if not missing:
                        break
                    continue
                full = dict(regs)
                full.update(finals)
                full.update({a: full[p] for a, p in aliases.items() if p in full})
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
    return ModelResult(test, m.name, allowed, ok, target, hang, time.perf_counter() - start)


def _refuse_proxies(test: LitmusTest, m: Model) -> None:
    """Raise a located error when ``test`` uses proxies or aliases, which ``m`` cannot judge."""
    fix = (f"the {m.name} model has no proxies; check it with a model that has them "
           f"({', '.join(n for n, x in MODELS.items() if x.proxies)}), e.g. --model ptx75")
    for l in test.locations:
        if l.alias_of is not None:
            raise LitmusError.at(test.source_file, l.line, f"{l.name} aliases {l.alias_of}: {fix}")
    for t in test.threads:
        for i in t.instrs:
            if isinstance(i, ProxyFence) or getattr(i, "proxy", "generic") != "generic":
                raise LitmusError.at(test.source_file, i.line, f"{t.name} uses a proxy "
                                     f"({type(i).__name__} {getattr(i, 'proxy', None) or getattr(i, 'kind', '')}): {fix}")


def _truncate(outcome: BarrierOutcome, evs: list) -> BarrierOutcome:
    """``outcome`` less the edges to or from events cut off at a blocked barrier."""
    keep = tuple((a, b) for a, b in outcome.edges
                 if a[1] < len(evs[a[0]]) and b[1] < len(evs[b[0]]))
    return BarrierOutcome(keep, outcome.blocked)


def _composed_state(regs: dict[str, int], finals: dict[str, int], keys: tuple[str, ...],
                    layout: Layout) -> State:
    """The state with these registers and final granule values (granules not in ``finals`` keep
    their initial value): each location's value composed from its granules."""
    granules = dict(layout.init)
    granules.update(finals)
    full = dict(regs)
    for name in layout.pieces:
        full[name] = layout.compose(name, granules)
    return tuple(sorted((k, full.get(k, 0)) for k in keys))


def _reachable_states(regs: dict[str, int], frame: object, keys: tuple[str, ...],
                      init: dict[str, int], aliases: dict[str, str], layout: Layout | None = None) -> set[State]:
    """Every state with these registers and, per location (granule), the value of any of its writes."""
    events = frame.events  # type: ignore[attr-defined]
    per_loc = [(name, sorted({events[w].value for w in bits(mask)}))
               for name, mask in frame.writes_by_loc.items()]  # type: ignore[attr-defined]
    out: set[State] = set()
    for values in product(*(v for _, v in per_loc)):
        if layout is not None:
            out.add(_composed_state(regs, dict(zip((name for name, _ in per_loc), values)), keys, layout))
            continue
        full = dict(regs)
        full.update(zip((name for name, _ in per_loc), values))
        full.update({a: full[p] for a, p in aliases.items() if p in full})
        out.add(tuple(sorted((k, full.get(k, init.get(k, 0))) for k in keys)))
    return out


def _picks(per_thread: list[list[Trace]], init: dict[str, int]) -> Iterator[tuple[int, ...]]:
    """Every combination of traces (one index per thread, in ``product`` order) in which each
    value a read returns, other than its location's initial value, is written by some trace
    of the combination.  (location, value) pairs are bits, and a partial combination stops as
    soon as what it reads is beyond what it and every later thread could write."""
    index: dict[tuple[str, int], int] = {}

    def bit(key: tuple[str, int]) -> int:
        b = index.get(key)
        if b is None:
            b = index[key] = 1 << len(index)
        return b

    needs = [[_mask(((e.loc, e.value) for e in tr.events if e.kind == "R" and e.value != init[e.loc]), bit)
              for tr in trs] for trs in per_thread]
    gives = [[_mask(((e.loc, e.value) for e in tr.events if e.kind == "W"), bit) for tr in trs]
             for trs in per_thread]
    depth = len(per_thread)
    later = [0] * (depth + 1)  # what threads t.. could write, all traces together
    for t in range(depth - 1, -1, -1):
        acc = later[t + 1]
        for g in gives[t]:
            acc |= g
        later[t] = acc
    pick: list[int] = []

    def walk(t: int, need: int, give: int) -> Iterator[tuple[int, ...]]:
        if t == depth:
            yield tuple(pick)
            return
        rest = later[t + 1]
        for k, (nk, gk) in enumerate(zip(needs[t], gives[t])):
            n2, g2 = need | nk, give | gk
            if n2 & ~(g2 | rest):
                continue
            pick.append(k)
            yield from walk(t + 1, n2, g2)
            pick.pop()

    return walk(0, 0, 0)


def _mask(keys: Iterable[tuple[str, int]], bit: Callable[[tuple[str, int]], int]) -> int:
    out = 0
    for key in keys:
        out |= bit(key)
    return out
