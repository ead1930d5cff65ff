"""Clear what a PTX ``.litmus`` round trip cannot keep, so that tests can be compared."""

from __future__ import annotations

import dataclasses

from litmus.condition import format_prop
from litmus.interop.metadata import header_safe
from litmus.ir import Condition, Instr, LitmusTest, Load, Spin, Store


def _instr(i: Instr) -> Instr:
    changes: dict[str, object] = {"line": None}
    if isinstance(i, (Load, Store)) and i.sem == "weak" and not i.volatile:
        changes["scope"] = "sys"
    if isinstance(i, Spin) and i.read.kind == "load" and i.read.sem == "weak":
        changes["read"] = dataclasses.replace(i.read, scope="sys")
    return dataclasses.replace(i, **changes)  # type: ignore[arg-type]


def normalize_for_roundtrip(test: LitmusTest) -> LitmusTest:
    """``test`` with the fields the ``.litmus`` format cannot express reset.

    Resets: every ``line`` to None, ``source_file``/``source_line``, ``title``, ``origin``,
    ``tags``, ``params``, ``expect``; the scope of weak loads/stores and weak spin reads to
    ``sys``; ``"`` and braces in the description to ``'`` and parentheses; the condition's
    ``text`` to ``format_prop(prop)``.  For every test the writer accepts (spins included),
    ``normalize_for_roundtrip(parse_litmus(write_litmus(t)))`` equals ``normalize_for_roundtrip(t)``.
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
        description=header_safe(test.description),
        title="",
        origin="",
        source_file="",
        source_line=None,
        tags=(),
        params=(),
        expect=None,
    )


__all__ = ["normalize_for_roundtrip"]
