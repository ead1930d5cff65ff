"""The variant axes of a generated pattern: where the threads run (``place``), how each access
is written (``sems``) and the scope on atomics and fences (``scope``).

Each option turns the events of a :class:`~litmus.diy.cycle.Layout` into the placeholder
values of one product option (docs/format.md, "Variants as a product").
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

from litmus.diy.cycle import Event, Layout
from litmus.errors import LitmusError
from litmus.ir import SCOPES


@dataclass(frozen=True)
class Sems:
    """How reads and writes are written: the op for each direction, given an event."""

    name: str
    says: str  # words for why sentences
    read: Callable[[Event], dict[str, Any]]
    write: Callable[[Event], dict[str, Any]]


def _atomic_read(sem: str) -> Callable[[Event], dict[str, Any]]:
    return lambda e: {"atomic_load": {"reg": e.reg, "loc": e.loc, "sem": sem, "scope": "{scope}"}}


def _atomic_write(sem: str) -> Callable[[Event], dict[str, Any]]:
    return lambda e: {"atomic_store": {"loc": e.loc, "value": e.value, "sem": sem, "scope": "{scope}"}}


SEMS: dict[str, Sems] = {s.name: s for s in (
    Sems("weak", "plain (weak) accesses",
         lambda e: {"load": {"reg": e.reg, "loc": e.loc}},
         lambda e: {"store": {"loc": e.loc, "value": e.value}}),
    Sems("relaxed", "relaxed atomics", _atomic_read("relaxed"), _atomic_write("relaxed")),
    Sems("volatile", "volatile accesses (relaxed.sys)",
         lambda e: {"volatile_load": {"reg": e.reg, "loc": e.loc}},
         lambda e: {"volatile_store": {"loc": e.loc, "value": e.value}}),
    Sems("relacq", "release writes and acquire reads", _atomic_read("acquire"), _atomic_write("release")),
    Sems("exch", "release atom.exch writes and acquire reads", _atomic_read("acquire"),
         lambda e: {"exch": {"loc": e.loc, "value": e.value, "sem": "release", "scope": "{scope}"}}),
    Sems("exch-relaxed", "relaxed atom.exch writes and relaxed reads", _atomic_read("relaxed"),
         lambda e: {"exch": {"loc": e.loc, "value": e.value, "sem": "relaxed", "scope": "{scope}"}}),
)}
"""Access semantics, by option name."""

PLACES: dict[str, str] = {
    "samecta": "all threads in one CTA of GPU 0",
    "xcta": "each thread in its own CTA of GPU 0",
    "xgpu": "threads alternating between GPUs 0 and 1",
}
"""Thread placements, by option name, with the words why sentences use."""

DEFAULT_SCOPES = ("cta", "gpu", "sys")
DEFAULT_SEMS = ("relaxed", "relacq")
DEFAULT_PLACES = ("xcta", "xgpu")


def choose(kind: str, text: str | None, known: dict[str, Any] | tuple[str, ...],
           default: tuple[str, ...]) -> tuple[str, ...]:
    """The comma-separated options of ``--<kind>`` (``default`` when None), each checked."""
    if text is None:
        return default
    names = tuple(dict.fromkeys(w.strip() for w in text.split(",") if w.strip()))
    bad = [n for n in names if n not in known]
    if bad or not names:
        raise LitmusError(f"--{kind}: unknown {kind[:-1]} {bad[0]!r}; choose from {', '.join(known)}"
                          if bad else f"--{kind} is empty; choose from {', '.join(known)}")
    return names


def check_scopes(text: str | None) -> tuple[str, ...]:
    """``--scopes``: a subset of cta, gpu, sys."""
    return choose("scopes", text, SCOPES, DEFAULT_SCOPES)


def access_placeholder(event: Event, position: int) -> str:
    """The placeholder that stands for an event's op: ``p<thread>_<position in thread>``."""
    return f"p{event.thread}_{position}"


def sems_option(sems: Sems, layout: Layout) -> dict[str, Any]:
    """The placeholder values of one ``sems`` option: an op for every access."""
    values: dict[str, Any] = {}
    for thread in layout.threads:
        events = [item for item in thread if isinstance(item, Event)]
        for j, ev in enumerate(events):
            values[access_placeholder(ev, j)] = sems.read(ev) if ev.dir == "R" else sems.write(ev)
    return values


def place_option(place: str, layout: Layout) -> dict[str, Any]:
    """The placeholder values of one ``place`` option: each thread's rank and CTA, each
    location's home (on ``xgpu``, locations alternate ranks too: x on 0, y on 1, ...)."""
    values: dict[str, Any] = {}
    for t in range(len(layout.threads)):
        rank, cta = {"samecta": (0, 0), "xcta": (0, t), "xgpu": (t % 2, t // 2)}[place]
        values[f"p{t}_rank"], values[f"p{t}_cta"] = rank, cta
    for k, loc in enumerate(layout.locations):
        values[f"{loc}_home"] = k % 2 if place == "xgpu" else 0
    return values
