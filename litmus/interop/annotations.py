"""Apply a ``.litmus`` file's ``litmus:`` annotations (:mod:`litmus.interop.metadata`) to the
test the reader built: volatile accesses, RMWs without a register, loops that are spins."""

from __future__ import annotations

import dataclasses

from litmus.errors import LitmusError
from litmus.interop.metadata import Annotation
from litmus.ir import (SPIN_LOOP_BRANCH, Branch, Compute, Const, Instr, Label, LitmusTest, Load, Reg, Rmw, Spin,
                       SpinRead, Store)


def apply_annotations(test: LitmusTest, annotations: list[Annotation], line: int | None) -> LitmusTest:
    """``test`` with ``annotations`` applied; a LitmusError at ``line`` (the header) names an
    annotation that does not fit the instruction it points at."""
    threads = []
    for t in test.threads:
        mine = [a for a in annotations if a.thread == t.name]
        instrs = list(t.instrs)
        for a in mine:
            if a.kind != "spin":
                k = _index(test, a, len(instrs), line)
                instrs[k] = _mark(test, a, instrs, line)
        for a in sorted((a for a in mine if a.kind == "spin"), key=lambda a: -a.index):
            k = _index(test, a, len(instrs) - 2, line)
            size = 4 if k + 2 < len(instrs) and isinstance(instrs[k + 2], Compute) else 3
            instrs[k:k + size] = [_fold(test, a, instrs[k:k + size], line)]
        threads.append(dataclasses.replace(t, instrs=tuple(instrs)))
    unknown = {a.thread for a in annotations} - {t.name for t in test.threads}
    if unknown:
        raise LitmusError.at(test.source_file, line, f"litmus: annotations name thread(s) "
                             f"{', '.join(sorted(unknown))}, which do not exist")
    return dataclasses.replace(test, threads=tuple(threads))


def _bad(test: LitmusTest, a: Annotation, line: int | None, why: str) -> LitmusError:
    return LitmusError.at(test.source_file, line, f"litmus: annotation {a.text()}: {why}")


def _index(test: LitmusTest, a: Annotation, size: int, line: int | None) -> int:
    if not 0 <= a.index < size:
        raise _bad(test, a, line, f"{a.thread} has no instruction {a.index}")
    return a.index


def _mark(test: LitmusTest, a: Annotation, instrs: list[Instr], line: int | None) -> Instr:
    i = instrs[a.index]
    if a.kind == "volatile":
        if not isinstance(i, (Load, Store)) or (i.sem, i.scope) != ("relaxed", "sys"):
            raise _bad(test, a, line, "volatile marks a relaxed.sys ld or st")
        return dataclasses.replace(i, volatile=True)
    if not isinstance(i, Rmw) or i.reg is None:
        raise _bad(test, a, line, "noreg marks an atom")
    return dataclasses.replace(i, reg=None)


_EXIT_OF_LOOP = {branch: cmp for cmp, branch in SPIN_LOOP_BRANCH.items()}


def _fold(test: LitmusTest, a: Annotation, loop: list[Instr], line: int | None) -> Spin:
    """``LCnn: ; read r, x ; bne r, until, LCnn`` (or ``beq``/``bge``/...; with a mask
    ``LCnn: ; read r, x ; and m, r, mask ; b.. m, until, LCnn``) -> the Spin the writer expanded."""
    head, read, *masking, branch = loop
    mask: int | None = None
    tested = Reg(getattr(read, "reg", None) or "")
    if masking:
        m = masking[0]
        if not (isinstance(m, Compute) and m.op == "and" and m.a == tested and isinstance(m.b, Const)):
            raise _bad(test, a, line, "a masked spin marks 'LCnn: ; <ld> r, x ; and m, r, MASK ; b.. m, until, LCnn'")
        mask, tested = m.b.value, Reg(m.dst)
    ok = (isinstance(head, Label) and isinstance(branch, Branch) and branch.target == head.name
          and branch.cond in _EXIT_OF_LOOP and isinstance(branch.rhs, Const)
          and isinstance(read, (Load, Rmw)) and branch.lhs == tested)
    if not ok:
        raise _bad(test, a, line, "a spin marks 'LCnn: ; <ld or atom.cas> r, x ; bne r, until, LCnn' "
                   "(or beq/blt/ble/bgt/bge for other exit comparisons)")
    until = branch.rhs.value  # type: ignore[union-attr]
    cmp = _EXIT_OF_LOOP[branch.cond]  # type: ignore[index]
    if isinstance(read, Load):
        spin_read = SpinRead("load", read.sem, read.scope, read.volatile)
    elif (read.op == "cas" and read.expected == Const(until) and isinstance(read.value, Const)
          and cmp == "==" and mask is None):
        spin_read = SpinRead("cas", read.sem, read.scope, reset=read.value.value)
    else:
        raise _bad(test, a, line, "a CAS spin reads with atom.<sem>.<scope>.cas r, x, until, reset")
    return Spin(read.loc, until, spin_read, a.bound or 0, a.reg, line=head.line, cmp=cmp, mask=mask)
