"""check(): verdicts of classic litmus shapes under ptx and sc, hangs, deadlocks, observables."""

from __future__ import annotations

import pytest

from litmus.errors import LitmusError
from litmus.ir import Barrier, Branch, Compute, Const, Fence, Label, Load, Reg, Rmw, Spin, SpinRead, Store
from litmus.model import MODELS, check, observables

from .irs import mk, th


def mp(store_sem: str, store_scope: str, load_sem: str, load_scope: str, rank1: int = 1,
       volatile: bool = False):
    """MP: P0 writes x then flag y; P1 (on rank ``rank1``) reads y then x."""
    return mk([
        th("P0", Store("x", Const(1)), Store("y", Const(1), store_sem, store_scope, volatile)),
        th("P1", Load("r0", "y", load_sem, load_scope, volatile), Load("r1", "x"), rank=rank1),
    ], "P1:r0 == 1 /\\ P1:r1 == 0")


@pytest.mark.parametrize("args, reachable", [
    (("weak", "sys", "weak", "sys"), True),
    (("relaxed", "sys", "relaxed", "sys", 1, True), True),   # volatile flag
    (("release", "gpu", "acquire", "gpu"), True),           # gpu scope across GPUs: not morally strong
    (("release", "sys", "acquire", "sys"), False),
    (("release", "gpu", "acquire", "gpu", 0), False),       # same GPU: gpu scope suffices
    (("release", "sys", "relaxed", "sys"), True),           # no acquire pattern
])
def test_mp_variants_under_ptx(args, reachable):
    r = check(mp(*args), "ptx")
    assert r.target_reachable is reachable
    assert r.validated is reachable  # exists
    assert check(mp(*args), "sc").target_reachable is False


def test_mp_with_acq_rel_fences_around_relaxed_accesses_is_forbidden():
    t = mk([
        th("P0", Store("x", Const(1)), Fence("acq_rel", "gpu"), Store("y", Const(1), "relaxed", "gpu")),
        th("P1", Load("r0", "y", "relaxed", "gpu"), Fence("acq_rel", "gpu"), Load("r1", "x")),
    ], "P1:r0 == 1 /\\ P1:r1 == 0")
    assert not check(t).target_reachable


def test_allowed_states_of_mp_weak_list_every_outcome():
    r = check(mp("weak", "sys", "weak", "sys"))
    outcomes = {(dict(s)["P1:r0"], dict(s)["P1:r1"]) for s in r.allowed_states}
    assert outcomes == {(0, 0), (0, 1), (1, 0), (1, 1)}
    assert all(dict(s)["x"] == 1 and dict(s)["y"] == 1 for s in r.allowed_states)


def sb(fence: str | None, scope: str = "gpu"):
    f = [Fence(fence, scope)] if fence else []
    return mk([
        th("P0", Store("x", Const(1), "relaxed", "gpu"), *f, Load("r0", "y", "relaxed", "gpu")),
        th("P1", Store("y", Const(1), "relaxed", "gpu"), *f, Load("r1", "x", "relaxed", "gpu")),
    ], "P0:r0 == 0 /\\ P1:r1 == 0")


def test_sb_needs_fence_sc():
    assert check(sb(None)).target_reachable
    assert check(sb("acq_rel")).target_reachable
    assert not check(sb("sc")).target_reachable
    assert not check(sb(None), "sc").target_reachable


def test_lb_allowed_without_dependencies_forbidden_with_data_dependencies():
    plain = mk([
        th("P0", Load("r0", "x", "relaxed", "gpu"), Store("y", Const(1), "relaxed", "gpu")),
        th("P1", Load("r1", "y", "relaxed", "gpu"), Store("x", Const(1), "relaxed", "gpu")),
    ], "P0:r0 == 1 /\\ P1:r1 == 1")
    deps = mk([
        th("P0", Load("r0", "x", "relaxed", "gpu"), Store("y", Reg("r0"), "relaxed", "gpu")),
        th("P1", Load("r1", "y", "relaxed", "gpu"), Store("x", Reg("r1"), "relaxed", "gpu")),
    ], "P0:r0 == 1 /\\ P1:r1 == 1")
    assert check(plain).target_reachable
    assert not check(plain, "sc").target_reachable
    assert not check(deps).target_reachable  # No-Thin-Air (and 1 is never written)


