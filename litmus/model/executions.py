"""Candidate executions of a litmus test and their enumeration under a model.

Pipeline: value domains (fixpoint) -> per-thread traces (:mod:`litmus.model.traces`) ->
combinations of traces -> barrier matching (:mod:`litmus.model.barriers`) -> a
:class:`Frame` of global events with the static base relations -> every reads-from choice ->
every choice of the model's chosen orders (``sf``, ``co`` ...), checking each axiom as soon as
everything it depends on is chosen.

A test with access widths goes through the same pipeline on granules
(:mod:`litmus.model.layout`): value domains and initial writes per granule, an access one event
per granule it covers; the frame then also has ``sa`` (two events of one access), ``eloc`` (same
granule and the same bytes accessed: the complete overlap morally strong needs) and a ``po``
without pairs inside one access or one vector instruction.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from itertools import product
from typing import Callable, Iterator, Sequence

from litmus.errors import LitmusError
from litmus.ir import LitmusTest, scope_includes
from litmus.model import budget
from litmus.model.barriers import BarrierOutcome, match_barriers
from litmus.model.compiled import Evaluator, program
from litmus.model.layout import Layout
from litmus.model.relations import (
    ChosenOrder,
    Model,
    Rel,
    bits,
    expr_deps,
    monotone_in,
    r_plus,
    vanishes_without,
)
from litmus.model.traces import TEvent, Trace, thread_traces

MAX_DOMAIN = 64

SEM_SETS = {"weak": "WEAK", "relaxed": "RLX", "acquire": "ACQ", "release": "REL",
            "acq_rel": "ACQ_REL", "sc": "SC"}
PROXY_SETS = ("GEN", "TEX", "SUR", "CON", "ALIAS", "ASYNC")
SET_NAMES = ("ALL", "R", "W", "F", "B", "M", "IW") + tuple(SEM_SETS.values()) + PROXY_SETS


def addresses(test: LitmusTest) -> dict[str, tuple[str, str]]:
    """Location name -> (physical location, generic virtual address); aliases differ."""
    return {l.name: (l.physical(test), l.generic_address(test)) for l in test.locations}


def physical_locations(test: LitmusTest) -> list[str]:
    """The locations that are not aliases, in the test's order."""
    return [l.name for l in test.locations if l.alias_of is None]


def value_domains(test: LitmusTest, unroll: int, layout: Layout | None = None) -> dict[str, tuple[int, ...]]:
    """For each location (each granule, with a ``layout``), the values a read of it may return:
    the initial value and every value some trace can write (a fixpoint, bounded by the longest
    chain of writes)."""
    if layout is None:
        phys = {name: p for name, (p, _) in addresses(test).items()}
        dom = {p: {test.location(p).init} for p in physical_locations(test)}
        names: dict[str, object] = phys
    else:
        phys = {g: g for g in layout.granules}
        dom = {g: {layout.init[g]} for g in layout.granules}
        names = layout.pieces
    check_declared(test, names)
    rounds = 0
    while True:
        frozen = {name: tuple(sorted(dom[p])) for name, p in phys.items()}
        writes_max = 0
        new = {k: set(v) for k, v in dom.items()}
        for t in test.threads:
            most = 0
            for tr in thread_traces(t, frozen, unroll, test.source_file, layout=layout):
                ws = [e for e in tr.events if e.kind == "W"]
                most = max(most, len(ws))
                for e in ws:
                    new[phys[e.loc]].add(e.value)  # type: ignore[index]
            writes_max += most
        rounds += 1
        if new == dom or rounds > writes_max + 1:
            return frozen
        if any(len(v) > MAX_DOMAIN for v in new.values()):
            raise LitmusError.at(test.source_file, test.source_line,
                                 f"{test.id}: more than {MAX_DOMAIN} possible values for one location; "
                                 "the model checker needs small value domains")
        dom = new


def check_declared(test: LitmusTest, names: object) -> None:
    """Raise a located LitmusError for an access to a location not in ``names``."""
    for t in test.threads:
        for i in t.instrs:
            loc = getattr(i, "loc", None)
            if loc is not None and loc not in names:  # type: ignore[operator]
                raise LitmusError.at(test.source_file, getattr(i, "line", None),
                                     f"{t.name} uses location {loc!r}, which is not declared; "
                                     f"declare it with an initial value")


@dataclass
class Frame:
    """The global events of one combination of traces, with their static base relations."""

    n: int
    events: list[TEvent]
    thread_of: list[int]  # -1 for initial writes
    base: dict[str, int | Rel]
    reads: list[int]
    rf_candidates: list[list[int]]
    writes_by_loc: dict[str, int]
    hang_reads: list[int]
    split: bool = False  # some access covers several granules (``sa`` is not empty)


@dataclass
class _TraceInfo:
    """What :func:`build_frame` needs of one trace, with event indices relative to its start
    (a frame shifts them by the trace's offset)."""

    length: int
    sets: dict[str, int]  # base set name -> the trace's events in it
    po: list[int]  # program order rows
    rmw: list[tuple[int, int]]  # (read, write) of each RMW
    dep: list[tuple[int, int]]  # (read, event depending on it)
    memory: list[tuple[int, str, str]]  # (event, location, virtual address) of each access
    writes: list[tuple[int, str, int]]  # (event, location, value) of each write
    scopes: list[str]  # the scope of each event
    reads: list[int]
    hang: list[int]


