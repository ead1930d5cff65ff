"""Sequential consistency: one interleaving of all events, every access strong.

acyclic(po | rf | co | fr | bar) and RMW atomicity; ``co`` totally orders the writes to each
location.  Scopes and orders are ignored.  With access widths every scalar access is one point
of the interleaving (its granule events are contracted: no cycle through ``sa``); the elements
of a vector access are separate accesses, interleaved in any order.
"""

from __future__ import annotations

from litmus.model.relations import (
    ChosenOrder,
    Model,
    acyclic,
    empty,
    eset,
    ident,
    inv,
    irreflexive,
    plus,
    prod,
    rel,
    seq,
)

W, ALL = eset("W"), eset("ALL")
po, loc, rmw, bar, rf, co = (rel(s) for s in ("po", "loc", "rmw", "bar", "rf", "co"))
fr, hb, sa = rel("fr"), rel("hb"), rel("sa")

SC_MODEL = Model(
    name="sc",
    description="sequential consistency (every access strong, scopes ignored)",
    definitions=(
        ("fr", seq(inv(rf), co)),
        # a barrier orders what precedes it in any participant before what follows it in any
        ("hb", po | rf | co | fr | seq(po, bar, po)),
    ),
    # co contains po between same-location writes (the SC axiom: po | co acyclic); saying so in
    # ``must`` changes no verdict and prunes earlier
    orders=(ChosenOrder("co", (prod(W, W) & loc) - ident(ALL), must=seq(ident(W), po, ident(W)) & loc,
                        init_first=True),),
    axioms=(
        acyclic(hb, "SC"),
        empty(rmw & seq(fr, co), "Atomicity"),
        # with SC above: hb is acyclic once each access is one node (a cycle using an sa step)
        irreflexive(seq(sa, plus(hb | seq(sa, hb))), "SC-atomic-accesses"),
    ),
    reference=True,
    acyclic_rf_dep=True,  # dep is in po, and po | rf is acyclic
    coherent=prod(ALL, ALL),  # one total order: two RMWs never read the same write
    single_copy_atomic=True,  # the Single-Copy-Atomicity axiom (sc: every scalar access is atomic)
    proxies=True,  # one memory: every proxy and alias of a location sees the same value
)
