"""Codegen of access widths: byte-exact placement in heaps of 4- or 8-byte units, typed pointers
(one instruction per access, of the access's width), 64-bit registers in two ``out`` columns,
vector accesses as element accesses, and the located refusals of what Triton cannot express."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from litmus.codegen import CodegenOptions, Features, build_layout, compile_variant, generate
from litmus.errors import UnsupportedError
from litmus.spec import default_catalog_dir, load_paths, load_text

TEAR = {t.id: t for t in load_paths([default_catalog_dir() / "tearing.yaml"])}
ROUNDTRIP = Path(__file__).resolve().parents[1] / "run" / "data" / "widths_roundtrip.yaml"
NEW = Features(atomic_load=True, atomic_store=True, inline_asm=True)  # triton 3.9
OLD = Features(atomic_load=False, atomic_store=False, inline_asm=True)  # triton 3.6


def _one(text: str):
    [test] = load_text(text, "widths.yaml")
    return test


def test_a_64_bit_location_gets_8_byte_units_and_its_views_address_its_bytes() -> None:
    test = TEAR["TEAR[halves-flag-buggy]"]
    src = generate(test, CodegenOptions(features=NEW))
    lay = src.layout
    assert lay.unit_bytes == 8 and lay.unit_words == 2
    assert [(l.name, l.slot, l.offset, l.bits) for l in lay.locations] == [
        ("word", 0, 0, 64), ("lo", 0, 0, 32), ("hi", 0, 4, 32), ("x", 1, 0, 32), ("y", 2, 0, 32)]
    assert lay.n_slots == 4 and lay.heap_words(16) == 4 * 16 * 2
    text = src.text
    assert "heap1_uint64 = tl.load(heap_ptrs + 1).to(tl.pointer_type(tl.uint64))" in text
    assert "a_T2_word = heap1_uint64 + b_T2  # word (64 bits)" in text
    assert "a_T0_lo = heap1_uint32 + bk2_T0" in text  # bytes 0-3 of the unit: uint32 element 2*unit
    assert "a_T1_hi = (heap1_uint32 + 1) + bk2_T1" in text  # bytes 4-7: element 2*unit + 1
    assert "a_T2_x = (heap1 + 2 * loc_stride) + bk2_T2" in text  # a 32-bit location in slot 1
    # the 64-bit spin reads one 64-bit value and its register leaves in two 32-bit columns
    assert re.search(r"spin_got\d+ = tl\.atomic_load\(a_T2_word, mask=", text)
    assert lay.out_columns == ("P2:r0", "P2:r0#hi", "P2:r1", "P2:r2", "status")
    assert "(T2_r0 >> 32).to(tl.int32))  # P2:r0#hi" in text


@pytest.mark.parametrize("addressing", ["loc_major", "interleaved"])
@pytest.mark.parametrize("n", [1, 4, 64])
def test_every_unit_is_8_byte_aligned_and_units_never_overlap(addressing: str, n: int) -> None:
    lay = build_layout(TEAR["TEAR[vector-reader]"], CodegenOptions(addressing=addressing))
    starts = [lay.word(s, i, n) for s in range(lay.n_slots) for i in range(n)]
    assert all(w % 2 == 0 for w in starts)  # int32 word index even: 8-byte aligned for every instance
    words = {w + k for w in starts for k in range(lay.unit_words)}
    assert len(words) == lay.n_slots * n * 2 and max(words) < lay.heap_words(n)


def test_without_64_bit_locations_units_stay_4_bytes() -> None:
    test = _one("""
name: NARROW
locations:
  h: {init: 0, bits: 16}
  hb: {view: h, offset: 1, bits: 8}
threads:
  P0:
    at: {rank: 0, cta: 0}
    do: [{store: {loc: hb, value: 0xff}}, {load: {reg: r0, loc: h}}]
