"""A shape-checked, placeholder-free pattern document -> IR locations, threads and condition.

Checks meaning: known locations, registers written before they are read, spin reads that say
their scope, views and vector accesses that fit their locations (:mod:`litmus.spec.widths`), and
a condition over known threads, registers and locations.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from litmus import ir
from litmus.condition import parse_condition_or_error, parse_kind, terms
from litmus.errors import LitmusError, Problem
from litmus.spec import documents as m
from litmus.spec import messages as msg
from litmus.spec import widths
from litmus.spec.widths import Memory
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
    memory = widths.declared_locations(doc, raw, out.add)
    loc_names = memory.names()
    threads = tuple(_thread(name, spec, raw["threads"], memory, out) for name, spec in doc.threads.items())
    condition = _condition(doc, raw, threads, loc_names, out)
    if out.items or condition is None:
        return None, out.items
    return Program(memory.all(), threads, condition), []


def _thread(name: str, spec: m.ThreadSpec, raw_threads: LDict, memory: Memory, out: _Problems) -> ir.Thread:
    raw = raw_threads[name]
    raw_do: LList = raw["do"]
    written: set[str] = set(spec.regs)
    temps = _Temps(_register_names(spec.do) | set(spec.regs))
    instrs = _ops(spec.do, raw_do, name, memory, written, temps, out)
    return ir.Thread(
        name,
        int(spec.at.rank),
        int(spec.at.cta),
        tuple(instrs),
        tuple((r, v) for r, v in spec.regs.items()),
        raw_threads.key_pos[name].line,
    )


def _ops(items: list[Any], raw_do: LList, thread: str, locs: Memory, written: set[str], temps: "_Temps",
         out: _Problems, nested: bool = False) -> list[ir.Instr]:
    """The IR of a list of ops (a thread's ``do``, or a retry's)."""
    instrs: list[ir.Instr] = []
    for item, raw_item, pos in zip(items, raw_do, raw_do.item_pos):
        op = next(iter(raw_item))
        args = getattr(item, _attr(op))
        raw_args = raw_item[op] if isinstance(raw_item[op], LDict) else LDict(pos)
        if op == "retry":
            instrs += _retry(args, raw_args, pos, thread, locs, written, temps, out, nested)
        else:
            instrs += _instr(op, args, raw_args, pos, thread, locs, written, temps, out)
    return instrs


_UNTIL_TERM = re.compile(rf"^\s*({m.EXPR_OPERAND})\s*(==|!=|<=|>=|<|>)\s*({m.EXPR_OPERAND})\s*$")


def _retry(a: m.RetryArgs, raw: LDict, pos: Pos, thread: str, locs: Memory, written: set[str],
           temps: "_Temps", out: _Problems, nested: bool) -> list[ir.Instr]:
    """A bounded retry loop, unrolled: ``times`` copies of the body, each but the last followed
    by branches to the end when every comparison of ``until`` holds (forward branches only)."""
    line = pos.line
    if nested:
        out.add(pos, f"retry in {thread}: a retry inside a retry is not supported; unroll the inner one by hand")
        return []
    raw_body = raw.get("do")
    if not isinstance(raw_body, LList):
        return []
    first = _ops(a.do, raw_body, thread, locs, written, temps, out, nested=True)
    if any(isinstance(i, (ir.Spin, ir.Barrier)) for i in first):
        out.add(pos, f"retry in {thread}: a spin or bar.sync inside a retry is not supported "
                     "(only loads, stores, RMWs, fences and register values)")
        return []
    tests: list[tuple[ir.Operand, str, ir.Operand]] = []
    for part in str(a.until).split("/\\"):
        mm = _UNTIL_TERM.match(part)
        if mm is None:
            out.add(_field_pos(raw, "until", pos),
                    f"retry in {thread}: until must be comparisons of registers and integers joined by /\\, "
                    f"like \"r0 == r2\" or \"r0 == r2 /\\ r1 != 0\"; got {part.strip()!r}")
            return []
        terms = []
        for text in (mm.group(1), mm.group(3)):
            if _INT.fullmatch(text):
                terms.append(ir.Const(_integer(text)))
            else:
                if text not in written:
                    out.add(_field_pos(raw, "until", pos),
                            f"retry in {thread}: until reads register '{text}', which the retry's ops do not write "
                            "and nothing before it does")
                    return []
                terms.append(ir.Reg(text))
        tests.append((terms[0], ir.CMP_BRANCH[mm.group(2)], terms[1]))
    end = temps.label()
    instrs: list[ir.Instr] = []
    quiet = _Problems(out.file, out.variant)  # the later copies repeat the first copy's problems
    for n in range(int(a.times)):
        body = first if n == 0 else _ops(a.do, raw_body, thread, locs, written, temps, quiet, nested=True)
        instrs += body
        if n == int(a.times) - 1:
            break
        again = temps.label()
        instrs += [ir.Branch(again, ir.NEGATED_BRANCH[c], lhs, rhs, line) for lhs, c, rhs in tests]  # type: ignore[arg-type]
        instrs += [ir.Branch(end, None, None, None, line), ir.Label(again, line)]
    return instrs + [ir.Label(end, line)]


_INT = re.compile(r"-?0x[0-9a-fA-F]+|-?[0-9]+")


def _integer(text: str) -> int:
    """A decimal or ``0x`` hexadecimal integer, optionally negative (``08`` is eight)."""
    neg = text.startswith("-")
    body = text[1:] if neg else text
    value = int(body[2:], 16) if body.lower().startswith("0x") else int(body, 10)
    return -value if neg else value


class _Temps:
    """Fresh register names (``r100``, ``r101``, ...) for register expressions, avoiding the
    thread's own; ``rN`` and labels ``LCnn`` are what the PTX ``.litmus`` grammar accepts."""

    def __init__(self, taken: set[str]):
        self.taken = set(taken)
        self.labels = 0

    def fresh(self) -> str:
        n = 100
        while f"r{n}" in self.taken:
            n += 1
        self.taken.add(f"r{n}")
        return f"r{n}"

    def label(self) -> str:
        self.labels += 1
        return f"LC{89 + self.labels}"


