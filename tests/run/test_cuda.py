"""The cuda backend: what can be checked without a GPU, and GPU runs marked ``gpu``."""

from __future__ import annotations

from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from litmus.codegen import CodegenOptions, build_layout
from litmus.errors import LitmusError
from litmus.run.buffers import heap_plan, init_strided, location_columns
from litmus.run.config import PRESETS, RunConfig, Stress, validate_stress
from litmus.run.cuda import NOTE, block_for, launch_spec, stress_launch
from litmus.run.stress import STRESS_SIGNATURE, instance_count, load_stress_kernel, round_permutations
from tests.run import irs


def _layout(block: int = 128):
    return build_layout(irs.mp_release_acquire(), CodegenOptions(backend="cuda", mode="grid", block=block))


def test_launch_spec_builds_grid_and_arguments():
    layout = _layout(128)
    spec = launch_spec(layout, 1024, stride=4)
    assert spec.progs_per_role == 8 and spec.grid == (2 * 8,)  # two roles
    assert spec.args("T", "O", "P") == ("T", "O", "P", 1024, 8, 1024 * 4, 4)
    assert spec.plan.words == layout.n_slots * 1024 * 4
    with pytest.raises(ValueError):
        launch_spec(layout, 100, stride=1)


def test_launch_spec_loops_over_iterations_of_resident_programs():
    layout = _layout(128)
    spec = launch_spec(layout, 1 << 16, stride=1, per_iter=1024)
    assert spec.progs_per_role == 8 and spec.grid == (16,)  # the programs of one iteration
    assert spec.args("T", "O", "P")[3:5] == (1 << 16, 8)  # the kernel loops 64 times
    assert spec.plan.words == layout.n_slots * (1 << 16)  # heaps hold every iteration's instances
    with pytest.raises(ValueError, match="whole number of iterations"):
        launch_spec(layout, 1 << 16, stride=1, per_iter=3 * 128)


def test_block_and_instances_are_powers_of_two():
    assert block_for(64, 256) == 64 and block_for(1 << 20, 256) == 256
    with pytest.raises(LitmusError):
        block_for(64, 100)
    assert instance_count(1) == 1 and instance_count(1000) == 1024 and instance_count(1 << 16) == 1 << 16
    with pytest.raises(LitmusError):
        instance_count(0)


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 2**20), st.integers(0, 50), st.integers(2, 14))
def test_permutations_are_reproducible_from_the_seed(seed, round_index, log_n):
    layout = _layout(4)
    n = 1 << log_n
    cfg = RunConfig(seed=seed, stress=PRESETS["default"])
    a = round_permutations(layout, n, cfg, round_index)
    assert a == round_permutations(layout, n, cfg, round_index)
    assert a == round_permutations(layout, n, replace(cfg, seed=seed + round_index), 0)  # seed + round
    import math

    assert a[0] == (1, 0) and all(math.gcd(k, n) == 1 and 0 <= c < n for k, c in a)
    assert round_permutations(layout, n, RunConfig(seed=seed, stress=PRESETS["none"]), round_index) == [(1, 0)] * 2


def test_stress_validation_names_the_parameter():
    validate_stress(PRESETS["heavy"])
    for bad, word in ((Stress(stress_pattern="load-nothing"), "stress_pattern"), (Stress(stride=0), "stride"),
                      (Stress(mem_stress=True, stress_programs=0, stress_iterations=4), "stress_programs"),
                      (Stress(mem_stress=True, stress_programs=2, stress_iterations=4, scratch_words=1000),
                       "scratch_words"), (Stress(pre_stress=-1), "pre_stress")):
        with pytest.raises(LitmusError, match=word):
            validate_stress(bad)


def test_stress_launch_follows_the_preset():
    assert stress_launch(PRESETS["default"]) is None
    heavy = stress_launch(PRESETS["heavy"])
    assert heavy is not None and heavy.programs == 64 and heavy.iterations == 64
    assert stress_launch(PRESETS["full"]).iterations == 64  # pre-stress runs in the test kernel
    assert (heavy.first_store, heavy.second_store) == (True, False)  # store-load
    ll = stress_launch(replace(PRESETS["heavy"], stress_pattern="load-load"))
    assert (ll.first_store, ll.second_store) == (False, False)


