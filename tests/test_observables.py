"""observables: the one rule for the outcome keys of a test (registers, then final memory)."""

from __future__ import annotations

from litmus.ir import Cmp, Condition, Const, LitmusTest, Load, Location, RegRef, Thread
from litmus.observables import observables
from tests.codegen import irs


def test_registers_by_thread_order_then_natural_register_order_then_locations() -> None:
    t = LitmusTest("T", "", (Location("y"), Location("x")),
                   (Thread("P1", 0, 1, (Load("r10", "x"), Load("r2", "y"), Load("r0", "y"))),
                    Thread("P0", 0, 0, (Load("r5", "x"),))),
                   Condition("exists", Cmp(RegRef("P0", "r9"), "==", Const(0))))
    # P1 comes first in the test; r2 before r10; a condition-only register counts; locations as declared
    assert observables(t) == ("P1:r0", "P1:r2", "P1:r10", "P0:r5", "P0:r9", "y", "x")


def test_model_codegen_and_layout_use_the_same_keys() -> None:
    from litmus import codegen, model

    for make in (irs.mp_plain, irs.every_op, irs.mp_cas_spin):
        test = make()
        layout = codegen.generate(test, codegen.CodegenOptions(backend="interpreter")).layout
        assert model.observables is codegen.observables is observables
        assert layout.observables == observables(test)
        assert layout.out_columns[:-1] == tuple(k for k in observables(test) if ":" in k)
