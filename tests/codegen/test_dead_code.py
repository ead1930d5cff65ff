"""Unused harness pointers are dropped from generated kernels; memory ops never are."""

from __future__ import annotations

from litmus.codegen.roles import drop_dead_assignments, drop_overwritten_inits


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


def test_unused_zero_vector_is_dropped() -> None:
    lines = ["lane = tl.arange(0, BLOCK)", "zero = lane * 0", "T0_r0 = tl.load(a_T0_x)"]
    assert drop_dead_assignments(lines) == ["lane = tl.arange(0, BLOCK)", "T0_r0 = tl.load(a_T0_x)"]


def test_register_inits_go_only_when_overwritten_before_any_read() -> None:
    regs = {"T0_r0": "r0", "T0_r1": "r1", "T0_r2": "r2", "T0_r3": "r3"}
    lines = [
        "T0_r0 = zero + 0  # P0:r0",   # first named by a top-level load: dropped
        "T0_r1 = zero + 0  # P0:r1",   # assigned inside a loop: kept
        "T0_r2 = zero + 5  # P0:r2",   # read before it is assigned: kept
        "T0_r3 = zero + 0  # P0:r3",   # its assignment reads it: kept
        "T0_r0 = tl.load(a_T0_x)",
        "tl.store(a_T0_y, T0_r2)",
        "while cond:",
        "    T0_r1 = tl.load(a_T0_y)",
        "T0_r2 = tl.load(a_T0_x)",
        "T0_r3 = T0_r3 + 1",
    ]
    assert drop_overwritten_inits(lines, regs) == lines[1:]

