"""The catalog's declared expectations agree with the PTX model, variant by variant."""

from __future__ import annotations

import pytest

from litmus.model import check
from litmus.spec import default_catalog_dir, load_paths

TESTS = load_paths([default_catalog_dir()])


def test_catalog_size_meets_the_bar() -> None:
    assert len({(t.name, t.source_file) for t in TESTS}) >= 25
    assert len(TESTS) >= 80


@pytest.mark.parametrize("test", TESTS, ids=[t.id for t in TESTS])
def test_expectation_agrees_with_ptx_model(test) -> None:
    ptx = check(test, "ptx")
    assert test.expect is not None, f"{test.id} declares no expectation"
    assert ptx.target_reachable == (test.expect.outcome == "allowed"), (
        f"{test.source_file}:{test.source_line}: {test.id} declares {test.expect.outcome} "
        f"({test.expect.why}) but the PTX model finds the target outcome "
        f"{'reachable' if ptx.target_reachable else 'unreachable'}"
    )
    assert ptx.possible_hang == test.expect.may_hang, (
        f"{test.id}: may_hang is {test.expect.may_hang} but the model says possible_hang={ptx.possible_hang}"
    )
    sc = check(test, "sc")
    assert set(sc.allowed_states) <= set(ptx.allowed_states), f"{test.id}: an SC state is not PTX-allowed"
