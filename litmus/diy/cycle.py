"""A cycle of edges -> the events of a litmus test: threads, locations, values, registers.

diy's construction: each edge ``i`` goes from event ``i`` to event ``i + 1`` (mod n).  An
external edge starts a new thread, so there are as many threads as external edges.  A
location-changing edge (``Pod``, ``Fence..d``) starts a new location; the same-location edges
between two of them form one *segment* on one location, and the segment's order is coherence
order.  A write gets the next value of its location (1, 2); a read reads the write just before
it in its segment (``Rf``) or, first in its segment, the initial 0 (it then reads from before
the write its ``Fr`` edge points at).  A location with two writes adds its final value (the
later write's) to the condition, which pins their coherence order.
"""

from __future__ import annotations

from dataclasses import dataclass

from litmus.diy.edges import Edge
from litmus.errors import LitmusError

MAX_THREADS = 4
MAX_WRITES_PER_LOCATION = 2
LOCATION_NAMES = ("x", "y", "z", "a", "b", "c", "d", "e", "f", "g", "h", "k")


@dataclass(frozen=True)
class Event:
    """One memory access of the test."""

    index: int          # position in the built cycle
    dir: str            # "R" or "W"
    thread: int         # P<thread>
    loc: str
    value: int          # written value (W) or the value the cycle wants read (R)
    reg: str | None     # the register a read loads into


@dataclass(frozen=True)
class Layout:
    """The test a cycle describes: events by thread, the fences between them, the condition."""

    edges: tuple[Edge, ...]                      # rotated so that event 0 starts thread P0
    events: tuple[Event, ...]
    locations: tuple[str, ...]                   # in order of first access
    threads: tuple[tuple[Event | Edge, ...], ...]  # each thread's accesses, with fence edges between
    final: tuple[tuple[str, int], ...]           # locations whose final value the condition pins

    @property
    def condition(self) -> str:
        """The herd-style ``exists`` body: every read's value, then the pinned final values."""
        terms = [f"P{e.thread}:{e.reg} == {e.value}" for e in self.events if e.reg]
        terms += [f"{loc} == {v}" for loc, v in self.final]
        return " /\\ ".join(terms)


def text(edges: tuple[Edge, ...]) -> str:
    """The cycle as diy writes it: edge names separated by spaces."""
    return " ".join(e.name for e in edges)


def rotations(edges: tuple[Edge, ...]) -> list[tuple[Edge, ...]]:
    """Every rotation of ``edges``, starting with ``edges`` itself."""
    return [edges[k:] + edges[:k] for k in range(len(edges))]


def canonical(edges: tuple[Edge, ...]) -> tuple[Edge, ...]:
    """The rotation with the smallest sequence of names: two cycles are one test iff equal here."""
    return min(rotations(edges), key=lambda r: tuple(e.name for e in r))


def check(edges: tuple[Edge, ...]) -> None:
    """Raise a one-line :class:`LitmusError` unless ``edges`` is a well-formed cycle."""
    where = f"cycle {text(edges)!r}"
    n = len(edges)
    if n < 2:
        raise LitmusError(f"{where}: a cycle needs at least two edges")
    for k, e in enumerate(edges):
        nxt = edges[(k + 1) % n]
        if e.dst != nxt.src:
            raise LitmusError(f"{where}: {e.name} ends at a {_word(e.dst)} but the next edge, {nxt.name}, "
                              f"starts at a {_word(nxt.src)}; event directions must chain (the last edge wraps to the first)")
    external = sum(e.external for e in edges)
    if external < 2:
        raise LitmusError(f"{where}: a cycle needs at least two external edges (Rfe, Fre, Coe); with "
                          f"{'one it leaves its thread and comes back to it' if external else 'none it stays in one thread'}")
    if external > MAX_THREADS:
        raise LitmusError(f"{where}: {external} external edges make {external} threads; at most {MAX_THREADS}")
    changes = sum(not e.same_loc for e in edges)
    if changes == 0:
        raise LitmusError(f"{where}: every edge stays on one location (a coherence cycle); "
                          "give at least two location-changing edges (Pod.., Fence..d..)")
    if changes == 1:
        raise LitmusError(f"{where}: only one location-changing edge, so its two ends would be one location "
                          "and two at once; give none or at least two")
    layout(edges)  # the per-location checks