def test_strided_heaps_roundtrip():
    import torch

    layout = _layout(4)
    plan = heap_plan(layout, 8, 3)
    heaps = [torch.full((plan.words,), 9, dtype=torch.int32) for _ in range(layout.n_ranks)]
    layout = replace(layout, locations=tuple(replace(l, init=5) if l.name == "x" else l for l in layout.locations))
    init_strided(layout, heaps, plan)
    x = layout.location("x")
    cols = location_columns(heaps, layout, 8, (plan.loc_stride, plan.inst_stride))
    assert cols[layout.locations.index(x)].tolist() == [5] * 8
    assert int(heaps[x.home].sum()) == 5 * 8  # padding words and other slots are zero


@pytest.mark.parametrize("pattern", ["store-load", "load-store"])
def test_stress_kernel_compiles_for_sm90_on_the_cpu(pattern, litmus_cache):
    import triton
    from triton.backends.compiler import GPUTarget
    from triton.compiler import ASTSource

    launch = stress_launch(replace(PRESETS["heavy"], stress_pattern=pattern))
    src = ASTSource(load_stress_kernel(interpret=False), dict(STRESS_SIGNATURE),
                    constexprs={"SCRATCH": 4096, "LANES": 128, "FIRST_STORE": launch.first_store,
                                "SECOND_STORE": launch.second_store})
    ptx = triton.compile(src, target=GPUTarget("cuda", 90, 32), options={"num_warps": 4}).asm["ptx"]
    assert "ld.volatile.global" in ptx and "st.global" in ptx


def test_constructing_without_a_gpu_is_a_user_error():
    import torch

    if torch.cuda.is_available():
        pytest.skip("a CUDA device is present")
    from litmus.run.cuda import CudaBackend

    with pytest.raises(LitmusError, match="no CUDA device"):
        CudaBackend()
    assert "one GPU" in NOTE


# --------------------------------------------------------------------------- on a GPU


@pytest.mark.gpu
def test_gpu_mp_release_acquire_is_correct(cuda_backend):
    from litmus.session import run_tests

    grid = RunConfig(iterations=3, instances=1 << 16, stress=PRESETS["grid"])
    [res] = run_tests([irs.mp_release_acquire()], cuda_backend, grid)
    assert res.verdict.verdict == "correct" and res.verdict.instances == 3 << 16
    d = cuda_backend.describe()
    import torch

    major, minor = torch.cuda.get_device_capability()
    assert d["arch"] == f"sm_{major}{minor}"


@pytest.mark.gpu
def test_gpu_default_parallel_launch_runs_whole_iterations_of_resident_programs(cuda_backend):
    from litmus.session import run_tests

    r = cuda_backend.run_round(irs.mp_release_acquire(), RunConfig(instances=1 << 16), 0)
    assert r.extra["launch"] == "parallel"
    per_iteration = r.extra["programs"] * cuda_backend.block
    assert r.instances == r.extra["iterations"] * per_iteration >= 1 << 16
    assert r.instances - per_iteration < 1 << 16  # rounded up to whole iterations, no further
    [res] = run_tests([irs.mp_release_acquire()], cuda_backend, RunConfig(iterations=3, instances=1 << 16))
    assert res.verdict.verdict == "correct" and res.verdict.instances == 3 * r.instances


@pytest.mark.gpu
def test_gpu_flag_reset_rounds_loop_over_resident_programs(cuda_backend):
    from litmus.spec import load_paths

    (test,) = [t for t in load_paths(["catalog/iris_flag_reset.yaml"]) if t.id == "MP-iris-reset[relacq-sys]"]
    r = cuda_backend.run_round(test, RunConfig(instances=1 << 22), 0)
    assert r.extra["launch"] == "grid" and r.extra["parallel_fallback"]  # parallel mode would starve it
    assert r.instances == 1 << 22 and r.extra["iterations"] > 1  # not capped at one grid of programs
    assert r.extra["programs"] <= cuda_backend.barrier_group  # only programs sure to be resident
    late = sum(n for _, timed_out, n in r.rows if timed_out)
    assert late < r.instances // 100, late  # partners play an instance in the same iteration


@pytest.mark.gpu
def test_gpu_mislabelled_is_violation_and_heavy_stress_runs(cuda_backend):
    from litmus.session import run_tests

    cfg = RunConfig(iterations=2, instances=1 << 14, stress=PRESETS["heavy"])
    [res] = run_tests([irs.mp_payload_first_mislabelled()], cuda_backend, cfg)
    assert res.verdict.verdict == "VIOLATION" and res.verdict.instances == 2 << 14
    grid = cuda_backend.run_round(irs.spin_never(), RunConfig(instances=256, spin_bound=8, stress=PRESETS["grid"]), 0)
    assert [(late, n) for _, late, n in grid.rows] == [(True, 256)]
    # the parallel default rounds up to whole iterations of its resident programs
    par = cuda_backend.run_round(irs.spin_never(), RunConfig(instances=256, spin_bound=8), 0)
    assert par.extra["launch"] == "parallel" and [(late, n) for _, late, n in par.rows] == [(True, par.instances)]


