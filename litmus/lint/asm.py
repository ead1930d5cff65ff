"""What a ``tl.inline_asm_elementwise`` PTX string does to memory: atomics, loads, stores,
fences, CTA barriers, and whether it loops (a spin written in assembly, as symm-mem-recipes'
``send_signal`` / ``wait_signal`` are)."""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

_SEMS = ("relaxed", "acquire", "release", "acq_rel", "sc")
_SCOPES = {"cta": "cta", "gpu": "gpu", "sys": "sys", "cluster": "gpu"}


@dataclass(frozen=True)
class AsmAccess:
    """One memory instruction of an inline-asm string.

    ``kind``: ``load`` / ``store`` / ``atomic`` / ``fence`` / ``barrier``; ``op`` the atomic's
    operation (``cas``, ``exch``, ``add``...); ``expected``/``value``: CAS or store constants;
    ``operand``: the ``$n`` its address is (``[$2]``), outputs counted, or None.
    ``expected_operand``/``value_operand``: the ``$n`` a CAS's expected value or a write's value
    is when the string takes it from an operand (``st.global.release.sys.b32 [$1], $2``), so the
    caller can read the constant it is given.  ``until``/``until_operand``: for a load, the value
    a ``setp.eq``/``setp.ne`` of the string compares the loaded register with (a loop's exit)."""

    kind: str
    op: str = ""
    sem: str = "relaxed"
    scope: str = "gpu"
    volatile: bool = False
    expected: int | None = None
    value: int | None = None
    text: str = ""
    operand: int | None = None
    expected_operand: int | None = None
    value_operand: int | None = None
    until: int | None = None
    until_operand: int | None = None


@dataclass(frozen=True)
class AsmSummary:
    """The memory instructions of one asm string and whether it branches backwards (a loop)."""

    accesses: tuple[AsmAccess, ...]
    loops: bool


def _int(text: str) -> int | None:
    text = text.strip()
    try:
        return int(text, 0)
    except ValueError:
        return None


def _ref(text: str) -> int | None:
    """``n`` for an operand reference ``$n``, else None."""
    m = re.fullmatch(r"\$(\d+)", text.strip())
    return int(m.group(1)) if m else None


def _qualifiers(mnemonic: str) -> tuple[str, str, bool]:
    parts = mnemonic.split(".")
    sem = next((p for p in parts if p in _SEMS), "relaxed")
    scope = next((_SCOPES[p] for p in parts if p in _SCOPES), "")
    return sem, scope, "volatile" in parts


def summarize(asm: str) -> AsmSummary:
    """The accesses of a PTX inline-asm string (``\\0A`` escapes allowed)."""
    text = asm.replace("\\0A", "\n").replace("\\09", "\t").replace("\\22", '"')
    accesses: list[AsmAccess] = []
    labels: list[str] = []
    loaded: dict[str, int] = {}  # the register an ld writes -> its access
    loops = False
    for raw in re.split(r"[;\n]", text):
        stmt = raw.strip()
        m = re.match(r"^([A-Za-z_$][\w$]*):\s*(.*)$", stmt)
        if m:
            labels.append(m.group(1))
            stmt = m.group(2).strip()
        stmt = re.sub(r"^@!?%?\w+\s+", "", stmt)  # predicate guard
        if not stmt:
            continue
        mnemonic, _, args = stmt.partition(" ")
        argv = [a.strip() for a in args.split(",")]
        addr = re.search(r"\[\s*\$(\d+)", args)
        operand = int(addr.group(1)) if addr else None
        if mnemonic.startswith("bra"):
            if argv and argv[0] in labels:
                loops = True
            continue
        if mnemonic.startswith(("atom.", "red.")):
            sem, scope, _ = _qualifiers(mnemonic)
            op = next((p for p in mnemonic.split(".") if p in ("cas", "exch", "add", "inc", "dec", "and", "or",
                                                                  "xor", "min", "max")), "rmw")
            expected = value = None
            expected_at = value_at = None
            if op == "cas" and len(argv) >= 4:
                expected, value = _int(argv[-2]), _int(argv[-1])
                expected_at, value_at = _ref(argv[-2]), _ref(argv[-1])
            elif argv:
                value, value_at = _int(argv[-1]), _ref(argv[-1])
            accesses.append(AsmAccess("atomic", op, sem, scope or "gpu", False, expected, value, stmt, operand,
                                      expected_at, value_at))
        elif mnemonic.startswith("ld.") and ".shared" not in mnemonic and ".param" not in mnemonic:
            sem, scope, vol = _qualifiers(mnemonic)
            if vol:
                sem, scope = "relaxed", "sys"
            strong = vol or any(p in mnemonic.split(".") for p in _SEMS)
            accesses.append(AsmAccess("load", "", sem if strong else "weak", scope or "sys", vol, text=stmt,
                                      operand=operand))
            if argv and argv[0] and not argv[0].startswith("["):
                loaded[argv[0]] = len(accesses) - 1
        elif mnemonic.startswith("st.") and ".shared" not in mnemonic:
            sem, scope, vol = _qualifiers(mnemonic)
            if vol:
                sem, scope = "relaxed", "sys"
            strong = vol or any(p in mnemonic.split(".") for p in _SEMS)
            accesses.append(AsmAccess("store", "", sem if strong else "weak", scope or "sys", vol,
                                      value=_int(argv[-1]) if argv else None, text=stmt, operand=operand,
                                      value_operand=_ref(argv[-1]) if argv else None))
        elif mnemonic.startswith("setp.") and mnemonic.split(".")[1] in ("eq", "ne") and len(argv) >= 3:
            # a loaded register compared with a value: the value a loop on that load exits at
            for reg, other in ((argv[1], argv[2]), (argv[2], argv[1])):
                if reg in loaded:
                    i = loaded[reg]
                    accesses[i] = replace(accesses[i], until=_int(other), until_operand=_ref(other))
                    break
        elif mnemonic.startswith("fence."):
            sem, scope, _ = _qualifiers(mnemonic)
            accesses.append(AsmAccess("fence", "", sem if sem != "relaxed" else "sc", scope or "sys", text=stmt))
        elif mnemonic.startswith("membar."):
            level = mnemonic.split(".")[1]
            accesses.append(AsmAccess("fence", "", "sc", {"cta": "cta", "gl": "gpu", "sys": "sys"}.get(level, "gpu"),
                                      text=stmt))
        elif mnemonic.startswith(("bar.sync", "barrier.sync", "bar.red", "barrier.cta.sync")):
            accesses.append(AsmAccess("barrier", text=stmt))
    return AsmSummary(tuple(accesses), loops)
