"""Render a model verdict as herd-style text or as one JSON record."""

from __future__ import annotations

from typing import Any

from litmus.condition import format_prop, kind_text
from litmus.ir import LitmusTest
from litmus.model.facts import condition_keys


def condition_text(test: LitmusTest) -> str:
    """``exists (P1:r0 == 1 /\\ P1:r1 == 0)`` style text of the test's condition."""
    return f"{kind_text(test.condition.kind)} ({format_prop(test.condition.prop)})"


def expectation_agrees(test: LitmusTest, target_reachable: bool) -> bool | None:
    """Whether the declared expectation matches the model (None when nothing is declared)."""
    if test.expect is None:
        return None
    return target_reachable == (test.expect.outcome == "allowed")


def model_record(result: Any) -> dict[str, Any]:
    """One JSON-ready record of a :class:`litmus.model.ModelResult`."""
    t = result.test
    return {
        "test": t.name,
        "variant": t.variant,
        "id": t.id,
        "source": t.source_file,
        "model": result.model,
        "condition_kind": t.condition.kind,
        "condition": condition_text(t),
        "validated": result.validated,
        "target_reachable": result.target_reachable,
        "allowed_states": [dict(s) for s in result.allowed_states],
        "possible_hang": result.possible_hang,
        "expect": t.expect.outcome if t.expect else None,
        "agrees": expectation_agrees(t, result.target_reachable),
        "seconds": round(result.seconds, 6),
    }


def render_model_text(result: Any) -> str:
    """Herd-style text: Test line, States n, each state, Ok/No, Condition ... is validated."""
    t = result.test
    keys = condition_keys(t)
    shown = sorted({tuple((k, dict(s).get(k, 0)) for k in keys) if keys else s for s in result.allowed_states})
    verdict = "Allowed" if result.target_reachable else "Forbidden"
    lines = [f"Test {t.id} {verdict} (model {result.model})", f"States {len(shown)}"]
    for state in shown:
        lines.append(" ".join(f"{k}={v};" for k, v in state))
    lines.append("Ok" if result.validated else "No")
    lines.append(f"Condition {condition_text(t)} is {'validated' if result.validated else 'not validated'}")
    if result.possible_hang:
        lines.append("Possible hang: some execution has a spin that can never exit")
    agrees = expectation_agrees(t, result.target_reachable)
    if agrees is not None:
        lines.append(
            f"Expectation {t.expect.outcome}: {'agrees' if agrees else 'DISAGREES'} with the model"
        )
    lines.append(f"Time {t.id} {result.seconds:.4f}s")
    return "\n".join(lines) + "\n"
