"""litmus.cost.unrolled: the copies of a flag in the unrolled test keep its word's width, initial
value and views, so the backend generates the variant's own access widths."""

from __future__ import annotations

from litmus.cost.shape import signalling
from litmus.cost.unrolled import unrolled_test
from litmus.spec import default_catalog_dir, load_paths

TESTS = {t.id: t for t in load_paths([default_catalog_dir() / f
                                      for f in ("bugs_mscclpp_497.yaml", "bugs_cub_591.yaml")])}


def test_copies_of_a_64_bit_flag_stay_64_bits() -> None:
    t = unrolled_test(signalling(TESTS["BUG-cub-591[fixed-packed-scalar-b64]"]), 2)
    assert {(l.name, l.bits) for l in t.locations} == {(n, 64) for n in ("desc0", "desc_back0", "desc1", "desc_back1")}
    p0, p1 = t.threads
    assert [(type(o).__name__, o.loc) for o in p1.instrs] == [
        ("Spin", "desc0"), ("Store", "desc_back0"), ("Spin", "desc1"), ("Store", "desc_back1")]
    assert p1.instrs[1].value.value == 0x700000001  # type: ignore[union-attr]


def test_copies_of_a_viewed_word_keep_its_views_and_vector_elements() -> None:
    t = unrolled_test(signalling(TESTS["BUG-mscclpp-497[pr-499-release-vector]"]), 2)
    locs = {l.name: l for l in t.locations}
    assert (locs["trig1"].bits, locs["trig1"].init, locs["trig1"].home) == (64, 0x500000000, 1)  # at the reader
    assert locs["trig_back1"].home == 0  # the pong lives at the writer
    assert {n: (locs[n].view_of, locs[n].offset) for n in ("fst1", "snd1", "trig1.v2[0]", "trig1.v2[1]")} == {
        "fst1": ("trig1", 0), "snd1": ("trig1", 4), "trig1.v2[0]": ("trig1", 0), "trig1.v2[1]": ("trig1", 4)}
    assert locs["trig1.v2[1]"].is_element and not locs["fst1"].is_element
    p0, p1 = t.threads
    assert [(type(o).__name__, o.loc) for o in p1.instrs[:4]] == [
        ("Spin", "fst0"), ("Load", "snd0"), ("Store", "trig_back0.v2[0]"), ("Store", "trig_back0.v2[1]")]
