"""Which compiled instructions each op of a litmus test became, read from the line table.

Generated kernels mark each op with a ``# --- P1[0] (line N)`` comment followed by the op's own
lines; the compiler's ``.loc`` directives (PTX and AMDGCN alike) name the kernel-file line each
instruction comes from (``inlined_at`` for code inlined from triton's library).  Together they
give, per op, the *ordering-relevant* instructions it compiled to: global memory accesses and
atomics with their qualifiers, fences, CTA barriers, cache write-backs and invalidates.
Register operands, addresses and vector widths are dropped, so two kernels whose harness code
differs can be compared op by op.

Two back-to-back CTA barriers (``bar.sync``, nothing between) order exactly what one does, and
the compiler may merge them (triton 3.6 does, in parallel kernels where one role's barrier
follows another's): a barrier op that compiled to nothing next to a barrier-only op is excused.

Two things the line table does not pin down are left out of the comparison: AMDGCN's
``s_waitcnt`` (the compiler places and merges waits by what is outstanding, so where a wait
lands depends on unrelated code; the rule-based audit checks the waits an op needs), and
instructions the compiler left without a line (``.loc 1 0 0``): a signature that one kernel
has for an op and the other has only without a line is not counted as a difference.
"""

from __future__ import annotations

import os
import re
from collections import defaultdict

from litmus.audit.asm import parse_asm

_MARKER = re.compile(r"^\s*# --- (\w+\[\d+\])")
_END = re.compile(r"^\s*(# outputs of |# --- |# role |# --- iteration loop)")
_HARNESS_CODE = re.compile(r"^\s*[^#\s].*\s# harness\b")
_LOC = re.compile(r"^\s*\.loc\s+(\d+)\s+(\d+)\s+\d+(.*)$")
_INLINED = re.compile(r"inlined_at\s+(\d+)\s+(\d+)\s+\d+")
_FILE = re.compile(r'^\s*\.file\s+(\d+)\s+"([^"]*)"(?:\s+"([^"]*)")?')
_SASS_LINE = re.compile(r'(?://##\s*File|inlined at)\s+"([^"]*)",\s*line\s+(\d+)')  # nvdisasm -g

_PTX_MEMORY = {"ld", "st", "atom", "red", "fence", "membar", "bar", "barrier", "cp"}
_PTX_DROP = {"v2", "v4", "v8"}
_AMD_KEEP = {"sc0", "sc1", "nt", "glc", "slc", "dlc"}
_AMD_PREFIXES = ("global_", "flat_", "buffer_", "s_barrier")
_SASS_MEMORY = {"LDG", "STG", "LD", "ST", "ATOM", "ATOMG", "RED", "REDG", "MEMBAR", "FENCE", "CCTL", "BAR",
                "ERRBAR"}


def op_lines(source_text: str) -> dict[int, str]:
    """Kernel-file line (1-based) -> the op (``"P1[0]"``) whose code it is.

    A comment line holds no code, yet the line table sometimes names the comment that follows
    a statement (triton attributes an atomic's last instructions to the next line): a comment
    line right after an op's code, such as the next op's marker, is counted to that op.  A code
    line inside an op that ends in ``# harness`` (the quiescence check in a spin's loop,
    ``litmus.codegen.ops.HARNESS_TAG``) is the harness's, not the op's: it is counted to none.
    """
    out: dict[int, str] = {}
    current: str | None = None
    for n, line in enumerate(source_text.splitlines(), start=1):
        m = _MARKER.match(line)
        if m:
            if current is not None:
                out[n] = current
            current = m.group(1)
            continue
        if current is not None and (_END.match(line) or not line.strip()):
            out[n] = current
            current = None
        if current is not None and _HARNESS_CODE.match(line):
            continue
        if current is not None:
            out[n] = current
    return out


def _kernel_files(text: str) -> set[str]:
    """The ``.file`` ids of generated litmus kernel modules in compiled ``text``."""
    ids = set()
    for line in text.splitlines():
        m = _FILE.match(line)
        if m and "litmus_" in (m.group(3) or m.group(2)):
            ids.add(m.group(1))
    return ids or {"1"}


UNATTRIBUTED = "(no line)"
"""The key :func:`op_code` files instructions under when the line table gives them no line."""


def signature(kind: str, mnemonic: str, quals: frozenset[str], text: str) -> str | None:
    """The ordering-relevant form of one instruction, or None when it has no ordering meaning."""
    if kind == "sass":
        return ".".join([mnemonic, *sorted(quals)]) if mnemonic in _SASS_MEMORY else None
    if kind == "ptx":
        if mnemonic not in _PTX_MEMORY:
            return None
        if mnemonic in ("ld", "st", "atom", "red") and quals & {"shared", "local", "param", "const"}:
            return None  # global or generic accesses only: the others are no test events
        return ".".join([mnemonic, *sorted(quals - _PTX_DROP)])
    if not mnemonic.startswith(_AMD_PREFIXES):
        return None
    base = re.sub(r"dwordx\d", "dword", mnemonic)
    return " ".join([base, *sorted(quals & _AMD_KEEP)])