def _trace_info(evs: Sequence[TEvent]) -> _TraceInfo:
    length = len(evs)
    sets: dict[str, int] = {}
    rmw: list[tuple[int, int]] = []
    dep: list[tuple[int, int]] = []
    memory: list[tuple[int, str, str]] = []
    writes: list[tuple[int, str, int]] = []
    reads: list[int] = []
    hang: list[int] = []
    full = (1 << length) - 1
    po = [full & ~((2 << i) - 1) for i in range(length)]
    for i, e in enumerate(evs):
        bit = 1 << i
        kind = e.kind
        names = [kind, SEM_SETS[e.sem]]
        if kind == "F" and e.sem == "sc":
            # the PTX ISA's release and acquire patterns take "a memory fence", fence.sc included:
            # NVIDIA's atomics ABI maps a C++ seq_cst store to `fence.sc; st.relaxed`, a release
            # only if fence.sc is one.  Dat3M tags it SC alone, so a .cat file's ``F & ACQ_REL``
            # would miss it.
            names.append("ACQ_REL")
        if kind in "RW":
            names.append("M")
            memory.append((i, e.loc, e.vloc or e.loc))  # type: ignore[arg-type]
        if e.proxy:
            names.append(e.proxy)
        for name in names:
            sets[name] = sets.get(name, 0) | bit
        if kind == "W":
            writes.append((i, e.loc, e.value))  # type: ignore[arg-type]
        elif kind == "R":
            reads.append(i)
        if e.rmw_read is not None:
            rmw.append((e.rmw_read, i))
        for r in e.data:
            dep.append((r, i))
        for r in e.ctrl:
            dep.append((r, i))
        if e.hang:
            hang.append(i)
    return _TraceInfo(length, sets, po, rmw, dep, memory, writes, [e.scope for e in evs], reads, hang)


@dataclass
class _TestInfo:
    """What :func:`build_frame` computes once per test: the initial writes and their part of
    the base relations, the threads' places, scope inclusion, and each trace's
    :class:`_TraceInfo` (by the identity of its event sequence)."""

    test: LitmusTest
    layout: Layout | None
    init_events: list[TEvent]
    init_sets: dict[str, int]
    init_writes: dict[str, int]
    init_by_locval: dict[tuple[str, int], int]
    places: list[tuple[int, int]]
    includes: dict[tuple[int, str, int, str], bool]
    traces: dict[int, tuple[Sequence[TEvent], _TraceInfo]]


_TEST_INFO: list[_TestInfo] = []  # the last test's (frames of one test are built one after another)


def _test_info(test: LitmusTest, layout: Layout | None) -> _TestInfo:
    if _TEST_INFO and _TEST_INFO[0].test is test and _TEST_INFO[0].layout is layout:
        return _TEST_INFO[0]
    if layout is None:
        inits = [(name, test.location(name).init) for name in physical_locations(test)]
    else:
        inits = [(g, layout.init[g]) for g in layout.granules]
    events = [TEvent("W", name, value, "weak", "sys", vloc=name) for name, value in inits]
    sets = {name: 0 for name in SET_NAMES}
    writes: dict[str, int] = {}
    by_locval: dict[tuple[str, int], int] = {}
    for k, e in enumerate(events):
        bit = 1 << k
        for name in (e.kind, "M", SEM_SETS[e.sem], e.proxy):
            sets[name] |= bit
        writes[e.loc] = writes.get(e.loc, 0) | bit  # type: ignore[index]
        key = (e.loc, e.value)
        by_locval[key] = by_locval.get(key, 0) | bit  # type: ignore[index]
    sets["IW"] = (1 << len(events)) - 1
    info = _TestInfo(test, layout, events, sets, writes, by_locval,
                     [(t.rank, t.cta) for t in test.threads], {}, {})
    _TEST_INFO[:] = [info]
    return info


