"""Every catalog variant a lint finding can name exists, and the model calls it incorrect."""

from __future__ import annotations

import pytest

from litmus.errors import LitmusError
from litmus.lint.rules import CATALOG_VARIANTS
from litmus.lint.verdicts import catalog_verdict


@pytest.mark.parametrize("test_id", CATALOG_VARIANTS)
def test_each_rule_variant_is_incorrect_per_the_model(test_id: str) -> None:
    v = catalog_verdict(test_id)
    assert v.test_id == test_id and v.incorrect and v.why


def test_words_and_unknown_variants() -> None:
    assert catalog_verdict("MP-reset-race[relacq-plain-reset]").words == "may hang"
    assert catalog_verdict("MP[relacq-xgpu-gpu]").words == "bug outcome allowed"
    assert "bug outcome forbidden" == catalog_verdict("MP[relacq-xgpu-sys]").words
    with pytest.raises(LitmusError, match="no variant MP\\[nope\\]"):
        catalog_verdict("MP[nope]")
