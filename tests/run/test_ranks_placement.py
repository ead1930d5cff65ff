"""Placement of test ranks onto world ranks, and the shape of a round (pure Python, no processes)."""

from __future__ import annotations

import re
from dataclasses import replace

import pytest
from hypothesis import given
from hypothesis import strategies as st

from litmus.errors import LitmusError
from litmus.run.config import RunConfig
from litmus.run.ranks.env import MULTICAST_OFF, child_environment, torchrun_rank
from litmus.run.ranks.placement import Placement
from litmus.run.ranks.session import round_seed, round_shape
from litmus.spec import load_paths


def _mp_xgpu():
    return next(t for t in load_paths(["catalog/mp.yaml"]) if t.variant == "relacq-xgpu-sys")


def _four_ranks():
    test = _mp_xgpu()
    return replace(test, threads=tuple(replace(t, rank=3) if t.name == "P1" else t for t in test.threads))


def test_a_test_needing_more_ranks_than_the_world_is_skipped_with_the_counts() -> None:
    assert Placement.build(2, None).skip_reason(_four_ranks()) == "needs 4 ranks, world has 2"
    assert Placement.build(4, None).skip_reason(_four_ranks()) is None
    reason = Placement.build(4, [2, 3]).skip_reason(_four_ranks())
    assert reason is not None and reason.startswith("needs 4 ranks, world has 4")


def test_the_mapping_puts_test_rank_i_on_world_rank_ranks_i() -> None:
    p = Placement.build(4, [3, 1])
    assert [p.world_rank(t) for t in range(2)] == [3, 1]
    assert p.test_rank(3, 2) == 0 and p.test_rank(1, 2) == 1
    assert p.test_rank(0, 2) is None and p.test_rank(2, 2) is None
    assert p.skip_reason(_mp_xgpu()) is None


@pytest.mark.parametrize("ranks, words", [([0, 2], "world rank(s) [2]"), ([1, 1], "distinct world ranks")])
def test_bad_rank_lists_are_refused_with_the_fix(ranks: list[int], words: str) -> None:
    with pytest.raises(LitmusError, match=re.escape(words)):
        Placement.build(2, ranks)


@given(st.integers(0, 8), st.permutations(range(8)))
def test_test_rank_inverts_world_rank(n: int, perm: list[int]) -> None:
    p = Placement.build(8, perm[:n] if n else None)
    for t in range(n or 8):
        assert p.test_rank(p.world_rank(t), n or 8) == t


@given(st.integers(1, 1 << 20), st.sampled_from([None, 1, 4, 128, 1024]), st.sampled_from(["cpu", "cuda"]))
def test_round_shape_is_a_power_of_two_block_and_the_floor_of_the_instances(n: int, block: int | None, kind: str) -> None:
    b, p = round_shape(n, block, kind)
    cap = block if block is not None else (1 << 16 if kind == "cpu" else 128)
    assert b & (b - 1) == 0 and 1 <= b <= cap and p >= 1
    assert n - b < b * p <= n


def test_round_seed_differs_between_rounds_and_seeds() -> None:
    seeds = {round_seed(RunConfig(seed=s), r) for s in range(4) for r in range(50)}
    assert len(seeds) == 200


def test_children_get_multicast_off_and_the_interpreter_on_the_cpu_only() -> None:
    assert MULTICAST_OFF == {"NCCL_NVLS_ENABLE": "0", "TORCH_SYMM_MEM_DISABLE_MULTICAST": "1", "NVSHMEM_DISABLE_NVLS": "1"}
    assert child_environment("cpu")["TRITON_INTERPRET"] == "1"
    assert "TRITON_INTERPRET" not in child_environment("cuda")
    assert all(child_environment(k)[v] == MULTICAST_OFF[v] for k in ("cpu", "cuda") for v in MULTICAST_OFF)


def test_torchrun_is_detected_from_its_environment() -> None:
    assert torchrun_rank({}) is None
    got = torchrun_rank({"LOCAL_RANK": "1", "RANK": "3", "WORLD_SIZE": "4", "TORCHELASTIC_RUN_ID": "x"})
    assert got is not None and (got.rank, got.world_size, got.local_rank) == (3, 4, 1)


def test_ranks_on_the_cpu_refuse_a_spin_that_waits_for_another_cta_of_its_rank() -> None:
    """The interpreter runs a rank's CTAs one after another: such a spin could only time out, so
    the variant is skipped with the reason (and the backend to use) instead of timing out."""
    from litmus.run.ranks.backend import waits_within_a_rank
    from litmus.spec import load_paths

    tests = {t.id: t for t in load_paths(["catalog/iris_flag_reset.yaml", "catalog/mp.yaml"])}
    reason = waits_within_a_rank(tests["MP-iris-reset[relacq-gpu-xcta]"])
    assert reason is not None and "CTA 1 of its own rank 0" in reason and "--backend cpu" in reason
    assert waits_within_a_rank(tests["MP-iris-reset[relacq-sys]"]) is None  # producer and consumer on two ranks
    assert waits_within_a_rank(tests["MP[relacq-xcta-sys]"]) is None  # no spin
