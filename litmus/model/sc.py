"""Sequential consistency: one interleaving of all events, every access strong.

acyclic(po | rf | co | fr | bar) and RMW atomicity; ``co`` totally orders the writes to each
location.  Scopes and orders are ignored.
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
    prod,
    rel,
    seq,
)

W, ALL = eset("W"), eset("ALL")
po, loc, rmw, bar, rf, co = (rel(s) for s in ("po", "loc", "rmw", "bar", "rf", "co"))
fr = rel("fr")

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
        acyclic(rel("hb"), "SC"),
        empty(rmw & seq(fr, co), "Atomicity"),
    ),
    reference=True,
    acyclic_rf_dep=True,  # dep is in po, and po | rf is acyclic
    coherent=prod(ALL, ALL),  # one total order: two RMWs never read the same write
    proxies=True,  # one memory: every proxy and alias of a location sees the same value
)