exists: "P0:r0 == 0xff00"
expect: allowed
why: one thread
""")
    src = generate(test, CodegenOptions(features=NEW))
    assert src.layout.unit_bytes == 4
    assert "a_T0_hb = (heap0_uint8 + 1) + bk4_T0" in src.text  # byte 1 of a 4-byte unit: element 4*unit + 1
    assert "a_T0_h = heap0_uint16 + bk2_T0" in src.text
    assert "T0_r0 = tl.load(a_T0_h).to(tl.int32)" in src.text  # a uint16 load, zero-extended


def test_vector_accesses_are_element_accesses_and_the_header_says_so() -> None:
    src = generate(TEAR["TEAR[vector-writer]"], CodegenOptions(features=NEW))
    assert "Vector accesses: each element is its own scalar access" in src.text
    assert src.text.count("# vector group 1: element") == 2
    assert len(re.findall(r"tl\.atomic_store\(a_T0_word_v2_\d_, ", src.text)) == 2


def test_triton_3_6_gets_inline_ptx_of_each_width() -> None:
    [test] = load_paths([ROUNDTRIP])
    text = generate(test, CodegenOptions(features=OLD)).text
    assert 'ld.acquire.sys.global.b32 $0, [$1];", "=r,l"' in text  # the 32-bit view lo
    assert 'ld.acquire.sys.global.u8 $0, [$1];", "=r,l"' in text  # the byte spin
    assert 'st.release.sys.global.u8 [$1], $2; mov.u32 $0, 0;", "=r,l,r"' in text
    assert 'st.volatile.global.u16 [$1], $2; mov.u32 $0, 0;", "=r,l,r"' in text


def test_values_are_emitted_as_the_bits_of_the_memory_width() -> None:
    [test] = load_paths([ROUNDTRIP])
    text = generate(test, CodegenOptions(features=NEW)).text
    assert "tl.atomic_xchg(a_T0_swap, (zero64 + -1)" in text  # 0xffffffffffffffff as int64
    assert "T0_r1 = tl.atomic_xchg(" in text and ".to(tl.int64)" in text
    assert "tl.atomic_cas(a_T0_half, (zero + 0).to(tl.uint16), (zero + 48879).to(tl.uint16)" in text


def test_interpreter_and_hip_fallbacks_for_narrow_strong_stores() -> None:
    [test] = load_paths([ROUNDTRIP])
    interp = generate(test, CodegenOptions(backend="interpreter", features=OLD))
    assert any("tl.store (plain; the interpreter performs each access at once" in f for f in interp.fallbacks)
    hip = generate(test, CodegenOptions(backend="hip", features=NEW))
    assert any('tl.atomic_store(sem="relaxed", scope="sys")' in f for f in hip.fallbacks)  # the volatile halfword


def _refusal(text: str, backend: str = "cuda", features: Features = NEW) -> str:
    test = _one(text)
    with pytest.raises(UnsupportedError) as err:
        generate(test, CodegenOptions(backend=backend, features=features))
    (problem,) = err.value.problems
    assert problem.file == "widths.yaml" and problem.line == 9, problem  # the op's line
    return problem.message


NARROW_RMW = """
name: R
locations:
  b: {init: 0, bits: 8}
threads:
  P0:
    at: {rank: 0, cta: 0}
    do:
      - {op}
exists: "b == 1"
expect: allowed
why: one thread
"""


def test_byte_rmws_have_no_triton_form() -> None:
    msg = _refusal(NARROW_RMW.replace("{op}", "add: {loc: b, value: 1, sem: relaxed, scope: gpu}"))
    assert "tl.atomic_add on an 8-bit location (b)" in msg and "32- and 64-bit elements" in msg
    msg = _refusal(NARROW_RMW.replace("{op}", "cas: {loc: b, expected: 0, value: 1, sem: relaxed, scope: gpu}"))
    assert "tl.atomic_cas on an 8-bit location" in msg


def test_halfword_add_is_refused_but_a_halfword_cas_is_not() -> None:
    half = NARROW_RMW.replace("bits: 8", "bits: 16")
    msg = _refusal(half.replace("{op}", "add: {loc: b, value: 1, sem: relaxed, scope: gpu}"))
    assert "a 16-bit location" in msg
    generate(_one(half.replace("{op}", "cas: {loc: b, expected: 0, value: 1, sem: relaxed, scope: gpu}")))


def test_a_byte_release_store_on_hip_without_atomic_store_is_refused() -> None:
    op = "atomic_store: {loc: b, value: 1, sem: release, scope: sys}"
    msg = _refusal(NARROW_RMW.replace("{op}", op), backend="hip", features=OLD)
    assert "tl.atomic_xchg (the stand-in for an atomic store) on an 8-bit location" in msg


COMPILE = [TEAR["TEAR[halves-flag-buggy]"], TEAR["TEAR[vector-reader]"], TEAR["TEAR-bytes[fixed-acquire-each-byte]"],
           *load_paths([ROUNDTRIP])]


def _accesses(text: str) -> list[str]:
    return [re.sub(r"\s+", " ", l.strip()) for l in text.splitlines()
            if re.search(r"\b(ld|st|atom|red)\.[a-z.:0-9]*\b(global|volatile|relaxed|acquire|release)|"
                         r"(global|buffer|flat)_(load|store|atomic)", l)]


@pytest.mark.parametrize("test", COMPILE, ids=[t.id for t in COMPILE])
def test_widths_compile_for_sm90_with_one_instruction_per_access(test) -> None:
    ptx = compile_variant(test, "cuda:90").text("ptx")
    acc = _accesses(ptx)
    if "word" in {l.name for l in test.locations}:
        assert any(re.search(r"\.(b|u)64\b", a) and ("ld" in a or "atom" in a) for a in acc), acc
    if test.id == "WIDTHS-roundtrip":
        assert any(".b64" in a and "exch" in a for a in acc)  # the 64-bit exchange is one atom.exch.b64
        assert any(".b16" in a and "cas" in a for a in acc)  # the halfword CAS is atom.cas.b16
        assert any(re.search(r"\.(u|b)8\b", a) and a.startswith(("st", "@")) for a in acc)  # a byte store


@pytest.mark.parametrize("test", COMPILE, ids=[t.id for t in COMPILE])
def test_widths_compile_for_gfx942(test) -> None:
    try:
        amd = compile_variant(test, "hip:gfx942").text("amdgcn")
    except UnsupportedError as e:  # triton 3.6 has no tl.atomic_store: byte release stores are refused
        assert "8-bit location" in str(e)
        return
    acc = _accesses(amd)
    assert any("dwordx2" in a or "_x2" in a for a in acc) or test.id.startswith("TEAR-bytes"), acc
    if test.id.startswith("TEAR-bytes"):
        assert any("_byte" in a for a in acc) and any("dwordx2" in a for a in acc), acc
