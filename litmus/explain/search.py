"""Finding the executions an explanation shows: one consistent execution that ends in a state
(the checker's own enumeration, :func:`litmus.model.executions.consistent_witnesses`), or every
candidate execution that ends in it, each with the evaluator that holds its relations.

Candidates are herd's: every frame (paths and barrier outcome), every reads-from choice whose
values resolve, every orientation of the chosen orders other than coherence (``sf``), and every
*total* coherence order per location with the initial write first.  A state the model forbids
has no consistent candidate among them: were one consistent, the checker's partial ``co`` made
of its morally strong pairs and what causality forces would be too, with the same final values.

The candidates come in three levels, each searched only when the one before has no candidate
ending in the state.  Level 0 is what the checker itself examines: reads-from choices its
coherence pruning keeps (no two RMWs read one write; CoRW, CoWR, CoRR and CoWW for morally strong
pairs; no ``rf | dep`` cycle where the model forbids one) and orders that contain what the
model's ``must`` forces in that execution (``co``: causality between writes).  These are the
executions a reader asks about.  Level 1 drops the reads-from pruning, level 2 the ``must`` too:
their candidates break coherence outright (a coherence test such as CoRR or CoWW).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from itertools import product
from typing import Iterator

from litmus.condition import evaluate
from litmus.ir import LitmusTest, Prop
from litmus.model.compiled import Evaluator
from litmus.model.executions import Frame, coherent_rf_choices, consistent_witnesses, orders_of
from litmus.model.layout import Layout
from litmus.model.relations import Model, Rel, bits, r_plus
from litmus.observables import observables

from litmus.explain.frames import Case, Cases, final_state, flat_registers

LEVELS = (0, 1, 2)
"""The candidate levels, most telling first (above)."""


@dataclass(frozen=True)
class Execution:
    """One execution: its frame (values filled in), registers, reads-from and chosen orders by
    name, final value per physical location (granule), and the state it ends in."""

    frame: Frame
    regs: dict[str, int]
    relations: dict[str, Rel]
    finals: dict[str, int]
    state: dict[str, int]


@dataclass
class Tally:
    """What a candidate search went through: candidates ending in the state, steps taken, whether
    it stopped at its limit, and every value each state key took in any candidate."""

    matching: int = 0
    steps: int = 0
    stopped: bool = False
    seen: dict[str, set[int]] = field(default_factory=dict)


End = tuple[dict[str, int], dict[str, int], dict[str, int]]
"""The coherence-last write of each location, the final values they give and the state."""


class Query:
    """One question, ``prop`` over the final states of ``test``, with what every search of it
    shares: the test's state keys, its frames (found once) and, per frame of guessed values
    (whose registers and values do not depend on reads-from), its choices of last writes."""

    def __init__(self, test: LitmusTest, layout: Layout | None, prop: Prop):
        self.test = test
        self.layout = layout
        self.prop = prop
        self.keys = observables(test)
        self.frames = Cases(test, layout)
        self._fixed: dict[int, tuple[Case, list[End], dict[str, set[int]]]] = {}

    def ends(self, frame: Frame, regs: dict[str, int], tally: Tally) -> list[End]:
        """Every choice of coherence-last writes whose state satisfies the prop (noting every
        value each key takes in ``tally.seen``)."""
        out = []
        for lasts in _lasts(frame):
            tally.steps += 1  # a step each: many locations with many writes make many choices
            finals = {loc: frame.events[w].value for loc, w in lasts.items()}
            state = final_state(self.test, self.layout, regs, finals, self.keys)  # type: ignore[arg-type]
            for k, v in state.items():
                tally.seen.setdefault(k, set()).add(v)
            if evaluate(self.prop, state):
                out.append((lasts, finals, state))
        return out  # type: ignore[return-value]

    def case_ends(self, case: Case, tally: Tally) -> list[End]:
        """:meth:`ends` of a frame of guessed values, worked out once."""
        hit = self._fixed.get(id(case))
        if hit is None or hit[0] is not case:
            mine = Tally()
            hit = self._fixed[id(case)] = (case, self.ends(case.frame, dict(case.regs), mine), mine.seen)
            tally.steps += mine.steps
        for k, vs in hit[2].items():
            tally.seen.setdefault(k, set()).update(vs)
        return hit[1]


def allowed_execution(q: Query, model: Model) -> Execution | None:
    """The first consistent execution the checker's enumeration finds whose state satisfies the prop;
    frames and reads-from choices that cannot end in such a state are skipped before any order
    is chosen."""
    scratch = Tally()

    def hopeless(frame: Frame, extra: object) -> bool:
        return not q.ends(frame, flat_registers(q.test, extra), scratch)

    for case in q.frames:
        if case.resolve is None and not q.case_ends(case, scratch):
            continue
        for w in consistent_witnesses(model, case.frame, case.resolve, hopeless if case.resolve is not None else None):
            regs = flat_registers(q.test, w.extra) if case.resolve is not None else dict(case.regs)
            state = final_state(q.test, q.layout, regs, w.finals, q.keys)
            if evaluate(q.prop, state):
                return Execution(w.frame, regs, w.relations, dict(w.finals), state)
    return None


def reachable(q: Query, tally: Tally, max_steps: int) -> bool:
    """Whether some candidate execution ends in a state satisfying the prop (its orders aside:
    any write may be coherence-last), noting every value each key takes in ``tally.seen``; False
    with ``tally.stopped`` set when it gave up after ``max_steps`` steps."""
    for case in q.frames:
        if case.resolve is None:
            if q.case_ends(case, tally):
                return True
            continue
        for choice in product(*case.frame.rf_candidates):
            tally.steps += 1
            if tally.steps > max_steps:
                tally.stopped = True
                return False
            got = case.resolve(choice)
            if got is not None and q.ends(got[0], flat_registers(q.test, got[1]), tally):  # type: ignore[arg-type]
                return True
    return False


def candidates(q: Query, model: Model, tally: Tally, max_steps: int, level: int, max_matching: int | None = None
               ) -> Iterator[tuple[Execution, Evaluator]]:
    """Every candidate execution of ``level`` (above) whose state satisfies the prop, with an
    evaluator holding its relations (valid until the next one is asked for); stops after
    ``max_steps`` steps (choices of last writes, reads-from and orders tried) or
    ``max_matching`` candidates, setting ``tally.stopped``."""
    for case in q.frames:
        frame0 = case.frame
        fixed: list[End] = []
        if case.resolve is None:  # values and registers do not depend on reads-from: decide once
            fixed = q.case_ends(case, tally)
            if not fixed:
                continue
        ev = Evaluator(model, frame0.n, frame0.base)
        choices = (coherent_rf_choices(model, frame0, case.resolve is not None) if level == 0
                   else product(*frame0.rf_candidates))
        for choice in choices:
            tally.steps += 1
            if tally.steps > max_steps:
                tally.stopped = True
                return
            if case.resolve is not None:
                got = case.resolve(choice)
                if got is None:
                    continue
                frame, extra = got
                regs = flat_registers(q.test, extra)
                ends = q.ends(frame, regs, tally)  # type: ignore[arg-type]
            else:
                frame, regs, ends = frame0, dict(case.regs), fixed
            if not ends:
                continue
            rf = [0] * frame.n
            for r, w in zip(frame.reads, choice):
                rf[w] |= 1 << r
            ev.set("rf", rf)
            for rels, (finals, state) in _orders(model, frame, ev, 0, {}, ends, level < 2):
                tally.steps += 1
                if tally.steps > max_steps or (max_matching is not None and tally.matching >= max_matching):
                    tally.stopped = True
                    return
                tally.matching += 1
                rels["rf"] = rf
                yield Execution(frame, regs, rels, finals, state), ev


def _lasts(frame: Frame) -> Iterator[dict[str, int]]:
    """Every choice of the coherence-last write of each location (an initial write only when no
    other write to its location exists)."""
    per_loc = []
    for loc, mask in frame.writes_by_loc.items():
        ws = [w for w in bits(mask) if frame.thread_of[w] >= 0] or list(bits(mask))
        per_loc.append((loc, ws))
    for pick in product(*(ws for _, ws in per_loc)):
        yield {loc: w for (loc, _), w in zip(per_loc, pick)}


def _orders(model: Model, frame: Frame, ev: Evaluator, k: int, chosen: dict[str, Rel],
            ends: list[End], forced: bool) -> Iterator[tuple[dict[str, Rel], tuple[dict[str, int], dict[str, int]]]]:
    """Every choice of the model's orders from order ``k`` on, installed in ``ev``, with the final
    values and state it gives: the final order total per location, ending at the last writes of
    one of ``ends``; the others every orientation of their pairs; each containing its ``must``
    when ``forced``."""
    if k == len(model.orders):
        for _, finals, state in ends:  # one end is left once the final order is chosen
            yield dict(chosen), (finals, state)
        return
    o = model.orders[k]
    base = [0] * frame.n
    if o.init_first:
        for mask in frame.writes_by_loc.values():
            for w in bits(mask):
                if frame.thread_of[w] < 0:
                    base[w] |= mask & ~(1 << w)
    if forced and o.must is not None:
        base = [a | b for a, b in zip(base, ev.value(o.must))]  # type: ignore[arg-type]
    if o.name != model.final_order:
        for r in orders_of(ev.value(o.pairs), base):  # type: ignore[arg-type]
            ev.set(o.name, r)
            chosen[o.name] = r
            yield from _orders(model, frame, ev, k + 1, chosen, ends, forced)
        return
    before = r_plus(base)
    for end in ends:
        for r in _total_orders(frame, end[0], before):
            ev.set(o.name, r)
            chosen[o.name] = r
            yield from _orders(model, frame, ev, k + 1, chosen, [end], forced)


def _total_orders(frame: Frame, lasts: dict[str, int], before: Rel) -> Iterator[Rel]:
    """Every total order of each location's writes that ends at its write in ``lasts`` and
    contains ``before`` (transitively closed), as one transitively closed relation."""
    if any((row >> i) & 1 for i, row in enumerate(before)):
        return
    locs = list(frame.writes_by_loc.items())
    if any(before[lasts[loc]] & mask for loc, mask in locs):
        return  # a last write must precede another write of its location
    rows = [0] * frame.n

    def fill(k: int) -> Iterator[Rel]:  # lazily: a location of many writes has many orders
        if k == len(locs):
            yield list(rows)
            return
        loc, mask = locs[k]
        last = lasts[loc]
        for seq in _extensions([w for w in bits(mask) if w != last], before):
            later = 0
            for w in reversed(seq + (last,)):
                rows[w] = later
                later |= 1 << w
            yield from fill(k + 1)

    yield from fill(0)


def _extensions(ws: list[int], before: Rel) -> Iterator[tuple[int, ...]]:
    """Every order of ``ws`` in which no write comes after one that ``before`` puts after it."""
    if not ws:
        yield ()
        return
    for i, w in enumerate(ws):
        rest = ws[:i] + ws[i + 1:]
        if any((before[x] >> w) & 1 for x in rest):
            continue  # some write not placed yet must come before w
        for tail in _extensions(rest, before):
            yield (w,) + tail
