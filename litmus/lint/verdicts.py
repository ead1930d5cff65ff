"""The model's verdict on the catalog variant a finding matches (never a hard-coded one)."""

from __future__ import annotations

import functools
from dataclasses import dataclass

from litmus.errors import LitmusError
from litmus.ir import LitmusTest


@dataclass(frozen=True)
class Verdict:
    """What the PTX model says about one catalog variant.

    ``bug_allowed``: the variant's target (the bug outcome: a stale read, a pad left set) is
    allowed; ``may_hang``: some execution spins forever.  ``why``: the catalog's explanation.
    ``missing``: for an allowed bug outcome, what ``litmus explain`` says no axiom has to rule it
    out (the synchronisation that is absent), in its words."""

    test_id: str
    bug_allowed: bool
    may_hang: bool
    why: str
    source_file: str
    missing: tuple[str, ...] = ()

    @property
    def incorrect(self) -> bool:
        """Whether the model lets the shape go wrong (a bad outcome or a hang)."""
        return self.bug_allowed or self.may_hang

    @property
    def words(self) -> str:
        """``allowed`` / ``may hang`` / ``forbidden`` for the bug outcome, as the text report says it."""
        parts = (["bug outcome allowed"] if self.bug_allowed else []) + (["may hang"] if self.may_hang else [])
        return ", ".join(parts) or "bug outcome forbidden"


@functools.lru_cache(maxsize=None)
def catalog_verdict(test_id: str) -> Verdict:
    """The PTX model's verdict on ``NAME[variant]`` of the default catalog."""
    from litmus.model import check, ptx_model_for
    from litmus.spec import find_pattern
    from litmus.spec.loader import default_catalog_dir

    name, _, variant = test_id.partition("[")
    variant = variant.rstrip("]")
    tests = [t for t in find_pattern(name, (default_catalog_dir(),)) if t.variant == variant]
    if not tests:
        raise LitmusError(f"litmus lint: the catalog has no variant {test_id} (the lint rule table names it)")
    test = tests[0]
    model = ptx_model_for(test)
    result = check(test, model)
    why = test.expect.why if test.expect is not None else ""
    missing = _missing(test, model) if result.target_reachable else ()
    return Verdict(test.id, result.target_reachable, result.possible_hang, why, test.source_file, missing)


def _missing(test: LitmusTest, model: str) -> tuple[str, ...]:
    """``litmus explain``'s notes on one execution that reaches the variant's target that name
    the missing edge (:func:`litmus.explain.absent.missing_edge`)."""
    from litmus.explain import explain
    from litmus.explain.absent import missing_edge

    try:
        notes = explain(test, model=model).notes
    except LitmusError:  # past the explanation's step budget: the verdict stands without the words
        return ()
    return tuple(missing_edge(notes))
