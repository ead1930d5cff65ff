"""Host side of codegen's parallel mode: instance rows, the Python mirror of the kernel's
instance map, the barrier choice and the sizing of the grid from occupancy.

Pure Python (torch only in :func:`device_limits`).  The kernel side and the formula are in
:mod:`litmus.codegen.parallel`; in short, with the role's row ``(k, kc)``, ``c = kc % BLOCK``,
``o = kc // BLOCK`` and ``P`` programs, lane ``j`` of program ``pid`` in iteration ``it`` plays
instance ``it*P*BLOCK + q*BLOCK + l`` with ``l = (j*k + c) % BLOCK`` and ``q = pid`` (the home
role, ``k >= BLOCK``) or ``q = (pid + 1 + (l + o) % max(P-1, 1)) % P`` (every other role).
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass
from typing import Any

from litmus.codegen.layout import Layout
from litmus.run.buffers import slot_lane
from litmus.errors import LitmusError


# --------------------------------------------------------------------------- instance map


def parallel_roles(layout: Layout) -> tuple[tuple[str, ...], ...]:
    """The roles of ``layout``'s parallel kernel, in kernel order (role 0 first)."""
    entry = layout.kernel(None)
    if not entry.parallel:
        raise ValueError(f"{layout.test_id}: layout is in {layout.mode} mode, not parallel mode")
    return entry.roles


def parallel_permutations(layout: Layout, programs: int, block: int, seed: int | None,
                          home: int = 0) -> list[tuple[int, int]]:
    """``perm`` rows (one per thread, ``layout.threads`` order) for a parallel launch of
    ``programs`` programs of ``block`` lanes.

    Each role gets ``(k + block*h, c + block*o)``: an odd lane multiplier ``k``, a lane offset
    ``c``, ``h = 1`` for role ``home`` (it plays an instance in the program whose instance it is)
    and 0 for the others, which get a program offset ``o`` in ``[0, programs-1)``, distinct
    between them whenever ``programs - 1 >= roles - 1`` (then every role of an instance plays it
    in its own program).  ``seed=None`` gives the unshuffled rows: ``k = 1``, ``c = 0`` and the
    offsets 0, 1, ... for the roles after ``home``, cyclically.  A thread sharing its role's CTA
    after the first gets a row of its own, ``(k, c)`` (``(1, 0)`` unshuffled): its lane
    permutation (:func:`litmus.run.buffers.slot_lane`).
    """
    _check_shape(programs, block)
    roles = parallel_roles(layout)
    home %= len(roles)
    stripe = max(programs - 1, 1)
    rng = random.Random(seed)
    if seed is None:
        offsets = [(r - 1) % stripe for r in range(1, len(roles))]
    elif stripe >= len(roles) - 1:
        offsets = rng.sample(range(stripe), len(roles) - 1)
    else:
        offsets = [rng.randrange(stripe) for _ in roles[1:]]
    rows: dict[str, tuple[int, int]] = {}
    for r, names in enumerate(roles):
        k = (1 if seed is None else rng.randrange(1, max(block, 2), 2)) % block  # below BLOCK: h is k // BLOCK
        c = 0 if seed is None else rng.randrange(block)
        after = (r - home) % len(roles)  # 0: the home role; then the others, cyclically
        rows[names[0]] = (k + block, c) if after == 0 else (k, c + block * offsets[after - 1])
        for name in names[1:]:
            rows[name] = (1, 0) if seed is None else (rng.randrange(1, max(block, 2), 2), rng.randrange(block))
    return [rows[name] for name in layout.threads]


def home_role(role_map: str, seed: int, n_roles: int) -> int:
    """The home role (:func:`parallel_permutations`) of a round with ``seed`` under
    ``Stress.role_map``: ``first`` is role 0, ``rotate`` a seeded one, a number ``K`` role ``K % R``."""
    if role_map == "first":
        return 0
    if role_map == "rotate":
        return random.Random(f"role_map {seed}").randrange(n_roles)
    return int(role_map) % n_roles


