"""The PTX memory model with proxies (PTX ISA 7.5 "Memory Consistency Model"), as Dat3M's
``cat/ptx-v7.5.cat`` defines it, in the relation algebra of :mod:`litmus.model.relations`.

Each definition below mirrors one ``let`` of the cat file, under the same name (``-`` becomes
``_``).  What it adds to :mod:`litmus.model.ptx` (v6.0):

- proxies: every access and fence carries a proxy tag (``GEN TEX SUR CON``; ``ALIAS`` for
  ``fence.proxy.alias``); two operations are morally strong only through the same proxy;
- ``loc`` is the *physical* location, ``vloc`` the *generic virtual address* (they differ for
  ``y @ <proxy> aliases x``); patterns and morally-strong memory pairs use ``vloc``;
- causality is *proxy preserved*: an order between two accesses counts only if both are
  generic and to the same virtual address, or both use the same proxy in the same CTA, or a
  ``fence.proxy.<kind>`` (same proxy, same CTA) bridges a non-generic access, or
  ``fence.proxy.alias`` bridges aliased addresses;
- ``observation = (ms & rf) | rmw`` and ``sync`` uses ``observation+``; ``cause-base``
  includes ``po``; no SC-per-Location axiom (the cat file has none); FenceSC as
  ``empty(([F & SC]; cause; [F & SC]) \\ sf)``.

Extension (not in Dat3M): the ``ASYNC`` proxy of bulk copies and TMA (PTX ISA 8.0+), a proxy
like ``TEX``/``SUR``/``CON``: an async access and a generic one to the same location are
ordered only through a ``fence.proxy.async`` of the same CTA (``proxy-fence-ops`` below).

Extra base sets: ``GEN TEX SUR CON ALIAS ASYNC``; extra base relations: ``vloc``, ``scta`` (same
CTA).  See docs/model.md, "PTX v7.5 with proxies".  Access widths as in :mod:`litmus.model.ptx`
(``eloc`` in ms3, the Single-Copy-Atomicity axiom).
"""

from __future__ import annotations

from litmus.model.ptx import single_copy_atomicity
from litmus.model.relations import (
    ChosenOrder,
    Model,
    acyclic,
    empty,
    eset,
    ident,
    inv,
    irreflexive,
    opt,
    plus,
    prod,
    rel,
    seq,
)

R, W, F, M = eset("R"), eset("W"), eset("F"), eset("M")
RLX, ACQ, REL, ACQ_REL, SC, ALL = (eset(s) for s in ("RLX", "ACQ", "REL", "ACQ_REL", "SC", "ALL"))
GEN, TEX, SUR, CON, ALIAS, ASYNC = (eset(s) for s in ("GEN", "TEX", "SUR", "CON", "ALIAS", "ASYNC"))
po, loc, vloc, scta, sr, rmw, dep, bar = (
    rel(s) for s in ("po", "loc", "vloc", "scta", "sr", "rmw", "dep", "bar"))
rf, co, sf = rel("rf"), rel("co"), rel("sf")
eloc, sa = rel("eloc"), rel("sa")

strong_write, strong_read, strong_operation = eset("strong_write"), eset("strong_read"), eset("strong_operation")
fence_acq_rel, fence_sc = eset("fence_acq_rel"), eset("fence_sc")
same_proxy, po_vloc, ms = rel("same_proxy"), rel("po_vloc"), rel("morally_strong")
observation, fr = rel("observation"), rel("fr")
cb, pfo, cause = rel("cause_base"), rel("proxy_fence_ops"), rel("cause")
W_, M_, GEN_ = ident(W), ident(M), ident(GEN)
cb_pfo = rel("cause_base_to_proxy_fence")      # cause-base & proxy-fence-ops
cb_pfo_inv = rel("cause_base_from_proxy_fence")  # cause-base & proxy-fence-ops^-1
via_alias = seq(cb, ident(F & ALIAS), cb)       # cause-base; [F & ALIAS]; cause-base

