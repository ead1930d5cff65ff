"""One cell of a PTX ``.litmus`` program (``ld.acquire.gpu r1, y``) -> one :mod:`litmus.ir` instruction.

Syntax follows Dat3M's ``LitmusPTX`` grammar, plus a few spellings of real PTX:

=====================================  =======================================================
cell                                   IR
=====================================  =======================================================
``ld.weak r, x``                       ``Load(r, x, "weak")``  (weak takes no scope)
``ld.<relaxed|acquire>.<scope> r, x``  ``Load(r, x, sem, scope)``
``ld.volatile r, x``                   ``Load(r, x, "relaxed", "sys", volatile=True)``
``ld r, v`` / ``ld.<sem> r, 3``        ``Compute(r, "mov", v)`` (register move, no memory event)
``mov r, v``                           ``Compute(r, "mov", v)``
``st.weak x, v`` / ``st.<relaxed|release>.<scope> x, v`` / ``st.volatile x, v``  ``Store``
``atom.<sem>.<scope>.<op> r, x, v``    ``Rmw(op, r, x, v)``; ``sub`` by a constant c is
                                       ``add`` of ``-c`` (the IR has no ``sub`` RMW)
``atom.<sem>.<scope>.cas r, x, e, v``  ``Rmw("cas", r, x, value=v, expected=e)``
``red.<sem>.<scope>.<op> x, v``        ``Rmw(op, None, x, v)``  (``red...cas x, e, v`` and
                                       ``red...exch x, v`` are accepted: litmus writes them
                                       for an RMW whose old value is not kept)
``fence.<acq_rel|sc>.<scope>``         ``Fence(sem, scope)``; ``membar.<cta|gl|sys>`` = fence.sc
``fence.proxy.<kind>``                 ``ProxyFence(kind)``: generic, texture, surface, constant, alias
``tld``/``suld``/``cold``, ``sust``,   ``Load``/``Store``/``Rmw`` with ``proxy`` texture, surface,
``suatom``/``sured``                   constant (the generic forms have ``proxy="generic"``)
``bar[.cta].<sync|arrive> a[, b[, q]]``  ``Barrier(a, b, arrive, quorum=q)`` (also ``barrier...``)
``add|sub|mul|and|or|xor r, a, b``     ``Compute(r, op, a, b)`` (also ``shl``/``shr``)
``beq|bne|blt|ble|bgt|bge a, b, L``    ``Branch(L, cond, a, b)``;  ``goto L`` / ``bra L``
``L:``                                 ``Label(L)``
=====================================  =======================================================

Everything else (``atom.volatile``, ``div``, unknown
opcodes or qualifiers) raises :class:`~litmus.errors.UnsupportedError` or
:class:`~litmus.errors.LitmusError` naming file, line and column.
"""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass

from litmus.errors import LitmusError, UnsupportedError
from litmus.ir import (
    COMPUTE_OPS,
    FENCE_SEMS,
    LOAD_SEMS,
    RMW_OPS,
    RMW_SEMS,
    SCOPES,
    STORE_SEMS,
    Barrier,
    Branch,
    Compute,
    Const,
    Fence,
    Instr,
    Label,
    Load,
    Operand,
    ProxyFence,
    PROXY_FENCE_KINDS,
    Reg,
    Rmw,
    Store,
)

IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
INT = re.compile(r"[+-]?\d+\Z|0x[0-9a-fA-F]+\Z")


def int_value(text: str) -> int:
    """The integer written ``text`` (decimal, or ``0x`` hex as LitmusAssertions.g4 allows)."""
    return int(text, 16) if text.startswith("0x") else int(text)

BRANCH_CONDS: dict[str, str] = {
    "beq": "eq", "bne": "ne", "blt": "lt", "ble": "le", "bgt": "gt", "bge": "ge"
}
# COMPUTE_OPS (litmus.ir): ``shl``/``shr`` are litmus's extension (YAML register expressions);
# Dat3M's corpus has none.
MEMBAR_SCOPES: dict[str, str] = {"cta": "cta", "gl": "gpu", "sys": "sys"}
# Dat3M's proxy opcodes -> (generic opcode, proxy)
PROXY_OPCODES: dict[str, tuple[str, str]] = {
    "tld": ("ld", "texture"), "suld": ("ld", "surface"), "cold": ("ld", "constant"),
    "sust": ("st", "surface"), "suatom": ("atom", "surface"), "sured": ("red", "surface"),
}
# atom/red operations: the IR's, plus Dat3M's sub (by a constant).  red.cas / red.exch are
# litmus's spelling of an RMW whose old value is not kept.
ATOM_OPS: tuple[str, ...] = RMW_OPS + ("sub",)


