"""Access widths in compiled code: how many bits an instruction accesses, and rules narrowed to a
width, so that a 64-bit op must be one 64-bit instruction and a byte op a byte instruction.

A single-copy-atomic access cut into narrower instructions (a 64-bit store emitted as two 32-bit
stores) may tear; an access made wider than asked (a 16-bit CAS done as a 32-bit CAS loop on the
containing word) touches bytes the op does not.  Either is a finding (docs/audit.md, "Widths").
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from litmus.audit.asm import AsmInstr
from litmus.audit.rules import Pattern, Rule, Shape

_PTX_TYPE = re.compile(r"[bsuf](8|16|32|64|128)")
_AMD_WIDTH = (  # mnemonic suffix -> bits, first match wins
    (re.compile(r"_[us]?byte(_d16(_hi)?)?$"), 8),
    (re.compile(r"_[us]?short(_d16(_hi)?)?$"), 16),
    (re.compile(r"_dwordx4$|_b128$"), 128),
    (re.compile(r"_dwordx3$|_b96$"), 96),
    (re.compile(r"_dwordx2$|_x2$|_b64$"), 64),
    (re.compile(r"_dword$|_b32$"), 32),
    (re.compile(r"_atomic_\w+$"), 32),  # an atomic without _x2 is a dword atomic
)
_SASS_WIDTH = {"U8": 8, "S8": 8, "U16": 16, "S16": 16, "64": 64, "128": 128}


def access_bits(kind: str, ins: AsmInstr) -> int | None:
    """The bits one element of ``ins`` accesses (a ``.v2.b32`` access: 32), or None when ``ins``
    names no width (a fence, a branch)."""
    if kind == "ptx":
        sizes = [int(m.group(1)) for q in ins.quals if (m := _PTX_TYPE.fullmatch(q))]
        return sizes[0] if sizes else None
    if kind == "amdgcn":
        for pattern, bits in _AMD_WIDTH:
            if pattern.search(ins.mnemonic):
                return bits
        return None
    sizes = [b for q, b in _SASS_WIDTH.items() if q in ins.quals]
    return sizes[0] if sizes else 32


@dataclass(frozen=True)
class SizedPattern(Pattern):
    """A :class:`Pattern` that also needs the instruction to access ``bits`` bits (on ``kind``)."""

    bits: int = 32
    kind: str = "ptx"

    def matches(self, mnemonic: str, quals: frozenset[str]) -> bool:
        """Whether an instruction with this mnemonic and qualifier set matches, at this width."""
        if not super().matches(mnemonic, quals):
            return False
        return access_bits(self.kind, AsmInstr(0, mnemonic, mnemonic, quals)) == self.bits

    def render(self) -> str:
        """The pattern's text with its width, e.g. ``st .relaxed|release .sys (64-bit)``."""
        return f"{super().render()} ({self.bits}-bit)"


def sized_rule(rule: Rule, kind: str, bits: int) -> Rule:
    """``rule`` with every anchor (the access itself) narrowed to ``bits``-bit instructions."""
    shapes = []
    for shape in rule.shapes:
        steps = tuple(
            tuple(SizedPattern(p.mnemonic, p.has, p.lacks, bits, kind) for p in step) if k == shape.anchor else step
            for k, step in enumerate(shape.steps))
        shapes.append(Shape(steps, shape.anchor))
    return Rule(rule.key, tuple(shapes), rule.family, rule.note)


def width_problem(kind: str, ins: AsmInstr, bits: int) -> str:
    """Why the access ``ins`` does not carry a ``bits``-bit op (its width differs)."""
    got = access_bits(kind, ins)
    if got is not None and got < bits:
        return (f"a {got}-bit access where the op is {bits} bits: split into narrower accesses, the op "
                "is not single-copy atomic (it may tear)")
    return f"a {got}-bit access where the op is {bits} bits: wider than the op, it accesses bytes the op does not"
