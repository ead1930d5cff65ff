"""Host side of the parallel launch (litmus.run.parallel): instance rows, the Python mirror of
the kernel's map, the barrier choice, grid sizing and the Stress parameters.  No GPU needed."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from litmus.codegen import CodegenOptions, Layout, generate
from litmus.codegen import harness as h
from litmus.errors import LitmusError
from litmus.run.config import Stress, load_stress, validate_stress
from litmus.run.parallel import (
    DeviceLimits,
    barrier_programs,
    instance_table,
    join_words,
    parallel_instance,
    parallel_instances,
    parallel_permutations,
    parallel_programs,
    parallel_roles,
    resident_per_sm,
)
from litmus.spec import find_pattern

ROOT = Path(__file__).resolve().parents[2]
TESTS = ("MP[relaxed-xcta-sys]", "WRC[relacq-sys]", "IRIW[relaxed-sys]", "SYMM-barrier-p1[p1-acqrel-sys]")


@lru_cache(maxsize=None)
def _layout(test_id: str) -> Layout:
    test = next(t for t in find_pattern(test_id.split("[")[0], [ROOT / "catalog"]) if t.id == test_id)
    return generate(test, CodegenOptions(mode="parallel", block=4)).layout


def test_the_mirror_follows_the_documented_formula() -> None:
    # row (k=3, kc = c + BLOCK*o) with c=2, o=1; lane 1 of program 0, iteration 1, 3 programs of 4 lanes
    assert parallel_instance((3, 2 + 4 * 1), pid=0, j=1, it=1, programs=3, block=4) == 12 + 1 * 4 + 1
    # k + BLOCK: the home role, in the instance's own program (the same lane: (1 * 7 + 2) % 4 = 1)
    assert parallel_instance((3 + 4, 2 + 4 * 1), pid=0, j=1, it=1, programs=3, block=4) == 12 + 0 + 1
    assert parallel_instance((1, 0), pid=0, j=3, it=0, programs=1, block=4) == 3  # one program: its own


@settings(max_examples=60, deadline=None)
@given(test_id=st.sampled_from(TESTS), programs=st.integers(1, 40), log_block=st.integers(0, 6),
       iterations=st.integers(1, 2), seed=st.one_of(st.none(), st.integers(0, 2**31)), home=st.integers(0, 5))
def test_every_role_plays_every_instance_once_and_partners_sit_elsewhere(
        test_id: str, programs: int, log_block: int, iterations: int, seed: int | None, home: int) -> None:
    layout, block = _layout(test_id), 1 << log_block
    perms = parallel_permutations(layout, programs, block, seed, home)
    n = programs * block * iterations
    tables = instance_table(layout, perms, programs, block, iterations)
    for table in tables.values():  # a bijection onto [0, n)
        assert sorted(table.values()) == list(range(n))
    roles = parallel_roles(layout)
    where: list[list[int]] = [[0] * len(roles) for _ in range(n)]
    for r, names in enumerate(roles):
        for (_, pid, _), x in tables[names[0]].items():
            where[x][r] = pid
        for name in names[1:]:  # threads sharing a CTA play each instance in the same program
            assert all(where[x][r] == pid for (_, pid, _), x in tables[name].items())
    distinct = programs - 1 >= len(roles) - 1
    h = home % len(roles)
    for x, progs in enumerate(where):
        assert progs[h] == (x // block) % programs  # the home role plays in the instance's own program
        if programs > 1:
            assert all(p != progs[h] for r, p in enumerate(progs) if r != h)
            if distinct:
                assert len(set(progs)) == len(progs)
    firsts = [perms[layout.threads.index(names[0])] for names in roles]
    assert [k // block for k, _ in firsts] == [int(r == h) for r in range(len(roles))]
    assert all((k % block) % 2 == 1 or block == 1 for k, _ in perms)
    assert all(0 <= kc < block * max(programs - 1, 1) for k, kc in perms)


SHARED = ["MP[relaxed-samecta-gpu]", "SYMM-barrier-p1[p1-acqrel-sys]", "BUG-aiter-2890[buggy-final-sync-relaxed]"]


@settings(max_examples=30, deadline=None)
@given(test_id=st.sampled_from(SHARED), programs=st.integers(1, 9), log_block=st.integers(6, 9),
       log_tile=st.integers(6, 9))
def test_unshuffled_same_cta_partners_sit_in_other_hardware_threads(
        test_id: str, programs: int, log_block: int, log_tile: int) -> None:
    # Triton gives a hardware thread the lanes j, j + tile, j + 2 * tile, ... of a tensor (tile:
    # 32 * num_warps lanes, or a multiple); lane s * BLOCK + j of a role's thread s must not play
    # an instance that a lane of the same hardware thread plays for thread 0.
    layout, block, tile = _layout(test_id), 1 << log_block, 1 << min(log_tile, log_block)
    perms = parallel_permutations(layout, programs, block, None)
    tables = instance_table(layout, perms, programs, block, 1)
    shared = [names for names in parallel_roles(layout) if len(names) > 1]
    assert shared
    for names in shared:
        lane_of = {x: j for (_, _, j), x in tables[names[0]].items()}
        for slot, name in enumerate(names[1:], 1):
            for (_, _, j), x in tables[name].items():
                assert (slot * block + j) % tile != lane_of[x] % tile, (name, j)


def test_rows_are_reproducible_and_change_with_the_seed() -> None:
    layout = _layout("IRIW[relaxed-sys]")
    assert parallel_permutations(layout, 132, 256, 5) == parallel_permutations(layout, 132, 256, 5)
    assert parallel_permutations(layout, 132, 256, 5) != parallel_permutations(layout, 132, 256, 6)
    assert parallel_permutations(layout, 8, 4, None) == [(1 + 4, 0), (1, 0), (1, 4), (1, 8)]  # role 0 at home
    assert parallel_permutations(layout, 8, 4, None, home=2) == [(1, 4), (1, 8), (1 + 4, 0), (1, 0)]


def test_the_home_role_follows_the_role_map() -> None:
    from litmus.run.parallel import home_role

    assert [home_role("first", s, 3) for s in range(4)] == [0] * 4
    assert [home_role("5", s, 3) for s in range(4)] == [2] * 4
    rotated = [home_role("rotate", s, 3) for s in range(60)]
    assert set(rotated) == {0, 1, 2} and rotated == [home_role("rotate", s, 3) for s in range(60)]
    with pytest.raises(ValueError, match="parallel mode"):
        parallel_permutations(generate(find_pattern("MP", [ROOT / "catalog"])[0], CodegenOptions()).layout,
                              4, 4, 0)


@settings(max_examples=60, deadline=None)
@given(programs=st.integers(1, 3000), pct=st.integers(0, 100), seed=st.integers(0, 2**31))
def test_the_barrier_takes_exactly_the_chosen_share_of_programs(programs: int, pct: int, seed: int) -> None:
    words = join_words(programs, pct, seed)
    count = words[h.JOIN_COUNT]
    assert count == min(programs, round(programs * pct / 100))
    assert len(barrier_programs(words, programs)) == count == words[h.GROUP] == words[h.TOTAL]


def test_resident_programs_follow_threads_registers_shared_memory_and_the_cta_cap() -> None:
    h200 = DeviceLimits()
    assert resident_per_sm(h200, n_regs=32, num_warps=4, shared=0) == 16  # 2048 threads / 128
    assert resident_per_sm(h200, n_regs=128, num_warps=4, shared=0) == 4  # 65536 / (128 * 128)
    assert resident_per_sm(h200, n_regs=40, num_warps=4, shared=0) == 12  # 40 regs -> 1280 per warp
    assert resident_per_sm(h200, n_regs=16, num_warps=1, shared=0) == 32  # the CTA cap
    assert resident_per_sm(h200, n_regs=32, num_warps=4, shared=100 * 1024) == 2  # shared memory
    assert parallel_programs(h200, 32, 4, 0) == 132 * 16
    assert parallel_programs(h200, 32, 4, 0, stress_programs=64) == 132 * 16 - 64
    assert parallel_programs(h200, 32, 4, 0, cap=100) == 100
    assert parallel_programs(h200, 32, 4, 0, per_sm=1) == 132  # one program per SM
    assert parallel_programs(h200, 32, 4, 0, per_sm=2, stress_programs=4) == 132 * 2 - 4
    assert parallel_programs(h200, 32, 4, 0, per_sm=64) == 132 * 16  # no more than fit
    assert parallel_programs(DeviceLimits(sm_count=1), 255, 32, 0, stress_programs=9) == 1


def test_instances_round_up_to_whole_iterations() -> None:
    assert parallel_instances(1, 132, 256, 1 << 26) == (132 * 256, 1)
    assert parallel_instances(132 * 256 + 1, 132, 256, 1 << 26) == (2 * 132 * 256, 2)
    assert parallel_instances(1 << 30, 132, 256, 1 << 26) == ((1 << 26) // (132 * 256) * 132 * 256,
                                                             (1 << 26) // (132 * 256))
    with pytest.raises(LitmusError):
        parallel_instances(0, 4, 4, 1 << 26)


def test_stress_parameters_of_the_parallel_launch_are_validated(tmp_path: Path) -> None:
    validate_stress(Stress(launch="parallel", barrier_pct=30, parallel_programs=64))
    for good in ("program", "iteration", "3"):
        validate_stress(Stress(order_pick=good, role_map={"program": "first", "iteration": "rotate"}.get(good, good)))
    for bad, name in ((Stress(launch="ranks"), "launch"), (Stress(barrier_pct=101), "barrier_pct"),
                      (Stress(parallel_programs=-1), "parallel_programs"),
                      (Stress(programs_per_sm=-1), "programs_per_sm"),
                      (Stress(order_pick="pid"), "order_pick"), (Stress(order_pick="-1"), "order_pick"),
                      (Stress(role_map="last"), "role_map"), (Stress(role_map="64"), "role_map")):
        with pytest.raises(LitmusError, match=name):
            validate_stress(bad)
    path = tmp_path / "par.json"
    path.write_text('{"launch": "parallel", "kernel_barrier": true, "barrier_pct": 50}')
    stress = load_stress(str(path))
    assert stress.launch == "parallel" and stress.barrier_pct == 50
    path.write_text('{"launch": "paralel"}')
    with pytest.raises(LitmusError) as err:
        load_stress(str(path))
    assert str(err.value).startswith(str(path)) and "launch 'paralel'" in str(err.value)


def test_order_words_pick_per_program_per_iteration_or_one_order() -> None:
    from litmus.codegen import harness as h
    from litmus.run.stress import order_words

    def pick(stress: Stress, pid: int, it: int, n: int) -> int:  # harness.ORDER_PICK with the words
        w = order_words(stress)
        return (pid * (1 - w[h.ORDER_PID_OFF]) + it * (1 - w[h.ORDER_IT_OFF]) + w[h.ORDER_BASE]) % n

    assert [pick(Stress(), p, 1, 3) for p in range(3)] == [1, 2, 0]
    assert [pick(Stress(order_pick="iteration"), p, 1, 3) for p in range(3)] == [1, 1, 1]
    assert {pick(Stress(order_pick="5"), p, it, 3) for p in range(3) for it in range(3)} == {2}