@dataclass(frozen=True)
class Cell:
    """The text of one program cell, stripped, with where it starts in the file."""

    text: str
    file: str
    line: int
    column: int  # 1-based column of text[0]


@dataclass(frozen=True)
class _Arg:
    text: str
    column: int


def _error(cell: Cell, message: str, column: int | None = None) -> LitmusError:
    return LitmusError.at(cell.file, cell.line, message, column or cell.column)


def _unsupported(cell: Cell, message: str, column: int | None = None) -> UnsupportedError:
    return UnsupportedError.at(cell.file, cell.line, message, column or cell.column)


def _split_args(cell: Cell, start: int) -> list[_Arg]:
    """Comma-separated operands of ``cell.text[start:]``, each with its file column."""
    rest = cell.text[start:]
    if rest.strip() == "":
        return []
    args: list[_Arg] = []
    offset = start
    for piece in rest.split(","):
        lead = len(piece) - len(piece.lstrip())
        args.append(_Arg(piece.strip(), cell.column + offset + lead))
        offset += len(piece) + 1
    return args


def _want(cell: Cell, opcode: str, args: list[_Arg], n: int, shape: str) -> None:
    if len(args) != n:
        raise _error(cell, f"{opcode} takes {n} operand(s) ({shape}), found {len(args)}")
    for a in args:
        if a.text == "":
            raise _error(cell, f"empty operand in {opcode} ({shape})", a.column)


def _reg(cell: Cell, arg: _Arg) -> str:
    if not IDENT.match(arg.text):
        raise _error(cell, f"expected a register name, found {arg.text!r}", arg.column)
    return arg.text


def _loc(cell: Cell, arg: _Arg) -> str:
    if not IDENT.match(arg.text):
        raise _error(cell, f"expected a location name, found {arg.text!r}", arg.column)
    return arg.text


def _value(cell: Cell, arg: _Arg) -> Operand:
    if INT.match(arg.text):
        return Const(int_value(arg.text))
    if IDENT.match(arg.text):
        return Reg(arg.text)
    raise _error(cell, f"expected an integer or a register, found {arg.text!r}", arg.column)


def _label(cell: Cell, arg: _Arg) -> str:
    if not IDENT.match(arg.text):
        raise _error(cell, f"expected a label name, found {arg.text!r}", arg.column)
    return arg.text


def _sem_scope(
    cell: Cell, opcode: str, quals: list[str], sems: tuple[str, ...], kind: str
) -> tuple[str, str]:
    """``[sem]`` or ``[sem, scope]`` of a ld/st: weak takes no scope, the others need one."""
    sem = quals[0]
    if sem not in sems:
        raise _error(cell, f"{kind} does not take memory order .{sem} in {opcode!r} "
                           f"(allowed: {', '.join(sems)}, volatile)")
    if sem == "weak":
        if len(quals) > 1:
            raise _error(cell, f"a weak {kind} takes no scope: write '{kind}.weak', not {opcode!r}")
        return "weak", "sys"
    if len(quals) == 1:
        raise _error(cell, f"{opcode!r} needs a scope: write {opcode}.cta, {opcode}.gpu or {opcode}.sys")
    scope = quals[1]
    if scope not in SCOPES:
        raise _error(cell, f"unknown scope .{scope} in {opcode!r} (cta, gpu, sys)")
    if len(quals) > 2:
        raise _unsupported(cell, f"qualifier .{quals[2]} in {opcode!r} is not supported")
    return sem, scope


def _with_proxy(instr: Instr, proxy: str) -> Instr:
    """``instr`` performed through ``proxy`` (a register move stays a move)."""
    if proxy == "generic" or not isinstance(instr, (Load, Store, Rmw)):
        return instr
    return dataclasses.replace(instr, proxy=proxy)


def parse_instruction(cell: Cell) -> Instr:
    """The IR instruction written in ``cell`` (non-empty); ``line`` is the cell's line."""
    text = cell.text
    if text.endswith(":"):
        name = text[:-1].strip()
        if not IDENT.match(name):
            raise _error(cell, f"bad label {text!r}: a label is a name followed by ':'")
        return Label(name, line=cell.line)
    m = re.match(r"[A-Za-z_][A-Za-z0-9_.]*", text)
    if not m:
        raise _error(cell, f"expected an instruction, found {text!r}")
    opcode = m.group(0)
    if m.end() < len(text) and not text[m.end()].isspace():
        raise _error(cell, f"unexpected {text[m.end()]!r} after {opcode!r}", cell.column + m.end())
    head, *quals = opcode.split(".")
    args = _split_args(cell, m.end())
    head, proxy = PROXY_OPCODES.get(head, (head, "generic"))
    handler = _HANDLERS.get(head)
    if handler is None:
        raise _unsupported(cell, f"unknown instruction {opcode!r}")
    return _with_proxy(handler(cell, opcode, quals, args), proxy)


