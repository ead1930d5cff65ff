"""The expectations of a generated pattern, computed by the PTX model on every variant and
written as product rules (docs/format.md, "Variants as a product")."""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from typing import Any

from litmus.diy.pattern import Axes, option_words
from litmus.errors import LitmusError
from litmus.model import check
from litmus.spec import load_text

MODEL = "ptx"
"""The model whose verdicts the generated expectations state (PTX 6.0; no proxies here)."""


@dataclass(frozen=True)
class Verdicts:
    """The model's outcome for each variant: ``(place, sems, scope) -> allowed | forbidden``."""

    outcome: dict[tuple[str, str, str], str]

    def count(self, outcome: str) -> int:
        return sum(v == outcome for v in self.outcome.values())


def verdicts(yaml_text: str, axes: Axes, file: str) -> Verdicts:
    """Load the (expectation-free) pattern text and ask the model about every variant."""
    tests = load_text(yaml_text, file)
    combos = list(itertools.product(axes.places, axes.sems, axes.scopes))
    if [t.variant for t in tests] != ["-".join(c) for c in combos]:  # pragma: no cover - a bug here
        raise LitmusError(f"{file}: generated variants {[t.variant for t in tests]} are not the product {combos}")
    return Verdicts({c: "allowed" if check(t, MODEL).target_reachable else "forbidden" for c, t in zip(combos, tests)})


def _rule(when: dict[str, Any], outcome: str, why: str) -> dict[str, Any]:
    return {"when": when, "outcome": outcome, "why": why}


def rules(found: Verdicts, axes: Axes, cycle: str) -> list[dict[str, Any]]:
    """Product rules that give every variant its verdict: the rarer outcome by (sems) or
    (place, sems[, scopes]) groups, then one rule without ``when`` for the rest."""
    common = "forbidden" if found.count("forbidden") > found.count("allowed") else "allowed"
    rare = "allowed" if common == "forbidden" else "forbidden"
    closes = {"allowed": "some allowed execution closes", "forbidden": "no allowed execution closes"}
    out: list[dict[str, Any]] = []
    for sems in axes.sems:
        if all(found.outcome[(p, sems, sc)] == rare for p in axes.places for sc in axes.scopes):
            out.append(_rule({"sems": sems}, rare, f"PTX model (ptx): {closes[rare]} the cycle {cycle} "
                                                   f"with {option_words('sems', sems)}, at every scope and placement"))
            continue
        for place in axes.places:
            scopes = [sc for sc in axes.scopes if found.outcome[(place, sems, sc)] == rare]
            if not scopes:
                continue
            when: dict[str, Any] = {"place": place, "sems": sems}
            at = "at every scope"
            if len(scopes) < len(axes.scopes):
                when["scope"] = scopes if len(scopes) > 1 else scopes[0]
                at = f"at {' or '.join(scopes)} scope"
            out.append(_rule(when, rare, f"PTX model (ptx): {closes[rare]} the cycle {cycle} with "
                                         f"{option_words('sems', sems)} {at}, {option_words('place', place)}"))
    rest = ("every other variant" if out else "every variant") if common == "allowed" else (
        "any other variant" if out else "any variant")
    out.append({"outcome": common, "why": f"PTX model (ptx): {closes[common]} the cycle {cycle} in {rest}"})
    return out


def agree(yaml_text: str, file: str, found: Verdicts, axes: Axes) -> list[str]:
    """Variants of the finished text whose declared expectation is not the verdict ``found``."""
    combos = itertools.product(axes.places, axes.sems, axes.scopes)
    return [f"{t.id}: declared {t.expect.outcome if t.expect else None}, model says {found.outcome[c]}"
            for c, t in zip(combos, load_text(yaml_text, file))
            if t.expect is None or t.expect.outcome != found.outcome[c]]
