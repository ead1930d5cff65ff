"""CTA barrier matching: which barrier events synchronize, and which threads deadlock.

Barrier events of threads in the same CTA (same rank and cta) with the same *key*
``(id, count)`` use the same barrier resource.  Matching on the pair ``(id, count)``
reproduces the Dat3M PTX dialect read by :mod:`litmus.interop`, where the second operand of
``bar.cta.sync a, b`` names a logical barrier rather than a thread count (see docs/model.md).

Without a quorum, the ``k``-th arrival of a thread at a resource belongs to generation ``k``
of that resource; a generation completes when every thread of the CTA that uses the resource
somewhere in its trace has arrived.  ``bar.sync`` waits for its generation to complete,
``bar.arrive`` does not.

With a quorum ``q`` (``bar.cta.sync a, b, q``, Dat3M's named barrier), the resource opens once
``q`` arrivals were made: the first ``q`` arrivals synchronize with each other, and every
later arrival passes at once, ordered after every earlier arrival.  Which threads arrive first
is a choice, so :func:`barrier_outcomes` returns one outcome per distinct arrival order.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Sequence

from litmus.model.traces import TEvent

EventRef = tuple[int, int]
"""(thread index, event index in that thread's trace)."""


@dataclass(frozen=True)
class BarrierOutcome:
    """``edges``: (b1, b2) when b2 waited for (or came after) b1.  ``blocked``: thread index ->
    trace index of the barrier it waits at forever (empty: no deadlock)."""

    edges: tuple[tuple[EventRef, EventRef], ...]
    blocked: dict[int, int]


@dataclass
class _Sim:
    """The mutable state of one barrier simulation."""

    pos: list[int]
    blocked: dict[int, int] = field(default_factory=dict)
    arrivals: dict[tuple[int, tuple], int] = field(default_factory=dict)
    gens: dict[tuple, list[list[EventRef]]] = field(default_factory=dict)
    done: dict[tuple, int] = field(default_factory=dict)
    edges: list[tuple[EventRef, EventRef]] = field(default_factory=list)

    def copy(self) -> "_Sim":
        return _Sim(list(self.pos), dict(self.blocked), dict(self.arrivals),
                    {k: [list(g) for g in v] for k, v in self.gens.items()}, dict(self.done),
                    list(self.edges))


def _scan(traces: Sequence[Sequence[TEvent]], places: Sequence[tuple[int, int]]
          ) -> tuple[list[list[tuple[int, tuple]]], dict[tuple, set[int]]]:
    bars: list[list[tuple[int, tuple]]] = []
    users: dict[tuple, set[int]] = {}
    for t, events in enumerate(traces):
        mine = []
        for i, e in enumerate(events):
            if e.kind == "B":
                key = (places[t], e.bar_key)
                mine.append((i, key))
                users.setdefault(key, set()).add(t)
        bars.append(mine)
    return bars, users


def barrier_outcomes(traces: Sequence[Sequence[TEvent]],
                     places: Sequence[tuple[int, int]]) -> list[BarrierOutcome]:
    """Every way the barriers of one combination of thread traces can resolve (one outcome
    unless some barrier has a quorum)."""
    bars, users = _scan(traces, places)
    if not users:
        return [BarrierOutcome((), {})]
    out: dict[tuple, BarrierOutcome] = {}
    stack = [_Sim([0] * len(traces))]
    while stack:
        sim = stack.pop()
        _advance(sim, traces, bars, users)
        ready = [t for t in range(len(traces))
                 if t not in sim.blocked and sim.pos[t] < len(bars[t])]
        if not ready:
            edges = tuple(sorted(set(sim.edges)))
            key = (edges, tuple(sorted(sim.blocked.items())))
            out.setdefault(key, BarrierOutcome(edges, dict(sim.blocked)))
            continue
        for t in reversed(ready):  # each thread waiting to arrive at a quorum barrier may go first
            nxt = sim.copy()
            _arrive(nxt, t, traces, bars, users)
            stack.append(nxt)
    return list(out.values())


def match_barriers(traces: Sequence[Sequence[TEvent]], places: Sequence[tuple[int, int]]) -> BarrierOutcome:
    """The first outcome of :func:`barrier_outcomes` (the only one when no barrier has a quorum)."""
    return barrier_outcomes(traces, places)[0]


def _quorum(traces: Sequence[Sequence[TEvent]], t: int, i: int) -> int | None:
    return traces[t][i].quorum


def _advance(sim: _Sim, traces, bars, users) -> None:
    """Arrive every thread whose next barrier has no quorum, until none can move."""
    progress = True
    while progress:
        progress = False
        for t in range(len(traces)):
            while t not in sim.blocked and sim.pos[t] < len(bars[t]):
                i, _ = bars[t][sim.pos[t]]
                if _quorum(traces, t, i) is not None:
                    break
                _arrive(sim, t, traces, bars, users)
                progress = True


def _arrive(sim: _Sim, t: int, traces, bars, users) -> None:
    i, key = bars[t][sim.pos[t]]
    quorum = _quorum(traces, t, i)
    lists = sim.gens.setdefault(key, [])
    if quorum is not None:
        if not lists:
            lists.append([])
        members = lists[0]
        me = (t, i)
        if len(members) >= quorum:  # already open: pass, after every earlier arrival
            if not traces[t][i].arrive:
                sim.edges.extend((a, me) for a in members)
            members.append(me)
            sim.pos[t] += 1
            return
        members.append(me)
        if traces[t][i].arrive:
            sim.pos[t] += 1
        else:
            sim.blocked[t] = i
        if len(members) == quorum:
            _release(sim, members, traces)
        return
    g = sim.arrivals.get((t, key), 0)
    sim.arrivals[(t, key)] = g + 1
    while len(lists) <= g:
        lists.append([])
    lists[g].append((t, i))
    if traces[t][i].arrive:
        sim.pos[t] += 1
    else:
        sim.blocked[t] = i
    need = len(users[key])
    while sim.done.get(key, 0) < len(lists) and len(lists[sim.done.get(key, 0)]) >= need:
        members = lists[sim.done.get(key, 0)]
        sim.done[key] = sim.done.get(key, 0) + 1
        _release(sim, members, traces)


def _release(sim: _Sim, members: list[EventRef], traces) -> None:
    """A generation completes: every member is ordered before every waiting member."""
    for a in members:
        for b in members:
            if a != b and not traces[b[0]][b[1]].arrive:
                sim.edges.append((a, b))
    for t, i in members:
        if sim.blocked.get(t) == i:
            del sim.blocked[t]
            sim.pos[t] += 1