def parallel_instance(role_row: tuple[int, int], pid: int, j: int, it: int, programs: int, block: int) -> int:
    """The instance lane ``j`` of program ``pid`` plays in iteration ``it`` for a role with
    ``perm`` row ``role_row`` (``k >= block``: the home role, in its own program).  Mirrors the
    kernel's arithmetic exactly."""
    k, kc = role_row
    lane = (j * k + kc % block) % block
    home = k // block
    prog = (pid + (1 - home) * (1 + (lane + kc // block) % max(programs - 1, 1))) % programs
    return it * programs * block + prog * block + lane


def instance_table(layout: Layout, perms: list[tuple[int, int]], programs: int, block: int,
                   iterations: int) -> dict[str, dict[tuple[int, int, int], int]]:
    """Per thread: ``(it, pid, j) -> instance`` for every lane of the launch (``j``: the lane
    of the thread's own block of lanes)."""
    table = {}
    for names in parallel_roles(layout):
        row = perms[layout.threads.index(names[0])]
        for slot, name in enumerate(names):
            own = perms[layout.threads.index(name)]
            table[name] = {(it, pid, j): parallel_instance(row, pid, slot_lane(own, slot, j, block), it, programs,
                                                           block)
                           for it in range(iterations) for pid in range(programs) for j in range(block)}
    return table


def _check_shape(programs: int, block: int) -> None:
    if programs < 1:
        raise ValueError(f"parallel mode: {programs} programs; use at least 1")
    if block < 1 or block & (block - 1):
        raise ValueError(f"parallel mode: BLOCK={block}; use a power of two")


# --------------------------------------------------------------------------- barrier choice


def join_words(programs: int, barrier_pct: int, seed: int) -> dict[int, int]:
    """Control-block words (index -> value, :mod:`litmus.codegen.harness`) choosing which
    programs join the start barrier: ``round(programs * barrier_pct / 100)`` of them, seeded,
    all in one group (``GROUP = TOTAL = count``; they are all resident)."""
    from litmus.codegen import harness as h

    count = min(programs, max(0, round(programs * barrier_pct / 100)))
    rng = random.Random(seed)
    mul = rng.choice([m for m in range(1, programs) if math.gcd(m, programs) == 1]) if programs > 2 else 1
    return {h.JOIN_MUL: mul, h.JOIN_ADD: rng.randrange(programs), h.JOIN_COUNT: count,
            h.GROUP: count, h.TOTAL: count}


def barrier_programs(words: dict[int, int], programs: int) -> list[int]:
    """The program ids that join the barrier under ``words`` (the kernel's test, in Python)."""
    from litmus.codegen import harness as h

    return [p for p in range(programs)
            if (p * words[h.JOIN_MUL] + words[h.JOIN_ADD]) % programs < words[h.JOIN_COUNT]]


# --------------------------------------------------------------------------- sizing


@dataclass(frozen=True)
class DeviceLimits:
    """What bounds resident CTAs per SM.  Defaults: an H200 (sm_90)."""

    sm_count: int = 132
    threads_per_sm: int = 2048
    regs_per_sm: int = 65536
    blocks_per_sm: int = 32
    shared_per_sm: int = 233472  # bytes (228 KiB)
    shared_reserved: int = 1024  # bytes the runtime reserves per CTA (sm_80 and later)
    reg_unit: int = 256  # registers are allocated per warp in units of this many
    warp_size: int = 32


def device_limits(device: Any) -> DeviceLimits:
    """The limits of a torch CUDA device (fields torch does not report keep the H200 values)."""
    import torch

    props = torch.cuda.get_device_properties(device)
    base = DeviceLimits()
    return DeviceLimits(
        sm_count=props.multi_processor_count,
        threads_per_sm=getattr(props, "max_threads_per_multi_processor", base.threads_per_sm),
        regs_per_sm=getattr(props, "regs_per_multiprocessor", base.regs_per_sm),
        shared_per_sm=getattr(props, "shared_memory_per_multiprocessor", base.shared_per_sm),
        warp_size=getattr(props, "warp_size", base.warp_size),
    )


def resident_per_sm(limits: DeviceLimits, n_regs: int, num_warps: int, shared: int) -> int:
    """CTAs of a kernel (``n_regs`` registers per thread, ``num_warps`` warps, ``shared`` bytes
    of shared memory) that fit on one SM at once: the least of the thread, register, shared
    memory and CTA-count limits (at least 1)."""
    by_threads = limits.threads_per_sm // (num_warps * limits.warp_size)
    regs_per_warp = -(-max(n_regs, 1) * limits.warp_size // limits.reg_unit) * limits.reg_unit
    by_regs = (limits.regs_per_sm // regs_per_warp) // num_warps
    by_shared = limits.shared_per_sm // (shared + limits.shared_reserved)
    return max(1, min(by_threads, by_regs, by_shared, limits.blocks_per_sm))


def parallel_programs(limits: DeviceLimits, n_regs: int, num_warps: int, shared: int,
                      stress_programs: int = 0, cap: int = 0, per_sm: int = 0) -> int:
    """Programs of a parallel launch: every SM's resident CTAs (at most ``per_sm`` of them when
    ``per_sm > 0``), less the concurrent memory-stress kernel's ``stress_programs`` (counted one
    test CTA each), at most ``cap`` when ``cap > 0``; at least 1."""
    fit = resident_per_sm(limits, n_regs, num_warps, shared)
    total = limits.sm_count * (min(fit, per_sm) if per_sm > 0 else fit) - max(0, stress_programs)
    if cap > 0:
        total = min(total, cap)
    return max(1, total)


def parallel_instances(requested: int, programs: int, block: int, most: int) -> tuple[int, int]:
    """``(n_instances, iterations)`` for a round: ``requested`` rounded up to a multiple of
    ``programs * block`` (at most ``most`` instances, at least one iteration)."""
    if requested < 1:
        raise LitmusError(f"--instances {requested}: run at least one instance per round")
    per_iter = programs * block
    iterations = max(1, min(-(-requested // per_iter), most // per_iter))
    return iterations * per_iter, iterations
