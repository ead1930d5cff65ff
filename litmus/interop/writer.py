"""Write any :class:`litmus.ir.LitmusTest` as a PTX ``.litmus`` file (the format :mod:`.reader` reads).

What the format cannot hold, and how the writer handles it:

- ``variant``: written into the header as ``PTX NAME[variant]`` (read back into ``variant``).
- location homes: a description line ``homes: x@1 flag@0`` when some home is not 0.
- :class:`~litmus.ir.Spin`: expanded to a loop ``LCnn: <read> ; bne r, until, LCnn`` (a CAS
  spin reads with ``atom.<sem>.<scope>.cas r, x, until, reset``); the bound is dropped, which a
  ``note:`` description line says.  Reading back gives the loop, not a ``Spin``.
- dropped: ``title``, ``origin``, ``tags``, ``params``, ``expect``, ``source_file``,
  ``source_line``, all ``line`` numbers, the scope of weak accesses (always ``sys``), and
  ``"`` in the description (written as ``'``).  :func:`litmus.interop.normalize_for_roundtrip`
  clears exactly these.
"""

from __future__ import annotations

import re

from litmus.condition import format_prop, kind_text
from litmus.errors import LitmusError
from litmus.interop.instructions import IDENT
from litmus.interop.metadata import is_homes_line, join_description
from litmus.ir import (
    RMW_OPS,
    Barrier,
    Branch,
    Compute,
    Fence,
    Instr,
    Label,
    LitmusTest,
    Load,
    Operand,
    Reg,
    Rmw,
    Spin,
    Store,
    Thread,
)

_THREAD_NAME = re.compile(r"P\d+\Z")
_RESERVED = {"exists", "forall", "locations", "filter"}


def write_litmus(test: LitmusTest) -> str:
    """The PTX ``.litmus`` text of ``test`` (see the module docstring for what is not kept)."""
    _check_names(test)
    notes: list[str] = []
    columns = [_thread_lines(test, t, notes) for t in test.threads]
    homes = {loc.name: loc.home for loc in test.locations}
    description = join_description(
        test.description.replace('"', "'"), homes if any(homes.values()) else {}, notes
    )
    header = f"PTX {test.name}[{test.variant}]" if test.variant else f"PTX {test.name}"
    out = [header]
    if description:
        out.append(f'"{description}"')
    out.append("{")
    out += [f"{loc.name}={loc.init};" for loc in test.locations]
    out += [f"{t.name}:{reg}={value};" for t in test.threads for reg, value in t.reg_init]
    out.append("}")
    heads = [f"{t.name}@cta {t.cta},gpu {t.rank}" for t in test.threads]
    out += _table([heads] + _transpose(columns))
    out.append(kind_text(test.condition.kind))
    out.append(f"({format_prop(test.condition.prop)})")
    return "\n".join(out) + "\n"


def _transpose(columns: list[list[str]]) -> list[list[str]]:
    height = max((len(c) for c in columns), default=0)
    return [[c[i] if i < len(c) else "" for c in columns] for i in range(height)]


def _table(rows: list[list[str]]) -> list[str]:
    if not rows or not rows[0]:
        return []
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    return [" " + " | ".join(c.ljust(w) for c, w in zip(r, widths)) + " ;" for r in rows]


def _fail(test: LitmusTest, message: str) -> LitmusError:
    return LitmusError.at(test.source_file, test.source_line,
                          f"cannot write {test.id} as a PTX .litmus file: {message}")


def _check_names(test: LitmusTest) -> None:
    if not test.name or re.search(r"[\s\[\]{}\"]", test.name):
        raise _fail(test, f"the name {test.name!r} must be non-empty, without spaces, "
                          "brackets, braces or quotes")
    if re.search(r"[\s\[\]{}\"]", test.variant):
        raise _fail(test, f"the variant {test.variant!r} must have no spaces, brackets, "
                          "braces or quotes")
    if any(is_homes_line(line) for line in test.description.split("\n")):
        raise _fail(test, "the description has a line starting 'homes:', which is reserved")
    locs = {loc.name for loc in test.locations}
    for name in locs:
        if not IDENT.match(name) or name in _RESERVED:
            raise _fail(test, f"location name {name!r} is not a plain identifier")
    seen: set[str] = set()
    for t in test.threads:
        if not _THREAD_NAME.match(t.name) or t.name in seen:
            raise _fail(test, f"thread name {t.name!r} must be P<number> and unique")
        seen.add(t.name)
        for reg in _registers(t):
            if not IDENT.match(reg) or reg in locs:
                raise _fail(test, f"register {reg!r} of {t.name} must be an identifier that "
                                  "is not also a location name")
        for instr in t.instrs:
            if isinstance(instr, Label) and (not IDENT.match(instr.name) or instr.name in _RESERVED):
                raise _fail(test, f"label {instr.name!r} of {t.name} is not a plain identifier")


