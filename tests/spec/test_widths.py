"""Locations with ``bits``, views and vector accesses: the IR they load into (goldens) and each
mistake reported at its file:line:column, saying the fix."""

from __future__ import annotations

from pathlib import Path

import pytest

from litmus import ir
from litmus.errors import LitmusError
from litmus.observables import observables
from litmus.spec import load_file, load_text

BASE = """\
name: W
locations:
  word: {init: 0x0000000200000001, bits: 64, home: 1}
  lo:   {view: word, offset: 0, bits: 32}
  hi:   {view: word, offset: 4, bits: 32}
  b5:   {view: word, offset: 5, bits: 8}
  x: 0
threads:
  P0:
    at: {rank: 0, cta: 0}
    do:
      - store: {loc: word, value: [1, 2], vec: 2}
      - atomic_load: {reg: [r1, r2], loc: word, vec: 2, sem: acquire, scope: sys}
      - store: {loc: lo, value: 5}
      - volatile_store: {loc: hi, value: ["r1 + 1", 7], vec: 2}
      - cas: {loc: word, expected: 0x200000001, value: 0xffffffffffffffff, sem: relaxed, scope: sys}
exists: "P0:r1 == 1 /\\\\ word == 0x200000001 /\\\\ hi == 2"
expect: allowed
why: a golden
"""


def test_views_and_vectors_load_into_element_views_and_groups() -> None:
    (t,) = load_text(BASE, "w.yaml")
    word, lo, hi, b5, x, e0, e1, h0, h1 = t.locations
    assert word == ir.Location("word", 0x200000001, 1, 3, bits=64)
    assert lo == ir.Location("lo", 1, 1, 4, bits=32, view_of="word", offset=0)
    assert hi == ir.Location("hi", 2, 1, 5, bits=32, view_of="word", offset=4)
    assert b5 == ir.Location("b5", 0, 1, 6, bits=8, view_of="word", offset=5)
    assert x == ir.Location("x", 0, 0, 7)
    assert e0 == ir.Location("word.v2[0]", 1, 1, 12, bits=32, view_of="word", offset=0)
    assert e1 == ir.Location("word.v2[1]", 2, 1, 12, bits=32, view_of="word", offset=4)
    # a vector over a view: 16-bit elements of hi, addressed from word
    assert h0 == ir.Location("hi.v2[0]", 2, 1, 15, bits=16, view_of="word", offset=4)
    assert h1 == ir.Location("hi.v2[1]", 0, 1, 15, bits=16, view_of="word", offset=6)
    assert e0.is_element and not lo.is_element
    assert t.threads[0].instrs == (
        ir.Store("word.v2[0]", ir.Const(1), line=12, group=1),
        ir.Store("word.v2[1]", ir.Const(2), line=12, group=1),
        ir.Load("r1", "word.v2[0]", "acquire", "sys", line=13, group=2),
        ir.Load("r2", "word.v2[1]", "acquire", "sys", line=13, group=2),
        ir.Store("lo", ir.Const(5), line=14),
        ir.Compute("r100", "add", ir.Reg("r1"), ir.Const(1), line=15),
        ir.Store("hi.v2[0]", ir.Reg("r100"), "relaxed", "sys", True, line=15, group=3),
        ir.Store("hi.v2[1]", ir.Const(7), "relaxed", "sys", True, line=15, group=3),
        ir.Rmw("cas", None, "word", ir.Const(0xFFFFFFFFFFFFFFFF), ir.Const(0x200000001), "relaxed", "sys", 16),
    )
    assert t.uses_widths()
    # views are observables, element views are not
    assert observables(t) == ("P0:r1", "P0:r2", "P0:r100", "word", "lo", "hi", "b5", "x")
    assert t.condition.prop.parts[1].rhs == ir.Const(0x200000001)  # type: ignore[attr-defined]


def test_explicit_32_bits_is_the_default() -> None:
    """``bits: 32`` written out loads into the same IR as no ``bits:`` (the model's law that the
    granule path changes nothing is in tests/model/test_widths_laws.py)."""
    text = """name: N
locations:
  x: {init: 3, bits: 32}
  y: 4
threads:
  P0:
    at: {rank: 0, cta: 0}
    do: [{store: {loc: x, value: 1}}, {load: {reg: r0, loc: y}}]
exists: "x == 1"
expect: allowed
why: x
"""
    (t,) = load_text(text)
    (u,) = load_text(text.replace("{init: 3, bits: 32}", "{init: 3}"))
    assert t.locations == u.locations and not t.uses_widths()


def problems(text: str, tmp_path: Path) -> list:
    f = tmp_path / "w.yaml"
    f.write_text(text)
    with pytest.raises(LitmusError) as e:
        load_file(f)
    assert all(p.file == str(f) for p in e.value.problems)
    return e.value.problems


def at(text: str, marker: str) -> tuple[int, int]:
    """Line and column (1-based) of ``marker``'s first character in ``text``."""
    before = text[: text.index(marker)]
    return before.count("\n") + 1, len(before) - (before.rfind("\n") + 1) + 1