def build_frame(test: LitmusTest, traces: Sequence[Sequence[TEvent]],
                outcome: BarrierOutcome | None = None, layout: Layout | None = None) -> Frame | None:
    """Flatten a combination of traces whose barriers resolved as ``outcome`` (default: the
    first way they can); None when some read has no write to read from.  ``layout``: the
    granules of a test with access widths (the traces' events are then per granule)."""
    ti = _test_info(test, layout)
    events = list(ti.init_events)
    ninit = len(events)
    thread_of = [-1] * ninit
    infos: list[_TraceInfo] = []
    offsets: list[int] = []
    for t, evs in enumerate(traces):
        if type(evs) is tuple:  # immutable: its info is kept for the test's next frames
            hit = ti.traces.get(id(evs))
            if hit is None or hit[0] is not evs:
                hit = ti.traces[id(evs)] = (evs, _trace_info(evs))
            infos.append(hit[1])
        else:
            infos.append(_trace_info(evs))
        offsets.append(len(events))
        events.extend(evs)
        thread_of.extend([t] * len(evs))
    n = len(events)
    sets = dict(ti.init_sets)
    sets["ALL"] = (1 << n) - 1
    po = [0] * ninit
    rmw = [0] * n
    dep = [0] * n
    writes_by_loc = dict(ti.init_writes)
    by_locval = dict(ti.init_by_locval)
    mem_by_loc: dict[str, int] = dict(ti.init_writes)  # the initial writes are the only accesses so far
    mem_by_vloc: dict[str, int] = dict(ti.init_writes)
    for info, off in zip(infos, offsets):
        for name, m in info.sets.items():
            sets[name] |= m << off
        po.extend([row << off for row in info.po])
        for r, k in info.rmw:
            rmw[off + r] |= 1 << (off + k)
        for r, k in info.dep:
            dep[off + r] |= 1 << (off + k)
        for i, l, value in info.writes:
            bit = 1 << (off + i)
            writes_by_loc[l] = writes_by_loc.get(l, 0) | bit
            key = (l, value)
            by_locval[key] = by_locval.get(key, 0) | bit
        for i, l, v in info.memory:
            bit = 1 << (off + i)
            mem_by_loc[l] = mem_by_loc.get(l, 0) | bit
            mem_by_vloc[v] = mem_by_vloc.get(v, 0) | bit
    loc = [0] * n
    vloc = [0] * n
    for k, e in enumerate(ti.init_events):
        loc[k] = mem_by_loc[e.loc]  # type: ignore[index]
        vloc[k] = mem_by_vloc[e.vloc]  # type: ignore[index]
    for info, off in zip(infos, offsets):
        for i, l, v in info.memory:
            loc[off + i] = mem_by_loc[l]
            vloc[off + i] = mem_by_vloc[v]
    sa: Rel = [0] * n
    eloc: Rel = loc
    split = False
    if layout is not None:
        memory = [(k, e.loc, e.vloc or e.loc) for k, e in enumerate(events) if e.kind in "RW"]
        eloc, split = _widths(events, thread_of, memory, po, sa)
    # scope relation: each event's scope includes the other event's thread
    threads = test.threads
    by_thread_scope: dict[tuple[int, str], int] = {}  # (thread, scope) -> its events
    for t, (info, off) in enumerate(zip(infos, offsets)):
        for i, scope in enumerate(info.scopes):
            key = (t, scope)
            by_thread_scope[key] = by_thread_scope.get(key, 0) | (1 << (off + i))
    includes = ti.includes
    rows: dict[tuple[int, str], int] = {}
    for ta, scope_a in by_thread_scope:
        row = 0
        for (tb, scope_b), mask in by_thread_scope.items():
            key4 = (ta, scope_a, tb, scope_b)
            yes = includes.get(key4)
            if yes is None:
                yes = includes[key4] = (scope_includes(scope_a, threads[ta], threads[tb])
                                        and scope_includes(scope_b, threads[tb], threads[ta]))
            if yes:
                row |= mask
        rows[(ta, scope_a)] = row
    sr = [0] * ninit
    for t, info in enumerate(infos):
        sr.extend([rows[(t, scope)] for scope in info.scopes])
    places = ti.places[:len(traces)]
    by_place: dict[tuple[int, int], int] = {}
    for t, (info, off) in enumerate(zip(infos, offsets)):
        p = places[t]
        by_place[p] = by_place.get(p, 0) | (((1 << info.length) - 1) << off)
    scta = [0] * ninit
    for t, info in enumerate(infos):
        scta.extend([by_place[places[t]]] * info.length)
    if outcome is None:
        outcome = match_barriers(traces, places)
    bar = [0] * n
    for (ta, ia), (tb, ib) in outcome.edges:
        bar[offsets[ta] + ia] |= 1 << (offsets[tb] + ib)
    reads: list[int] = []
    cands: list[list[int]] = []
    for info, off in zip(infos, offsets):
        for i in info.reads:
            r = off + i
            e = events[r]
            # a symbolic read (value None, litmus.model.symbolic) may read any write of its location
            mask = (by_locval.get((e.loc, e.value), 0) if e.value is not None
                    else writes_by_loc.get(e.loc, 0)) & ~po[r] & ~rmw[r]  # type: ignore[arg-type]
            if not mask:
                return None
            reads.append(r)
            cands.append(list(bits(mask)))
    base: dict[str, int | Rel] = sets  # type: ignore[assignment]
    base.update(po=po, loc=loc, vloc=vloc, scta=scta, sr=sr, rmw=rmw, dep=dep, bar=bar, sa=sa, eloc=eloc)
    hang = [off + i for info, off in zip(infos, offsets) for i in info.hang]
    return Frame(n, events, thread_of, base, reads, cands, writes_by_loc, hang, split)


def _widths(events: list[TEvent], thread_of: list[int], memory: list[tuple[int, str | None, str | None]],
            po: Rel, sa: Rel) -> tuple[Rel, bool]:
    """With access widths: ``po`` less the pairs inside one unit (an access of several granules,
    or a vector instruction) and ``sa`` filled in (both in place); returns ``eloc`` (same granule,
    same bytes accessed) and whether some access covers several granules."""
    units: dict[tuple[int, int], int] = {}  # (thread, unit) -> its events (trace indices are per thread)
    accs: dict[tuple[int, int], int] = {}
    for k, e in enumerate(events):
        t = thread_of[k]
        if e.unit is not None:
            key = (t, e.unit)
            units[key] = units.get(key, 0) | (1 << k)
        if e.acc is not None:
            key = (t, e.acc)
            accs[key] = accs.get(key, 0) | (1 << k)
    for k, e in enumerate(events):
        if e.unit is not None:
            po[k] &= ~units[(thread_of[k], e.unit)]
        if e.acc is not None:
            sa[k] = accs[(thread_of[k], e.acc)] & ~(1 << k)
    same: dict[tuple[str | None, tuple[int, int] | None], int] = {}
    for k, l, _ in memory:
        key = (l, events[k].extent)
        same[key] = same.get(key, 0) | (1 << k)
    eloc = [0] * len(events)
    for k, l, _ in memory:
        eloc[k] = same[(l, events[k].extent)]
    return eloc, bool(accs)


@dataclass(frozen=True)
class _Plan:
    """When each axiom of a model can be checked: after rf (stage 0) or after order k (k+1).
    ``unsplit``: the same without the axioms that hold whenever ``sa`` is empty (a frame in which
    no access covers several granules, which is every frame of a test without widths)."""

    by_stage: tuple[tuple, ...]
    prune: tuple[tuple, ...]  # per order: axioms that only get harder as the order grows
    unsplit: "_Plan | None" = None
    # the same, compiled (compiled.Program.checker): each a function of the evaluator's slots
    check_stage: tuple[Callable[[list], bool], ...] = ()
    check_prune: tuple[Callable[[list], bool], ...] = ()


