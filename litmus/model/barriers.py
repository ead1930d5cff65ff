"""CTA barrier matching: which barrier events synchronize, and which threads deadlock.

Barrier events of threads in the same CTA (same rank and cta) with the same *key*
``(id, count)`` use the same barrier resource.  The ``k``-th arrival of a thread at a resource
belongs to generation ``k`` of that resource; a generation completes when every thread of the
CTA that uses the resource somewhere in its trace has arrived.  ``bar.sync`` waits for its
generation to complete, ``bar.arrive`` does not.  Matching on the pair ``(id, count)``
reproduces the Dat3M PTX dialect read by :mod:`litmus.interop`, where the second operand of
``bar.cta.sync a, b`` names a logical barrier rather than a thread count (see docs/model.md).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

from litmus.model.traces import TEvent

EventRef = tuple[int, int]
"""(thread index, event index in that thread's trace)."""


@dataclass(frozen=True)
class BarrierOutcome:
    """``edges``: (b1, b2) when b2 waited for a generation b1 arrived at.  ``blocked``:
    thread index -> trace index of the barrier it waits at forever (empty: no deadlock)."""

    edges: tuple[tuple[EventRef, EventRef], ...]
    blocked: dict[int, int]


def match_barriers(traces: Sequence[Sequence[TEvent]], places: Sequence[tuple[int, int]]) -> BarrierOutcome:
    """Simulate the barriers of one combination of thread traces."""
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
    if not users:
        return BarrierOutcome((), {})
    pos = [0] * len(traces)
    blocked: dict[int, int] = {}
    arrivals: dict[tuple[int, tuple], int] = {}
    gens: dict[tuple, list[list[EventRef]]] = {}
    done: dict[tuple, int] = {}
    edges: list[tuple[EventRef, EventRef]] = []
    progress = True
    while progress:
        progress = False
        for t in range(len(traces)):
            while t not in blocked and pos[t] < len(bars[t]):
                i, key = bars[t][pos[t]]
                g = arrivals.get((t, key), 0)
                arrivals[(t, key)] = g + 1
                lists = gens.setdefault(key, [])
                while len(lists) <= g:
                    lists.append([])
                lists[g].append((t, i))
                progress = True
                if traces[t][i].arrive:
                    pos[t] += 1
                else:
                    blocked[t] = i
                _complete(key, gens, done, users, traces, blocked, pos, edges)
    return BarrierOutcome(tuple(edges), blocked)


def _complete(key, gens, done, users, traces, blocked, pos, edges) -> None:
    lists = gens[key]
    need = len(users[key])
    while done.get(key, 0) < len(lists) and len(lists[done.get(key, 0)]) >= need:
        members = lists[done.get(key, 0)]
        done[key] = done.get(key, 0) + 1
        for a in members:
            for b in members:
                if a != b and not traces[b[0]][b[1]].arrive:
                    edges.append((a, b))
        for t, i in members:
            if blocked.get(t) == i:
                del blocked[t]
                pos[t] += 1