def line_ops(text: str, kind: str, source_text: str) -> dict[int, str]:
    """Compiled-text line (1-based) -> the op (``"P1[0]"``) of the kernel source
    ``source_text`` whose code it is, by the line table; lines the table gives no line are
    :data:`UNATTRIBUTED`; lines of harness or other code are absent."""
    lines = op_lines(source_text)
    files = _kernel_files(text)
    at: dict[int, int | None] = {}  # compiled-text line -> kernel-file line in force there (0: none)
    current: int | None = None
    for n, raw in enumerate(text.splitlines(), start=1):
        if kind == "sass":
            found = _SASS_LINE.findall(raw)
            if found:  # the line itself, or where it was inlined, in a generated kernel file
                ours = [int(line) for path, line in found if "litmus_" in os.path.basename(path)]
                current = ours[0] if ours else None
            at[n] = current
            continue
        m = _LOC.match(raw)
        if m:
            fid, line, rest = m.group(1), int(m.group(2)), m.group(3)
            inl = _INLINED.findall(rest)
            if inl:
                fid, line = inl[-1][0], int(inl[-1][1])
            current = line if fid in files else None
        at[n] = current
    out: dict[int, str] = {}
    for n, line in at.items():
        op = UNATTRIBUTED if line == 0 else (lines.get(line) if line is not None else None)
        if op is not None:
            out[n] = op
    return out


def op_code(text: str, kind: str, source_text: str) -> dict[str, frozenset[str]]:
    """For each op of the kernel source ``source_text``, the set of ordering-relevant
    instruction signatures it compiled to in ``text`` (``kind``: ``ptx``, ``amdgcn``, or
    ``sass`` with nvdisasm's line table); instructions with no line are filed under
    :data:`UNATTRIBUTED`."""
    ops = line_ops(text, kind, source_text)
    out: dict[str, set[str]] = defaultdict(set)
    for ins in parse_asm(text, kind):
        op = ops.get(ins.line)
        if op is None:
            continue
        sig = signature(kind, ins.mnemonic, ins.quals, ins.text)
        if sig is not None:
            out[op].add(sig)
    return {op: frozenset(s) for op, s in out.items()}


def has_line_table(text: str, kind: str) -> bool:
    """Whether compiled ``text`` says which kernel line each instruction came from (PTX and
    AMDGCN always do; SASS only in nvdisasm's ``-g`` form)."""
    return kind != "sass" or _SASS_LINE.search(text) is not None


def op_order(source_text: str) -> list[str]:
    """The ops of a kernel source in the order its code runs them (marker order)."""
    return [m.group(1) for line in source_text.splitlines() if (m := _MARKER.match(line))]


_CTA_BARRIERS = frozenset({"bar.sync", "barrier.sync", "barrier.aligned.sync", "s_barrier"})


def _merged_barrier(op: str, missing: frozenset[str], run: dict[str, frozenset[str]], order: list[str]) -> bool:
    """``op`` lost only its CTA barrier in the run kernel, compiled to nothing else there, and an
    op next to it in ``order`` is a barrier-only op: the compiler merged the two barriers."""
    if not missing or not missing <= _CTA_BARRIERS or run.get(op) or op not in order:
        return False
    k = order.index(op)
    return any(0 <= j < len(order) and run.get(order[j]) and run[order[j]] <= _CTA_BARRIERS
               for j in (k - 1, k + 1))


_STRONG_QUALS = frozenset({"volatile", "relaxed", "acquire", "release", "sc", "acq_rel", "mmio"})


def _plain_accesses(sigs: frozenset[str]) -> bool:
    """Whether PTX signatures ``sigs`` are all plain (weak) loads and stores."""
    return all(s.split(".")[0] in ("ld", "st") and not set(s.split(".")[1:]) & _STRONG_QUALS for s in sigs)


def compare_op_code(audited: dict[str, frozenset[str]], run: dict[str, frozenset[str]], kernel: str,
                    run_order: list[str] | None = None, mergeable: frozenset[str] = frozenset()) -> list[str]:
    """One line per op whose ordering-relevant instructions differ between the audited kernel
    and run kernel ``kernel`` (a signature the other kernel has without a line is excused; so is
    a CTA barrier merged into the next one, given the run kernel's op order ``run_order``, and a
    plain access of ``mergeable`` that one kernel kept and the other merged away: it needs no
    instruction of its own)."""
    diffs = []
    a_loose, r_loose = audited.get(UNATTRIBUTED, frozenset()), run.get(UNATTRIBUTED, frozenset())
    for op in sorted((set(audited) | set(run)) - {UNATTRIBUTED}):
        a, r = audited.get(op, frozenset()), run.get(op, frozenset())
        only_in_a, only_in_r = (a - r) - r_loose, (r - a) - a_loose
        if not only_in_r and run_order is not None and _merged_barrier(op, only_in_a, run, run_order):
            continue
        if op in mergeable and (not a or not r) and _plain_accesses(a | r):
            continue
        if only_in_a or only_in_r:
            only_a = ", ".join(sorted(only_in_a)) or "-"
            only_r = ", ".join(sorted(only_in_r)) or "-"
            diffs.append(f"{op}: only in the audited kernel: {only_a}; only in the {kernel} kernel: {only_r}")
    return diffs
