"""Every well-formed cycle up to a length over a set of edges, one per rotation class."""

from __future__ import annotations

from typing import Iterator

from litmus.diy.cycle import MAX_THREADS, canonical, check
from litmus.diy.edges import Edge
from litmus.errors import LitmusError


def cycles(edges: tuple[Edge, ...], max_length: int, min_length: int = 2) -> Iterator[tuple[Edge, ...]]:
    """Canonical cycles of ``min_length .. max_length`` edges drawn from ``edges``: directions
    chain, 2 to :data:`MAX_THREADS` external edges, no two program-order edges in a row (the
    access between them would be alone on its location), and :func:`litmus.diy.cycle.check`
    accepts them.  Each rotation class comes once, as its canonical rotation, shortest first."""
    pool = sorted(set(edges), key=lambda e: e.name)
    for n in range(min_length, max_length + 1):
        for first in pool:
            # the canonical rotation starts with its smallest name: only larger-or-equal edges follow
            rest = [e for e in pool if e.name >= first.name]
            yield from _extend((first,), n, rest)


def _extend(prefix: tuple[Edge, ...], n: int, pool: list[Edge]) -> Iterator[tuple[Edge, ...]]:
    if len(prefix) == n:
        if _ok_closing(prefix) and canonical(prefix) == prefix:
            try:
                check(prefix)
            except LitmusError:
                return
            yield prefix
        return
    last = prefix[-1]
    external = sum(e.external for e in prefix)
    for e in pool:
        if e.src != last.dst or (not e.external and not last.external):
            continue
        if external + e.external > MAX_THREADS:
            continue
        yield from _extend(prefix + (e,), n, pool)


def _ok_closing(c: tuple[Edge, ...]) -> bool:
    return c[-1].dst == c[0].src and (c[-1].external or c[0].external)