def _register_names(items: list[Any]) -> set[str]:
    """Every identifier a list of ops uses as a register (or could: names in expressions)."""
    names: set[str] = set()
    for item in items:
        args = next(iter(vars(item).values()), None) if hasattr(item, "__dict__") else None
        for key in ("reg", "value", "expected"):
            v = getattr(args, key, None)
            for text in v if isinstance(v, list) else [v]:
                if isinstance(text, str):
                    names |= set(re.findall(r"[A-Za-z_][A-Za-z0-9_]*", text))
        if isinstance(args, m.RetryArgs):
            names |= _register_names(args.do)
    return names


_EXPR = re.compile(rf"^\s*({m.EXPR_OPERAND})\s*(\+|-|&|\||\^|<<|>>)\s*({m.EXPR_OPERAND})\s*$")
_EXPR_OPS = {"+": "add", "-": "sub", "&": "and", "|": "or", "^": "xor", "<<": "shl", ">>": "shr"}


def _attr(op: str) -> str:
    return "bar_sync" if op == "bar.sync" else op


def _field_pos(raw_args: LDict, key: str, default: Pos) -> Pos:
    return raw_args.val_pos.get(key, default)


_LOADS = {"load": ("weak", "sys", False), "volatile_load": ("relaxed", "sys", True), "atomic_load": None}
_STORES = {"store": ("weak", "sys", False), "volatile_store": ("relaxed", "sys", True), "atomic_store": None}


