"""litmus.run.buffers: permutations, heaps, histogram counting, rank-output merging, and
count_rows (every backend's outcome counting) checked against a plain Python count."""

from __future__ import annotations

from collections import Counter

import numpy as np
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from litmus.codegen import CodegenOptions, build_layout
from litmus.ir import LitmusTest, Location
from litmus.run.buffers import (
    BINCOUNT_LIMIT,
    count_columns,
    count_rows,
    heap_plan,
    histogram,
    make_heaps,
    merge_rank_outputs,
    permutations,
)
from litmus.run.cpu import role_per_rank
from tests.codegen import irs
from tests.run import irs as run_irs


@given(n=st.integers(1, 300), seed=st.integers(0, 1000))
def test_permutations_are_bijections(n: int, seed: int) -> None:
    lay = build_layout(irs.every_op(), CodegenOptions(block=1))
    for k, c in permutations(lay, n, seed):
        assert sorted((j * k + c) % n for j in range(n)) == list(range(n))


@settings(max_examples=40, deadline=None)
@given(rows=st.lists(st.tuples(st.integers(-3, 3), st.integers(-(2**31), 2**31 - 1), st.integers(0, 2)),
                     min_size=1, max_size=40),
       interleaved=st.booleans())
def test_histogram_counts_every_row(rows, interleaved: bool) -> None:
    # one register column + status, and the locations x, flag of MP (registers P1:r0, P1:r1)
    lay = build_layout(irs.mp_plain(), CodegenOptions(block=1, addressing="interleaved" if interleaved else "loc_major"))
    n = len(rows)
    out = torch.zeros((n, lay.n_cols), dtype=torch.int32)
    heaps = make_heaps(lay, n)
    for i, (a, b, c) in enumerate(rows):
        out[i, 0], out[i, 1] = a, b
        heaps[0][lay.word(lay.location("x").slot, i, n)] = c
        heaps[0][lay.word(lay.location("flag").slot, i, n)] = a
    expect = Counter((a, b, c, a) for a, b, c in rows)
    assert histogram(out, heaps, lay) == dict(expect)


@settings(max_examples=60, deadline=None)
@given(data=st.data(), n_cols=st.integers(1, 4), n=st.integers(1, 200))
def test_count_columns_counts_distinct_rows(data, n_cols: int, n: int) -> None:
    # small ranges take the bincount path, wide ones the key-unique path, huge ones whole-row unique
    span = data.draw(st.sampled_from([0, 1, 3, 5000, 2**31 - 2]))
    values = st.integers(-(span // 2) - 1, span - span // 2 - 1)
    rows = data.draw(st.lists(st.tuples(*[values] * n_cols), min_size=n, max_size=n))
    cols = [torch.tensor([r[j] for r in rows], dtype=torch.int32) for j in range(n_cols)]
    assert count_columns(cols) == dict(Counter(rows))


def test_count_columns_takes_every_path() -> None:
    small = [torch.tensor([0, 1, 1, -1], dtype=torch.int32)]
    assert count_columns(small) == {(0,): 1, (1,): 2, (-1,): 1}
    wide = [torch.tensor([0, BINCOUNT_LIMIT * 4, 7], dtype=torch.int64)]  # key space over the bincount limit
    assert count_columns(wide) == {(0,): 1, (BINCOUNT_LIMIT * 4,): 1, (7,): 1}
    huge = [torch.tensor([-(2**31), 2**31 - 1], dtype=torch.int64)] * 3  # over 62 bits of key
    assert count_columns(huge) == {(-(2**31),) * 3: 1, (2**31 - 1,) * 3: 1}
    assert count_columns([torch.full((5,), 3, dtype=torch.int32)] * 2) == {(3, 3): 5}
    assert count_columns([torch.zeros(0, dtype=torch.int32)]) == {}


def test_histogram_falls_back_to_row_unique_when_keys_would_overflow() -> None:
    lay = build_layout(irs.every_op(), CodegenOptions(block=1))
    n = 200
    out = torch.arange(n * lay.n_cols, dtype=torch.int32).reshape(n, lay.n_cols)  # all distinct
    heaps = make_heaps(lay, n)
    h = histogram(out, heaps, lay)
    assert len(h) == n and sum(h.values()) == n


def test_merge_rank_outputs_ors_disjoint_columns() -> None:
    a = torch.tensor([[5, 0, 1]], dtype=torch.int32)
    b = torch.tensor([[0, -7, 2]], dtype=torch.int32)
    assert merge_rank_outputs([a, b]).tolist() == [[5, -7, 3]]


def test_heaps_start_at_initial_values() -> None:
    t = irs.mp_plain()
    t = LitmusTest(t.name, t.variant, (Location("x", 7, 0), Location("flag", 3, 1)), t.threads, t.condition)
    lay = build_layout(t, CodegenOptions(block=1))
    heaps = make_heaps(lay, 5)
    assert len(heaps) == 2
    assert heaps[0][lay.word(0, 4, 5)] == 7 and heaps[1][lay.word(1, 0, 5)] == 3
    assert int(heaps[0].sum()) == 35 and int(heaps[1].sum()) == 15


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 6), st.integers(1, 3), st.integers(0, 2**31 - 1), st.sampled_from([1, 2, 3]),
       st.sampled_from([2, 3, 70000]))
def test_count_rows_matches_a_plain_count(log_n, stride, seed, n_outs, spread):
    test = run_irs.mp_release_acquire()
    n = 1 << log_n
    layout = build_layout(role_per_rank(test), CodegenOptions(backend="interpreter", mode="rank", block=n))
    plan = heap_plan(layout, n, stride)
    rng = np.random.default_rng(seed)
    heaps = [torch.from_numpy(rng.integers(-2, spread, plan.words).astype(np.int32)) for _ in range(layout.n_ranks)]
    outs = [torch.from_numpy(rng.integers(0, spread, (n, layout.n_cols)).astype(np.int32)) for _ in range(n_outs)]

    rows = count_rows(outs, heaps, layout, (plan.loc_stride, plan.inst_stride))

    merged = outs[0].numpy().copy()
    for o in outs[1:]:
        merged |= o.numpy()
    want: Counter = Counter()
    for i in range(n):
        regs = [int(merged[i, j]) for j in range(layout.n_cols - 1)]
        mem = [int(heaps[loc.home][loc.slot * plan.loc_stride + i * plan.inst_stride]) for loc in layout.locations]
        want[(tuple(regs + mem), bool(merged[i, layout.status_column]))] += 1
    got = {(tuple(s[k] for k in layout.observables), late): c for s, late, c in rows}
    assert got == dict(want)
    assert sum(c for _, _, c in rows) == n