_PLANS: dict[int, tuple[Model, _Plan]] = {}


def _plan(model: Model) -> _Plan:
    hit = _PLANS.get(id(model))
    if hit is not None and hit[0] is model:
        return hit[1]
    full = _stages(model, model.axioms)
    plan = _Plan(full.by_stage, full.prune,
                 _stages(model, tuple(ax for ax in model.axioms if not vanishes_without(model, ax.expr, "sa"))),
                 full.check_stage, full.check_prune)
    _PLANS[id(model)] = (model, plan)
    return plan


def _stages(model: Model, axioms: tuple) -> _Plan:
    stage_of = {o.name: k + 1 for k, o in enumerate(model.orders)}
    stages: list[list] = [[] for _ in range(len(model.orders) + 1)]
    for ax in axioms:
        deps = expr_deps(model, ax.expr)
        stages[max([stage_of.get(d, 0) for d in deps] + [0])].append(ax)
    prune = tuple(
        tuple(ax for ax in stages[k + 1] if monotone_in(model, ax.expr, o.name))
        for k, o in enumerate(model.orders))
    prog = program(model)
    return _Plan(tuple(tuple(s) for s in stages), prune, None,
                 tuple(prog.checker(s) for s in stages), tuple(prog.checker(p) for p in prune))


def consistent_finals(model: Model, frame: Frame) -> Iterator[dict[str, int]]:
    """For every consistent execution of ``frame``: the final value of each location.

    For a frame with hang reads, yields ``{}`` once per consistent execution in which every
    hang read sees a co-final write (so the loop can really spin forever)."""
    for _, finals in consistent_executions(model, frame):
        yield finals


def consistent_executions(model: Model, frame: Frame,
                          resolve: Callable[[tuple[int, ...]], tuple[Frame, object] | None] | None = None,
                          skip: Callable[[Frame, object], bool] | None = None
                          ) -> Iterator[tuple[object, dict[str, int]]]:
    """:func:`consistent_finals`, each with what ``resolve`` said of its reads-from choice.

    ``resolve`` (a frame of symbolic reads, :mod:`litmus.model.symbolic`): reads-from choice ->
    ``(the frame with its values filled in, extra)``, or None when the choice gives no execution;
    the orders are then chosen on the resolved frame, and ``extra`` is yielded with its finals.
    ``skip(resolved frame, extra)`` True drops a choice before any order is chosen (every state
    it could give is known already).  Every reads-from choice examined is charged to the budget
    (:mod:`litmus.model.budget`)."""
    for extra, finals, _, _ in _executions(model, frame, resolve, skip):
        yield extra, finals


@dataclass(frozen=True)
class Witness:
    """One consistent execution as the checker found it: the frame (values filled in), what the
    resolver said of it (registers per thread for a symbolic frame, else None), its final
    values, and its reads-from and chosen orders (``rf``, ``sf``, ``co`` ...) by name."""

    frame: Frame
    extra: object
    finals: dict[str, int]
    relations: dict[str, Rel]


def consistent_witnesses(model: Model, frame: Frame,
                         resolve: Callable[[tuple[int, ...]], tuple[Frame, object] | None] | None = None,
                         skip: Callable[[Frame, object], bool] | None = None) -> Iterator[Witness]:
    """:func:`consistent_executions` with each execution's relations (for explanations)."""
    names = ("rf",) + tuple(o.name for o in model.orders)
    for extra, finals, fr, ev in _executions(model, frame, resolve, skip):
        yield Witness(fr, extra, finals, {name: list(ev.get(name)) for name in names})  # type: ignore[arg-type]


def coherent_rf_choices(model: Model, frame: Frame, symbolic: bool = False) -> Iterator[tuple[int, ...]]:
    """The reads-from choices of ``frame`` (one write per ``frame.reads``) that survive the
    checker's pruning before any order is chosen (``Model.coherent``: two RMWs reading one write,
    CoRW, CoWR, CoRR, CoWW, and ``rf | dep`` cycles where the model forbids them); ``symbolic``:
    a frame of symbolic reads, as :func:`consistent_executions` prunes it with a resolver."""
    ev = Evaluator(model, frame.n, frame.base)
    final = next((o for o in model.orders if o.name == model.final_order), None)
    forced = _forced_order(model, frame, final, ev) if final is not None else None
    pruning = _rf_pruning(model, frame, ev, frame.rf_candidates, forced)
    yield from _rf_choices(model, frame, frame.rf_candidates, pruning, always_cycles=symbolic)


def _executions(model: Model, frame: Frame,
                resolve: Callable[[tuple[int, ...]], tuple[Frame, object] | None] | None,
                skip: Callable[[Frame, object], bool] | None
                ) -> Iterator[tuple[object, dict[str, int], Frame, Evaluator]]:
    """:func:`consistent_executions`, each with the frame it was found on and the evaluator that
    holds its reads-from and chosen orders at the moment it is yielded."""
    plan = _plan(model)
    if not frame.split:
        plan = plan.unsplit  # type: ignore[assignment]
    ev = Evaluator(model, frame.n, frame.base)
    n = frame.n
    final = next((o for o in model.orders if o.name == model.final_order), None)
    total = 1
    for c in frame.rf_candidates:
        total *= len(c)
    if total <= PRUNE_RF_ABOVE and not frame.hang_reads:
        candidates, pruning = frame.rf_candidates, None  # checking each choice costs less than pruning
    else:
        forced = _forced_order(model, frame, final, ev) if final is not None else None
        candidates = _hang_candidates(frame, forced)
        if not all(candidates):
            return  # a hang read that no write can keep spinning: no execution hangs here
        pruning = _rf_pruning(model, frame, ev, candidates, forced)
    set_rf = ev.setter("rf")
    check0 = plan.check_stage[0]
    slots = ev.c
    charge = budget.charge
    extra: object = None
    for choice in _rf_choices(model, frame, candidates, pruning, always_cycles=resolve is not None):
        charge()
        fr = frame
        if resolve is not None:
            got = resolve(choice)
            if got is None:
                continue
            fr, extra = got
            if skip is not None and skip(fr, extra):
                continue
        rf = [0] * n
        for r, w in zip(frame.reads, choice):
            rf[w] |= 1 << r
        set_rf(rf)
        if not check0(slots):
            continue
        for finals in _choose(model, plan, ev, fr, 0, choice):
            yield extra, finals, fr, ev