def iriw(fence: bool):
    mid = [Fence("sc", "sys")] if fence else []
    return mk([
        th("P0", Store("x", Const(1), "relaxed", "sys")),
        th("P1", Load("r0", "x", "acquire", "sys"), *mid, Load("r1", "y", "acquire", "sys")),
        th("P2", Load("r2", "y", "acquire", "sys"), *mid, Load("r3", "x", "acquire", "sys")),
        th("P3", Store("y", Const(1), "relaxed", "sys")),
    ], "P1:r0 == 1 /\\ P1:r1 == 0 /\\ P2:r2 == 1 /\\ P2:r3 == 0")


def test_iriw_allowed_with_acquire_loads_forbidden_with_fence_sc():
    assert check(iriw(False)).target_reachable
    assert not check(iriw(True)).target_reachable
    assert not check(iriw(False), "sc").target_reachable


def test_corr_relaxed_is_forbidden_and_weak_cross_thread_read_is_allowed():
    corr = mk([
        th("P0", Store("x", Const(1), "relaxed", "gpu")),
        th("P1", Load("r0", "x", "relaxed", "gpu"), Load("r1", "x", "relaxed", "gpu")),
    ], "P1:r0 == 1 /\\ P1:r1 == 0")
    assert not check(corr).target_reachable


def test_rmw_atomicity_two_increments_always_end_at_two():
    t = mk([th("P0", Rmw("add", "r0", "x", Const(1), sem="relaxed", scope="gpu")),
            th("P1", Rmw("add", "r1", "x", Const(1), sem="relaxed", scope="gpu"))],
           "x == 2", kind="forall", locs="x")
    r = check(t)
    assert r.validated
    assert {dict(s)["x"] for s in r.allowed_states} == {2}
    assert {(dict(s)["P0:r0"], dict(s)["P1:r1"]) for s in r.allowed_states} == {(0, 1), (1, 0)}


def test_rmw_of_different_gpus_at_gpu_scope_are_not_atomic_with_each_other():
    t = mk([th("P0", Rmw("add", "r0", "x", Const(1), sem="relaxed", scope="gpu")),
            th("P1", Rmw("add", "r1", "x", Const(1), sem="relaxed", scope="gpu"), rank=1)],
           "x == 1", locs="x")
    assert check(t).target_reachable
    assert not check(t, "sc").target_reachable


def test_spin_that_can_exit_does_not_hang_and_its_register_gets_until():
    t = mk([th("P0", Store("x", Const(1)), Store("y", Const(1), "release", "sys")),
            th("P1", Spin("y", 1, SpinRead("load", "acquire", "sys"), reg="r0"), Load("r1", "x"),
               rank=1)], "P1:r1 == 0")
    r = check(t)
    assert not r.possible_hang
    assert not r.target_reachable
    assert {dict(s)["P1:r0"] for s in r.allowed_states} == {1}


def test_spin_on_a_value_never_written_is_a_possible_hang_with_no_final_state():
    t = mk([th("P0", Store("y", Const(1), "release", "sys")),
            th("P1", Spin("y", 2, SpinRead("load", "acquire", "sys")))], "true")
    r = check(t)
    assert r.possible_hang
    assert r.allowed_states == ()


def test_spin_on_a_location_nobody_writes_hangs_on_its_initial_value():
    # the initial write is co-last only when no other write exists: then a spin may read it forever
    t = mk([th("P0", Store("x", Const(1))),
            th("P1", Spin("y", 1, SpinRead("load", "acquire", "sys")))], "true", locs="x y")
    assert check(t).possible_hang
    t2 = mk([th("P0", Store("y", Const(1))),
             th("P1", Spin("y", 1, SpinRead("load", "acquire", "sys")))], "true", locs="y")
    assert not check(t2).possible_hang