def _registers(t: Thread) -> set[str]:
    regs = {r for r, _ in t.reg_init}
    for instr in t.instrs:
        for attr in ("reg", "dst"):
            value = getattr(instr, attr, None)
            if isinstance(value, str):
                regs.add(value)
        for attr in ("value", "expected", "id", "count", "lhs", "rhs", "a", "b"):
            value = getattr(instr, attr, None)
            if isinstance(value, Reg):
                regs.add(value.name)
    return regs


def _op(v: Operand | None) -> str:
    if isinstance(v, Reg):
        return v.name
    if v is None:
        raise ValueError("missing operand")
    return str(v.value)


def _access(kind: str, sem: str, scope: str, volatile: bool) -> str:
    if volatile:
        return f"{kind}.volatile"
    if sem == "weak":
        return f"{kind}.weak"
    return f"{kind}.{sem}.{scope}"


def _thread_lines(test: LitmusTest, t: Thread, notes: list[str]) -> list[str]:
    """The cells of thread ``t``'s column, one per instruction, spins expanded."""
    labels = {i.name for i in t.instrs if isinstance(i, Label)}
    regs = _registers(t)
    cells: list[str] = []
    for instr in t.instrs:
        if isinstance(instr, Spin):
            label = _fresh("LC", labels)
            reg = instr.reg or _fresh("r", regs)
            labels.add(label)
            regs.add(reg)
            cells += _spin(test, instr, label, reg)
            notes.append(f"{t.name} spins on {instr.loc} until {instr.until}; the bound "
                         f"{instr.bound} was dropped (written as loop {label})")
        else:
            cells.append(_instr(test, t, instr))
    return cells


def _fresh(prefix: str, used: set[str]) -> str:
    n = 0
    while f"{prefix}{n:02d}" in used:
        n += 1
    return f"{prefix}{n:02d}"


def _spin(test: LitmusTest, s: Spin, label: str, reg: str) -> list[str]:
    r = s.read
    if r.kind == "cas":
        if r.reset is None:
            raise _fail(test, f"the CAS spin on {s.loc} has no reset value")
        read = f"atom.{r.sem}.{r.scope}.cas {reg}, {s.loc}, {s.until}, {r.reset}"
    else:
        read = f"{_access('ld', r.sem, r.scope, r.volatile)} {reg}, {s.loc}"
    return [f"{label}:", read, f"bne {reg}, {s.until}, {label}"]


def _instr(test: LitmusTest, t: Thread, i: Instr) -> str:
    if isinstance(i, Load):
        return f"{_access('ld', i.sem, i.scope, i.volatile)} {i.reg}, {i.loc}"
    if isinstance(i, Store):
        return f"{_access('st', i.sem, i.scope, i.volatile)} {i.loc}, {_op(i.value)}"
    if isinstance(i, Rmw):
        if i.op not in RMW_OPS:
            raise _fail(test, f"{t.name}: RMW operation {i.op!r} is not one of {', '.join(RMW_OPS)}")
        args = ([i.reg] if i.reg is not None else []) + [i.loc]
        args += [_op(i.expected)] if i.op == "cas" else []
        args.append(_op(i.value))
        kind = "atom" if i.reg is not None else "red"
        return f"{kind}.{i.sem}.{i.scope}.{i.op} " + ", ".join(args)
    if isinstance(i, Fence):
        return f"fence.{i.sem}.{i.scope}"
    if isinstance(i, Barrier):
        ops = _op(i.id) + (f", {_op(i.count)}" if i.count is not None else "")
        return f"bar.cta.{'arrive' if i.arrive else 'sync'} {ops}"
    if isinstance(i, Label):
        return f"{i.name}:"
    if isinstance(i, Branch):
        if i.cond is None:
            return f"goto {i.target}"
        return f"b{i.cond} {_op(i.lhs)}, {_op(i.rhs)}, {i.target}"
    if isinstance(i, Compute):
        if i.op == "mov":
            return f"ld {i.dst}, {_op(i.a)}"
        return f"{i.op} {i.dst}, {_op(i.a)}, {_op(i.b)}"
    raise _fail(test, f"{t.name}: cannot write instruction {i!r}")