PRUNE_RF_ABOVE = 1
"""Frames with more reads-from choices than this (or with hang reads) get the coherence
pruning (``Model.coherent``); below, checking each choice costs less than preparing it."""

RF_PRUNE_ABOVE = 4096
"""Reads-from products larger than this are enumerated depth first, dropping every partial
choice that already closes a cycle in ``rf | dep`` (below this, checking each full choice is
cheaper)."""


@dataclass
class _RfPruning:
    """What rules out a partial reads-from choice before any order is chosen (see
    ``Model.coherent``): ``conflicts[i][j]``, the writes two exclusive RMW reads ``i`` and ``j``
    cannot both read; ``edges[i][w]``, the ``co`` edges that read ``i`` reading ``w`` forces,
    as masks ``(succ, pred)``: ``w -> succ`` and ``pred -> w``;
    ``forced``, the ``co`` edges every consistent execution has (closed); ``hang``, ``(read
    index, writes of its location)`` for each hang read, whose source must stay co-maximal."""

    conflicts: dict[int, dict[int, int]]
    edges: list[dict[int, tuple[int, int]]]
    forced: Rel
    hang: dict[int, int]
    corr: list[list[int]]  # per read index: earlier same-location reads of its thread (CoRR)
    sym: Rel  # the coherent relation (symmetric)
    inits: int  # the initial writes
    # per read index: the other reads of its access (one per granule it covers), with ``sa`` and
    # ``loc`` for the single-copy-atomicity rule; empty in a frame without multi-granule reads
    siblings: list[list[int]] = dataclasses.field(default_factory=list)
    sa: Rel = dataclasses.field(default_factory=list)
    loc: Rel = dataclasses.field(default_factory=list)

    def active(self) -> bool:
        return bool(self.conflicts or any(self.edges) or self.hang or any(self.corr) or any(self.siblings))


def _rf_pruning(model: Model, frame: Frame, ev: Evaluator, candidates: list[list[int]],
                forced: Rel | None) -> _RfPruning | None:
    """The pruning data of ``frame`` under ``model`` (None when the model declares none);
    ``forced``: final-order edges every consistent execution has (:func:`_forced_order`)."""
    if not _coherent_usable(model) or forced is None:
        return None
    sym: Rel = ev.value(model.coherent)  # type: ignore[arg-type,assignment]  # symmetric (Model.coherent)
    rmw: Rel = frame.base["rmw"]  # type: ignore[assignment]
    po: Rel = frame.base["po"]  # type: ignore[assignment]
    loc: Rel = frame.base["loc"]  # type: ignore[assignment]
    events = frame.events
    inits = sum(1 << k for k in range(frame.n) if frame.thread_of[k] < 0)

    conflicts: dict[int, dict[int, int]] = {}
    rmw_reads = [(i, r, rmw[r].bit_length() - 1) for i, r in enumerate(frame.reads) if rmw[r]]
    for a, (i, r1, w1) in enumerate(rmw_reads):
        need1 = (1 << w1)
        for j, r2, w2 in rmw_reads[a + 1:]:
            if not ((sym[r1] >> w2) & 1 and (sym[r2] >> w1) & 1 and (sym[w1] >> w2) & 1
                    and sym[r1] & need1 and (sym[r2] >> w2) & 1):
                continue
            shared = sum(1 << w for w in set(candidates[i]) & set(candidates[j]))
            mask = shared & (inits | (sym[r1] & sym[r2]))
            if mask:
                conflicts.setdefault(i, {})[j] = mask
                conflicts.setdefault(j, {})[i] = mask
    wmask = sum(1 << k for k in range(frame.n) if events[k].kind == "W")
    edges: list[dict[int, tuple[int, int]]] = []
    for i, r in enumerate(frame.reads):
        same = loc[r] & sym[r] & wmask
        later = po[r] & same
        earlier = sum(1 << w2 for w2 in bits(same & ~later) if (po[w2] >> r) & 1)
        per: dict[int, tuple[int, int]] = {}
        for w in candidates[i]:
            if not (sym[w] >> r) & 1 and not (inits >> w) & 1:
                continue
            # CoRW: w -rf-> r -po-> w2 makes w co-before w2; CoWR: w2 -po-> r reading w != w2
            # makes w2 co-before w (the two are ordered when morally strong)
            bit = 1 << w
            succ = later & ~bit
            pred = earlier & ~bit & (-1 if (inits >> w) & 1 else sym[w])
            if succ or pred:
                per[w] = (succ, pred)
        edges.append(per)
    corr = [[j for j, r1 in enumerate(frame.reads[:i]) if (po[r1] >> r) & 1 and (loc[r1] >> r) & 1
             and (sym[r1] >> r) & 1] for i, r in enumerate(frame.reads)]
    forced = r_plus(forced)
    hang = {i: frame.writes_by_loc[events[r].loc] for i, r in enumerate(frame.reads) if events[r].hang}  # type: ignore[misc]
    siblings: list[list[int]] = [[] for _ in frame.reads]
    sa: Rel = frame.base["sa"]  # type: ignore[assignment]
    if frame.split and model.single_copy_atomic:
        index = {r: i for i, r in enumerate(frame.reads)}
        for i, r in enumerate(frame.reads):
            siblings[i] = [index[r2] for r2 in bits(sa[r]) if r2 in index]
    return _RfPruning(conflicts, edges, forced, hang, corr, sym, inits, siblings, sa, loc)