def test_cas_spin_resets_the_flag_atomically():
    t = mk([th("P0", Store("y", Const(1), "release", "sys")),
            th("P1", Spin("y", 1, SpinRead("cas", "acquire", "sys", reset=0)))],
           "y == 0", kind="forall", locs="y")
    r = check(t)
    assert r.validated and not r.possible_hang


def test_spin_that_may_see_a_reset_first_can_hang():
    # P1 resets the flag after P0 set it: P2 may only ever see 0 once the reset is co-last
    t = mk([th("P0", Store("y", Const(1), "relaxed", "sys")),
            th("P1", Spin("y", 1, SpinRead("cas", "relaxed", "sys", reset=0))),
            th("P2", Spin("y", 1, SpinRead("load", "relaxed", "sys")))], "true", locs="y")
    assert check(t).possible_hang


def test_branch_loop_spin_is_handled_like_spin():
    t = mk([th("P0", Store("x", Const(1)), Store("y", Const(1), "release", "gpu")),
            th("P1", Label("L"), Load("r0", "y", "acquire", "gpu"), Branch("L", "eq", Reg("r0"), Const(0)),
               Load("r1", "x"))], "P1:r1 == 0")
    r = check(t)
    assert not r.target_reachable and not r.possible_hang
    assert {dict(s)["P1:r0"] for s in r.allowed_states} == {1}


def test_barrier_orders_stores_before_loads_across_threads_of_a_cta():
    def sbbar(cta1: int):
        return mk([th("P0", Store("x", Const(1)), Barrier(), Load("r0", "y")),
                   th("P1", Store("y", Const(1)), Barrier(), Load("r1", "x"), cta=cta1)],
                  "P0:r0 == 0 /\\ P1:r1 == 0")
    assert not check(sbbar(0)).target_reachable
    assert not check(sbbar(0), "sc").target_reachable
    assert check(sbbar(1)).target_reachable


def test_barrier_deadlock_has_no_final_state_and_is_a_possible_hang():
    t = mk([th("P0", Load("r0", "x"), Barrier(Const(0)), Barrier(Const(1))),
            th("P1", Barrier(Const(1)), Store("x", Const(1)), Barrier(Const(0)))],
           "P0:r0 == 1", kind="not_exists", locs="x")
    r = check(t)
    assert r.allowed_states == ()
    assert r.validated  # ~exists holds vacuously
    assert r.possible_hang


def test_compute_and_register_store_values():
    t = mk([th("P0", Load("r0", "x"), Compute("r1", "add", Reg("r0"), Const(5)), Store("y", Reg("r1"))),
            th("P1", Store("x", Const(2)))], "y == 7", locs="x y")
    r = check(t)
    assert r.target_reachable
    assert {dict(s)["y"] for s in r.allowed_states} == {5, 7}


def test_observables_lists_written_and_named_registers_then_locations():
    t = mk([th("P1", Load("r10", "x"), Load("r2", "y")), th("P0", Rmw("add", None, "x", Const(1)))],
           "P0:r9 == 0", locs="y x")
    assert observables(t) == ("P1:r2", "P1:r10", "P0:r9", "y", "x")


def test_forall_and_not_exists_semantics():
    t = mk([th("P0", Store("x", Const(1)))], "x == 1", kind="forall", locs="x")
    r = check(t)
    assert r.validated and not r.target_reachable
    t2 = mk([th("P0", Store("x", Const(1)))], "x == 0", kind="not_exists", locs="x")
    r2 = check(t2)
    assert r2.validated and not r2.target_reachable


def test_unknown_model_is_a_litmus_error():
    with pytest.raises(LitmusError, match="unknown memory model"):
        check(mp("weak", "sys", "weak", "sys"), "tso")
    assert set(MODELS) == {"ptx", "ptx75", "sc"}
