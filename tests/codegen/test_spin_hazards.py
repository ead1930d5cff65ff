"""Which tests parallel mode's phased order would starve (they run in grid mode instead)."""

from __future__ import annotations

import pytest

from litmus.codegen.parallel import spin_hazards
from litmus.spec import find_pattern


def _one(test_id: str):
    [test] = find_pattern(test_id)
    return test


@pytest.mark.parametrize("test_id", ["MP[relacq-xgpu-sys]", "SYMM-barrier[acqrel-sys]",
                                     "SYMM-barrier-p1[p1-acqrel-sys]", "MP-iris[relacq-sys-put]", "WRC[relaxed-sys]"])
def test_a_spin_whose_value_is_written_earlier_in_the_order_is_safe(test_id: str) -> None:
    assert spin_hazards(_one(test_id)) == []


def test_a_reset_wait_that_only_a_later_spin_of_the_partner_satisfies_starves() -> None:
    # P0 raises the flag, then waits for P1 to reset it; P1's reset sits in a later phase
    [hazard] = spin_hazards(_one("MP-iris-reset[relacq-sys]"))
    assert hazard.startswith("P0[2] waits for flag == 0, which only P1[0], P1[2] write(s)")


def test_the_presets_launch_parallel_by_default_and_keep_grid_by_name() -> None:
    from litmus.run.config import PRESETS

    assert PRESETS["default"].launch == "parallel" and PRESETS["grid"].launch == "grid"
    assert PRESETS["parallel-heavy"].mem_stress and PRESETS["parallel-heavy"].launch == "parallel"
