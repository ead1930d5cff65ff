"""Meaning checks on a raw document whose shape is still wrong, so that one run of ``litmus``
reports both kinds of mistake (issue 15: "schema errors hide meaning errors").

The full meaning check (:mod:`litmus.spec.build`) needs a validated document.  This one reads
the raw YAML (:class:`~litmus.spec.yamlpos.LDict`) best-effort: it looks only at the parts that
have the expected form, skips anything a placeholder decides, and says nothing where it cannot
be sure (after an op that is a placeholder, a thread's registers are unknown).
"""

from __future__ import annotations

import re
from typing import Any

from litmus import ir
from litmus.condition import parse_condition_or_error, terms
from litmus.errors import LitmusError, Problem
from litmus.spec import messages as msg
from litmus.spec.documents import CONDITION_KEYS, NAME_RE, OPS
from litmus.spec.placeholders import INNER
from litmus.spec.yamlpos import LDict, LList

_NAME = re.compile(NAME_RE)
_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_WRITES_REG = frozenset(op for op, (_, args) in OPS.items() if "reg" in args.model_fields)


def early_meaning_problems(raw: Any, file: str) -> list[Problem]:
    """Unknown locations, registers read before they are written, and condition terms naming
    unknown threads, registers or locations, found in ``raw`` without validating its shape."""
    if not isinstance(raw, LDict):
        return []
    out: list[Problem] = []
    locations = raw.get("locations")
    locs = [k for k in locations if isinstance(k, str)] if isinstance(locations, LDict) else None
    threads = raw.get("threads")
    if not isinstance(threads, LDict):
        return out
    written: dict[str, set[str] | None] = {}
    for name, spec in threads.items():
        if isinstance(name, str) and isinstance(spec, LDict):
            written[name] = _thread(name, spec, locs, file, out)
    return out + _condition(raw, written, locs, file)


def _thread(name: str, spec: LDict, locs: list[str] | None, file: str, out: list[Problem]) -> set[str] | None:
    """Check one thread's ops; the registers it writes (None when a placeholder hides some)."""
    regs = spec.get("regs")
    written: set[str] | None = {k for k in regs if isinstance(k, str)} if isinstance(regs, LDict) else set()
    do = spec.get("do")
    if not isinstance(do, LList):
        return written
    return _ops(name, do, locs, file, out, written)


def _ops(name: str, do: LList, locs: list[str] | None, file: str, out: list[Problem],
         written: set[str] | None) -> set[str] | None:
    """Check a list of ops (a thread's, or a retry's) in order; the registers written so far."""
    for item, pos in zip(do, do.item_pos):
        if not isinstance(item, LDict) or len(item) != 1:
            if isinstance(item, str) and INNER.search(item):
                written = None  # a placeholder op: it may write any register
            continue
        op, args = next(iter(item.items()))
        if not isinstance(args, LDict):
            continue
        if op == "retry" and isinstance(args.get("do"), LList):
            written = _ops(name, args["do"], locs, file, out, written)
            continue
        where = lambda key: args.val_pos.get(key, pos)  # noqa: E731
        loc = args.get("loc")
        if locs is not None and _plain_name(loc) and loc not in locs:
            out.append(Problem(file, where("loc").line, where("loc").column,
                               msg.unknown_location(loc, str(op), name, locs)))
        if written is not None:
            for key in ("expected", "value"):
                value = args.get(key)
                for item in value if isinstance(value, list) else [value]:  # a vector store's values
                    for reg in _registers_read(item):
                        if reg not in written:
                            out.append(Problem(file, where(key).line, where(key).column,
                                               msg.register_before_write(reg, str(op), name)))
            reg = args.get("reg")
            if op in _WRITES_REG or INNER.search(str(op)):  # a "{kind}" op may write it
                written |= {r for r in (reg if isinstance(reg, list) else [reg]) if isinstance(r, str)}
    return written


def _condition(raw: LDict, written: dict[str, set[str] | None], locs: list[str] | None, file: str) -> list[Problem]:
    given = [k for k in CONDITION_KEYS if isinstance(raw.get(k), str)]
    if len(given) != 1 or INNER.search(raw[given[0]]):
        return []
    pos = raw.val_pos[given[0]]
    try:
        prop = parse_condition_or_error(raw[given[0]], file, pos.line)
    except LitmusError:
        return []  # the full check reports the syntax, once the shape is right
    out = []
    for term in terms(prop):
        if isinstance(term, ir.RegRef):
            if term.thread not in written:
                out.append(Problem(file, pos.line, pos.column, msg.unknown_thread(term.thread, list(written))))
            elif (regs := written[term.thread]) is not None and term.reg not in regs:
                out.append(Problem(file, pos.line, pos.column, msg.unwritten_register(term.thread, term.reg, sorted(regs))))
        elif isinstance(term, ir.LocRef) and locs is not None and term.loc not in locs:
            out.append(Problem(file, pos.line, pos.column, msg.undeclared_location(term.loc, locs)))
    return out


def _plain_name(value: Any) -> bool:
    return isinstance(value, str) and bool(_NAME.match(value))


def _registers_read(value: Any) -> list[str]:
    """Register names in a ``value``/``expected`` field: a name, or the names of an expression."""
    if not isinstance(value, str) or INNER.search(value):
        return []
    return [w for w in _WORD.findall(value) if not re.fullmatch(r"0x[0-9a-fA-F]+", w)]
