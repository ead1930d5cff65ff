"""The names a cat file may use without defining them, and what each is in the checker.

One table, :data:`BASES`: cat name -> an expression over the base sets and relations the
checker installs for every execution (:func:`litmus.model.executions.build_frame`, the chosen
``rf``, ``co`` and ``sf``).  Dat3M's names for PTX come first; litmus's own extensions after.
``_`` (every event, or every pair) and ``0`` (empty) take the type their context needs and are
handled by :mod:`litmus.model.cat.translate`.
"""

from __future__ import annotations

from dataclasses import dataclass

from litmus.model.relations import Expr, eset, ident, inv, rel, seq

_ALL = eset("ALL")


@dataclass(frozen=True)
class BaseName:
    """One name a cat file may use undefined: its value in the checker and what it means."""

    expr: Expr
    meaning: str


def _set(name: str, meaning: str) -> BaseName:
    return BaseName(eset(name), meaning)


def _rel(name: str, meaning: str) -> BaseName:
    return BaseName(rel(name), meaning)


BASES: dict[str, BaseName] = {
    # event sets (Dat3M's tags for PTX)
    "R": _set("R", "reads (the read of an RMW too)"),
    "W": _set("W", "writes (initial writes and the write of an RMW too)"),
    "M": _set("M", "memory events: R | W"),
    "F": _set("F", "fences (fence.sc, fence.acq_rel, fence.proxy.*)"),
    "IW": _set("IW", "the initial writes"),
    "WEAK": _set("WEAK", "weak (plain) accesses"),
    "RLX": _set("RLX", ".relaxed accesses (and the relaxed half of an RMW)"),
    "ACQ": _set("ACQ", ".acquire reads (the read of an .acquire or .acq_rel RMW)"),
    "REL": _set("REL", ".release writes (the write of a .release or .acq_rel RMW)"),
    "ACQ_REL": _set("ACQ_REL", "fence.acq_rel and fence.sc (Dat3M tags fence.sc SC alone; see litmus.model.executions)"),
    "SC": _set("SC", "fence.sc"),
    "GEN": _set("GEN", "the generic proxy"),
    "TEX": _set("TEX", "the texture proxy"),
    "SUR": _set("SUR", "the surface proxy"),
    "CON": _set("CON", "the constant proxy"),
    "ALIAS": _set("ALIAS", "fence.proxy.alias"),
    # relations (Dat3M's for PTX)
    "po": _rel("po", "program order"),
    "loc": _rel("loc", "same physical location"),
    "vloc": _rel("vloc", "same generic virtual address"),
    "sr": _rel("sr", "same scope: each event's scope includes the other's thread"),
    "scta": _rel("scta", "same CTA"),
    "rmw": _rel("rmw", "the read and the write of one RMW"),
    "rf": _rel("rf", "reads-from (chosen per execution)"),
    "co": _rel("co", "coherence (chosen per execution: a profile's order)"),
    "sync_fence": _rel("sf", "Fence-SC order between morally strong fence.sc (chosen: a profile's order)"),
    "syncbar": _rel("bar", "barrier synchronization (bar.sync/arrive of one barrier instance)"),
    "addr": _rel("dep", "dependencies: the checker keeps addr, data and ctrl as one relation, dep"),
    "data": _rel("dep", "dependencies: the checker keeps addr, data and ctrl as one relation, dep"),
    "ctrl": _rel("dep", "dependencies: the checker keeps addr, data and ctrl as one relation, dep"),
    "po-loc": BaseName(rel("po") & rel("loc"), "po & loc"),
    "fr": BaseName(seq(inv(rel("rf")), rel("co")), "from-reads: rf^-1; co"),
    "id": BaseName(ident(_ALL), "the identity"),
    # litmus's extensions, for a cat file written for litmus
    "ASYNC": _set("ASYNC", "the async proxy (bulk copies, TMA; litmus's extension)"),
    "B": _set("B", "barrier events"),
    "dep": _rel("dep", "data and control dependencies"),
    "eloc": _rel("eloc", "same granule, same bytes (access widths)"),
    "sa": _rel("sa", "two granule events of one access (access widths)"),
}
"""Cat name -> what it is in the checker."""

POLYMORPHIC = ("_", "0")
"""``_``: every event (a set) or every pair (a relation); ``0``: the empty set or relation."""


def provided() -> str:
    """The names the checker provides, for an error message."""
    return " ".join(list(BASES) + list(POLYMORPHIC))
