"""litmus.cost.shape: flags found by their bytes (views, vector elements, 64-bit locations) and
the accesses of a flag's word that signal with it."""

from __future__ import annotations

import pytest

from litmus.cost.shape import Signalling, same_bytes, signalling, touches
from litmus.errors import LitmusError
from litmus.ir import Instr, LitmusTest, Load, Spin, Store
from litmus.spec import default_catalog_dir, load_paths

TESTS = {t.id: t for t in load_paths([default_catalog_dir() / f for f in
                                      ("bugs_mscclpp_497.yaml", "bugs_cub_591.yaml", "tearing.yaml")])}


def sig_of(test_id: str) -> Signalling:
    return signalling(TESTS[test_id])


def ops(seq: tuple[Instr, ...]) -> list[tuple[str, str, str]]:
    """(kind, location, sem) of each op."""
    return [(type(o).__name__, getattr(o, "loc"), o.read.sem if isinstance(o, Spin) else getattr(o, "sem"))
            for o in seq]


def test_names_touch_when_they_share_a_byte() -> None:
    t: LitmusTest = TESTS["BUG-mscclpp-497[pr-499-release-vector]"]
    assert touches(t, "fst", "trig.v2[0]") and touches(t, "trig", "snd") and touches(t, "snd", "trig.v2[1]")
    assert not touches(t, "fst", "snd") and not touches(t, "fst", "x")
    assert same_bytes(t, "fst", "trig.v2[0]") and not same_bytes(t, "trig", "fst")


@pytest.mark.parametrize("variant", ["pr-499-release-vector", "buggy-relaxed-vector"])
def test_a_view_read_first_is_the_flag_a_vector_element_writes(variant: str) -> None:
    s = sig_of(f"BUG-mscclpp-497[{variant}]")
    sem = "release" if variant.startswith("pr-499") else "relaxed"
    assert s.shape == "message" and s.flag == "fst" and s.raised == (("fst", 1),)
    # the whole vector store signals: its other element rides with the flag's
    assert ops(s.signal) == [("Store", "trig.v2[0]", sem), ("Store", "trig.v2[1]", sem)]
    assert ops(s.wait) == [("Spin", "fst", "acquire"), ("Load", "snd", "weak")]


def test_the_smallest_fix_and_the_merged_fix_signal_on_the_same_word() -> None:
    fixed = sig_of("BUG-mscclpp-497[fixed-snd-then-release-fst]")
    merged = sig_of("BUG-mscclpp-497[pr-499-release-vector]")
    assert ops(fixed.signal) == [("Store", "snd", "relaxed"), ("Store", "fst", "release")]
    assert ops(fixed.wait) == ops(merged.wait)
    assert fixed.words() == ("trig", "fst", "snd") and "trig.v2[1]" in merged.words()
    assert not any(isinstance(o, Store) and o.loc == "x" for o in fixed.signal)  # the payload stays out


def test_a_64_bit_flag_is_raised_to_its_whole_value() -> None:
    s = sig_of("BUG-cub-591[fixed-packed-scalar-b64]")
    assert s.flag == "desc" and s.raised_value("desc") == 0x700000001
    assert isinstance(s.wait[0], Spin) and s.wait[0].until == 0x700000001


def test_a_wider_write_raises_the_flag_to_its_bytes_of_the_value() -> None:
    s = sig_of("TEAR[vector-reader]")  # a 64-bit store of 0x100000001, read as two elements
    assert s.flag == "word.v2[0]" and s.raised_value("word.v2[0]") == 1
    assert [type(o) for o in s.wait] == [Spin, Load]


def test_a_write_of_part_of_a_flag_raises_nothing_alone() -> None:
    # two peers write one byte each of the 64-bit flag the waiter reads whole
    with pytest.raises(LitmusError, match=r"no thread writes a constant to flag\(s\) \['start'\]"):
        sig_of("TEAR-bytes[buggy-volatile-bytes]")
