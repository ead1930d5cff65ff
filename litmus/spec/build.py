"""A shape-checked, placeholder-free pattern document -> IR locations, threads and condition.

Checks meaning: known locations, registers written before they are read, spin reads that say
their scope, and a condition over known threads, registers and locations.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from litmus import ir
from litmus.condition import parse_condition_or_error, parse_kind, terms
from litmus.errors import LitmusError, Problem
from litmus.spec import documents as m
from litmus.spec.shape import suggest
from litmus.spec.yamlpos import LDict, LList, Pos


@dataclass(frozen=True)
class Program:
    """The concrete program of one variant."""

    locations: tuple[ir.Location, ...]
    threads: tuple[ir.Thread, ...]
    condition: ir.Condition


class _Problems:
    def __init__(self, file: str, variant: str):
        self.file = file
        self.variant = variant
        self.items: list[Problem] = []

    def add(self, pos: Pos, message: str) -> None:
        if self.variant:
            message = f"in variant '{self.variant}': {message}"
        self.items.append(Problem(self.file, pos.line, pos.column, message))


def build_program(doc: m.PatternDoc, raw: LDict, file: str, variant: str = "") -> tuple[Program | None, list[Problem]]:
    """IR of ``doc`` (validated from ``raw``), or the problems of meaning found in it."""
    out = _Problems(file, variant)
    locations = _locations(doc, raw)
    loc_names = [l.name for l in locations]
    threads = tuple(_thread(name, spec, raw["threads"], loc_names, out) for name, spec in doc.threads.items())
    condition = _condition(doc, raw, threads, loc_names, out)
    if out.items or condition is None:
        return None, out.items
    return Program(locations, threads, condition), []


def _locations(doc: m.PatternDoc, raw: LDict) -> tuple[ir.Location, ...]:
    out = []
    for name, spec in doc.locations.items():
        line = raw["locations"].key_pos[name].line
        if isinstance(spec, m.LocationFull):
            out.append(ir.Location(name, int(spec.init), int(spec.home), line))
        else:
            out.append(ir.Location(name, int(spec), 0, line))  # type: ignore[arg-type]
    return tuple(out)


def _thread(name: str, spec: m.ThreadSpec, raw_threads: LDict, locs: list[str], out: _Problems) -> ir.Thread:
    raw = raw_threads[name]
    raw_do: LList = raw["do"]
    written: set[str] = set(spec.regs)
    instrs: list[ir.Instr] = []
    for item, raw_item, pos in zip(spec.do, raw_do, raw_do.item_pos):
        op = next(iter(raw_item))
        args = getattr(item, _attr(op))
        raw_args = raw_item[op] if isinstance(raw_item[op], LDict) else LDict(pos)
        instr = _instr(op, args, raw_args, pos, name, locs, written, out)
        if instr is not None:
            instrs.append(instr)
    return ir.Thread(
        name,
        int(spec.at.rank),
        int(spec.at.cta),
        tuple(instrs),
        tuple((r, v) for r, v in spec.regs.items()),
        raw_threads.key_pos[name].line,
    )


def _attr(op: str) -> str:
    return "bar_sync" if op == "bar.sync" else op


def _field_pos(raw_args: LDict, key: str, default: Pos) -> Pos:
    return raw_args.val_pos.get(key, default)


def _instr(
    op: str, a: Any, raw: LDict, pos: Pos, thread: str, locs: list[str], written: set[str], out: _Problems
) -> ir.Instr | None:
    line = pos.line
    ok = True
    if hasattr(a, "loc") and a.loc not in locs:
        out.add(
            _field_pos(raw, "loc", pos),
            f"unknown location '{a.loc}' in {op} of {thread}"
            + suggest(a.loc, locs, f"known locations: {', '.join(locs)} (declare it under locations:)"),
        )
        ok = False

    def operand(key: str) -> ir.Operand:
        nonlocal ok
        v = getattr(a, key)
        if isinstance(v, int):
            return ir.Const(v)
        if v not in written:
            out.add(
                _field_pos(raw, key, pos),
                f"register '{v}' is read by {op} in {thread} before {thread} writes it; "
                f"load into it first, or give it an initial value under regs:",
            )
            ok = False
        return ir.Reg(v)

    def wrote(reg: str | None) -> None:
        if reg is not None:
            written.add(reg)

    instr: ir.Instr | None = None
    if op in ("load", "volatile_load", "atomic_load"):
        if op == "load":
            instr = ir.Load(a.reg, a.loc, "weak", "sys", False, line)
        elif op == "volatile_load":
            instr = ir.Load(a.reg, a.loc, "relaxed", "sys", True, line)
        else:
            instr = ir.Load(a.reg, a.loc, a.sem, a.scope, False, line)
        wrote(a.reg)
    elif op in ("store", "volatile_store", "atomic_store"):
        value = operand("value")
        if op == "store":
            instr = ir.Store(a.loc, value, "weak", "sys", False, line)
        elif op == "volatile_store":
            instr = ir.Store(a.loc, value, "relaxed", "sys", True, line)
        else:
            instr = ir.Store(a.loc, value, a.sem, a.scope, False, line)
    elif op in ("cas", "exch", "add"):
        expected = operand("expected") if op == "cas" else None
        value = operand("value")
        instr = ir.Rmw(op, a.reg, a.loc, value, expected, a.sem, a.scope, line)
        wrote(a.reg)
    elif op == "fence":
        instr = ir.Fence(a.sem, a.scope, line)
    elif op == "bar.sync":
        instr = ir.Barrier(ir.Const(int(a.id) if a is not None else 0), None, False, line)
    elif op == "spin":
        read = _spin_read(a, raw, pos, thread, out)
        if read is None:
            ok = False
        else:
            instr = ir.Spin(a.loc, int(a.until), read, int(a.bound), a.reg, line)
            wrote(a.reg)
    return instr if ok else None


def _spin_read(a: m.SpinArgs, raw: LDict, pos: Pos, thread: str, out: _Problems) -> ir.SpinRead | None:
    r = a.read
    where = _field_pos(raw, "read", pos)
    if isinstance(r, str):
        if r == "volatile":
            if a.scope is not None:
                out.add(_field_pos(raw, "scope", pos), f"spin in {thread}: read: volatile is always sys scope; remove scope:")
                return None
            return ir.SpinRead("load", "relaxed", "sys", True)
        if a.scope is None:
            out.add(where, f"spin in {thread}: read: {r} needs the spin's scope; add scope: cta, gpu or sys")
            return None
        return ir.SpinRead("load", r, a.scope, False)
    if a.scope is not None:
        out.add(
            _field_pos(raw, "scope", pos),
            f"spin in {thread}: when read is a mapping, put scope inside read, not on the spin",
        )
        return None
    if isinstance(r, m.SpinReadCas):
        return ir.SpinRead("cas", r.sem, r.scope, False, int(r.reset))
    if r.volatile:
        if r.sem is not None or r.scope is not None:
            out.add(where, f"spin in {thread}: a volatile read is relaxed.sys; remove sem and scope from read")
            return None
        return ir.SpinRead("load", "relaxed", "sys", True)
    missing = [k for k in ("sem", "scope") if getattr(r, k) is None]
    if missing:
        out.add(
            where,
            f"spin in {thread}: read {{kind: load}} needs {' and '.join(missing)} "
            "(sem: relaxed or acquire; scope: cta, gpu or sys), or volatile: true",
        )
        return None
    return ir.SpinRead("load", r.sem, r.scope, False)  # type: ignore[arg-type]


def _condition(
    doc: m.PatternDoc, raw: LDict, threads: tuple[ir.Thread, ...], locs: list[str], out: _Problems
) -> ir.Condition | None:
    given = [k for k in m.CONDITION_KEYS if raw.get(k) is not None]
    if len(given) != 1:
        what = "no condition" if not given else "several conditions (" + ", ".join(given) + ")"
        pos = raw.key_pos[given[1]] if len(given) > 1 else raw.pos
        out.add(pos, f"the pattern has {what}; give exactly one of exists:, ~exists: (or not_exists:), forall:")
        return None
    key = given[0]
    text = str(raw[key])
    vpos = raw.val_pos[key]
    style = raw.val_style.get(key)
    column = vpos.column + 1 if style in ('"', "'") else (vpos.column if style is None else None)
    try:
        prop = parse_condition_or_error(text, out.file, vpos.line, column)
    except LitmusError as e:
        for p in e.problems:
            out.add(Pos(p.line or vpos.line, p.column or vpos.column), p.message)
        return None
    regs = {t.name: _written(t) for t in threads}
    for term in terms(prop):
        if isinstance(term, ir.RegRef):
            if term.thread not in regs:
                out.add(
                    vpos,
                    f"condition names thread {term.thread}, which does not exist; threads: {', '.join(regs)}",
                )
            elif term.reg not in regs[term.thread]:
                known = sorted(regs[term.thread])
                out.add(
                    vpos,
                    f"condition reads {term.thread}:{term.reg}, but {term.thread} never writes register '{term.reg}'"
                    + suggest(term.reg, known, f"registers of {term.thread}: {', '.join(known) or 'none'} "
                              "(or give it an initial value under regs:)"),
                )
        elif isinstance(term, ir.LocRef) and term.loc not in locs:
            out.add(
                vpos,
                f"condition names location '{term.loc}', which is not declared"
                + suggest(term.loc, locs, f"locations: {', '.join(locs)}"),
            )
    kind = parse_kind(key)
    return ir.Condition(kind, prop, text)


def _written(t: ir.Thread) -> set[str]:
    regs = {r for r, _ in t.reg_init}
    for i in t.instrs:
        reg = getattr(i, "reg", None)
        if isinstance(reg, str):
            regs.add(reg)
    return regs