def _coherent_usable(model: Model) -> bool:
    """Whether ``model`` declares a ``coherent`` relation the pruning may use: one that depends
    on neither reads-from nor a chosen order (so it is known before they are chosen)."""
    if model.coherent is None:
        return False
    return not expr_deps(model, model.coherent) & ({"rf"} | {o.name for o in model.orders})


def _rf_choices(model: Model, frame: Frame, candidates: list[list[int]],
                pruning: _RfPruning | None = None, always_cycles: bool = False) -> Iterator[tuple[int, ...]]:
    """Every reads-from choice (one write per read) worth checking: all of them, less those
    ``pruning`` rules out (two exclusive RMWs reading one write, a cycle in the ``co`` edges
    the choice forces, a hang read whose source is no longer co-maximal) and, for a model
    that forbids ``rf | dep`` cycles and a large product, those with such a cycle."""
    total = 1
    for c in candidates:
        total *= len(c)
    cycles = model.acyclic_rf_dep and (total > RF_PRUNE_ABOVE or always_cycles)
    if pruning is not None and not pruning.active():
        pruning = None
    if not cycles and pruning is None:
        yield from product(*candidates)
        return
    nreads = len(frame.reads)
    # The search order: hang reads first (each later choice that gives a hang read's source a
    # co-successor then ends its branch at once), the others in program order.  Which choices
    # survive does not depend on the order; ``perm[p]`` is the read index searched at depth p.
    hang_idx = set(pruning.hang) if pruning is not None else set()
    perm = sorted(range(nreads), key=lambda i: (i not in hang_idx, i))
    pos = {i: p for p, i in enumerate(perm)}
    reads = [frame.reads[i] for i in perm]
    reach0 = r_plus(frame.base["dep"]) if cycles else []  # type: ignore[arg-type]
    order0 = pruning.forced if pruning is not None else []
    # per depth, looked up once: the read's candidates last first (the stack pops them first
    # first) with the co edges each forces
    none: dict[int, tuple[int, int]] = {}
    per_read = [[(w2, (pruning.edges[i] if pruning is not None else none).get(w2))
                 for w2 in reversed(candidates[i])] for i in perm]
    banned0: list[int] | None = None
    if pruning is not None:
        sym, inits = pruning.sym, pruning.inits
        hang = {pos[i]: m for i, m in pruning.hang.items()}
        hang_before = [[(h, m) for h, m in hang.items() if h < p] for p in range(nreads)]
        hang_at = [hang.get(p, 0) for p in range(nreads)]
        # CoRR pairs (an earlier and a later read of one thread), checked at the depth of the
        # one searched second: (depth of the other, whether the current one is the later)
        corr: list[list[tuple[int, bool]]] = [[] for _ in range(nreads)]
        for i, earlier in enumerate(pruning.corr):
            for j in earlier:
                pi, pj = pos[i], pos[j]
                corr[max(pi, pj)].append((min(pi, pj), pi > pj))
        # single-copy atomicity: two reads of one access (granules a, b), checked at the depth of
        # the one searched second: (depth of the other, its event)
        sibs: list[list[tuple[int, int]]] = [[] for _ in range(nreads)]
        for i, others in enumerate(pruning.siblings):
            for j in others:
                if pos[j] < pos[i]:
                    sibs[pos[i]].append((pos[j], frame.reads[j]))
        sa_rel, loc_rel = pruning.sa, pruning.loc
        # two exclusive RMW reads never read one write: once a read reads w, every read searched
        # later in conflict with it over w loses w (forward checking: a read left with no
        # candidate ends the branch at once instead of at its own turn)
        later = [[(pos[j], m) for j, m in pruning.conflicts.get(i, {}).items() if pos[j] > p]
                 for p, i in enumerate(perm)]
        if any(later):
            banned0 = [0] * nreads
            cmask = [sum(1 << w2 for w2 in candidates[i]) for i in perm]
    choice: list[int] = []
    # (depth, rf|dep closure, forced co closure, write chosen, per depth the writes that an
    # exclusive RMW read searched earlier already reads)
    stack: list[tuple[int, Rel, Rel, int, list[int] | None]] = [(0, reach0, order0, -1, banned0)]
    out_choice = [0] * nreads
    charge = budget.charge
    while stack:
        charge()  # every node of the search, kept or pruned, is a step
        i, reach, order, w, banned = stack.pop()
        del choice[max(i - 1, 0):]
        if w >= 0:
            choice.append(w)
        if i == nreads:
            for p, w1 in zip(perm, choice):
                out_choice[p] = w1
            yield tuple(out_choice)
            continue
        r = reads[i]
        add = (1 << r) | reach[r] if cycles else 0
        out = banned[i] if banned is not None else 0
        for w2, forced_edges in per_read[i]:
            if (add >> w2) & 1:  # r already reaches w2: w2 -rf-> r closes a cycle
                continue
            if (out >> w2) & 1:  # an exclusive RMW read searched earlier reads w2
                continue
            order2: Rel | None = order
            banned2 = banned
            if pruning is not None:
                order2 = _add_edges(order, w2, forced_edges) if forced_edges is not None else order
                # CoRR: the earlier read r1 of the thread saw w1 and the later one w2 (an
                # observation): w2 cannot be co-before w1
                for j, current_later in corr[i]:
                    if order2 is None:
                        break
                    if current_later:
                        w1, wl, r1 = choice[j], w2, reads[j]
                    else:
                        w1, wl, r1 = w2, choice[j], r
                    if (w1 != wl and not (order2[w1] >> wl) & 1 and (sym[w1] >> r1) & 1
                            and ((sym[w1] | inits) >> wl) & 1):
                        order2 = _add_edges(order2, w1, (1 << wl, 0))
                # Single-Copy-Atomicity: a read piece r_a reading w_a morally strong (coherent)
                # makes its sibling piece r_b read w_a's own piece there, or a write not
                # co-before it: an initial write never qualifies, and a coherent one comes after
                for j, rj in sibs[i]:
                    for ra, wa, rb, wb in ((r, w2, rj, choice[j]), (rj, choice[j], r, w2)):
                        if order2 is None:
                            break
                        if not (sym[wa] >> ra) & 1:
                            continue
                        sib = sa_rel[wa] & loc_rel[rb]
                        if not sib or (sib >> wb) & 1:
                            continue
                        x = sib.bit_length() - 1
                        if (inits >> wb) & 1 or (order2[wb] >> x) & 1:
                            order2 = None
                        elif (sym[x] >> wb) & 1:
                            order2 = _add_edges(order2, x, (1 << wb, 0))
                if order2 is None:
                    continue
                if hang:
                    if order2 is not order and any(order2[choice[h]] & m for h, m in hang_before[i]):
                        continue  # a hang read's source has a co-successor: it cannot spin forever
                    if order2[w2] & hang_at[i]:
                        continue
                if banned is not None and later[i]:
                    bit = 1 << w2
                    dead = False
                    for j, m in later[i]:
                        if m & bit and not banned2[j] & bit:  # type: ignore[index]
                            if banned2 is banned:
                                banned2 = list(banned)
                            banned2[j] |= bit  # type: ignore[index]
                            if not cmask[j] & ~banned2[j]:  # type: ignore[index]
                                dead = True
                                break
                    if dead:
                        continue
            bit = 1 << w2
            stack.append((i + 1, [row | add if (x == w2 or row & bit) else row
                                  for x, row in enumerate(reach)] if cycles else reach, order2, w2, banned2))


