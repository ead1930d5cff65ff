"""litmus tune: seeded draws, the best trial wins, rotations cover variants, and the stress
file round trip (one environment or a rotation)."""

from __future__ import annotations

import random
import time
from dataclasses import fields, replace
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from litmus.errors import LitmusError
from litmus.ir import LitmusTest
from litmus.run.backend import Round
from litmus.run.config import PRESETS, RunConfig, Stress, load_stress, load_stresses, validate_stress
from litmus.run.config import stress_json, write_stress
from litmus.tune import SPACE, Trial, draw, neighbour, pick_rotation, stress_key, tune
from tests.test_session import SB


class StrideLover:
    """Shows the SB target outcome once per round for each unit of stride: stride 32 wins."""

    name = "scripted"

    def describe(self) -> dict[str, Any]:
        return {"backend": self.name, "default_instances": 100}

    def skip_reason(self, test: LitmusTest) -> str | None:
        return None

    def run_round(self, test: LitmusTest, config: RunConfig, round_index: int) -> Round:
        weak = config.stress.stride
        state = {"P0:r0": 0, "P1:r1": 0, "x": 1, "y": 1}
        return Round(rows=[(state, False, weak), ({**state, "P0:r0": 1}, False, 100 - weak)],
                     instances=100, seconds=0.0)

    def close(self) -> None:
        pass


def test_the_trial_with_most_target_outcomes_per_second_ranks_first(tmp_path: Path) -> None:
    seen: list[int] = []
    ranked = tune([SB], StrideLover(), trials=12, seconds=0.05, seed=5, on_trial=lambda t: seen.append(t.index))
    assert sorted(seen) == list(range(13)) and ranked[-1].rate <= ranked[0].rate
    best_stride = max(t.stress.stride for t in ranked)
    assert ranked[0].stress.stride == best_stride
    assert ranked[0].per_instance == best_stride / 100


class KernelCostly(StrideLover):
    """StrideLover whose kernels take stride**2 ms: more target outcomes per round with a longer
    stride, fewer per kernel-second."""

    def run_round(self, test: LitmusTest, config: RunConfig, round_index: int) -> Round:
        r = super().run_round(test, config, round_index)
        return replace(r, extra={"kernel_seconds": config.stress.stride ** 2 / 1000})


def test_the_kernel_objective_ranks_by_target_outcomes_per_kernel_second() -> None:
    by_wall = tune([SB], KernelCostly(), trials=12, seconds=0.05, seed=5)
    by_kernel = tune([SB], KernelCostly(), trials=12, seconds=0.05, seed=5, objective="kernel")
    assert by_wall[0].stress.stride == max(t.stress.stride for t in by_wall)
    assert by_kernel[0].stress.stride == min(t.stress.stride for t in by_kernel) < by_wall[0].stress.stride
    assert by_kernel[0].kernel_rate == by_kernel[0].seen / by_kernel[0].kernel_seconds > by_kernel[-1].kernel_rate


def test_an_unknown_objective_is_refused_before_anything_runs() -> None:
    with pytest.raises(LitmusError, match="objective 'gpu'.*wall, kernel"):
        tune([SB], KernelCostly(), trials=1, seconds=0.05, objective="gpu")


class CompilesOnce(StrideLover):
    """StrideLover whose first round of each environment takes 0.2 s, as a kernel's compile does."""

    def __init__(self) -> None:
        self.compiled: set[Stress] = set()

    def run_round(self, test: LitmusTest, config: RunConfig, round_index: int) -> Round:
        if config.stress not in self.compiled:
            self.compiled.add(config.stress)
            time.sleep(0.2)
        return super().run_round(test, config, round_index)


def test_a_trial_is_not_scored_by_its_compile_time() -> None:
    # Every trial here shows the same target per round; a trial charged with its compile would
    # rank below the others, the baseline first among them.
    flat = replace(PRESETS["default"], name="flat")
    ranked = tune([SB], CompilesOnce(), trials=2, seconds=0.05, seed=5, baseline=flat)
    assert max(t.seconds for t in ranked) < 0.18


def test_the_same_seed_draws_the_same_environments() -> None:
    assert draw(random.Random(3)) == draw(random.Random(3))
    assert len({draw(random.Random(k)) for k in range(10)}) > 1  # and other seeds draw others


@settings(max_examples=50, deadline=None)
@given(st.integers(0, 2**32))
def test_every_draw_is_a_valid_environment_that_survives_the_file_round_trip(seed: int) -> None:
    import tempfile

    stress = draw(random.Random(seed))
    validate_stress(stress)
    known = {f.name for f in fields(Stress)}
    assert all(getattr(stress, k) in v for k, v in SPACE.items() if k in known)
    with tempfile.TemporaryDirectory() as d:
        path = Path(d) / "best.json"
        [loaded] = write_stress(path, stress)
        assert stress_json(loaded) == stress_json(stress) and loaded.name == "best"
        assert load_stress(str(path)) == loaded
        rotation = write_stress(path, [stress, PRESETS["grid"], stress])
        assert [stress_json(s) for s in rotation] == [stress_json(stress), stress_json(PRESETS["grid"]),
                                                      stress_json(stress)]
        assert [s.name for s in rotation] == ["best", "best#2", "best#3"] and load_stresses(str(path)) == rotation


