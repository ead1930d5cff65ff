"""The audit checks access widths: a 64-bit op must be one 64-bit instruction, a byte op a byte
instruction; a single-copy-atomic access split in two (or made wider) is a finding."""

from __future__ import annotations

import pytest

from litmus.audit import audit_text, requirements
from litmus.audit.asm import parse_asm
from litmus.audit.widths import access_bits
from litmus.ir import Condition, Const, LitmusTest, Location, Rmw, Store, Thread, TrueProp
from tests.audit.conftest import text


def _test(bits: int, *instrs: object) -> LitmusTest:
    return LitmusTest("W", "", (Location("word", 0, 0, None, bits=bits),), (Thread("P0", 0, 0, tuple(instrs)),),
                      Condition("exists", TrueProp()))


XCHG64 = _test(64, Rmw("exch", None, "word", Const(0x100000001), sem="relaxed", scope="sys"))
BYTE = _test(8, Store("word", Const(0xFF)))


@pytest.mark.parametrize("kind", ["ptx", "amdgcn"])
def test_a_64_bit_exchange_compiled_as_one_instruction_passes(kind: str) -> None:
    assert audit_text(XCHG64, kind, text("xchg64", kind, SPLIT=False)) == []


@pytest.mark.parametrize("kind", ["ptx", "amdgcn"])
def test_a_64_bit_exchange_split_into_two_32_bit_ones_is_a_finding(kind: str) -> None:
    [f] = audit_text(XCHG64, kind, text("xchg64", kind, SPLIT=True))
    assert f.op == "P0 #0 rmw exch relaxed sys on word (64-bit)"
    assert "a 32-bit access where the op is 64 bits: split" in f.found and "may tear" in f.found
    assert "(64-bit)" in f.expected and f.line is not None


@pytest.mark.parametrize("kind", ["ptx", "amdgcn"])
def test_a_byte_store_must_be_a_byte_instruction(kind: str) -> None:
    assert audit_text(BYTE, kind, text("byte_store", kind, WIDE=False)) == []
    [f] = audit_text(BYTE, kind, text("byte_store", kind, WIDE=True))
    assert "a 32-bit access where the op is 8 bits: wider than the op" in f.found


def test_without_widths_requirements_carry_no_width() -> None:
    plain = _test(32, Store("word", Const(1)))
    assert [r.bits for r in requirements(plain)] == [None]
    assert [r.bits for r in requirements(XCHG64)] == [64]


@pytest.mark.parametrize(("kind", "line", "bits"), [
    ("ptx", "st.relaxed.sys.global.b64 [%rd1], %rd2;", 64),
    ("ptx", "ld.global.v2.b32 {%r1, %r2}, [%rd1];", 32),  # a vector: two 32-bit elements
    ("ptx", "st.volatile.global.u8 [%rd1], %r2;", 8),
    ("ptx", "atom.global.relaxed.sys.cas.b16 %rs1, [%rd1], %rs2, %rs3;", 16),
    ("ptx", "fence.sc.sys;", None),
    ("amdgcn", "global_store_dwordx2 v[0:1], v[2:3], off sc0 sc1", 64),
    ("amdgcn", "global_load_ubyte v3, v[0:1], off offset:5 sc1", 8),
    ("amdgcn", "buffer_load_ushort v1, v1, s[0:3], 0 offen", 16),
    ("amdgcn", "global_atomic_cmpswap v6, v[4:5], v[6:7], off sc0 sc1", 32),
    ("amdgcn", "global_atomic_swap_x2 v0, v[4:5], s[8:9] sc1", 64),
    ("sass", "STG.E.64.STRONG.SYS [R2.64], R4 ;", 64),
    ("sass", "LDG.E.U8.STRONG.GPU R0, [R2.64] ;", 8),
    ("sass", "STG.E.STRONG.SYS [R2.64], R5 ;", 32),
])
def test_access_bits_reads_the_width_of_each_target(kind: str, line: str, bits: int | None) -> None:
    [ins] = parse_asm(line, kind)
    assert access_bits(kind, ins) == bits
