"""Read compiled text (PTX, AMDGCN or SASS) into one :class:`AsmInstr` per instruction.

Only what the audit needs is kept: the 1-based line, the instruction text, its mnemonic and
its qualifier set.  PTX ``atom.global.release.sys.cas.b32`` has mnemonic ``atom`` and
qualifiers ``{global, release, sys, cas, b32}``; AMDGCN ``global_atomic_swap v1, v0, v1,
s[2:3] sc0 sc1`` has mnemonic ``global_atomic_swap`` and qualifiers ``{sc0, sc1, ...}`` (every
operand token); SASS ``ATOMG.E.CAS.STRONG.SYS PT, ...`` has mnemonic ``ATOMG`` and qualifiers
``{E, CAS, STRONG, SYS}``.  Qualifier order is not kept: ptxas accepts ``atom.release.sys`` and
``atom.sys.release`` alike, and Triton 3.9 emits both orders.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_PTX_PRED = re.compile(r"^@!?%\w+\s+")
_SASS_CTRL = re.compile(r"^[-\w]{2}:[-\w]:[-\w]:[-\w]:[0-9a-fA-F]\s+")  # triton.tools.disasm
_SASS_ADDR = re.compile(r"^/\*[0-9a-fA-F]+\*/\s*")  # raw cuobjdump / nvdisasm
_SASS_PRED = re.compile(r"^@!?U?P\w+\s+")
_SASS_TAIL = re.compile(r"/\*.*?\*/")


@dataclass(frozen=True)
class AsmInstr:
    """One instruction of compiled text."""

    line: int  # 1-based line number in the text
    text: str  # the instruction as written, stripped
    mnemonic: str
    quals: frozenset[str]


def _ptx_instrs(lineno: int, raw: str) -> list[AsmInstr]:
    code = raw.split("//", 1)[0]
    out = []
    for stmt in code.split(";"):
        stmt = stmt.strip().strip("{}").strip()
        stmt = _PTX_PRED.sub("", stmt)
        if not stmt or stmt.startswith((".", "$", "//")) or stmt.endswith(":"):
            continue
        parts = stmt.split(None, 1)[0].split(".")
        quals = frozenset(p for p in parts[1:] if p)
        out.append(AsmInstr(lineno, stmt, parts[0], quals))
    return out


def _operand_words(operands: str) -> frozenset[str]:
    return frozenset(w for w in re.split(r"[\s,&]+", operands.strip()) if w)


def _amdgcn_instrs(lineno: int, raw: str) -> list[AsmInstr]:
    code = raw.split(";", 1)[0].strip()
    if not code or code.startswith((".", ";")) or code.endswith(":"):
        return []
    mnemonic, _, operands = code.replace("\t", " ").partition(" ")
    if not re.fullmatch(r"[a-z][a-z0-9_]*", mnemonic):
        return []
    return [AsmInstr(lineno, code, mnemonic, _operand_words(operands))]


def _sass_instrs(lineno: int, raw: str) -> list[AsmInstr]:
    code = _SASS_ADDR.sub("", _SASS_CTRL.sub("", raw.strip()))
    code = _SASS_TAIL.sub("", code).strip().rstrip(";").strip()
    code = _SASS_PRED.sub("", code)
    if not code or code.endswith(":") or code.startswith(("Function", "code for", ".")):
        return []
    opcode = code.split(None, 1)[0]
    if not re.fullmatch(r"[A-Z][A-Z0-9_.]*", opcode):
        return []
    parts = opcode.split(".")
    return [AsmInstr(lineno, code, parts[0], frozenset(p for p in parts[1:] if p))]


_READERS = {"ptx": _ptx_instrs, "amdgcn": _amdgcn_instrs, "sass": _sass_instrs}


def parse_asm(text: str, kind: str) -> list[AsmInstr]:
    """The instructions of compiled ``text`` of ``kind`` (``ptx``, ``amdgcn`` or ``sass``), in order.

    Directives (which covers DWARF ``.b8`` data and AMDGPU metadata), labels and comments are
    skipped, so the text of several kernels may be concatenated.
    """
    read = _READERS[kind]
    out: list[AsmInstr] = []
    for lineno, raw in enumerate(text.splitlines(), start=1):
        out.extend(read(lineno, raw))
    return out


_LABEL = re.compile(r"^\s*([.$\w]+):")
_BRANCH_MNEMONICS = {"bra": False, "BRA": False, "s_branch": True}  # mnemonic -> unconditional


def jumps(text: str, instrs: list[AsmInstr]) -> dict[int, tuple[int, bool]]:
    """Branches of compiled text: instruction index -> (index of the target, unconditional).

    Compilers lay basic blocks out in any order (an acquire's ``buffer_inv`` may sit in a block
    placed above the load that jumps to it), so the audit follows these edges when it looks
    for what comes *after* an instruction.  PTX and SASS branches are taken as conditional
    (their predicate is not kept), which only adds paths.
    """
    label_line: dict[str, int] = {}
    for n, raw in enumerate(text.splitlines(), 1):
        m = _LABEL.match(raw)
        if m:
            label_line[m.group(1)] = n
    if not label_line:
        return {}
    lines = [ins.line for ins in instrs]
    out: dict[int, tuple[int, bool]] = {}
    for i, ins in enumerate(instrs):
        uncond = _BRANCH_MNEMONICS.get(ins.mnemonic)
        if uncond is None and not ins.mnemonic.startswith("s_cbranch"):
            continue
        for word in re.split(r"[\s,`()]+", ins.text):
            if word in label_line:
                target = next((k for k, ln in enumerate(lines) if ln > label_line[word]), None)
                if target is not None:
                    out[i] = (target, bool(uncond))
                break
    return out
