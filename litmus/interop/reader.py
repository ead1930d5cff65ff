"""Read a PTX ``.litmus`` file (the Dat3M ``litmus/PTX`` format) into a :class:`litmus.ir.LitmusTest`.

A file is::

    PTX NAME                                  <- NAME, or NAME[variant] as litmus writes it
    "optional description, may span lines"    <- a line "homes: x@1 y@0" sets Location.home
    { x=0; y=1; P1:r0=0 }                     <- locations and register initial values
     P0@cta 0,gpu 0 | P1@cta 1,gpu 0 ;        <- threads: CTA and GPU (= IR rank)
     st.weak x, 1   | ld.acquire.gpu r0, y ;  <- one row per line, cells split by '|'
    exists (P1:r0 == 1 /\\ x == 1)             <- exists / ~exists / forall

Each cell is read by :func:`litmus.interop.instructions.parse_instruction`.  Locations used
only in code or in the condition get init 0, in order of first use.  PTX files have no
location homes: every home is 0 unless the description has a ``homes:`` line.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from litmus.condition import ConditionSyntaxError, parse_kind, parse_prop, terms
from litmus.errors import LitmusError, UnsupportedError
from litmus.interop.instructions import IDENT, INT, Cell, int_value, parse_instruction
from litmus.interop.annotations import apply_annotations
from litmus.interop.metadata import split_annotations, split_description
from litmus.ir import (
    PROXIES,
    Barrier,
    Branch,
    Compute,
    Condition,
    Instr,
    Label,
    Load,
    Location,
    LocRef,
    LitmusTest,
    Operand,
    Reg,
    RegRef,
    Rmw,
    Store,
    Thread,
)

_HEADER = re.compile(r"(PTX|ptx)[ \t]*(\S*)")
_NAME_VARIANT = re.compile(r"(?P<name>[^\[\]]+)\[(?P<variant>[^\[\]]+)\]\Z")
_THREAD = re.compile(r"(P\d+)\s*@\s*cta\s+(\d+)\s*,\s*gpu\s+(\d+)\Z")
_REG_INIT = re.compile(r"(?:P)?(\d+)\s*:\s*([A-Za-z_][A-Za-z0-9_]*)\s*=\s*(\S.*)\Z", re.S)
_LOC_INIT = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)\s*=\s*(\S.*)\Z", re.S)
_COND_START = re.compile(r"(~\s*exists|not\s+exists|exists|forall)\b(?!\s*:)")
_UNSUPPORTED_SECTIONS = re.compile(r"(filter|final)\b")
_LOCATIONS = re.compile(r"locations\s*\[[^\]]*\]\s*;?", re.S)


@dataclass
class _Source:
    """The file text with offset -> (line, column) mapping."""

    text: str
    file: str
    line_starts: list[int] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.line_starts = [0] + [i + 1 for i, c in enumerate(self.text) if c == "\n"]

    def where(self, offset: int) -> tuple[int, int]:
        """1-based (line, column) of ``offset``."""
        lo, hi = 0, len(self.line_starts) - 1
        while lo < hi:
            mid = (lo + hi + 1) // 2
            if self.line_starts[mid] <= offset:
                lo = mid
            else:
                hi = mid - 1
        return lo + 1, offset - self.line_starts[lo] + 1

    def error(self, offset: int, message: str, unsupported: bool = False) -> LitmusError:
        line, col = self.where(offset)
        cls = UnsupportedError if unsupported else LitmusError
        return cls.at(self.file, line, message, col)

    def skip_space(self, pos: int) -> int:
        while pos < len(self.text) and self.text[pos].isspace():
            pos += 1
        return pos


def read_litmus(path: str | Path) -> LitmusTest:
    """The test in the PTX ``.litmus`` file at ``path`` (``source_file`` = ``path``)."""
    from litmus.textfile import decode_text, read_bounded

    p = Path(path)
    data, problem = read_bounded(p, ".litmus")
    if problem is None:
        text, problem = decode_text(data, str(p), ".litmus")
    if problem is not None:
        raise LitmusError(problem)
    return parse_litmus(text, file=str(p))


def parse_litmus(text: str, file: str = "<string>") -> LitmusTest:
    """The test written in PTX ``.litmus`` ``text``; errors name ``file``, line and column."""
    src = _Source(text.replace("\r\n", "\n").replace("\r", "\n"), file)
    name, variant, header_line, pos = _header(src)
    description, pos = _description(src, pos)
    loc_inits, reg_inits, pos = _init_block(src, pos)
    threads, cond = _program(src, pos)
    try:
        description, homes = split_description(description)
        description, annotations = split_annotations(description)
    except ValueError as e:
        raise LitmusError.at(file, header_line, f"bad description: {e}") from None
    test = _assemble(src, name, variant, header_line, description, homes, loc_inits, reg_inits,
                     threads, cond)
    return apply_annotations(test, annotations, header_line) if annotations else test


# ----------------------------------------------------------------------------- header


def _header(src: _Source) -> tuple[str, str, int, int]:
    pos = src.skip_space(0)
    m = _HEADER.match(src.text, pos)
    if not m:
        raise src.error(pos, "a PTX litmus file starts with 'PTX NAME'")
    raw = m.group(2)
    if raw.startswith('"') or "{" in raw:  # no name: LitmusPTX.g4 takes anything up to '{'
        name, variant, end = Path(src.file).stem, "", m.start(2)
    else:
        nv = _NAME_VARIANT.match(raw)
        name, variant = (nv.group("name"), nv.group("variant")) if nv else (raw, "")
        end = m.end()
    return name, variant, src.where(pos)[0], end


_QUOTED_LINES = re.compile(r'(?:\s*"[^"]*")+\s*\Z')


def _description(src: _Source, pos: int) -> tuple[str, int]:
    """The description between the header and ``{`` (LitmusPTX.g4: ``PTX ~('{')*``).

    One or more quoted strings are joined by newlines; other text (a quoted block with quotes
    inside, as some Dat3M files have) is kept as written, less its outer quotes."""
    brace = src.text.find("{", pos)
    if brace < 0:
        raise src.error(src.skip_space(pos), "expected the init block '{ x=0; ... }' after the "
                                             "header (and the optional quoted description)")
    raw = src.text[pos:brace].strip()
    if _QUOTED_LINES.match(raw):
        desc = "\n".join(re.findall(r'"([^"]*)"', raw))
    elif len(raw) >= 2 and raw[0] == raw[-1] == '"':
        desc = raw[1:-1]
    else:
        desc = raw
    return desc, brace


# ------------------------------------------------------------------------- init block


@dataclass(frozen=True)
class _LocInit:
    name: str
    value: int
    line: int
    alias_of: str | None = None
    alias_proxy: str = "generic"


_ALIAS = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)\s*@\s*([a-z]+)\s+aliases\s+([A-Za-z_][A-Za-z0-9_]*)\Z")


def _init_block(
    src: _Source, pos: int
) -> tuple[list[_LocInit], dict[str, list[tuple[str, int]]], int]:
    end = src.text.find("}", pos)
    if end < 0:
        raise src.error(pos, "the init block's '{' has no closing '}'")
    locs: list[_LocInit] = []
    regs: dict[str, list[tuple[str, int]]] = {}
    seen: dict[str, _LocInit] = {}
    start = pos + 1
    for piece in src.text[start:end].split(";"):
        entry_off = start + len(piece) - len(piece.lstrip())
        start += len(piece) + 1
        entry = piece.strip()
        if not entry:
            continue
        line, _ = src.where(entry_off)
        alias = _ALIAS.match(entry)
        if alias:
            new, proxy, target = alias.groups()
            if proxy not in PROXIES:
                raise src.error(entry_off, f"unknown proxy {proxy!r} in {entry!r} (write "
                                           f"{', '.join(PROXIES)})")
            if target not in seen:
                raise src.error(entry_off, f"{entry!r}: {target} is not declared before it; "
                                           f"declare '{target} = 0;' first")
            if new in seen:
                raise src.error(entry_off, f"{new} is declared twice")
            li = _LocInit(new, seen[target].value, line, target, proxy)
            seen[new] = li
            locs.append(li)
            continue
        m = _REG_INIT.match(entry) or _LOC_INIT.match(entry)
        if not m:
            raise src.error(entry_off, f"bad init entry {entry!r}: write x=0, P1:r0=0 or "
                                       "'y @ generic aliases x'")
        value_text = m.group(m.lastindex or 0).strip()
        key = entry.split("=")[0].replace(" ", "")
        if m.re is _REG_INIT:
            key = "P" + key.lstrip("P")
        if key in seen or key in {f"P{t}:{r}" for t, rs in regs.items() for r, _ in rs}:
            raise src.error(entry_off, f"{key} is initialised twice")
        if not INT.match(value_text):
            other = value_text.lstrip("&").strip()
            if m.re is _LOC_INIT and IDENT.match(other) and other in seen:
                # Dat3M: 'x = y' declares x with y's initial value (initVirLocEqLoc)
                value_text = str(seen[other].value)
            else:
                unsupported = value_text.startswith("&") or bool(IDENT.match(value_text))
                raise src.error(entry_off, f"init entry {entry!r}: the value must be an integer "
                                           "(pointer initialisers are not supported)", unsupported)
        if m.re is _REG_INIT:
            regs.setdefault("P" + m.group(1), []).append((m.group(2), int_value(value_text)))
        else:
            li = _LocInit(m.group(1), int_value(value_text), line)
            seen[key] = li
            locs.append(li)
    after = end + 1
    rest_of_line = src.text[after:].split("\n", 1)[0]
    if rest_of_line.strip() not in ("", ";"):
        raise src.error(after, "the program starts on the line after the init block's '}'")
    return locs, regs, after + len(rest_of_line)


# ---------------------------------------------------------------------------- program


@dataclass
class _ThreadCols:
    name: str
    cta: int
    gpu: int
    line: int
    instrs: list[Instr] = field(default_factory=list)


@dataclass(frozen=True)
class _Cond:
    kind: str
    body: str
    line: int
    column: int
    body_offset: int


def _rows(src: _Source, line_no: int, line: str) -> list[list[Cell]]:
    """The ';'-terminated rows of one program line, each a list of cells."""
    rows: list[list[Cell]] = []
    col = 0
    segments = line.split(";")
    if segments[-1].strip():
        raise LitmusError.at(src.file, line_no, "a program row ends with ';'",
                             len(line) - len(line.lstrip()) + 1)
    for seg in segments[:-1]:
        cells: list[Cell] = []
        for raw in seg.split("|"):
            lead = len(raw) - len(raw.lstrip())
            cells.append(Cell(raw.strip(), src.file, line_no, col + lead + 1))
            col += len(raw) + 1
        rows.append(cells)
    return rows


def _program(src: _Source, pos: int) -> tuple[list[_ThreadCols], _Cond]:
    lines = src.text[pos:].split("\n")
    first_line = src.where(pos)[0]
    threads: list[_ThreadCols] = []
    for i, line in enumerate(lines):
        line_no = first_line + i
        stripped = line.strip()
        if not stripped:
            continue
        if _COND_START.match(stripped):
            if not threads:
                raise LitmusError.at(src.file, line_no, "the thread header row "
                                     "'P0@cta 0,gpu 0 | ... ;' comes before the condition")
            offset = src.line_starts[line_no - 1] + (len(line) - len(stripped))
            return threads, _condition(src, offset)
        if _LOCATIONS.match(stripped) and not _LOCATIONS.sub("", stripped, count=1).strip():
            continue  # 'locations [x; P1:r0;]' lists what to print; every key is printed anyway
        if _UNSUPPORTED_SECTIONS.match(stripped):
            raise UnsupportedError.at(src.file, line_no, f"'{stripped.split()[0]}' sections are "
                                      "not supported", len(line) - len(line.lstrip()) + 1)
        for row in _rows(src, line_no, line):
            if not threads:
                threads = _thread_header(row)
            else:
                _add_row(threads, row)
    raise LitmusError.at(src.file, first_line + len(lines) - 1,
                         "missing final condition: exists (...), ~exists (...) or forall (...)")


def _thread_header(row: list[Cell]) -> list[_ThreadCols]:
    threads: list[_ThreadCols] = []
    for cell in row:
        m = _THREAD.match(cell.text)
        if not m:
            raise LitmusError.at(cell.file, cell.line, f"bad thread header {cell.text!r}: write "
                                 "'P0@cta 0,gpu 0'", cell.column)
        if any(t.name == m.group(1) for t in threads):
            raise LitmusError.at(cell.file, cell.line, f"thread {m.group(1)} is declared twice",
                                 cell.column)
        threads.append(_ThreadCols(m.group(1), int(m.group(2)), int(m.group(3)), cell.line))
    return threads


def _add_row(threads: list[_ThreadCols], row: list[Cell]) -> None:
    if len(row) != len(threads):
        c = row[0]
        raise LitmusError.at(c.file, c.line, f"this row has {len(row)} cell(s) but there are "
                             f"{len(threads)} threads: separate cells with '|'", c.column)
    for thread, cell in zip(threads, row):
        if cell.text:
            thread.instrs.append(parse_instruction(cell))


_SPACED_REG = re.compile(r"\b(P?\d+)(\s*):(\s*)([A-Za-z_][A-Za-z0-9_]*)")
_BRACKETED = re.compile(r"\[\s*([A-Za-z_][A-Za-z0-9_]*)\s*\]")
_HEX = re.compile(r"\b0x[0-9a-fA-F]+\b")


def normalize_condition(body: str) -> str:
    """The condition ``body`` in the spelling :mod:`litmus.condition` reads, each token at
    its column: LitmusAssertions.g4 also allows ``P3 : r0`` (spaces around ':'), ``[x]``,
    hex constants and a trailing ';'."""
    body = _SPACED_REG.sub(lambda m: f"{m.group(1)}:{m.group(4)}" + m.group(2) + m.group(3), body)
    body = _BRACKETED.sub(lambda m: " " + m.group(1).ljust(len(m.group(0)) - 1), body)
    body = _HEX.sub(lambda m: str(int(m.group(0), 16)).ljust(len(m.group(0))), body)
    stripped = body.rstrip()
    if stripped.endswith(";"):
        body = stripped[:-1]
    return body


def _condition(src: _Source, offset: int) -> _Cond:
    m = _COND_START.match(src.text, offset)
    assert m is not None
    kind = parse_kind(re.sub(r"not\s+", "~", m.group(1)))
    body_offset = src.skip_space(m.end())
    body = normalize_condition(src.text[body_offset:]).rstrip()
    line, col = src.where(offset)
    if not body:
        raise LitmusError.at(src.file, line, f"the {m.group(1)} condition has no body: write "
                             f"{m.group(1)} (P1:r0 == 1)", col)
    try:
        parse_prop(body)
    except ConditionSyntaxError as e:
        raise src.error(body_offset + e.column - 1, f"bad condition {body!r}: {e}") from None
    return _Cond(kind, body, line, col, body_offset)


# --------------------------------------------------------------------------- assemble


def _mem_locs(instr: Instr) -> list[str]:
    if isinstance(instr, (Load, Store, Rmw)):
        return [instr.loc]
    return []


def _reg_uses(instr: Instr) -> list[Operand]:
    if isinstance(instr, Store):
        return [instr.value]
    if isinstance(instr, Rmw):
        return [instr.value] + ([instr.expected] if instr.expected is not None else [])
    if isinstance(instr, Barrier):
        return [o for o in (instr.id, instr.count, instr.quorum) if o is not None]
    if isinstance(instr, Branch):
        return [o for o in (instr.lhs, instr.rhs) if o is not None]
    if isinstance(instr, Compute):
        return [o for o in (instr.a, instr.b) if o is not None]
    return []


def _column_of(src: _Source, line: int | None, word: str) -> int | None:
    if line is None:
        return None
    text = src.text.split("\n")[line - 1]
    m = re.search(rf"(?<![A-Za-z0-9_.:]){re.escape(word)}\b", text)
    return m.start() + 1 if m else None


def _assemble(
    src: _Source,
    name: str,
    variant: str,
    header_line: int,
    description: str,
    homes: dict[str, int],
    loc_inits: list[_LocInit],
    reg_inits: dict[str, list[tuple[str, int]]],
    threads: list[_ThreadCols],
    cond: _Cond,
) -> LitmusTest:
    prop = parse_prop(cond.body)
    locations: dict[str, Location] = {
        li.name: Location(li.name, li.value, homes.get(li.name, 0), li.line, li.alias_of,
                          li.alias_proxy) for li in loc_inits
    }
    for t in threads:
        for instr in t.instrs:
            for loc in _mem_locs(instr):
                locations.setdefault(loc, Location(loc, 0, homes.get(loc, 0), instr.line))
    _check_condition_terms(src, prop, cond, threads, reg_inits, locations)
    unknown_homes = sorted(set(homes) - set(locations))
    if unknown_homes:
        raise LitmusError.at(src.file, header_line, "the description's homes: line names "
                             f"unknown location(s) {', '.join(unknown_homes)}")
    names = {t.name for t in threads}
    for tname in reg_inits:
        if tname not in names:
            raise LitmusError.at(src.file, None, f"the init block sets registers of {tname}, "
                                 f"which is not a thread (threads: {', '.join(sorted(names))})")
    for t in threads:
        _check_thread(src, t, locations)
    return LitmusTest(
        name=name,
        variant=variant,
        locations=tuple(locations.values()),
        threads=tuple(
            Thread(t.name, t.gpu, t.cta, tuple(t.instrs), tuple(reg_inits.get(t.name, ())), t.line)
            for t in threads
        ),
        condition=Condition(cond.kind, prop, cond.body),
        description=description,
        source_file=src.file,
        source_line=header_line,
    )


def _check_condition_terms(src: _Source, prop: Any, cond: _Cond, threads: list[_ThreadCols],
                           reg_inits: dict[str, list[tuple[str, int]]], locations: dict[str, Location]) -> None:
    """Every register, thread and location the condition names exists (else a located error)."""
    written: dict[str, set[str]] = {}
    for t in threads:
        regs = {r for r, _ in reg_inits.get(t.name, ())}
        for instr in t.instrs:
            for attr in ("reg", "dst"):
                value = getattr(instr, attr, None)
                if isinstance(value, str):
                    regs.add(value)
        written[t.name] = regs
    for term in terms(prop):
        if isinstance(term, RegRef):
            text = f"{term.thread}:{term.reg}"
            if term.thread not in written:
                message = (f"the condition names thread {term.thread}, which does not exist "
                           f"(threads: {', '.join(written)})")
            elif term.reg not in written[term.thread]:
                known = ", ".join(sorted(written[term.thread])) or "none"
                message = (f"the condition reads {text}, but {term.thread} never writes register "
                           f"{term.reg} and the init block does not set it (registers of {term.thread}: {known})")
            else:
                continue
        elif isinstance(term, LocRef) and term.loc not in locations:
            text = term.loc
            message = (f"the condition names location {term.loc}, which is neither in the init block "
                       f"nor used by any thread (locations: {', '.join(locations) or 'none'})")
        else:
            continue
        found = cond.body.find(text.split(":")[-1] if ":" not in text else text)
        raise src.error(cond.body_offset + max(found, 0), message)


def _check_thread(src: _Source, t: _ThreadCols, locations: dict[str, Location]) -> None:
    labels: set[str] = set()
    for instr in t.instrs:
        if isinstance(instr, Label):
            if instr.name in labels:
                raise LitmusError.at(src.file, instr.line, f"label {instr.name} appears twice in "
                                     f"{t.name}", _column_of(src, instr.line, instr.name))
            labels.add(instr.name)
    for instr in t.instrs:
        if isinstance(instr, Branch) and instr.target not in labels:
            raise LitmusError.at(src.file, instr.line, f"{t.name} has no label {instr.target}",
                                 _column_of(src, instr.line, instr.target))
        regs = [o.name for o in _reg_uses(instr) if isinstance(o, Reg)]
        dst = getattr(instr, "reg", None) or getattr(instr, "dst", None)
        for r in regs + ([dst] if isinstance(dst, str) else []):
            if r in locations:
                hint = (" (to load it, write ld.weak)" if isinstance(instr, Compute)
                        and instr.op == "mov" else "")
                raise LitmusError.at(src.file, instr.line, f"{r} is a memory location, not a "
                                     f"register{hint}", _column_of(src, instr.line, r))
