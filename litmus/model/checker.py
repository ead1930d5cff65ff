"""``check``: every allowed final state of a test under a model."""

from __future__ import annotations

import functools
import time
from itertools import product
from typing import Callable, Iterable, Iterator

from litmus.condition import evaluate, target_reachable, validated
from litmus.errors import LitmusError
from litmus.ir import Branch, LitmusTest, ProxyFence
from litmus.model import budget
from litmus.model.barriers import BarrierOutcome, barrier_outcomes
from litmus.model.budget import charge, note
from litmus.model.executions import (
    addresses,
    build_frame,
    check_declared,
    consistent_executions,
    consistent_finals,
    test_traces,
)
from litmus.model.layout import Layout, memory_layout
from litmus.model.ptx import PTX
from litmus.model.ptx75 import PTX75
from litmus.model.relations import Model, bits
from litmus.model.result import ModelResult, State, observables
from litmus.model.sc import SC_MODEL
from litmus.model.symbolic import STrace, resolver, straight_line, symbolic_traces
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


def check(test: LitmusTest, model: str | Model = DEFAULT_MODEL, unroll: int = DEFAULT_UNROLL) -> ModelResult:
    """Every final state ``test`` may end in under ``model`` (a name in :data:`MODELS`, or a
    :class:`Model` such as :func:`litmus.model.cat.load_cat` reads), the verdict of its
    condition, and whether some execution may hang."""
    start = time.perf_counter()
    m = model if isinstance(model, Model) else MODELS.get(model)
    if m is None:
        raise LitmusError(f"unknown memory model {model!r}; choose one of {', '.join(sorted(MODELS))}")
    if not m.proxies and test.uses_proxies():
        _refuse_proxies(test, m)
    b = budget.start()
    try:
        return _check(test, m, unroll, memory_layout(test), start)
    except budget.OutOfSteps:
        raise budget.error(b, test.source_file, test.source_line, test.id, m.name) from None
    finally:
        budget.stop(b)


@functools.lru_cache(maxsize=256)  # the audit asks once per target and per check of a variant
def unreachable_instructions(test: LitmusTest, unroll: int = DEFAULT_UNROLL) -> dict[str, frozenset[int]]:
    """Per thread, the indices of instructions that no path of it runs, whatever its reads
    return (a retry whose exit test holds for every value of the location, say).  Only threads
    whose every path ends are answered: a path cut short by the unroll bound or a spin might
    have gone on to run more.  Bounded as a check is (``LITMUS_MAX_MODEL_STEPS``): a test with
    more paths than that, or values than the model takes, gets no answer (an empty dict)."""
    dead: dict[str, frozenset[int]] = {}
    if not any(isinstance(i, Branch) for t in test.threads for i in t.instrs):
        return dead  # without a jump every path runs every op; guessing values would cost the most here
    b = budget.start()
    try:
        per_thread = test_traces(test, unroll, memory_layout(test))
    except (budget.OutOfSteps, LitmusError):
        return dead
    finally:
        budget.stop(b)
    for thread, traces in zip(test.threads, per_thread):
        if traces and all(tr.status == "done" for tr in traces):
            ran = frozenset().union(*(tr.ran for tr in traces))
            dead[thread.name] = frozenset(range(len(thread.instrs))) - ran
    return dead


SYMBOLIC = True
"""Check straight-line tests reads-from first (:mod:`litmus.model.symbolic`); False sends every
test through the value-guessing path (the laws compare the two)."""


def _check(test: LitmusTest, m: Model, unroll: int, layout: Layout | None, start: float) -> ModelResult:
    """``check`` with the granules ``layout`` (None: whole locations, one event per access, for a
    test without widths; the laws force a layout on such tests to compare the two)."""
    if SYMBOLIC and straight_line(test):
        return _check_symbolic(test, m, layout, start)
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
    budget_states = [0]
    for pick in _picks(per_thread, init):
        charge()
        note("trace combinations begun")
        combo = [per_thread[t][k] for t, k in enumerate(pick)]
        if len(states) > budget_states[0]:
            note("allowed states found", len(states) - budget_states[0])
            budget_states[0] = len(states)
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
    return _result(test, m, states, hang, start)


