"""Unused harness pointers are dropped from generated kernels; memory ops never are."""

from __future__ import annotations

from litmus.codegen.generate import drop_dead_assignments


def test_unused_harness_pointers_are_dropped_transitively() -> None:
    lines = [
        "b_T0 = i_T0 * inst_stride",
        "s_T0 = heap0 + (2 * loc_stride + b_T0)",
        "o_T0 = out + i_T0 * 3",
        "a_T0_x = heap0 + (0 * loc_stride + b_T0)  # x",
        "tl.store(a_T0_x, (zero + 1))",
    ]
    assert drop_dead_assignments(lines) == [
        "b_T0 = i_T0 * inst_stride",
        "a_T0_x = heap0 + (0 * loc_stride + b_T0)  # x",
        "tl.store(a_T0_x, (zero + 1))",
    ]


def test_effects_and_registers_are_kept_even_when_unread() -> None:
    lines = [
        'o_T0 = tl.atomic_cas(a_T0_flag, zero + 0, zero + 1, sem="release", scope="sys")',
        "T0_r9 = zero + 3",
        "st_T0 = tl.load(a_T0_flag, volatile=True)",
    ]
    assert drop_dead_assignments(lines) == lines