DEFINITIONS = (
    ("strong_write", W & (RLX | REL)),
    ("strong_read", R & (RLX | ACQ)),
    ("strong_operation", strong_write | strong_read | F),
    ("fence_acq_rel", F & (ACQ_REL | SC)),  # fence.sc is also an acquire-release fence
    ("fence_sc", F & SC),
    # ASYNC * ASYNC: litmus's async-proxy extension (bulk copies / TMA and fence.proxy.async)
    ("same_proxy", prod(GEN, GEN) | prod(SUR, SUR) | prod(TEX, TEX) | prod(CON, CON) | prod(ASYNC, ASYNC)),
    ("po_vloc", po & vloc),
    ("fr", seq(inv(rf), co)),
    # ms1: same thread, or both strong and each in the other's scope; ms2: the same proxy;
    # ms3: two memory operations overlap completely (same virtual address, same bytes: eloc)
    ("morally_strong",
     ((po | inv(po) | seq(ident(strong_operation), sr, ident(strong_operation)))
      & same_proxy
      & ((prod(M, M) & vloc & eloc) | (prod(ALL, ALL) - prod(M, M))))
     - ident(ALL)),
    ("observation", (ms & rf) | rmw),
    ("release_pattern",
     seq(ident(W & REL), opt(po_vloc), ident(strong_write))
     | seq(ident(fence_acq_rel), po, ident(strong_write))),
    ("acquire_pattern",
     seq(ident(strong_read), opt(po_vloc), ident(R & ACQ))
     | seq(ident(strong_read), po, ident(fence_acq_rel))),
    ("sync", ms & seq(rel("release_pattern"), plus(observation), rel("acquire_pattern"))),
    ("cause_base", seq(opt(po), plus(seq(rel("sync") | sf | (bar & scta), opt(po)))) | po),
    ("proxy_fence_ops", seq(ident(F), same_proxy & scta, M_)),
    ("cause_base_to_proxy_fence", cb & pfo),
    ("cause_base_from_proxy_fence", cb & inv(pfo)),
    ("proxy_preserved_cause_base",
     seq(GEN_, vloc & cb, GEN_)
     | seq(M_, same_proxy & scta & vloc & cb, M_)
     | (vloc & seq(cb_pfo_inv, cb, GEN_))
     | (vloc & seq(GEN_, cb, cb_pfo))
     | (vloc & seq(cb_pfo_inv, cb, cb_pfo))
     | (loc & seq(GEN_, via_alias, GEN_))
     | (loc & seq(cb_pfo_inv, via_alias, GEN_))
     | (loc & seq(GEN_, via_alias, cb_pfo))
     | (loc & seq(cb_pfo_inv, via_alias, cb_pfo))),
    ("cause", seq(opt(observation), rel("proxy_preserved_cause_base"))),
)

AXIOMS = (
    empty((seq(W_, cause, W_) & loc) - co, "Coherence"),
    empty((seq(W_, ms, W_) & loc) - (co | inv(co)), "Coherence-ms-writes-ordered"),
    empty(seq(ident(fence_sc), cause, ident(fence_sc)) - sf, "FenceSC"),
    empty(seq(ms & fr, ms & co) & rmw, "Atomicity"),
    acyclic(rf | dep, "No-Thin-Air"),
    irreflexive(seq(rf | fr, cause), "Causality"),
    single_copy_atomicity(ms, rf, co, sa),
)

ORDERS = (
    # sync_fence: orders every morally strong pair of fence.sc one way
    ChosenOrder("sf", seq(ident(fence_sc), ms, ident(fence_sc))),
    # coherence (partial, transitive: the cat file's co+): morally strong same-physical-location
    # writes, containing causality between writes; initial writes first
    ChosenOrder("co", seq(W_, ms, W_) & loc, must=seq(W_, cause, W_) & loc, init_first=True),
)

PTX75 = Model(
    name="ptx75",
    description="PTX memory model with proxies (PTX ISA 7.5; Dat3M cat/ptx-v7.5.cat)",
    definitions=DEFINITIONS,
    orders=ORDERS,
    axioms=AXIOMS,
    proxies=True,
    acyclic_rf_dep=True,  # the No-Thin-Air axiom
    # morally strong RMWs are exclusive: W -observation-> R1 -po-> W1 is cause, so Coherence
    # puts W co-before W1 (and W2); Coherence-ms-writes-ordered orders W1, W2; Atomicity then
    # fails for the later one (docs/model.md, "Speed")
    coherent=ms,
    single_copy_atomic=True,  # the Single-Copy-Atomicity axiom (sc: every scalar access is atomic)
)
