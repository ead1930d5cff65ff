"""ptx75 (the default model) and ptx agree on every catalog variant: same allowed states, same
hang verdict (the catalog has no proxies, where the two models differ by design)."""

from __future__ import annotations

from pathlib import Path

import pytest

import litmus
from litmus.model import check
from litmus.spec import load_paths

CATALOG = Path(litmus.__file__).resolve().parent.parent / "catalog"
VARIANTS = load_paths([CATALOG]) if CATALOG.is_dir() else []


@pytest.mark.parametrize("test", VARIANTS, ids=[t.id for t in VARIANTS])
def test_ptx75_agrees_with_ptx_on_the_catalog(test) -> None:
    a, b = check(test, "ptx"), check(test, "ptx75")
    assert set(a.allowed_states) == set(b.allowed_states)
    assert a.possible_hang == b.possible_hang