def _add_edges(order: Rel, w: int, edges: tuple[int, int] | None) -> Rel | None:
    """``order`` (transitively closed) with ``w -> succ`` and ``pred -> w`` added (``edges`` =
    (succ, pred) masks), closed again; None on a cycle."""
    if edges is None:
        return order
    succ, pred = edges
    if not pred and not (succ & ~order[w]):
        return order  # nothing new
    bit = 1 << w
    start = bit | pred
    above = start  # w, the new predecessors, and everything that reaches either (order is closed)
    reaches_w = 0
    for x, row in enumerate(order):
        if row & start:
            above |= 1 << x
            if row & bit:
                reaches_w |= 1 << x
    below = order[w]
    if not (succ & ~below) and not (pred & ~reaches_w):
        return order  # nothing new
    s = succ
    while s:
        low = s & -s
        below |= low | order[low.bit_length() - 1]
        s ^= low
    if below & above:
        return None
    out = list(order)
    a = above
    while a:
        low = a & -a
        x = low.bit_length() - 1
        out[x] |= below | (bit if x != w else 0)
        a ^= low
    return out


def _choose(model: Model, plan: _Plan, ev: Evaluator, frame: Frame, k: int,
            rf_choice: tuple[int, ...]) -> Iterator[dict[str, int]]:
    if k == len(model.orders):
        yield from _finals(model, plan, ev, frame, rf_choice)
        return
    order = model.orders[k]
    n = frame.n
    pairs_rel = ev.value(order.pairs)
    base = [0] * n
    if order.must is not None:
        base = list(ev.value(order.must))  # type: ignore[arg-type]
    if order.init_first:
        for locname, mask in frame.writes_by_loc.items():
            for w in bits(mask):
                if frame.thread_of[w] < 0:
                    base[w] |= mask & ~(1 << w)
    prune = plan.check_prune[k]
    check = plan.check_stage[k + 1]
    install = ev.setter(order.name)
    slots = ev.c
    # A hang needs each hang read's source to stay co-maximal: any co-successor of it (which
    # only more co can add) rules the execution out, so such partial orders are pruned.
    hang_srcs = _hang_sources(frame, rf_choice) if order.name == model.final_order else ()

    charge = budget.charge

    def viable(partial: Rel) -> bool:
        charge()
        if hang_srcs and any(partial[w] & mask for w, mask in hang_srcs):
            return False
        install(partial)
        return prune(slots)

    for chosen in orders_of(pairs_rel, base, viable):  # type: ignore[arg-type]
        charge()
        install(chosen)
        if check(slots):
            yield from _choose(model, plan, ev, frame, k + 1, rf_choice)


def _hang_candidates(frame: Frame, forced: Rel | None) -> list[list[int]]:
    """``frame.rf_candidates``, less what no hang read can read: a hang read must see a
    co-maximal write, and a write that every consistent execution orders before another write
    of its location (``forced``, :func:`_forced_order`) never is."""
    if not frame.hang_reads or forced is None:
        return frame.rf_candidates
    hang = set(frame.hang_reads)
    out = []
    for r, cands in zip(frame.reads, frame.rf_candidates):
        if r in hang:
            same_loc = frame.writes_by_loc[frame.events[r].loc]  # type: ignore[index]
            cands = [w for w in cands if not forced[w] & same_loc]
        out.append(cands)
    return out


