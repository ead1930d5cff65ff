"""The state an explanation is about: the target of the test's condition, or a ``--state``
text such as ``P1:r0=1 /\\ x=0`` (a register may be written without its thread when only one
thread has it: ``r0=1``)."""

from __future__ import annotations

from typing import Mapping

from litmus.condition import ConditionSyntaxError, format_prop, parse_prop
from litmus.errors import LitmusError
from litmus.ir import And, Cmp, Const, LitmusTest, LocRef, Not, Or, Prop, RegRef, Term, TrueProp
from litmus.observables import observables


def target_prop(test: LitmusTest) -> Prop:
    """The condition's target outcome as a prop: the prop itself for ``exists`` and ``~exists``,
    its negation (a counter-example) for ``forall``."""
    prop = test.condition.prop
    return Not(prop) if test.condition.kind == "forall" else prop


def parse_state(test: LitmusTest, text: str) -> Prop:
    """``text`` as a prop over ``test``'s state keys; a bare register name becomes ``Pn:reg``
    when exactly one thread has that register.  Bad text or an unknown name raises a
    :class:`LitmusError` naming the test's file and the fix."""
    where = (test.source_file, test.source_line)
    try:
        prop = parse_prop(text)
    except ConditionSyntaxError as e:
        raise LitmusError.at(*where, f"--state {text!r}: {e} (column {e.column}); write it like a "
                             "condition, e.g. 'P1:r0=1 /\\ x=0'") from None
    keys = observables(test)
    regs: dict[str, list[str]] = {}
    for key in keys:
        if ":" in key:
            thread, reg = key.split(":", 1)
            regs.setdefault(reg, []).append(thread)
    locations = {k for k in keys if ":" not in k}

    def term(t: Term) -> Term:
        if isinstance(t, LocRef) and t.loc not in locations:
            owners = regs.get(t.loc, [])
            if len(owners) == 1:
                return RegRef(owners[0], t.loc)
            if len(owners) > 1:
                raise LitmusError.at(*where, f"--state {text!r}: register {t.loc} is in several threads "
                                     f"({', '.join(owners)}); write it with its thread, e.g. {owners[0]}:{t.loc}")
            raise LitmusError.at(*where, f"--state {text!r}: {t.loc} is neither a location nor a register of "
                                 f"{test.id}; its keys are {', '.join(keys)}")
        if isinstance(t, RegRef) and f"{t.thread}:{t.reg}" not in keys:
            raise LitmusError.at(*where, f"--state {text!r}: {t.thread}:{t.reg} is not a register of {test.id}; "
                                 f"its keys are {', '.join(keys)}")
        return t

    def walk(p: Prop) -> Prop:
        if isinstance(p, Cmp):
            return Cmp(term(p.lhs), p.op, term(p.rhs))
        if isinstance(p, Not):
            return Not(walk(p.part))
        if isinstance(p, And):
            return And(tuple(walk(x) for x in p.parts))
        if isinstance(p, Or):
            return Or(tuple(walk(x) for x in p.parts))
        return p

    return walk(prop)


def prop_of(state: Mapping[str, int]) -> Prop:
    """The prop that holds in exactly the states agreeing with ``state`` on its keys
    (``{"P1:r0": 1, "x": 0}`` -> ``P1:r0 == 1 /\\ x == 0``)."""
    parts = []
    for key, value in state.items():
        thread, _, reg = key.partition(":")
        ref: Term = RegRef(thread, reg) if reg else LocRef(key)
        parts.append(Cmp(ref, "==", Const(value)))
    if not parts:
        return TrueProp()
    return And(tuple(parts)) if len(parts) > 1 else parts[0]


def state_text(prop: Prop) -> str:
    """The state as condition text."""
    return format_prop(prop)