def _instr(
    op: str, a: Any, raw: LDict, pos: Pos, thread: str, memory: Memory, written: set[str], temps: _Temps,
    out: _Problems,
) -> list[ir.Instr]:
    """The IR of one op: the instruction (one per element for a vector access), after the
    register arithmetic its values need."""
    line = pos.line
    ok = True
    pre: list[ir.Instr] = []
    locs = memory.names()
    if hasattr(a, "loc") and a.loc not in locs:
        out.add(_field_pos(raw, "loc", pos), msg.unknown_location(a.loc, op, thread, locs))
        ok = False

    def register(v: str, key: str) -> ir.Reg:
        nonlocal ok
        if v not in written:
            out.add(_field_pos(raw, key, pos), msg.register_before_write(v, op, thread))
            ok = False
        return ir.Reg(v)

    def term(text: str, key: str) -> ir.Operand:
        if _INT.fullmatch(text):
            return ir.Const(_integer(text))
        return register(text, key)

    def operand(key: str, v: Any = None) -> ir.Operand:
        v = getattr(a, key) if v is None else v
        if isinstance(v, int):
            return ir.Const(v)
        expr = _EXPR.match(v)
        if expr is None:
            return register(v, key)
        lhs, sym, rhs = expr.groups()
        dst = temps.fresh()
        pre.append(ir.Compute(dst, _EXPR_OPS[sym], term(lhs, key), term(rhs, key), line))  # type: ignore[arg-type]
        return ir.Reg(dst)

    def wrote(reg: str | None) -> None:
        if reg is not None:
            written.add(reg)

    def elements(key: str) -> list[str] | None:
        """The location of each element of a load or store (one for a scalar access)."""
        if not ok:
            return None
        vec = None if a.vec is None else int(a.vec)
        return widths.vector_locations(memory, op, a.loc, vec, getattr(a, key), key, raw, pos, thread, out.add)

    def fits(values: list[tuple[ir.Operand | None, Pos]], loc: str, bits: int | None = None) -> None:
        """Report the integers among ``values`` that do not fit ``loc`` (when it is sized)."""
        nonlocal ok
        if ok and (loc in memory.sized or bits is not None):
            width = memory.bits(loc) if bits is None else bits
            ok = widths.check_constants(values, width, f"{op} in {thread} on {loc}", out.add) and ok

    instr: ir.Instr | None = None
    many: list[ir.Instr] = []
    if op in _LOADS:
        sem, scope, volatile = _LOADS[op] or (a.sem, a.scope, False)
        regs = a.reg if isinstance(a.reg, list) else [a.reg]
        places = elements("reg")
        if places is not None:
            group = memory.group() if len(places) > 1 else None
            many = [ir.Load(r, loc, sem, scope, volatile, line, group=group) for r, loc in zip(regs, places)]
        elif ok:  # a vector mismatch, reported: the registers still count as written (no follow-on error)
            many = [ir.Load(r, a.loc, sem, scope, volatile, line) for r in regs]
        for r in regs:
            wrote(r)
    elif op in _STORES:
        sem, scope, volatile = _STORES[op] or (a.sem, a.scope, False)
        places = elements("value")
        if places is not None:
            given = a.value if isinstance(a.value, list) else [a.value]
            values = [operand("value", v) for v in given]
            vec = len(places) > 1
            fits([(v, widths.item_pos(raw, "value", k, pos) if vec else _field_pos(raw, "value", pos))
                  for k, v in enumerate(values)], a.loc, memory.bits(a.loc) // len(places) if vec else None)
            group = memory.group() if vec else None
            many = [ir.Store(loc, v, sem, scope, volatile, line, group=group) for loc, v in zip(places, values)]
    elif op in ("cas", "exch", "add"):
        expected = operand("expected") if op == "cas" else None
        value = operand("value")
        fits([(expected, _field_pos(raw, "expected", pos)), (value, _field_pos(raw, "value", pos))], a.loc)
        instr = ir.Rmw(op, a.reg, a.loc, value, expected, a.sem, a.scope, line)
        wrote(a.reg)
    elif op == "fence":
        instr = ir.Fence(a.sem, a.scope, line)
    elif op == "bar.sync":
        instr = ir.Barrier(ir.Const(int(a.id) if a is not None else 0), None, False, line)
    elif op == "spin":
        read = _spin_read(a, raw, pos, thread, out)
        mask = None if a.mask is None else int(a.mask)
        if read is not None and read.kind == "cas" and (a.cmp != "==" or mask is not None):
            key = "cmp" if a.cmp != "==" else "mask"
            out.add(_field_pos(raw, key, pos),
                    f"spin in {thread}: a cas read exits when its compare succeeds, so it takes no {key}; "
                    "remove it, or spin with read: {kind: load, ...} to exit on another condition")
            read = None
        if read is None:
            ok = False
        else:
            fits([(ir.Const(int(a.until)), _field_pos(raw, "until", pos)),
                  (None if mask is None else ir.Const(mask), _field_pos(raw, "mask", pos)),
                  (None if read.reset is None else ir.Const(read.reset), _field_pos(raw, "read", pos))], a.loc)
            instr = ir.Spin(a.loc, int(a.until), read, int(a.bound), a.reg, line, cmp=a.cmp, mask=mask)
            wrote(a.reg)
    if not ok:
        return []
    return pre + ([instr] if instr is not None else many)


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
                out.add(vpos, msg.unknown_thread(term.thread, list(regs)))
            elif term.reg not in regs[term.thread]:
                out.add(vpos, msg.unwritten_register(term.thread, term.reg, sorted(regs[term.thread])))
        elif isinstance(term, ir.LocRef) and term.loc not in locs:
            out.add(vpos, msg.undeclared_location(term.loc, locs))
    kind = parse_kind(key)
    return ir.Condition(kind, prop, text)


def _written(t: ir.Thread) -> set[str]:
    regs = {r for r, _ in t.reg_init}
    for i in t.instrs:
        reg = getattr(i, "reg", None)
        if isinstance(reg, str):
            regs.add(reg)
    return regs