@pytest.mark.gpu
def test_gpu_harness_every_program_passes_the_start_barrier_and_pre_stresses(cuda_backend):
    from litmus.codegen import harness as h

    cfg = RunConfig(instances=1 << 18, stress=PRESETS["full"])
    r = cuda_backend.run_round(irs.mp_release_acquire(), cfg, 1)
    ctl = cuda_backend._setup.control.cpu()
    programs = cuda_backend._setup.spec.grid[0]
    assert int(ctl[h.ARRIVALS]) == programs  # one ticket each: every program ran the barrier
    assert r.extra["barrier_group"] == cuda_backend.barrier_group and r.extra["pre_stress"] == 16
    assert bool(ctl[h.SCRATCH:].any())  # store-load pre-stress wrote the scratch words
    assert sum(n for _, _, n in r.rows) == 1 << 18


def test_spinning_tests_are_capped_to_resident_programs() -> None:
    from litmus.run.cuda import RESIDENT_PROGRAMS_PER_SM, resident_instances
    from litmus.spec import load_paths

    tests = {t.id: t for t in load_paths(["catalog/mp.yaml", "catalog/iris_mp.yaml"])}
    plain = tests["MP[relacq-xgpu-sys]"]
    spinning = next(t for t in tests.values() if t.name == "MP-iris")
    assert resident_instances(plain, 132, 256, 1 << 22) == 1 << 22
    capped = resident_instances(spinning, 132, 256, 1 << 22)
    roles = len({(t.rank, t.cta) for t in spinning.threads})
    assert capped // 256 * roles <= RESIDENT_PROGRAMS_PER_SM * 132
    assert capped & (capped - 1) == 0 and capped >= 256
    assert resident_instances(spinning, 132, 256, 512) == 512


def test_threads_sharing_a_cta_share_the_instance_permutation_from_other_lanes() -> None:
    from litmus.codegen import CodegenOptions, generate
    from litmus.spec import load_paths

    (t,) = [x for x in load_paths(["catalog/mp_block_payload.yaml"]) if x.id == "MP-block[bar-release-sys]"]
    text = generate(t, CodegenOptions(backend="cuda", mode="grid")).text
    shared = [t_.name for t_ in t.threads if (t_.rank, t_.cta) == (t.threads[0].rank, t.threads[0].cta)]
    assert len(shared) >= 2
    import re

    role0 = text.split("if role == 1")[0]
    perms = set(re.findall(r"k_T\d+ = tl.load\(perm \+ (\d+)\)", role0))
    assert perms == {"0"}, perms  # one instance permutation: the role's first thread's
    # every other thread permutes the lanes of the same block by its own row, so its instance
    # partners in the CTA sit in other hardware threads
    for name in shared[1:]:
        k = [u.name for u in t.threads].index(name)  # its ident T<k> and its perm row k
        assert f"j_T{k} = (local * ((tl.load(perm + {2 * k}) % BLOCK) | 1)" in role0, name
        assert f"x_T{k} = ((block * BLOCK + j_T{k}).to(tl.int64) * k_T0 + c_T0) % per_iter" in role0, name


@pytest.mark.gpu
def test_gpu_one_pass_count_equals_count_rows_on_a_real_round(cuda_backend):
    from litmus.run.buffers import count_rows

    test = irs.mp_payload_first_mislabelled()
    r = cuda_backend.run_round(test, RunConfig(instances=1 << 20), 0)
    setup = cuda_backend._setup
    plan = setup.spec.plan
    slow = count_rows([setup.out], setup.heaps, setup.layout, (plan.loc_stride, plan.inst_stride))
    key = lambda rows: sorted((sorted(s.items()), late, n) for s, late, n in rows)  # noqa: E731
    assert key(r.rows) == key(slow) and sum(n for *_, n in r.rows) == r.instances


def test_out_is_zeroed_only_after_a_round_with_timeouts() -> None:
    import torch

    from litmus.run.cuda import _Setup

    out = torch.full((4, 3), 7, dtype=torch.int32)
    setup = _Setup(("k",), irs.mp_release_acquire(), _layout(4), None, None, [], None, None, out, ())
    setup.clear_out()
    assert bool((out == 7).all())  # nothing timed out: the kernel overwrites every register column
    setup.status_set = True
    setup.clear_out()
    assert not out.any() and not setup.status_set