def _forced_order(model: Model, frame: Frame, final: ChosenOrder, ev: Evaluator) -> Rel:
    """Edges of the final order (``co``) present in every consistent execution of ``frame``:
    initial writes first (``init_first``); with ``Model.coherent``, program order between two
    writes of one location related by it (CoWW: program order is causality there, and Coherence
    puts it into ``co``); else, for a frame with hang reads (where it restricts what they read),
    ``must`` evaluated with no reads-from and empty chosen orders when it can only grow with them
    (monotone), so it holds under any choice."""
    n = frame.n
    forced = [0] * n
    if final.init_first:
        for mask in frame.writes_by_loc.values():
            for w in bits(mask):
                if frame.thread_of[w] < 0:
                    forced[w] |= mask & ~(1 << w)
    if _coherent_usable(model):
        ex: Rel = ev.value(model.coherent)  # type: ignore[arg-type,assignment]
        po: Rel = frame.base["po"]  # type: ignore[assignment]
        loc: Rel = frame.base["loc"]  # type: ignore[assignment]
        for mask in frame.writes_by_loc.values():
            for w in bits(mask):
                if frame.thread_of[w] >= 0:
                    forced[w] |= po[w] & loc[w] & mask & ex[w]  # ex is symmetric (Model.coherent)
        return forced
    chosen = ["rf"] + [o.name for o in model.orders]
    if frame.hang_reads and final.must is not None and all(monotone_in(model, final.must, name) for name in chosen):
        ev0 = Evaluator(model, n, frame.base)
        for name in chosen:
            ev0.set(name, [0] * n)
        must: Rel = ev0.value(final.must)  # type: ignore[assignment]
        forced = [a | b for a, b in zip(forced, must)]
    return forced


def _hang_sources(frame: Frame, rf_choice: tuple[int, ...]) -> tuple[tuple[int, int], ...]:
    """``(write, same-location writes)`` for the write each hang read of ``frame`` reads from."""
    if not frame.hang_reads:
        return ()
    src = dict(zip(frame.reads, rf_choice))
    return tuple((src[r], frame.writes_by_loc[frame.events[r].loc]) for r in frame.hang_reads)  # type: ignore[index]


def orders_of(pairs_rel: Rel, base: Rel,
              viable: Callable[[Rel], bool] = lambda r: True) -> Iterator[Rel]:
    """Every strict partial order containing ``base`` that orders each pair of ``pairs_rel``
    one way, as a transitively closed relation.  ``viable(partial)`` False prunes every
    order that extends ``partial``."""
    closure = r_plus(base)
    if any((row >> i) & 1 for i, row in enumerate(closure)) or not viable(closure):
        return
    todo = [(i, j) for i, row in enumerate(pairs_rel) for j in bits(row) if i < j]
    yield from _orient(closure, todo, 0, viable)


def _orient(c: Rel, todo: list[tuple[int, int]], k: int,
            viable: Callable[[Rel], bool]) -> Iterator[Rel]:
    """Every way to order the pairs ``todo[k:]`` left unordered in ``c`` (closed under
    transitivity) that ``viable`` keeps, depth first, ``(i, j)`` before ``(j, i)``.

    An explicit stack rather than recursion: the depth is the number of pairs, which the input
    controls (many ``fence.sc`` make many pairs).
    """
    stack: list[tuple[Rel, int]] = [(c, k)]
    while stack:
        c, k = stack.pop()
        while k < len(todo) and ((c[todo[k][0]] >> todo[k][1]) & 1 or (c[todo[k][1]] >> todo[k][0]) & 1):
            k += 1
        if k == len(todo):
            yield c
            continue
        i, j = todo[k]
        children = []
        for a, b in ((i, j), (j, i)):
            succ = (1 << b) | c[b]
            bit_a = 1 << a
            c2 = [row | succ if (x == a or row & bit_a) else row for x, row in enumerate(c)]
            if k + 1 == len(todo) or viable(c2):
                children.append((c2, k + 1))
        stack.extend(reversed(children))


def _finals(model: Model, plan: _Plan, ev: Evaluator, frame: Frame,
            rf_choice: tuple[int, ...]) -> Iterator[dict[str, int]]:
    co: Rel = ev.get(model.final_order)  # type: ignore[assignment]
    events = frame.events
    if frame.hang_reads:
        # Each hang read must read a co-maximal write: nothing coherence-later exists that it
        # would have to see.  Other co-maximal writes (racing, unordered by co) do not end
        # the hang, even when one of them holds the value the spin waits for: co is partial,
        # and a read is never forced to see a write it is not co-ordered after.  (Demanding
        # otherwise missed hangs SC finds: every SC hang is one here, tests/model/test_laws.py.)
        src = dict(zip(frame.reads, rf_choice))
        for r in frame.hang_reads:
            mask = frame.writes_by_loc[events[r].loc]  # type: ignore[index]
            if co[src[r]] & mask:
                return
        yield {}
        return
    # co is partial: racing writes may stay unordered, and then the location may end with
    # the value of any co-maximal write (as Dat3M does: no total extension is required)
    per_loc = []
    for locname, mask in frame.writes_by_loc.items():
        per_loc.append((locname, sorted({events[w].value for w in bits(mask) if not co[w] & mask})))
    for values in product(*(v for _, v in per_loc)):
        yield {name: v for (name, _), v in zip(per_loc, values)}  # type: ignore[misc]


def test_traces(test: LitmusTest, unroll: int, layout: Layout | None = None) -> list[list[Trace]]:
    """Every trace of every thread of ``test`` (value domains computed first; per granule with a
    ``layout``)."""
    dom = value_domains(test, unroll, layout)
    if layout is not None:
        return [thread_traces(t, dom, unroll, test.source_file, layout=layout) for t in test.threads]
    addr = addresses(test)
    aliased = addr if any(l.alias_of is not None for l in test.locations) else None
    return [thread_traces(t, dom, unroll, test.source_file, aliased) for t in test.threads]