def _result(test: LitmusTest, m: Model, states: set[State], hang: bool, start: float) -> ModelResult:
    allowed = tuple(sorted(states))
    cond = test.condition
    sat = [evaluate(cond.prop, dict(s)) for s in allowed]
    try:
        ok = validated(cond.kind, sat)
    except ValueError as e:
        raise LitmusError.at(test.source_file, test.source_line, str(e)) from None
    target = target_reachable(cond.kind, sat)
    spent = budget.current_spent()
    return ModelResult(test, m.name, allowed, ok, target, hang, time.perf_counter() - start, spent)


def _check_symbolic(test: LitmusTest, m: Model, layout: Layout | None, start: float) -> ModelResult:
    """``_check`` for a straight-line test: one symbolic trace per thread and ``cas`` outcome,
    reads-from chosen first and values computed from it (:mod:`litmus.model.symbolic`)."""
    keys = observables(test)
    places = [(t.rank, t.cta) for t in test.threads]
    if layout is None:
        check_declared(test, {l.name for l in test.locations})
        init = {l.name: l.init for l in test.locations}
        aliases = {l.name: l.physical(test) for l in test.locations if l.alias_of is not None}
        addr = addresses(test) if aliases else None
    else:
        check_declared(test, layout.pieces)
        init, aliases, addr = dict(layout.init), {}, None
    per_thread = [symbolic_traces(t, layout, addr) for t in test.threads]
    names = [t.name for t in test.threads]
    states: set[State] = set()
    hang = False
    seen_hangs: set[tuple] = set()

    def state_of(regs: dict[str, int], finals: dict[str, int]) -> State:
        if layout is not None:
            return _composed_state(regs, finals, keys, layout)
        full = dict(regs)
        full.update(finals)
        full.update({a: full[p] for a, p in aliases.items() if p in full})
        return tuple(sorted((k, full.get(k, init.get(k, 0))) for k in keys))

    def flat(regs_list: list[dict[str, int]]) -> dict[str, int]:
        return {f"{name}:{r}": v for name, rs in zip(names, regs_list) for r, v in rs.items()}

    def known(fr: object, regs_list: object) -> bool:
        # every state this reads-from choice could end in is allowed already: no order needed
        return _reachable_states(flat(regs_list), fr, keys, init, aliases, layout) <= states  # type: ignore[arg-type]

    for combo in product(*per_thread):
        charge()
        note("trace combinations begun")
        for outcome in barrier_outcomes([tr.events for tr in combo], places):
            if outcome.blocked:
                if hang:
                    continue
                cut = [_cut(tr, outcome.blocked[t]) if t in outcome.blocked else tr for t, tr in enumerate(combo)]
                evs = [tr.events for tr in cut]
                key = (tuple(evs), outcome.edges)
                if key in seen_hangs:
                    continue
                seen_hangs.add(key)
                frame = build_frame(test, evs, _truncate(outcome, evs), layout)
                if frame is not None and any(True for _ in consistent_executions(m, frame, resolver(frame, cut))):
                    hang = True
                continue
            frame = build_frame(test, [tr.events for tr in combo], outcome, layout)
            if frame is None:
                continue
            for regs_list, finals in consistent_executions(m, frame, resolver(frame, list(combo)), known):
                state = state_of(flat(regs_list), finals)  # type: ignore[arg-type]
                if state not in states:
                    states.add(state)
                    note("allowed states found")
    return _result(test, m, states, hang, start)


def _cut(tr: STrace, k: int) -> STrace:
    """``tr``'s first ``k`` events (a thread blocked at a barrier), with the values and ``cas``
    comparisons of those events only."""
    return STrace(tr.events[:k], tuple((i, v) for i, v in tr.values if i < k), tr.regs,
                  tuple(c for c in tr.constraints if max(c.inputs, default=-1) < k))


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
    for key in layout.wide & full.keys():  # a 64-bit register reads back unsigned, as the run reads it
        full[key] &= (1 << 64) - 1
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
