"""The events of an explained execution as a reader sees them: a stable id, the thread and its
place, the operation with its order, scope, location and value, and short labels for text."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from litmus.ir import LitmusTest
from litmus.model.executions import Frame

SEM_SHORT = {"weak": "", "relaxed": "rlx", "acquire": "acq", "release": "rel", "acq_rel": "acq_rel", "sc": "sc"}
"""How an event's order is written in its short label (a plain access has none)."""


@dataclass(frozen=True)
class Event:
    """One event: ``id`` is ``P1:2`` (the thread's third event) or ``init:x`` (an initial write)."""

    id: str
    thread: str | None  # None: an initial write
    rank: int | None
    cta: int | None
    index: int  # in its thread's program order (initial writes: by location)
    kind: str  # R, W, F (fence) or B (barrier)
    op: str  # ld, st, atom (either half of an RMW), fence, fence.proxy, bar.sync, bar.arrive, init
    sem: str
    scope: str
    loc: str | None
    value: int | None
    proxy: str

    @property
    def label(self) -> str:
        """``W.rel.sys flag=1 (P0)``, ``R x=0 (P1)``, ``init x=0``, ``F.sc.gpu (P0)``."""
        if self.thread is None:
            return f"init {self.loc}={self.value}"
        head = self.kind
        if SEM_SHORT[self.sem]:
            head += f".{SEM_SHORT[self.sem]}.{self.scope}"
        if self.op == "atom":
            head += "*"  # one half of a read-modify-write
        if self.proxy not in ("GEN", ""):
            head += f"[{self.proxy.lower()}]"
        what = f" {self.loc}={self.value}" if self.loc is not None else ""
        if self.kind == "B":
            what = f" {self.op}"
        return f"{head}{what} ({self.thread})"

    @property
    def ptx(self) -> str:
        """The operation as PTX-like text: ``st.release.sys flag, 1``, ``ld.weak x -> 0``."""
        if self.thread is None:
            return f"{self.loc} = {self.value} (initial)"
        if self.kind == "F":
            return f"{self.op}.{self.proxy.lower()}" if self.op == "fence.proxy" else f"fence.{self.sem}.{self.scope}"
        if self.kind == "B":
            return self.op
        order = self.sem if self.sem == "weak" else f"{self.sem}.{self.scope}"
        half = "read" if self.kind == "R" else "write"
        verb = {"R": "ld", "W": "st"}[self.kind] if self.op != "atom" else f"atom({half})"
        arrow = f"-> {self.value}" if self.kind == "R" else f"= {self.value}"
        return f"{verb}.{order} {self.loc} {arrow}"

    def as_dict(self) -> dict[str, Any]:
        return {"id": self.id, "thread": self.thread, "rank": self.rank, "cta": self.cta, "index": self.index,
                "kind": self.kind, "op": self.op, "sem": self.sem, "scope": self.scope, "loc": self.loc,
                "value": self.value, "proxy": self.proxy, "label": self.label}


def frame_events(test: LitmusTest, frame: Frame) -> list[Event]:
    """The events of ``frame`` (values filled in), by frame index."""
    out: list[Event] = []
    seen: dict[int, int] = {}
    rmw_halves = _rmw_halves(frame)
    for k, e in enumerate(frame.events):
        t = frame.thread_of[k]
        if t < 0:
            out.append(Event(f"init:{e.loc}", None, None, None, k, "W", "init", e.sem, e.scope, e.loc, e.value,
                             e.proxy))
            continue
        th = test.threads[t]
        i = seen.get(t, 0)
        seen[t] = i + 1
        if e.kind == "F":
            op = "fence" if e.proxy == "GEN" else "fence.proxy"
        elif e.kind == "B":
            op = "bar.arrive" if e.arrive else "bar.sync"
            if e.bar_key is not None and e.bar_key[0]:
                op += f" {e.bar_key[0]}"
        else:
            op = "atom" if k in rmw_halves else {"R": "ld", "W": "st"}[e.kind]
        out.append(Event(f"{th.name}:{i}", th.name, th.rank, th.cta, i, e.kind, op, e.sem, e.scope, e.loc,
                         e.value, e.proxy))
    return out


def _rmw_halves(frame: Frame) -> set[int]:
    """Frame indices of both halves of every RMW (``rmw`` relates the read to the write)."""
    rmw = frame.base["rmw"]
    out = set()
    for r, row in enumerate(rmw):  # type: ignore[arg-type]
        if row:
            out.add(r)
            out.add(row.bit_length() - 1)
    return out
