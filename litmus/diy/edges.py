"""The edge vocabulary of diy7 cycles, extended with PTX fences.

An edge relates two memory events: it starts at a read (``R``) or a write (``W``) and ends at
one.  *External* edges (``Rfe``, ``Fre``, ``Coe``) join events of two threads on one location;
*internal* ones join events of one thread in program order: on one location (``Rfi``, ``Fri``,
``Coi``) or on two (``PodXY``, and ``FenceScdXY`` / ``FenceAcqReldXY`` with a PTX
``fence.sc`` / ``fence.acq_rel`` between the two accesses).  ``FencedXY`` (diy's generic strong
fence) is ``FenceScdXY``; ``Wse`` / ``Wsi`` (diy's older names) are ``Coe`` / ``Coi``.
"""

from __future__ import annotations

import fnmatch
import re
from dataclasses import dataclass
from typing import Literal

from litmus.errors import LitmusError

Dir = Literal["R", "W"]


@dataclass(frozen=True)
class Edge:
    """One relaxation edge: from a ``src`` event to a ``dst`` event."""

    name: str
    src: Dir
    dst: Dir
    external: bool
    same_loc: bool
    fence: str | None = None  # "sc" or "acq_rel" (PTX fence.<sem>) between the two accesses

    @property
    def kind(self) -> str:
        """``rf``, ``fr``, ``co`` (communication), ``po`` or ``fence`` (program order)."""
        if self.same_loc:
            return {"WR": "rf", "RW": "fr", "WW": "co"}[self.src + self.dst]
        return "fence" if self.fence else "po"


def _vocabulary() -> dict[str, Edge]:
    edges = [Edge("Rfe", "W", "R", True, True), Edge("Fre", "R", "W", True, True),
             Edge("Coe", "W", "W", True, True), Edge("Rfi", "W", "R", False, True),
             Edge("Fri", "R", "W", False, True), Edge("Coi", "W", "W", False, True)]
    for src in "WR":
        for dst in "WR":
            edges.append(Edge(f"Pod{src}{dst}", src, dst, False, False))
            edges.append(Edge(f"FenceScd{src}{dst}", src, dst, False, False, "sc"))
            edges.append(Edge(f"FenceAcqReld{src}{dst}", src, dst, False, False, "acq_rel"))
    return {e.name: e for e in edges}


EDGES: dict[str, Edge] = _vocabulary()
"""Canonical edge name -> :class:`Edge`."""

ALIASES: dict[str, str] = {"Wse": "Coe", "Wsi": "Coi",
                           **{f"Fenced{s}{d}": f"FenceScd{s}{d}" for s in "WR" for d in "WR"}}
"""diy spellings accepted for canonical edges."""

VOCABULARY_LINE = ("Rfe Fre Coe Rfi Fri Coi, PodXY, FencedXY (= FenceScdXY, fence.sc), FenceAcqReldXY "
                   "(fence.acq_rel), with X, Y in {W, R}; aliases Wse=Coe, Wsi=Coi")
"""The valid vocabulary, in one line, for error messages."""


def edge(word: str, context: str = "") -> Edge:
    """The edge ``word`` names (canonical or alias); a :class:`LitmusError` naming it otherwise."""
    name = ALIASES.get(word, word)
    if name in EDGES:
        return EDGES[name]
    close = [n for n in list(EDGES) + list(ALIASES) if n.lower() == word.lower()]
    hint = f" (did you mean {close[0]!r}?)" if close else ""
    where = f" in {context!r}" if context else ""
    raise LitmusError(f"unknown edge {word!r}{where}{hint}; valid edges: {VOCABULARY_LINE}")


def parse_cycle(text: str) -> tuple[Edge, ...]:
    """The edges of a cycle written as words separated by spaces or commas ('PodWW Rfe PodRR Fre')."""
    words = [w for w in re.split(r"[\s,]+", text.strip()) if w]
    if not words:
        raise LitmusError(f"empty cycle {text!r}; write edges such as 'PodWW Rfe PodRR Fre' ({VOCABULARY_LINE})")
    return tuple(edge(w, text) for w in words)


def parse_edge_set(text: str) -> tuple[Edge, ...]:
    """The edges of ``--edges``: comma-separated names, aliases or shell patterns ('Pod*')."""
    chosen: list[Edge] = []
    for word in (w.strip() for w in text.split(",")):
        if not word:
            continue
        if any(c in word for c in "*?["):
            names = [n for n in EDGES if fnmatch.fnmatchcase(n, word)]
            names += [ALIASES[a] for a in ALIASES if fnmatch.fnmatchcase(a, word)]
            if not names:
                raise LitmusError(f"--edges pattern {word!r} matches no edge; valid edges: {VOCABULARY_LINE}")
            found = [EDGES[n] for n in names]
        else:
            found = [edge(word, "--edges")]
        chosen += [e for e in found if e not in chosen]
    if not chosen:
        raise LitmusError(f"--edges is empty; give edges such as Rfe,Fre,PodWW ({VOCABULARY_LINE})")
    return tuple(chosen)