def _ld(cell: Cell, opcode: str, quals: list[str], args: list[_Arg]) -> Instr:
    _want(cell, opcode, args, 2, "register, location")
    reg = _reg(cell, args[0])
    if not quals:  # Dat3M: `ld r0, v` moves a value into a register
        return Compute(reg, "mov", _value(cell, args[1]), line=cell.line)
    if quals == ["volatile"]:
        return Load(reg, _loc(cell, args[1]), "relaxed", "sys", volatile=True, line=cell.line)
    sem, scope = _sem_scope(cell, opcode, quals, LOAD_SEMS, "ld")
    if INT.match(args[1].text):  # Dat3M: `ld.weak r0, 1` is a register move too
        return Compute(reg, "mov", Const(int_value(args[1].text)), line=cell.line)
    return Load(reg, _loc(cell, args[1]), sem, scope, line=cell.line)


def _st(cell: Cell, opcode: str, quals: list[str], args: list[_Arg]) -> Instr:
    _want(cell, opcode, args, 2, "location, value")
    if not quals:
        raise _error(cell, f"{opcode!r} needs a memory order: write st.weak, st.relaxed.<scope>, "
                           "st.release.<scope> or st.volatile")
    loc, value = _loc(cell, args[0]), _value(cell, args[1])
    if quals == ["volatile"]:
        return Store(loc, value, "relaxed", "sys", volatile=True, line=cell.line)
    sem, scope = _sem_scope(cell, opcode, quals, STORE_SEMS, "st")
    return Store(loc, value, sem, scope, line=cell.line)


def _rmw_quals(cell: Cell, opcode: str, quals: list[str], ops: tuple[str, ...]) -> tuple[str, str, str]:
    if "volatile" in quals:
        raise _unsupported(cell, f"{opcode!r}: .volatile on an atomic is not supported")
    if len(quals) != 3:
        raise _error(cell, f"{opcode!r}: write {opcode.split('.')[0]}.<sem>.<scope>.<op> "
                           "(sem relaxed/acquire/release/acq_rel, scope cta/gpu/sys)")
    sem, scope, op = quals
    if sem not in RMW_SEMS:
        raise _error(cell, f"{opcode!r}: memory order .{sem} is not one of {', '.join(RMW_SEMS)}")
    if scope not in SCOPES:
        raise _error(cell, f"{opcode!r}: unknown scope .{scope} (cta, gpu, sys)")
    if op not in ops:
        raise _unsupported(cell, f"{opcode!r}: operation .{op} is not supported "
                                 f"(supported: {', '.join(ops)})")
    return sem, scope, op


def _sub_as_add(cell: Cell, opcode: str, arg: _Arg, value: Operand) -> Operand:
    if isinstance(value, Reg):
        raise _unsupported(cell, f"{opcode!r}: .sub by a register is not supported "
                                 "(the IR has no sub RMW; .sub by a constant reads as .add of "
                                 "its negation)", arg.column)
    return Const(-value.value)


def _atom(cell: Cell, opcode: str, quals: list[str], args: list[_Arg]) -> Instr:
    sem, scope, op = _rmw_quals(cell, opcode, quals, ATOM_OPS)
    if op == "cas":
        _want(cell, opcode, args, 4, "register, location, expected, new")
        return Rmw("cas", _reg(cell, args[0]), _loc(cell, args[1]), _value(cell, args[3]),
                   expected=_value(cell, args[2]), sem=sem, scope=scope, line=cell.line)
    _want(cell, opcode, args, 3, "register, location, value")
    value = _value(cell, args[2])
    if op == "sub":
        op, value = "add", _sub_as_add(cell, opcode, args[2], value)
    return Rmw(op, _reg(cell, args[0]), _loc(cell, args[1]), value, sem=sem, scope=scope,
               line=cell.line)


def _red(cell: Cell, opcode: str, quals: list[str], args: list[_Arg]) -> Instr:
    sem, scope, op = _rmw_quals(cell, opcode, quals, ATOM_OPS)
    if op == "cas":
        _want(cell, opcode, args, 3, "location, expected, new")
        return Rmw("cas", None, _loc(cell, args[0]), _value(cell, args[2]),
                   expected=_value(cell, args[1]), sem=sem, scope=scope, line=cell.line)
    _want(cell, opcode, args, 2, "location, value")
    value = _value(cell, args[1])
    if op == "sub":
        op, value = "add", _sub_as_add(cell, opcode, args[1], value)
    return Rmw(op, None, _loc(cell, args[0]), value, sem=sem, scope=scope, line=cell.line)


