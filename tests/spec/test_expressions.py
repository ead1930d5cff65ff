"""Register expressions in written values (``value: "r1 + 1"``) and spin exit conditions, from YAML to IR."""

from __future__ import annotations

from pathlib import Path

from litmus import ir
from litmus.spec import load_file

DOC = """\
name: COUNTER
locations:
  x: 0
  flag: {init: 5, home: 1}
threads:
  P0:
    at: {rank: 0, cta: 0}
    regs: {e0: 3}
    do:
      - atomic_load: {reg: r1, loc: flag, sem: relaxed, scope: sys}
      - store: {loc: x, value: "e0 << 2"}
      - atomic_store: {loc: flag, value: "r1 + 0x10", sem: release, scope: sys}
  P1:
    at: {rank: 1, cta: 0}
    do:
      - spin: {loc: flag, until: 16, cmp: ">=", mask: 0xf0, read: {kind: load, sem: acquire, scope: sys}, reg: r0}
      - load: {reg: r1, loc: x}
exists: "P1:r0 == 21 /\\\\ P1:r1 == 0"
expect: forbidden
why: release/acquire through a counter
"""


def load(tmp_path: Path) -> ir.LitmusTest:
    f = tmp_path / "c.yaml"
    f.write_text(DOC)
    [t] = load_file(f)[0].expand()
    return t


def test_an_expression_becomes_register_arithmetic_into_a_fresh_register(tmp_path: Path) -> None:
    p0 = load(tmp_path).thread("P0")
    load_flag, shift, store_x, bump, store_flag = p0.instrs
    # e0 is the thread's own register, so the temporaries are e1 and e2
    assert shift == ir.Compute("e1", "shl", ir.Reg("e0"), ir.Const(2), line=11)
    assert store_x.value == ir.Reg("e1")
    assert bump == ir.Compute("e2", "add", ir.Reg("r1"), ir.Const(16), line=12)
    assert store_flag.value == ir.Reg("e2") and store_flag.sem == "release"


def test_a_spin_keeps_its_comparison_and_mask(tmp_path: Path) -> None:
    spin = load(tmp_path).thread("P1").instrs[0]
    assert (spin.cmp, spin.until, spin.mask) == (">=", 16, 0xF0)
    assert ir.spin_exits(spin, 21) and not ir.spin_exits(spin, 5)
    assert ir.spin_exit_text(spin) == "(flag & 0xf0) >= 16"


def test_the_model_agrees_with_the_declared_expectation(tmp_path: Path) -> None:
    from litmus.model import check

    result = check(load(tmp_path), "ptx75")
    assert not result.target_reachable
    # the spin left on the bumped value 5 + 16, never on the initial 5
    assert {dict(s)["P1:r0"] for s in result.allowed_states} == {21}