def _word(d: str) -> str:
    return "write" if d == "W" else "read"


def build_rotation(edges: tuple[Edge, ...]) -> tuple[Edge, ...]:
    """The rotation the test is built from: a thread starts at event 0 (the last edge is
    external), a write first where possible, then the smallest names; a function of the
    canonical cycle, so equal cycles give equal tests."""
    starts = [r for r in rotations(canonical(edges)) if r[-1].external]
    return min(starts, key=lambda r: (r[0].src != "W", tuple(e.name for e in r)))


def layout(edges: tuple[Edge, ...]) -> Layout:
    """The events, threads, locations and condition of the (well-chained) cycle ``edges``, built
    from ``edges`` as given when its last edge is external (event 0 starts P0), else from
    :func:`build_rotation`."""
    es = edges if edges[-1].external else build_rotation(edges)
    n = len(es)
    thread = [0] * n
    for k in range(1, n):
        thread[k] = thread[k - 1] + (1 if es[k - 1].external else 0)
    # locations: a fresh one after each location-changing edge; event 0 follows the last edge
    seg = [0] * n
    for k in range(1, n):
        seg[k] = seg[k - 1] + (0 if es[k - 1].same_loc else 1)
    if es[-1].same_loc:  # event 0 continues the last segment (which wraps around)
        seg = [0 if s == seg[-1] else s for s in seg]
    order: list[int] = []
    for s in seg:
        if s not in order:
            order.append(s)
    if len(order) > len(LOCATION_NAMES):
        raise LitmusError(f"cycle {text(edges)!r}: more than {len(LOCATION_NAMES)} locations")
    loc = [LOCATION_NAMES[order.index(s)] for s in seg]
    # walk each segment in coherence order: from just after a location change
    start = next(k for k in range(n) if not es[k - 1].same_loc)
    walk = [(start + j) % n for j in range(n)]
    values: dict[int, int] = {}
    writes: dict[str, int] = {}
    last: dict[str, int] = {}
    for k in walk:
        d = es[k].src
        if not es[k - 1].same_loc:
            last[loc[k]] = 0
        if d == "W":
            writes[loc[k]] = writes.get(loc[k], 0) + 1
            values[k] = last[loc[k]] = writes[loc[k]]
        else:
            values[k] = last[loc[k]]
    for name, count in writes.items():
        if count > MAX_WRITES_PER_LOCATION:
            raise LitmusError(f"cycle {text(edges)!r}: {count} writes to one location; at most "
                              f"{MAX_WRITES_PER_LOCATION}, whose coherence order the final value pins")
    regs: dict[int, int] = {}
    events = []
    for k in range(n):
        reg = None
        if es[k].src == "R":
            reg = f"r{regs.get(thread[k], 0)}"
            regs[thread[k]] = regs.get(thread[k], 0) + 1
        events.append(Event(k, es[k].src, thread[k], loc[k], values[k], reg))
    threads: list[list[Event | Edge]] = [[] for _ in range(thread[-1] + 1)]
    for k, ev in enumerate(events):
        threads[ev.thread].append(ev)
        if es[k].fence and not es[k].external:
            threads[ev.thread].append(es[k])
    final = tuple((name, count) for name, count in sorted(writes.items(), key=lambda kv: loc.index(kv[0]))
                  if count > 1)
    return Layout(es, tuple(events), tuple(LOCATION_NAMES[:len(order)]), tuple(tuple(t) for t in threads), final)
