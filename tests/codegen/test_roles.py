"""The program order of threads that share a CTA (litmus.codegen.roles.role_order)."""

from __future__ import annotations

from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from litmus.codegen.options import CodegenOptions
from litmus.codegen.roles import role_order, spins_last
from litmus.ir import Spin
from litmus.spec import find_pattern

ROOT = Path(__file__).resolve().parents[2]


def _variant(test_id: str):
    return next(t for t in find_pattern(test_id.split("[")[0], [ROOT / "catalog"]) if t.id == test_id)


def _role(test, rank: int, cta: int):
    return [(t, None) for t in test.threads if (t.rank, t.cta) == (rank, cta)]


def _spins_and_read(test_id: str) -> tuple[list[int], int, list[tuple[str, int]]]:
    """In the program order of rank 0's CTA of ``test_id``: where P0's spins are, where P1's
    last op (its read of the data) is, and the order itself."""
    test = _variant(test_id)
    order = [(t.name, i) for t, _, i in role_order(_role(test, 0, 0), CodegenOptions())]
    p0_spins = [k for k, (name, i) in enumerate(order)
                if name == "P0" and isinstance(test.threads[0].instrs[i], Spin)]
    p1_read = next(k for k, (name, i) in enumerate(order) if name == "P1" and i == len(test.threads[1].instrs) - 1)
    return p0_spins, p1_read, order


def test_a_thread_without_a_barrier_after_the_spin_reads_before_the_spin() -> None:
    # symm_mem's pattern 1 without its second sync_threads: P1's read is not ordered after P0's
    # acquire, and a spin's CTA-wide exit test would order it if emitted first
    p0_spins, p1_read, order = _spins_and_read("SYMM-barrier-p1[acqrel-nopost-sys]")
    assert p0_spins and p1_read < min(p0_spins), order


def test_a_barrier_still_orders_the_read_after_the_spin() -> None:
    p0_spins, p1_read, order = _spins_and_read("SYMM-barrier-p1[p1-acqrel-sys]")
    assert p0_spins and p1_read > max(p0_spins), order


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