def _fence(cell: Cell, opcode: str, quals: list[str], args: list[_Arg]) -> Instr:
    if args:
        raise _error(cell, f"{opcode!r} takes no operands", args[0].column)
    if quals[:1] == ["proxy"]:
        if len(quals) != 2 or quals[1] not in PROXY_FENCE_KINDS:
            raise _error(cell, f"{opcode!r}: write fence.proxy.<{'|'.join(PROXY_FENCE_KINDS)}>")
        return ProxyFence(quals[1], line=cell.line)
    if len(quals) != 2 or quals[0] not in FENCE_SEMS or quals[1] not in SCOPES:
        raise _error(cell, f"{opcode!r}: write fence.<acq_rel|sc>.<cta|gpu|sys>")
    return Fence(quals[0], quals[1], line=cell.line)


def _membar(cell: Cell, opcode: str, quals: list[str], args: list[_Arg]) -> Instr:
    if args:
        raise _error(cell, f"{opcode!r} takes no operands", args[0].column)
    if len(quals) != 1 or quals[0] not in MEMBAR_SCOPES:
        raise _error(cell, f"{opcode!r}: write membar.cta, membar.gl or membar.sys")
    return Fence("sc", MEMBAR_SCOPES[quals[0]], line=cell.line)


def _bar(cell: Cell, opcode: str, quals: list[str], args: list[_Arg]) -> Instr:
    mode = quals[1:] if quals[:1] == ["cta"] else quals
    if mode not in (["sync"], ["arrive"]):
        raise _unsupported(cell, f"{opcode!r} is not supported: write bar.cta.sync id[, count] "
                                 "or bar.cta.arrive id[, count]")
    if len(args) not in (1, 2, 3):
        raise _error(cell, f"{opcode} takes a barrier instance, then optionally a barrier id and "
                           f"a quorum (bar.cta.sync a[, b[, q]]), found {len(args)} operand(s)")
    values = [_value(cell, a) for a in args]
    return Barrier(values[0], values[1] if len(values) >= 2 else None,
                   arrive=mode == ["arrive"], line=cell.line,
                   quorum=values[2] if len(values) == 3 else None)


def _compute(cell: Cell, opcode: str, quals: list[str], args: list[_Arg]) -> Instr:
    if quals:
        raise _unsupported(cell, f"{opcode!r}: qualifiers on register arithmetic are not supported")
    _want(cell, opcode, args, 3, "destination, a, b")
    return Compute(_reg(cell, args[0]), opcode, _value(cell, args[1]),  # type: ignore[arg-type]
                   _value(cell, args[2]), line=cell.line)


def _mov(cell: Cell, opcode: str, quals: list[str], args: list[_Arg]) -> Instr:
    if quals:
        raise _unsupported(cell, f"{opcode!r}: qualifiers on mov are not supported")
    _want(cell, opcode, args, 2, "destination, value")
    return Compute(_reg(cell, args[0]), "mov", _value(cell, args[1]), line=cell.line)


def _branch(cell: Cell, opcode: str, quals: list[str], args: list[_Arg]) -> Instr:
    if quals:
        raise _unsupported(cell, f"{opcode!r}: qualifiers on branches are not supported")
    _want(cell, opcode, args, 3, "a, b, label")
    return Branch(_label(cell, args[2]), BRANCH_CONDS[opcode],  # type: ignore[arg-type]
                  _value(cell, args[0]), _value(cell, args[1]), line=cell.line)


def _goto(cell: Cell, opcode: str, quals: list[str], args: list[_Arg]) -> Instr:
    if quals:
        raise _unsupported(cell, f"{opcode!r}: qualifiers on branches are not supported")
    _want(cell, opcode, args, 1, "label")
    return Branch(_label(cell, args[0]), line=cell.line)


def _div(cell: Cell, opcode: str, quals: list[str], args: list[_Arg]) -> Instr:
    raise _unsupported(cell, f"{opcode!r}: register division is not supported "
                             "(the IR has add, sub, mul, and, or, xor)")


_HANDLERS = {
    "ld": _ld,
    "st": _st,
    "atom": _atom,
    "red": _red,
    "fence": _fence,
    "membar": _membar,
    "bar": _bar,
    "barrier": _bar,
    "mov": _mov,
    "goto": _goto,
    "bra": _goto,
    "div": _div,
    **{op: _compute for op in COMPUTE_OPS},
    **{b: _branch for b in BRANCH_CONDS},
}
