"""The program orders of threads that share a CTA (litmus.codegen.roles.role_order, role_orders)."""

from __future__ import annotations

from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from litmus.codegen.options import CodegenOptions
from litmus.codegen.roles import role_order, role_order_count, role_orders, spins_last, stalls_own_cta
from litmus.ir import Barrier, Spin
from litmus.spec import find_pattern, load_text

ROOT = Path(__file__).resolve().parents[2]


def _variant(test_id: str):
    return next(t for t in find_pattern(test_id.split("[")[0], [ROOT / "catalog"]) if t.id == test_id)


def _role(test, rank: int, cta: int):
    return [(t, None) for t in test.threads if (t.rank, t.cta) == (rank, cta)]


def _spins_and_op(test_id: str, op: int, spins_ahead: bool) -> tuple[list[int], int, list[tuple[str, int]]]:
    """In a program order of rank 0's CTA of ``test_id``: where P0's spins are, where P1's op
    ``op`` (-1: its last, the read of the data) is, and the order itself."""
    test = _variant(test_id)
    order = [(t.name, i) for t, _, i in role_order(_role(test, 0, 0), CodegenOptions(), spins_ahead)]
    p0_spins = [k for k, (name, i) in enumerate(order)
                if name == "P0" and isinstance(test.threads[0].instrs[i], Spin)]
    p1_op = next(k for k, (name, i) in enumerate(order) if name == "P1" and i == op % len(test.threads[1].instrs))
    return p0_spins, p1_op, order


def test_a_thread_without_a_barrier_after_the_spin_reads_before_the_spin_when_spins_go_last() -> None:
    # symm_mem's pattern 1 without its second sync_threads: P1's read is not ordered after P0's
    # acquire, and a spin's CTA-wide exit test would order it if emitted first
    p0_spins, p1_read, order = _spins_and_op("SYMM-barrier-p1[acqrel-nopost-sys]", -1, spins_ahead=True)
    assert p0_spins and p1_read < min(p0_spins), order


def test_a_thread_without_a_barrier_before_the_spin_writes_after_it_thread_after_thread() -> None:
    # without the first sync_threads: P1's write of the data is not ordered before P0's release,
    # and emitted ahead of the spins it always came first
    p0_spins, p1_write, order = _spins_and_op("SYMM-barrier-p1[acqrel-nopre-sys]", 0, spins_ahead=False)
    assert p0_spins and p1_write > max(p0_spins), order


def test_a_barrier_still_orders_the_read_after_the_spin_in_either_order() -> None:
    for ahead in (True, False):
        p0_spins, p1_read, order = _spins_and_op("SYMM-barrier-p1[p1-acqrel-sys]", -1, ahead)
        assert p0_spins and p1_read > max(p0_spins), order


def test_a_spinning_cta_role_gets_both_orders_and_a_fully_barriered_one_just_one() -> None:
    for variant, n in (("acqrel-nopre-sys", 2), ("acqrel-nopost-sys", 2), ("p1-acqrel-sys", 1)):
        test = _variant(f"SYMM-barrier-p1[{variant}]")
        orders = role_orders(test, _role(test, 0, 0), CodegenOptions())
        assert len(orders) == n, variant
        assert orders[0] == role_order(_role(test, 0, 0), CodegenOptions(), spins_ahead=True)


SAME_CTA_FLAG = """
name: CTA-FLAG
title: a spin on a flag only a thread of its own CTA sets, written after it
locations: {x: {init: 0, home: 0}, f: {init: 0, home: 0}}
threads:
  P0:
    at: {rank: 0, cta: 0}
    do:
      - spin: {loc: f, until: 1, read: {kind: load, sem: acquire, scope: cta}, bound: 100}
      - load: {reg: r0, loc: x}
  P1:
    at: {rank: 0, cta: 0}
    do:
      - store: {loc: x, value: 1}
      - atomic_store: {loc: f, value: 1, sem: release, scope: cta}
exists: "P0:r0 == 0"
expect: forbidden
why: release/acquire at cta scope between two threads of one CTA
"""


def test_an_order_whose_spin_waits_for_a_later_op_of_its_own_cta_is_left_out() -> None:
    [test] = load_text(SAME_CTA_FLAG)
    role = _role(test, 0, 0)
    behind = role_order(role, CodegenOptions())
    assert [(t.name, i) for t, _, i in behind] == [("P0", 0), ("P0", 1), ("P1", 0), ("P1", 1)]
    assert stalls_own_cta(test, behind)
    ahead = role_order(role, CodegenOptions(), spins_ahead=True)
    assert not stalls_own_cta(test, ahead)
    assert role_orders(test, role, CodegenOptions()) == [ahead]


@settings(max_examples=50, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 2), st.booleans()), max_size=12))
def test_spins_last_keeps_every_threads_order(ops: list[tuple[int, bool]]) -> None:
    class T:  # a thread of spins (True) and other ops (False), in the order drawn
        def __init__(self, name: str) -> None:
            self.name, self.instrs = name, []

    threads = [T(f"P{k}") for k in range(3)]
    seq = []
    for k, spin in ops:
        seq.append((threads[k], None, len(threads[k].instrs)))
        threads[k].instrs.append(Spin.__new__(Spin) if spin else object())
    out = spins_last(seq)  # type: ignore[arg-type]
    assert sorted(map(id, out)) == sorted(map(id, seq))
    for t in threads:
        assert [i for u, _, i in out if u is t] == list(range(len(t.instrs)))
    spins = [k for k, (u, _, i) in enumerate(out) if isinstance(u.instrs[i], Spin)]
    firsts = {u.name: k for k, (u, _, i) in reversed(list(enumerate(out))) if isinstance(u.instrs[i], Spin)}
    before = [k for k, (u, _, i) in enumerate(out) if k < firsts.get(u.name, len(out))]
    assert not spins or max(before, default=-1) < min(spins)


def test_every_order_of_every_catalog_role_plays_each_op_once_in_its_threads_order() -> None:
    from litmus.codegen.roles import cta_roles
    from litmus.spec import load_tests

    two = 0
    for test in load_tests([str(ROOT / "catalog")]):
        for role in cta_roles(test):
            contexts = [(t, None) for t in role]
            orders = role_orders(test, contexts, CodegenOptions())  # type: ignore[arg-type]
            two += len(orders) == 2
            for order in orders:
                ops = [(t.name, i) for t, _, i in order]
                barriers = sum(isinstance(i, Barrier) for i in role[0].instrs)
                assert len(ops) == len(set(ops)) == sum(len(t.instrs) for t in role) - barriers * (len(role) - 1)
                for t in role:
                    mine = [i for name, i in ops if name == t.name]
                    assert mine == sorted(mine), (test.id, t.name)
                assert not stalls_own_cta(test, order), test.id
    assert two >= 5  # the spinning CTA roles of symm_mem's barriers and their kin


def test_role_order_count_is_what_the_generated_kernel_takes_turns_at() -> None:
    from litmus.codegen import generate

    for test_id, n in (("SYMM-barrier-p1[acqrel-nopre-sys]", 2), ("SYMM-barrier-p1[p1-acqrel-sys]", 1),
                       ("MP[relacq-samecta-sys]", 1)):
        test = _variant(test_id)
        assert role_order_count(test, CodegenOptions()) == n, test_id
        text = generate(test, CodegenOptions()).text
        assert (f"play_order = (pid + it) % {n}" in text) == (n > 1), test_id
