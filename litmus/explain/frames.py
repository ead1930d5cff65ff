"""The candidate frames of a test as the model checker builds them: every combination of
per-thread paths whose barriers all open, flattened into a :class:`~litmus.model.executions.Frame`,
with what fixes its registers (the guessed traces' registers, or the resolver of a straight-line
test's symbolic frame), and the final state of an execution of one."""

from __future__ import annotations

from dataclasses import dataclass
from itertools import product
from typing import Callable, Iterator, Mapping

from litmus.ir import LitmusTest
from litmus.model.barriers import barrier_outcomes
from litmus.model.checker import DEFAULT_UNROLL
from litmus.model.executions import Frame, addresses, build_frame, check_declared, test_traces
from litmus.model.layout import Layout
from litmus.model.symbolic import resolver, straight_line, symbolic_traces
from litmus.model.traces import Trace
from litmus.observables import observables

Resolve = Callable[[tuple[int, ...]], "tuple[Frame, object] | None"]


@dataclass(frozen=True)
class Case:
    """One frame of candidate executions.  ``resolve`` (a straight-line test, read values left
    symbolic): a reads-from choice -> the frame with its values and each thread's registers, or
    None; else ``regs`` holds the registers the guessed traces end with (``"P1:r0"`` keys)."""

    frame: Frame
    resolve: Resolve | None
    regs: Mapping[str, int]


def cases(test: LitmusTest, layout: Layout | None, unroll: int = DEFAULT_UNROLL) -> Iterator[Case]:
    """Every frame the checker examines whose threads all finish (no stuck path, no thread left
    at a barrier): only such frames end in a final state."""
    places = [(t.rank, t.cta) for t in test.threads]
    names = [t.name for t in test.threads]
    if straight_line(test):
        if layout is None:
            check_declared(test, {l.name for l in test.locations})
            addr = addresses(test) if any(l.alias_of is not None for l in test.locations) else None
        else:
            check_declared(test, layout.pieces)
            addr = None
        per_thread = [symbolic_traces(t, layout, addr) for t in test.threads]
        for combo in product(*per_thread):
            for outcome in barrier_outcomes([tr.events for tr in combo], places):
                if outcome.blocked:
                    continue
                frame = build_frame(test, [tr.events for tr in combo], outcome, layout)
                if frame is not None:
                    yield Case(frame, resolver(frame, list(combo)), {})
        return
    traces = test_traces(test, unroll, layout)
    init = dict(layout.init) if layout is not None else {l.name: l.init for l in test.locations}
    for pick in combinations(traces, init):
        combo = [traces[t][k] for t, k in enumerate(pick)]
        if any(tr.status == "stuck" for tr in combo):
            continue
        for outcome in barrier_outcomes([tr.events for tr in combo], places):
            if outcome.blocked:
                continue
            frame = build_frame(test, [tr.events for tr in combo], outcome, layout)
            if frame is not None:
                regs = {f"{name}:{r}": v for name, tr in zip(names, combo) for r, v in tr.regs}
                yield Case(frame, None, regs)


def combinations(per_thread: list[list[Trace]], init: Mapping[str, int]) -> Iterator[tuple[int, ...]]:
    """The combinations of traces (one index per thread) that the checker examines: those in
    which every value a read returns, other than its location's initial value, is written by
    some trace of the combination (``litmus.model.checker``'s rule).  The traces of a thread are
    grouped by what they read and write, so that a thread of thousands of traces (spins, CASes)
    costs its few distinct groups: the same combinations, grouped by kind rather than in
    ``product`` order."""
    index: dict[tuple[str, int], int] = {}

    def mask(pairs: Iterator[tuple[str, int]]) -> int:
        out = 0
        for key in pairs:
            out |= index.setdefault(key, 1 << len(index))
        return out

    groups: list[list[tuple[int, int, list[int]]]] = []  # per thread: (needs, gives, trace indices)
    for trs in per_thread:
        by: dict[tuple[int, int], list[int]] = {}
        for k, tr in enumerate(trs):
            need = mask((e.loc, e.value) for e in tr.events  # type: ignore[misc]
                        if e.kind == "R" and e.value != init[e.loc])  # type: ignore[index]
            give = mask((e.loc, e.value) for e in tr.events if e.kind == "W")  # type: ignore[misc]
            by.setdefault((need, give), []).append(k)
        groups.append([(n, g, ks) for (n, g), ks in by.items()])
    depth = len(groups)
    later = [0] * (depth + 1)  # what threads t.. could write, all traces together
    for t in range(depth - 1, -1, -1):
        later[t] = later[t + 1]
        for _, g, _ in groups[t]:
            later[t] |= g
    chosen: list[list[int]] = []

    def walk(t: int, need: int, give: int) -> Iterator[list[list[int]]]:
        if t == depth:
            yield chosen
            return
        for n, g, ks in groups[t]:
            n2, g2 = need | n, give | g
            if n2 & ~(g2 | later[t + 1]):
                continue
            chosen.append(ks)
            yield from walk(t + 1, n2, g2)
            chosen.pop()

    for kinds in walk(0, 0, 0):
        yield from product(*kinds)


class Cases:
    """:func:`cases`, remembered as they come: the candidate search goes over a test's frames
    once per level, and finding them again would cost as much as the first time."""

    def __init__(self, test: LitmusTest, layout: Layout | None):
        self._source = cases(test, layout)
        self._seen: list[Case] = []
        self._done = False

    def __iter__(self) -> Iterator[Case]:
        k = 0
        while True:
            if k < len(self._seen):
                yield self._seen[k]
                k += 1
                continue
            if self._done:
                return
            nxt = next(self._source, None)
            if nxt is None:
                self._done = True
                return
            self._seen.append(nxt)


def flat_registers(test: LitmusTest, per_thread: object) -> dict[str, int]:
    """The registers a resolver gives (one mapping per thread) as ``"P1:r0"`` keys."""
    pairs = zip(test.threads, per_thread)  # type: ignore[call-overload]
    return {f"{t.name}:{r}": v for t, regs in pairs for r, v in regs.items()}


def final_state(test: LitmusTest, layout: Layout | None, regs: Mapping[str, int],
                finals: Mapping[str, int], keys: tuple[str, ...] | None = None) -> dict[str, int]:
    """The state (every observable key) of an execution with these registers and final values
    per physical location (per granule with a ``layout``); what no write or register sets keeps
    its initial value, or 0.  ``keys``: :func:`~litmus.observables.observables` of ``test``, if
    the caller has them already."""
    full = dict(regs)
    if layout is not None:
        granules = dict(layout.init)
        granules.update(finals)
        for name in layout.pieces:
            full[name] = layout.compose(name, granules)
        init: dict[str, int] = {}
    else:
        init = {l.name: l.init for l in test.locations}
        full.update(finals)
        for l in test.locations:
            if l.alias_of is not None and l.physical(test) in full:
                full[l.name] = full[l.physical(test)]
    return {k: full.get(k, init.get(k, 0)) for k in (observables(test) if keys is None else keys)}
