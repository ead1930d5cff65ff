"""Clear what a PTX ``.litmus`` round trip cannot keep, so that tests can be compared."""

from __future__ import annotations

import dataclasses

from litmus.condition import format_prop
from litmus.ir import Condition, Instr, LitmusTest, Load, Store


def _instr(i: Instr) -> Instr:
    changes: dict[str, object] = {"line": None}
    if isinstance(i, (Load, Store)) and i.sem == "weak" and not i.volatile:
        changes["scope"] = "sys"
    return dataclasses.replace(i, **changes)  # type: ignore[arg-type]


def normalize_for_roundtrip(test: LitmusTest) -> LitmusTest:
    """``test`` with the fields the ``.litmus`` format cannot express reset.

    Resets: every ``line`` to None, ``source_file``/``source_line``, ``title``, ``origin``,
    ``tags``, ``params``, ``expect``; the scope of weak loads/stores to ``sys``; ``"`` in the
    description to ``'``; the condition's ``text`` to ``format_prop(prop)``.  For a test without
    :class:`~litmus.ir.Spin`, ``normalize_for_roundtrip(parse_litmus(write_litmus(t)))`` equals
    ``normalize_for_roundtrip(t)``.
    """
    return dataclasses.replace(
        test,
        locations=tuple(dataclasses.replace(loc, line=None) for loc in test.locations),
        threads=tuple(
            dataclasses.replace(t, line=None, instrs=tuple(_instr(i) for i in t.instrs))
            for t in test.threads
        ),
        condition=Condition(test.condition.kind, test.condition.prop,
                            format_prop(test.condition.prop)),
        description=test.description.replace('"', "'"),
        title="",
        origin="",
        source_file="",
        source_line=None,
        tags=(),
        params=(),
        expect=None,
    )


__all__ = ["normalize_for_roundtrip"]
