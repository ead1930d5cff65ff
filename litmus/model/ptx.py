"""The scoped PTX memory model (PTX ISA 6.0 "Memory Consistency Model"; Lustig et al.,
ASPLOS 2019), as relation definitions and axioms over :mod:`litmus.model.relations`.

Base sets: ``R W F B M IW`` (reads, writes, fences, barriers, memory events, initial
writes) and one set per order ``WEAK RLX ACQ REL ACQ_REL SC``.  Base relations: ``po``,
``loc`` (same location), ``sr`` (each event's scope includes the other's thread), ``rmw``,
``dep`` (data and control dependencies), ``bar`` (CTA barrier synchronization), ``rf``, and
the chosen orders ``sf`` (Fence-SC order) and ``co`` (coherence, a partial order).

Access widths (docs/model.md): events are per granule; ``eloc`` relates two memory events of one
granule whose accesses cover the same bytes (complete overlap, which morally strong needs) and
``sa`` the events of one access that covers several granules; the Single-Copy-Atomicity axiom
is the ISA's, per granule.
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
    opt,
    plus,
    prod,
    rel,
    seq,
    star,
)

R, W, F, M = eset("R"), eset("W"), eset("F"), eset("M")
RLX, ACQ, REL, ACQ_REL, SC, ALL = (eset(s) for s in ("RLX", "ACQ", "REL", "ACQ_REL", "SC", "ALL"))
po, loc, sr, rmw, dep, bar = (rel(s) for s in ("po", "loc", "sr", "rmw", "dep", "bar"))
rf, co, sf = rel("rf"), rel("co"), rel("sf")
eloc, sa = rel("eloc"), rel("sa")

strong = eset("strong")
fence_sc = eset("fence_sc")
fence_acq_rel = eset("fence_acq_rel")
ms = rel("morally_strong")
obs = rel("observation")
cause_base = rel("cause_base")
cause = rel("cause")
fr = rel("fr")
po_loc = rel("po_loc")
W_ = ident(W)

DEFINITIONS = (
    # strong operations: relaxed/release writes, relaxed/acquire reads, and every fence
    ("strong", (W & (RLX | REL)) | (R & (RLX | ACQ)) | F),
    ("fence_sc", F & SC),
    ("fence_acq_rel", F & (ACQ_REL | SC)),  # fence.sc is also an acquire-release fence
    ("po_loc", po & loc),
    ("fr", seq(inv(rf), co)),
    # morally strong: same thread, or both strong and each in the other's scope; two memory
    # operations must also overlap completely (same location, same bytes: eloc)
    ("morally_strong",
     ((po | inv(po) | seq(ident(strong), sr, ident(strong)))
      & (eloc | (prod(ALL, ALL) - prod(M, M))))
     - ident(ALL)),
    # observation: a morally strong rf, possibly through a chain of RMWs
    ("observation", seq(ms & rf, star(seq(rmw, ms & rf)))),
    ("release_pattern",
     seq(ident(W & REL), opt(po_loc), ident(W & strong))
     | seq(ident(fence_acq_rel), po, ident(W & strong))),
    ("acquire_pattern",
     seq(ident(R & strong), opt(po_loc), ident(R & ACQ))
     | seq(ident(R & strong), po, ident(fence_acq_rel))),
    ("sync", ms & seq(rel("release_pattern"), obs, rel("acquire_pattern"))),
    ("cause_base", seq(opt(po), plus(seq(rel("sync") | sf | bar, opt(po))))),
    ("cause", cause_base | seq(obs, cause_base | po_loc)),
)

def single_copy_atomicity(ms, rf, co, sa):  # type: ignore[no-untyped-def]
    """The ISA's Single-Copy Atomicity over granule events (``sa``: two events of one access).

    A read R reading granule i from a morally strong write W must not read another granule j
    from a write W' that precedes W's granule j in ``co``; and two morally strong writes are
    ordered the same way in ``co`` on every granule (so the last of them holds all their bytes).
    Each as a cycle that starts with an ``sa`` step, so a frame without such accesses skips it.
    """
    read = seq(inv(rf) & ms, sa, inv(co), rf)  # r_i <-rf- W_i, W_i ~ W_j, W'_j -co-> W_j, W'_j -rf-> r_j
    write = seq(ms & co, sa, co)  # W1_i -co-> W2_i, W2_i ~ W2_j, W2_j -co-> W1_j
    return irreflexive(seq(sa, read | write), "Single-Copy-Atomicity")


AXIOMS = (
    empty((seq(W_, cause, W_) & loc) - co, "Coherence"),
    empty((seq(W_, ms, W_) & loc) - (co | inv(co)), "Coherence-ms-writes-ordered"),
    irreflexive(seq(sf, cause), "FenceSC"),
    empty(seq(ms & fr, ms & co) & rmw, "Atomicity"),
    acyclic(rf | dep, "No-Thin-Air"),
    # a thread's own accesses to a granule are coherent whatever their widths: 6.0's ms needs
    # complete overlap, which would let a load read around the thread's own earlier partial store
    # (PTX 7.x puts program order in base causality order, and ptx75 forbids it so)
    acyclic(((ms | po | inv(po)) & (rf | co | fr)) | po_loc, "SC-per-Location"),
    irreflexive(seq(rf | fr, cause), "Causality"),
    single_copy_atomicity(ms, rf, co, sa),
)

ORDERS = (
    # Fence-SC order: relates every morally strong pair of fence.sc operations
    ChosenOrder("sf", seq(ident(fence_sc), ms, ident(fence_sc))),
    # coherence: relates morally strong same-location writes, contains causality between
    # writes; initial writes first.  Racing writes may stay unordered (partial order).
    # (po_loc between writes is in every co too, by SC-per-Location and the ms-writes axiom:
    # saying so in ``must`` changes no verdict and prunes earlier)
    ChosenOrder("co", seq(W_, ms, W_) & loc, must=(seq(W_, cause, W_) & loc) | seq(W_, po_loc, W_),
                init_first=True),
)

PTX = Model(
    name="ptx",
    description="scoped PTX memory model (PTX ISA 6.0; Lustig et al., ASPLOS 2019)",
    definitions=DEFINITIONS,
    orders=ORDERS,
    axioms=AXIOMS,
    acyclic_rf_dep=True,  # the No-Thin-Air axiom
    # morally strong RMWs are exclusive: W -observation-> R1 -po-> W1 is cause, so Coherence
    # puts W co-before W1 (and W2); Coherence-ms-writes-ordered orders W1, W2; Atomicity then
    # fails for the later one (docs/model.md, "Speed")
    coherent=ms,
    single_copy_atomic=True,  # the Single-Copy-Atomicity axiom (sc: every scalar access is atomic)
)
