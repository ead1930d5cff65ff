"""Every catalog variant a lint finding can name exists, and the model calls it incorrect (a
compiler finding's variant: correct, and declared miscompiled in the catalog)."""

from __future__ import annotations

import pytest

from litmus.errors import LitmusError
from litmus.lint.rules import CATALOG_VARIANTS, COMPILER_VARIANTS
from litmus.lint.verdicts import catalog_verdict


@pytest.mark.parametrize("test_id", CATALOG_VARIANTS)
def test_each_rule_variant_is_incorrect_per_the_model(test_id: str) -> None:
    v = catalog_verdict(test_id)
    assert v.test_id == test_id and v.incorrect and v.why


@pytest.mark.parametrize("test_id", COMPILER_VARIANTS)
def test_each_compiler_variant_is_correct_per_the_model_and_declared_miscompiled(test_id: str) -> None:
    from litmus.spec import default_catalog_dir, find_pattern

    v = catalog_verdict(test_id)
    assert v.test_id == test_id and not v.incorrect and v.why
    test = next(t for t in find_pattern(test_id.split("[")[0], (default_catalog_dir(),)) if t.id == test_id)
    assert test.expect is not None and test.expect.audit, f"{test_id}: the catalog declares no miscompile (audit_expect)"


def test_words_and_unknown_variants() -> None:
    assert catalog_verdict("MP-reset-race[relacq-plain-reset]").words == "may hang"
    assert catalog_verdict("MP[relacq-xgpu-gpu]").words == "bug outcome allowed"
    assert "bug outcome forbidden" == catalog_verdict("MP[relacq-xgpu-sys]").words
    with pytest.raises(LitmusError, match="no variant MP\\[nope\\]"):
        catalog_verdict("MP[nope]")


@pytest.mark.parametrize(("test_id", "words"), [
    ("MP[relacq-xgpu-gpu]", "-rf-> R.acq.gpu flag=1 (P1) is no synchronisation: the two are not morally strong "
                            "(the .gpu scope of W.rel.gpu flag=1 (P0) does not include P1"),
    ("MP-iris-volatile[volatile-as-written]", "R.rlx.sys flag=1 (P1) is no synchronisation: no acquire pattern"),
    # the flag's edge synchronises: the missing edge is the other thread's store to the payload
    ("MP-block[nobar-release-sys]", "R y=0 (P1) reads the initial value although W y=1 (P2) is coherence-later"),
])
def test_an_incorrect_variant_names_its_missing_edge_as_explain_does(test_id: str, words: str) -> None:
    v = catalog_verdict(test_id)
    assert v.missing and words in v.missing[0], v.missing
    assert not any(n.count("is weak (plain)") == 2 for n in v.missing)  # data edges are not the flag's


def test_every_rule_variant_with_an_allowed_bug_names_a_missing_edge() -> None:
    for test_id in CATALOG_VARIANTS:
        v = catalog_verdict(test_id)
        assert bool(v.missing) == v.bug_allowed, test_id
