"""Stress applied by the run backends: seeded instance shuffling, strided heaps, memory stress.

In the manner of GPUHarbor / MC Mutants (Levine et al., ASPLOS 2023):

- *shuffle*: each litmus thread plays its instances in a seeded random co-prime order
  (``run.buffers.permutations``), so the two sides of one instance run on different lanes,
  programs and SMs; the seed of round ``k`` is ``config.seed + k``, so a run is reproducible;
- *stride*: instance ``i`` of location slot ``s`` lives at word ``s*N*stride + i*stride``, which
  spreads the instances' locations over cache lines (``run.buffers.heap_plan``);
- *memory stress*: extra programs hammer a scratch buffer with a chosen access pattern while the
  test runs (CUDA only: :func:`stress_kernel_source`, launched on a second stream).

Nothing here imports triton; torch is imported by the calls that need it.
"""

from __future__ import annotations

from typing import Any

from litmus.codegen.layout import Layout
from litmus.errors import LitmusError
from litmus.run.config import PATTERNS, RunConfig, Stress

# Largest power of two a backend runs in one launch (BLOCK lanes x programs).
MAX_INSTANCES = 1 << 26


def round_seed(config: RunConfig, round_index: int) -> int:
    """The seed of round ``round_index``: ``config.seed + round_index``."""
    return int(config.seed) + int(round_index)


def instance_count(requested: int) -> int:
    """``requested`` rounded up to a power of two (generated kernels need ``N = P * BLOCK``)."""
    if requested < 1:
        raise LitmusError(f"--instances {requested}: run at least one instance per round")
    n = 1 << (int(requested) - 1).bit_length()
    if n > MAX_INSTANCES:
        raise LitmusError(f"--instances {requested}: at most {MAX_INSTANCES} instances per round")
    return n


def round_permutations(layout: Layout, n_instances: int, config: RunConfig, round_index: int) -> list[tuple[int, int]]:
    """``(k_t, c_t)`` per thread for this round: seeded co-prime shuffles, or all identity
    when ``config.stress.shuffle`` is off."""
    from litmus.run.buffers import permutations

    if not config.stress.shuffle:
        return [(1, 0)] * len(layout.threads)
    return permutations(layout, n_instances, round_seed(config, round_index))


# --------------------------------------------------------------------------- in-kernel harness

BARRIER_POLLS = 1 << 16
"""Most polls a program waits at the in-kernel start barrier (a bound, so it can never hang)."""


def control_header(stress: Stress, seed: int, group: int, total_programs: int,
                   polls: int = BARRIER_POLLS) -> list[int]:
    """The header words of the harness control block (:mod:`litmus.codegen.harness`) for one
    launch: the start barrier over groups of ``group`` programs when ``stress.kernel_barrier`` (of
    ``total_programs`` in all), and ``stress.pre_stress`` pre-stress passes per program with
    ``stress.stress_pattern`` over ``stress.scratch_words`` scratch words."""
    from litmus.codegen import harness as h

    first, second = pattern_flags(stress.stress_pattern)
    words = [0] * h.HEADER_WORDS
    words[h.GROUP] = max(0, group) if stress.kernel_barrier else 0
    words[h.POLLS] = polls
    words[h.PRE_ITERS] = stress.pre_stress
    words[h.PRE_MASK] = stress.scratch_words - 1 if stress.pre_stress else 0
    words[h.SEED] = seed & 0x7FFFFFFF
    words[h.PATTERN] = int(first) | (int(second) << 1)
    words[h.TOTAL] = total_programs
    return words


def order_words(stress: Stress) -> dict[int, int]:
    """Control-block words (index -> value) of ``stress.order_pick``: which op order each program
    of a parallel launch plays (:mod:`litmus.codegen.harness`, "Order pick")."""
    from litmus.codegen import harness as h

    if stress.order_pick == "program":
        return {h.ORDER_PID_OFF: 0, h.ORDER_IT_OFF: 0, h.ORDER_BASE: 0}
    if stress.order_pick == "iteration":
        return {h.ORDER_PID_OFF: 1, h.ORDER_IT_OFF: 0, h.ORDER_BASE: 0}
    return {h.ORDER_PID_OFF: 1, h.ORDER_IT_OFF: 1, h.ORDER_BASE: int(stress.order_pick)}


def control_words(stress: Stress) -> int:
    """Size in int32 words of the control block ``stress`` needs (header and scratch)."""
    from litmus.codegen.harness import HEADER_WORDS

    return HEADER_WORDS + (stress.scratch_words if stress.pre_stress else 0)


# --------------------------------------------------------------------------- memory stress (CUDA)

# Each stress program loops over ``iterations`` and touches two words of the scratch buffer per
# iteration, chosen by a linear-congruential walk seeded by the program id and the round seed, with
# the access pair
# of ``pattern`` (MC Mutants' store-store / store-load / load-store / load-load).  Loads are
# accumulated and written to a sink word so the compiler cannot drop them.
_STRESS_SOURCE = '''"""Memory-stress kernel (litmus.run.stress); generated, do not edit."""

import triton
import triton.language as tl


@triton.jit
def litmus_stress(scratch, sink, iterations, seed, SCRATCH: tl.constexpr, LANES: tl.constexpr,
                  FIRST_STORE: tl.constexpr, SECOND_STORE: tl.constexpr):
    pid = tl.program_id(0)
    lane = tl.arange(0, LANES)
    acc = lane * 0
    pos = (pid * 7919 + lane * 31 + seed) & (SCRATCH - 1)
    for it in range(iterations):
        a = scratch + pos
        b = scratch + ((pos + SCRATCH // 2) & (SCRATCH - 1))
        if FIRST_STORE:
            tl.store(a, acc + it)
        else:
            acc += tl.load(a, volatile=True)
        if SECOND_STORE:
            tl.store(b, acc + pid)
        else:
            acc += tl.load(b, volatile=True)
        pos = (pos * 1103515245 + 12345 + it) & (SCRATCH - 1)
    tl.store(sink + pid * LANES + lane, acc)
'''

STRESS_SIGNATURE: dict[str, str] = {
    "scratch": "*i32", "sink": "*i32", "iterations": "i32", "seed": "i32",
    "SCRATCH": "constexpr", "LANES": "constexpr", "FIRST_STORE": "constexpr", "SECOND_STORE": "constexpr",
}


def stress_kernel_source() -> str:
    """Source of the ``litmus_stress`` Triton kernel (a real module; load it from a file)."""
    return _STRESS_SOURCE


def load_stress_kernel(interpret: bool = False) -> Any:
    """The ``litmus_stress`` kernel, imported from a file in the litmus kernel cache."""
    from litmus.codegen.loader import load_text_kernel

    return load_text_kernel("litmus_stress", stress_kernel_source(), "litmus_stress", interpret)


def pattern_flags(pattern: str) -> tuple[bool, bool]:
    """``(first access is a store, second access is a store)`` of a stress pattern."""
    if pattern not in PATTERNS:
        raise LitmusError(f"stress_pattern {pattern!r}; use one of {', '.join(PATTERNS)}")
    first, second = pattern.split("-")
    return first == "store", second == "store"
