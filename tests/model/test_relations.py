"""The bitmask relation algebra agrees with plain sets of pairs."""

from __future__ import annotations

from hypothesis import given, settings, strategies as st

from litmus.model.relations import (
    is_acyclic,
    pairs,
    r_diff,
    r_id,
    r_inter,
    r_inv,
    r_opt,
    r_plus,
    r_prod,
    r_seq,
    r_union,
    rel_from_pairs,
)

N = 6
pair_sets = st.sets(st.tuples(st.integers(0, N - 1), st.integers(0, N - 1)), max_size=14)


def closure(s: set) -> set:
    out = set(s)
    while True:
        new = out | {(a, d) for a, b in out for c, d in out if b == c}
        if new == out:
            return out
        out = new


@settings(max_examples=150, deadline=None)
@given(pair_sets, pair_sets)
def test_operations_match_set_semantics(a, b):
    ra, rb = rel_from_pairs(N, list(a)), rel_from_pairs(N, list(b))
    assert set(pairs(r_union(ra, rb))) == a | b
    assert set(pairs(r_inter(ra, rb))) == a & b
    assert set(pairs(r_diff(ra, rb))) == a - b
    assert set(pairs(r_seq(ra, rb))) == {(x, z) for x, y in a for y2, z in b if y == y2}
    assert set(pairs(r_inv(ra))) == {(y, x) for x, y in a}
    assert set(pairs(r_plus(ra))) == closure(a)
    assert set(pairs(r_opt(ra))) == a | {(i, i) for i in range(N)}
    assert is_acyclic(ra) == all(x != y for x, y in closure(a))


def test_identity_and_product_on_sets():
    assert set(pairs(r_id(0b1010, 4))) == {(1, 1), (3, 3)}
    assert set(pairs(r_prod(0b0011, 0b1100, 4))) == {(0, 2), (0, 3), (1, 2), (1, 3)}