CASES = [
    # (old, new, where the error points, words of the message)
    ("lo:   {view: word, offset: 0, bits: 32}", "lo:   {view: wrod, offset: 0, bits: 32}", "wrod",
     ["view lo is a view of unknown location 'wrod'", "did you mean 'word'?"]),
    ("hi:   {view: word, offset: 4, bits: 32}", "hi:   {view: lo, offset: 4, bits: 32}", "lo, offset: 4",
     ["view hi is a view of lo, which is itself a view (of word)", "make hi a view of word"]),
    ("hi:   {view: word, offset: 4, bits: 32}", "hi:   {view: word, offset: 2, bits: 32}", "2, bits: 32}",
     ["view hi: offset 2 is not a multiple of its size (4 bytes)", "must be aligned"]),
    ("hi:   {view: word, offset: 4, bits: 32}", "hi:   {view: word, offset: 8, bits: 32}", "8, bits: 32}",
     ["view hi: bytes 8 to 11 lie outside word, which has 8 bytes (64 bits)", "make word wider"]),
    ("b5:   {view: word, offset: 5, bits: 8}", "b5:   {view: word, offset: 5, bits: 8, init: 1}", "init: 1",
     ["view b5 has no init of its own: its bytes are word's", "remove init:"]),
    ("b5:   {view: word, offset: 5, bits: 8}", "b5:   {view: b5, offset: 5, bits: 8}", "b5, offset",
     ["view b5 names itself"]),
    ("x: 0", "x: {init: 256, bits: 8}", "256", ["the initial value of x: 256 does not fit 8 bits", "0 to 0xff"]),
    ("x: 0", "x: {init: -1, bits: 16}", "-1", ["the initial value of x: -1 does not fit 16 bits", "unsigned"]),
    ("x: 0", "x: {init: 0, bits: 12}", "12", ["must be one of 8, 16, 32, 64"]),
    ("- store: {loc: word, value: [1, 2], vec: 2}", "- store: {loc: word, value: [1, 2, 3], vec: 2}", "[1, 2, 3]",
     ["store in P0 with vec: 2 takes value: a list of 2 values, one per element (32 bits each", "got a list of 3"]),
    ("- store: {loc: word, value: [1, 2], vec: 2}", "- store: {loc: word, value: [1, 2]}", "[1, 2]",
     ["value of store in P0 is a list, which only a vector access (vec:) takes", "add vec: 2"]),
    ("- store: {loc: word, value: [1, 2], vec: 2}", "- store: {loc: word, value: 3, vec: 2}", "3, vec",
     ["with vec: 2 takes value: a list of 2 values", "got 3"]),
    ("- store: {loc: word, value: [1, 2], vec: 2}", "- store: {loc: word, value: [1, 0x100000000], vec: 2}",
     "0x100000000", ["store in P0 on word: 4294967296 does not fit 32 bits"]),
    ("- store: {loc: word, value: [1, 2], vec: 2}", "- store: {loc: b5, value: [1, 2], vec: 2}", "2}",
     ["vec: 2 on b5 (8 bits) would make 4-bit elements", "access it as a scalar"]),
    ("- store: {loc: word, value: [1, 2], vec: 2}", "- store: {loc: word, value: [1, 2], vec: 3}", "3}",
     ["must be one of 2, 4"]),
    ("- atomic_load: {reg: [r1, r2], loc: word, vec: 2, sem: acquire, scope: sys}",
     "- atomic_load: {reg: [r1, r1], loc: word, vec: 2, sem: acquire, scope: sys}", "[r1, r1]",
     ["writes register 'r1' twice; a vector load needs one register per element"]),
    ("- atomic_load: {reg: [r1, r2], loc: word, vec: 2, sem: acquire, scope: sys}",
     "- atomic_load: {reg: r1, loc: word, vec: 2, sem: acquire, scope: sys}", "r1, loc",
     ["atomic_load in P0 with vec: 2 takes reg: a list of 2 registers"]),
    ("- store: {loc: lo, value: 5}", "- store: {loc: lo, value: -5}", "-5",
     ["store in P0 on lo: -5 does not fit 32 bits", "unsigned"]),
    ("- cas: {loc: word, expected: 0x200000001,", "- cas: {loc: b5, expected: 0x200000001,", "0x200000001",
     ["cas in P0 on b5: 8589934593 does not fit 8 bits"]),
    ("- cas: {loc: word, expected: 0x200000001, value: 0xffffffffffffffff, sem: relaxed, scope: sys}",
     "- cas: {loc: word, expected: 1, value: 2, sem: relaxed, scope: sys, vec: 2}", "vec: 2}",
     ["unknown field 'vec' of op 'cas'", "vec is for load and store ops only"]),
    ("- store: {loc: lo, value: 5}", "- spin: {loc: lo, until: 0x100000000, read: volatile}", "0x100000000",
     ["spin in P0 on lo: 4294967296 does not fit 32 bits"]),
    ('exists: "P0:r1 == 1', 'exists: "P0:r1 == 1 /\\\\ word.v2[0] == 1', "",
     ["condition names location 'word.v2[0]', which is not declared"]),
]


@pytest.mark.parametrize("old,new,marker,words", CASES, ids=[f"{i}:{c[1][:30]}" for i, c in enumerate(CASES)])
def test_each_mistake_is_located_and_says_the_fix(old: str, new: str, marker: str, words: list[str],
                                                   tmp_path: Path) -> None:
    assert old in BASE
    text = BASE.replace(old, new, 1)
    [first, *_] = ps = problems(text, tmp_path)
    line, column = at(text, new)
    assert first.line == line, ps
    if marker:  # else the condition: its column is the string's
        assert first.column == column + new.index(marker), ps
    for w in words:
        assert w in first.message, first.message


def test_all_mistakes_of_a_file_come_out_at_once(tmp_path: Path) -> None:
    text = BASE.replace("offset: 4, bits: 32}", "offset: 2, bits: 32}").replace("value: 5}", "value: -5}")
    text = text.replace("value: [1, 2], vec: 2}", "value: [1, 2, 3], vec: 2}")
    assert len(problems(text, tmp_path)) == 3


def test_unsigned_64_bit_values_load() -> None:
    (t,) = load_text(BASE.replace("init: 0x0000000200000001", "init: 0xffffffffffffffff"))
    assert t.location("word").init == 2**64 - 1
    assert t.location("b5").init == 0xFF