def _trial(index: int, seen_by: dict[str, int], seconds: float = 1.0) -> Trial:
    return Trial(index, replace(PRESETS["default"], name=f"trial{index}"), sum(seen_by.values()), 1000, seconds,
                 seen_by)


def test_a_rotation_starts_with_the_best_and_adds_only_environments_that_witness_new_variants() -> None:
    fast = _trial(0, {"A": 900, "B": 0, "C": 0})
    also_a = _trial(1, {"A": 800, "B": 0, "C": 0})
    gets_b = _trial(2, {"A": 1, "B": 1, "C": 0})
    gets_bc = _trial(3, {"A": 0, "B": 2, "C": 1})
    ranked = sorted([fast, also_a, gets_b, gets_bc], key=lambda t: t.rate, reverse=True)
    assert [t.index for t in pick_rotation(ranked, 1)] == [0]
    assert [t.index for t in pick_rotation(ranked, 4)] == [0, 3]  # 3 covers B and C; then nothing new
    assert pick_rotation([], 3) == []


def test_tune_records_what_each_variant_showed_per_trial() -> None:
    ranked = tune([SB], StrideLover(), trials=2, seconds=0.002, seed=1)
    assert all(set(t.seen_by) == {SB.id} and t.seen_by[SB.id] == t.seen for t in ranked)


def test_the_default_preset_is_the_baseline_trial() -> None:
    ranked = tune([SB], StrideLover(), trials=1, seconds=0.001, seed=0)
    assert any(t.index == 0 and t.stress == PRESETS["default"] for t in ranked)


def test_only_mutants_are_tunable_and_none_is_an_error() -> None:
    import pytest

    from litmus.errors import LitmusError
    from litmus.spec import find_pattern
    from litmus.tune import tunable

    tests = find_pattern("MP[relaxed-xgpu-sys]") + find_pattern("MP[relacq-xgpu-sys]")
    assert [t.variant for t in tunable(tests)] == ["relaxed-xgpu-sys"]
    with pytest.raises(LitmusError, match="no variant to tune"):
        tunable(find_pattern("MP[relacq-xgpu-sys]"))


class HomeTwoLover(StrideLover):
    """A cuda-named backend that shows the target only with role 2 at home and roles at one lane."""

    name = "cuda"

    def run_round(self, test: LitmusTest, config: RunConfig, round_index: int) -> Round:
        weak = 50 if (config.stress.role_map == "2" and not config.stress.shuffle) else 0
        state = {"P1:r0": 1, "P2:r1": 1, "P2:r2": 0, "x": 1, "y": 1}  # WRC's target
        return Round(rows=[(state, False, weak), ({**state, "P2:r2": 1}, False, 100 - weak)],
                     instances=100, seconds=0.0)


def test_on_cuda_the_first_trials_put_each_role_at_home_and_find_the_right_one() -> None:
    from litmus.spec import find_pattern
    from litmus.tune import layout_sweep

    [wrc] = [t for t in find_pattern("WRC") if t.variant == "relaxed-sys"]
    sweep = layout_sweep([wrc])
    assert [(s.role_map, s.shuffle) for s in sweep] == [("0", False), ("1", False), ("2", False)]
    ranked = tune([wrc], HomeTwoLover(), trials=4, seconds=0.002, seed=1)
    assert ranked[0].stress.name == "home2" and ranked[0].seen > 0
    assert sorted(t.stress.name for t in ranked) == ["default", "home0", "home1", "home2", "trial0"]
    # the sweep never takes more trials than asked for, and other backends draw at random
    assert sorted(t.stress.name for t in tune([wrc], HomeTwoLover(), trials=1, seconds=0.002)) == ["default", "home0"]
    assert not any(t.stress.name.startswith("home") for t in tune([wrc], StrideLover(), trials=3, seconds=0.002))


def _moved(a: Stress, b: Stress) -> set[str]:
    return {k for k in SPACE if hasattr(a, k) and getattr(a, k) != getattr(b, k)}


@settings(max_examples=50, deadline=None)
@given(st.integers(0, 2**32), st.integers(0, 2**32))
def test_a_neighbour_moves_exactly_one_parameter_within_the_space(seed: int, move: int) -> None:
    start = draw(random.Random(seed))
    near = neighbour(random.Random(move), start, "near")
    validate_stress(near)
    assert len(_moved(near, start)) == 1 and near.name == "near"
    assert all(getattr(near, k) in v for k, v in SPACE.items() if hasattr(near, k))


def test_the_second_half_of_the_search_moves_one_parameter_of_the_best_so_far() -> None:
    order: list[Trial] = []
    ranked = tune([SB], StrideLover(), trials=12, seconds=0.002, seed=5, on_trial=order.append)
    local = [t for t in order if t.stress.name.startswith("local")]
    assert len(local) == 6 and [t.index for t in local] == list(range(7, 13))
    for t in local:
        before = max(order[:t.index], key=lambda u: (u.rate, u.per_instance))
        assert len(_moved(t.stress, before.stress)) == 1, (t.stress, before.stress)
    assert len({stress_key(t.stress) for t in order}) == len(order)  # no environment twice
    assert ranked[0].rate >= max(t.rate for t in order)
