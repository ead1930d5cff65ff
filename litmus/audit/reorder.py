"""Reads of one address that the compiler put out of program order (PTX and SASS).

Under the PTX model a load that follows a strong read of the same location in program order may
not return an older value once that read observed a write (Causality: the observation, then
program order).  A compiler that places the later load's instruction above the strong read's
instruction of the *same address* lets it return the older value.  ptxas does this to Triton's
vector lanes: for the second element of ``x = tl.load(p, volatile=True); y = tl.load(p)`` it
issued ``LDG.E [R34]`` before ``LDG.E.STRONG.SYS [R34]`` (docs/compiler-bugs.md, finding 2).

Which instruction belongs to which op comes from the line table (:mod:`litmus.audit.op_code`);
two instructions read the same address when their address operands are the same text and, in
SASS, no instruction between them writes the address register.  Only straight-line stretches
count (no label or branch between the two), so loop-carried code is never compared.
"""

from __future__ import annotations

import re

from litmus.audit.asm import AsmInstr, parse_asm
from litmus.audit.op_code import line_ops
from litmus.audit.requirements import Requirement

_LABEL = re.compile(r"^\s*[.$\w]+:\s*(?://.*)?$")
_SASS_REG = re.compile(r"\bR(\d+)\b")


def _is_load(ins: AsmInstr, kind: str) -> bool:
    if kind == "ptx":
        return ins.mnemonic == "ld" and "global" in ins.quals or ins.mnemonic == "atom"
    return ins.mnemonic in ("LDG", "ATOMG", "ATOM")


def _address(ins: AsmInstr, kind: str) -> str | None:
    """The address operand of a load or atomic, spaces removed (``%rd159+0``, ``R34.64``)."""
    text = ins.text.split("//", 1)[0]
    found = re.findall(r"\[([^\[\]]+)\]", text)
    if not found:
        return None
    addr = re.sub(r"\s+", "", found[-1] if kind == "sass" else found[0])
    return addr if kind == "sass" else re.sub(r"\+0$", "", addr)


def _writes(ins: AsmInstr, regs: set[str]) -> bool:
    """Whether SASS ``ins`` writes one of ``regs`` (its first operand is the destination)."""
    operands = ins.text.split(None, 1)[1] if " " in ins.text else ""
    first = operands.split(",", 1)[0].strip()
    return bool(first) and any(re.fullmatch(rf"R{r}(?:\.\w+)?", first) for r in regs)


def _base_registers(addr: str) -> set[str]:
    """The 32-bit registers a SASS address reads (``R34.64``: R34 and R35)."""
    regs: set[str] = set()
    for m in _SASS_REG.finditer(addr):
        n = int(m.group(1))
        regs.add(str(n))
        if addr[m.end():].startswith(".64"):
            regs.add(str(n + 1))
    return regs


def must_read_after(earlier: Requirement, later: Requirement) -> bool:
    """Whether ``later``'s read of its location must not be placed above ``earlier``'s: both
    read the same location, ``earlier`` first in program order and strong (its value may be an
    observation of a write, after which ``later`` may not read an older one)."""
    reads = ("load", "rmw")
    return (earlier.thread == later.thread and earlier.instr_index < later.instr_index
            and earlier.op_kind in reads and later.op_kind in reads and earlier.strong
            and earlier.loc == later.loc and bool(earlier.loc))


def reordered_reads(text: str, kind: str, source_text: str,
                    reqs: list[Requirement]) -> list[tuple[Requirement, Requirement, AsmInstr, AsmInstr]]:
    """``(earlier, later, later's instruction, earlier's instruction)`` for each read of
    ``later`` that ``text`` (``ptx`` or ``sass`` with a line table) places above a read of the
    same address by ``earlier``, where :func:`must_read_after` says it must follow."""
    if kind not in ("ptx", "sass"):
        return []
    ops = line_ops(text, kind, source_text)
    instrs = parse_asm(text, kind)
    raw = text.splitlines()
    by_op: dict[str, list[int]] = {}
    for i, ins in enumerate(instrs):
        op = ops.get(ins.line)
        if op is not None and _is_load(ins, kind):
            by_op.setdefault(op, []).append(i)
    out = []
    for a in reqs:
        for b in reqs:
            if not must_read_after(a, b):
                continue
            for j in by_op.get(f"{b.thread}[{b.instr_index}]", []):
                addr = _address(instrs[j], kind)
                if addr is None:
                    continue
                for i in by_op.get(f"{a.thread}[{a.instr_index}]", []):
                    if i <= j or _address(instrs[i], kind) != addr:
                        continue
                    if _straight(instrs, raw, j, i, addr, kind):
                        out.append((a, b, instrs[j], instrs[i]))
                        break
    return out


def _straight(instrs: list[AsmInstr], raw: list[str], j: int, i: int, addr: str, kind: str) -> bool:
    """Whether instructions ``j`` < ``i`` lie in one straight-line stretch that keeps ``addr``:
    no label or branch between them, and (SASS) no write of its registers."""
    if any(_LABEL.match(line) for line in raw[instrs[j].line: instrs[i].line - 1]):
        return False
    regs = _base_registers(addr) if kind == "sass" else set()
    for ins in instrs[j + 1: i]:
        if ins.mnemonic in ("bra", "BRA", "ret", "EXIT", "RET"):
            return False
        if regs and _writes(ins, regs):
            return False
    return True
