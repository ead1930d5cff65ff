"""count_rows: every backend's outcome counting, checked against a plain Python count."""

from __future__ import annotations

from collections import Counter

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from litmus.codegen import CodegenOptions, build_layout
from litmus.run.count import count_rows
from litmus.run.cpu import role_per_rank
from litmus.run.stress import heap_plan
from tests.run import irs


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 6), st.integers(1, 3), st.integers(0, 2**31 - 1), st.sampled_from([1, 2, 3]),
       st.sampled_from([2, 3, 70000]))
def test_count_rows_matches_a_plain_count(log_n, stride, seed, n_outs, spread):
    import torch

    test = irs.mp_release_acquire()
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
