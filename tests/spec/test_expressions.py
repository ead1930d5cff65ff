"""Register expressions in written values (``value: "r1 + 1"``) and spin exit conditions, from YAML to IR."""

from __future__ import annotations

from pathlib import Path

import pytest

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
    # the temporaries are fresh r-registers (r100, r101), which the .litmus grammar accepts
    assert shift == ir.Compute("r100", "shl", ir.Reg("e0"), ir.Const(2), line=11)
    assert store_x.value == ir.Reg("r100")
    assert bump == ir.Compute("r101", "add", ir.Reg("r1"), ir.Const(16), line=12)
    assert store_flag.value == ir.Reg("r101") and store_flag.sem == "release"


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


RETRY = """\
name: SEQ
locations:
  seq: 0
  d: 0
threads:
  P0:
    at: {rank: 0, cta: 0}
    do:
      - retry:
          times: 3
          until: "r0 == r2 /\\\\ r0 != 1"
          do:
            - atomic_load: {reg: r0, loc: seq, sem: acquire, scope: sys}
            - load: {reg: r1, loc: d}
            - atomic_load: {reg: r2, loc: seq, sem: relaxed, scope: sys}
exists: "P0:r1 == 1"
expect: allowed
why: test
"""


def test_a_retry_unrolls_into_forward_branches_to_its_end(tmp_path: Path) -> None:
    f = tmp_path / "r.yaml"
    f.write_text(RETRY)
    [t] = load_file(f)[0].expand()
    kinds = [type(i).__name__ for i in t.thread("P0").instrs]
    attempt = ["Load", "Load", "Load"]
    leave = ["Branch", "Branch", "Branch", "Label"]  # two tests failing -> next attempt, else goto end
    assert kinds == attempt + leave + attempt + leave + attempt + ["Label"]
    instrs = t.thread("P0").instrs
    assert instrs[3] == ir.Branch("LC91", "ne", ir.Reg("r0"), ir.Reg("r2"), line=9)  # next attempt
    assert instrs[4] == ir.Branch("LC91", "eq", ir.Reg("r0"), ir.Const(1), line=9)
    assert instrs[5] == ir.Branch("LC90", None, None, None, line=9) and instrs[-1] == ir.Label("LC90", line=9)
    # every branch goes forward
    where = {i.name: k for k, i in enumerate(instrs) if isinstance(i, ir.Label)}
    assert all(where[i.target] > k for k, i in enumerate(instrs) if isinstance(i, ir.Branch))


def test_the_model_reads_a_retry_as_at_most_times_attempts(tmp_path: Path) -> None:
    from litmus.model import check

    f = tmp_path / "r.yaml"
    f.write_text(RETRY)
    [t] = load_file(f)[0].expand()
    # alone, the reader sees seq 0 twice and leaves after the first attempt
    assert {dict(s)["P0:r0"] for s in check(t, "ptx75").allowed_states} == {0}


@pytest.mark.parametrize("old, new, words", [
    ("r0 == r2 /", "r0 = = r2 /", ["until must be comparisons"]),
    ("r0 == r2 /", "r9 == r2 /", ["until reads register 'r9'"]),
    ("            - load: {reg: r1, loc: d}\n",
     "            - load: {reg: r1, loc: d}\n            - spin: {loc: seq, until: 0, read: volatile}\n",
     ["a spin or bar.sync inside a retry"]),
    ("            - load: {reg: r1, loc: d}\n",
     "            - load: {reg: r1, loc: d}\n            - retry: {times: 2, until: \"r1 == 0\", do: [{load: {reg: r1, loc: d}}]}\n",
     ["a retry inside a retry"]),
    ("times: 3", "times: 0", ["retry.times' must be a positive integer"]),
])
def test_retry_mistakes_are_located(tmp_path: Path, old: str, new: str, words: list[str]) -> None:
    from litmus.errors import LitmusError

    assert RETRY.count(old) == 1, old
    f = tmp_path / "r.yaml"
    f.write_text(RETRY.replace(old, new))
    with pytest.raises(LitmusError) as e:
        load_file(f)
    text = str(e.value)
    assert all(w in text for w in words), text
    assert ":9:" in text or ":10:" in text or ":14:" in text or ":15:" in text, text


def test_decimal_integers_with_a_leading_zero_read_as_decimal(tmp_path: Path) -> None:
    f = tmp_path / "r.yaml"
    f.write_text(RETRY.replace("r0 != 1", "r0 != 010"))
    [t] = load_file(f)[0].expand()
    assert t.thread("P0").instrs[4] == ir.Branch("LC91", "eq", ir.Reg("r0"), ir.Const(10), line=9)


def test_a_shape_mistake_does_not_make_the_early_check_forget_a_retrys_registers(tmp_path: Path) -> None:
    from litmus.errors import LitmusError

    text = RETRY.replace("exists:", "      - store: {loc: d, value: r1}\nexists:", 1).replace("name: SEQ", "name: SEQ\ntitel: x")
    f = tmp_path / "r.yaml"
    f.write_text(text)
    with pytest.raises(LitmusError) as e:
        load_file(f)
    messages = [p.message for p in e.value.problems]
    assert any("unknown top-level key 'titel'" in m for m in messages)
    assert not any("register 'r1' is read" in m for m in messages), messages
