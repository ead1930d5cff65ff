"""Reads of one address out of program order: a later load placed above an earlier strong read.

The SASS and PTX here are written by hand (nvdisasm ``-g`` form, PTX ``.loc``), one load per op,
so each case places exactly the loads it means to; the last test compiles the pattern whose GPU
run showed the reorder (docs/compiler-bugs.md, finding 2).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from litmus.audit.check import reordered
from litmus.audit.op_code import op_lines
from litmus.audit.reorder import must_read_after
from litmus.audit.requirements import requirements
from litmus.ir import Condition, Const, LitmusTest, Load, Location, Store, Thread
from litmus.condition import parse_prop

DATA = Path(__file__).parent / "data"

# P0 #0 volatile load of x, #1 plain load of x, #2 plain load of y; P1 writes x
CORR = LitmusTest(
    name="CoRR-mixed", variant="v", source_file="corr.yaml",
    locations=(Location("x"), Location("y")),
    threads=(Thread("P0", 1, 0, (Load("r0", "x", "relaxed", "sys", volatile=True), Load("r1", "x"), Load("r2", "y"))),
             Thread("P1", 0, 0, (Store("x", Const(1), "relaxed", "sys"),))),
    condition=Condition("exists", parse_prop("P0:r0 == 1 /\\ P0:r1 == 0")),
)

SOURCE = """# --- P0[0] (line 9)
T0_r0 = tl.load(a_T0_x, volatile=True)
# --- P0[1] (line 10)
T0_r1 = tl.load(a_T0_x)
# --- P0[2] (line 11)
T0_r2 = tl.load(a_T0_y)
# outputs of P0
"""


def sass(*rows: tuple[int, str]) -> str:
    """nvdisasm-style SASS: ``(kernel line, instruction)`` rows (line 0: no line-table entry)."""
    out = ["\t.text.litmus_grid:"]
    for n, (line, ins) in enumerate(rows):
        if line:
            out.append(f'\t//## File "/cache/kernels/litmus_0123abcd.py", line {line}')
        out.append(f"        /*{n * 16:04x}*/                   {ins} ;")
    return "\n".join(out)


VOL, PLAIN, OTHER = 2, 4, 6  # the kernel lines of P0[0], P0[1], P0[2]


def test_the_source_lines_are_the_ops() -> None:
    assert {VOL: "P0[0]", PLAIN: "P0[1]", OTHER: "P0[2]"}.items() <= op_lines(SOURCE).items()


def test_a_plain_reread_above_the_volatile_read_of_its_address_is_a_finding() -> None:
    text = sass((VOL, "LDG.E.STRONG.SYS R9, desc[UR4][R2.64]"), (PLAIN, "LDG.E R13, desc[UR4][R2.64]"),
                (PLAIN, "LDG.E R15, desc[UR4][R4.64]"), (VOL, "LDG.E.STRONG.SYS R11, desc[UR4][R4.64]"))
    [f] = reordered(CORR, "sass", text, SOURCE)
    assert f.op == "P0 #1 load on x" and "P0 #0 load volatile on x" in f.expected
    assert "LDG.E R15, desc[UR4][R4.64]" in f.found and "LDG.E.STRONG.SYS R11" in f.found


@pytest.mark.parametrize("rows", [
    # in order, element by element
    ((VOL, "LDG.E.STRONG.SYS R9, desc[UR4][R2.64]"), (PLAIN, "LDG.E R13, desc[UR4][R2.64]"),
     (VOL, "LDG.E.STRONG.SYS R11, desc[UR4][R4.64]"), (PLAIN, "LDG.E R15, desc[UR4][R4.64]")),
    # above, but another address
    ((PLAIN, "LDG.E R15, desc[UR4][R4.64+0x4]"), (VOL, "LDG.E.STRONG.SYS R11, desc[UR4][R4.64]")),
    # above, but the address register is written between: another address
    ((PLAIN, "LDG.E R15, desc[UR4][R4.64]"), (0, "IADD3 R4, P0, R4, 0x100, RZ"),
     (VOL, "LDG.E.STRONG.SYS R11, desc[UR4][R4.64]")),
    # above, but across a label: not one straight-line stretch
    ((PLAIN, "LDG.E R15, desc[UR4][R4.64]"), (0, "NOP"), (VOL, "LDG.E.STRONG.SYS R11, desc[UR4][R4.64]")),
    # another location's load may go anywhere
    ((OTHER, "LDG.E R15, desc[UR4][R4.64]"), (VOL, "LDG.E.STRONG.SYS R11, desc[UR4][R4.64]")),
], ids=["in-order", "other-address", "register-rewritten", "across-a-label", "other-location"])
def test_reads_that_keep_their_order_are_no_finding(rows: tuple[tuple[int, str], ...]) -> None:
    text = sass(*rows)
    if any(ins == "NOP" for _, ins in rows):
        text = text.replace("NOP ;", "NOP ;\n.L_x_1:")
    assert reordered(CORR, "sass", text, SOURCE) == []


def test_ptx_loads_are_matched_by_their_address_register() -> None:
    ptx = "\n".join([
        '\t.file\t1 "/cache/kernels/litmus_0123abcd.py"',
        "\t.loc\t1 4 0", "\tld.global.b32 \t{ %r3 }, [ %rd160 + 0 ];",
        "\t.loc\t1 2 0", "\tld.volatile.global.b32 \t{ %r2 }, [ %rd160 + 0 ];",
    ])
    [f] = reordered(CORR, "ptx", ptx, SOURCE)
    assert f.target == "ptx" and "%rd160" in f.found


def test_only_a_strong_earlier_read_orders_a_later_read_of_its_location() -> None:
    r = requirements(CORR)
    assert must_read_after(r[0], r[1])  # volatile, then plain, of x
    assert not must_read_after(r[1], r[0])  # program order
    assert not must_read_after(r[0], r[2])  # another location
    weak_first = requirements(LitmusTest(
        name="CoRR-weak", variant="v", source_file="c.yaml", locations=(Location("x"),),
        threads=(Thread("P0", 0, 0, (Load("r0", "x"), Load("r1", "x"))),),
        condition=Condition("exists", parse_prop("P0:r0 == 1"))))
    assert not must_read_after(weak_first[0], weak_first[1])


def test_the_fuzz_pattern_that_showed_it_on_the_gpu_compiles_to_the_reorder() -> None:
    """ptxas 12.8 (triton 3.6) and 12.9 (triton 3.9) place P0's plain re-read of l2 above its
    volatile read for the second vector element; a toolchain that no longer does fails here,
    and docs/compiler-bugs.md finding 2 should then say from which version on."""
    from litmus.audit import audit
    from litmus.spec import load_tests

    pytest.importorskip("triton")
    [test] = load_tests([str(DATA / "volatile_then_plain_reread.yaml")])
    result = audit(test, "sass")
    if result.status == "unsupported":
        pytest.skip(f"no SASS here: {result.reason}")
    assert [f.op for f in result.findings] == ["P0 #1 load on l2 (32-bit)"]
