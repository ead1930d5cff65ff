"""Access widths in generated kernels: where each location's bytes lie, the Triton type of each
access, which registers are 64 bits wide, and how a round's raw int32 columns read back as the
model's values (docs/codegen.md, "Access widths").

Heap rule: every slot of every instance is one *unit* of ``Layout.unit_bytes`` bytes (8 when the
test has a 64-bit location, else 4), at unit index ``slot * loc_stride + i * inst_stride``; the
strides count units, so every unit (and every 64-bit location) is aligned to its size whatever
the strides are.  A location's bytes start at its unit; a view lies ``offset`` bytes into the
unit of the location it views; the bytes of a unit that no location covers stay 0.

Values: sized memory is unsigned (docs/format.md).  The model keeps the value of a name that is
the one granule of its location as written, and composes every other name unsigned
(``litmus.model.layout``); the read-back here does the same: a 32-bit location that is whole
reads as a signed int32 unless a constant written to it (or its ``init``) is at least ``2**31``.
"""

from __future__ import annotations

from litmus.codegen.layout import HI, Field, LocationSlot
from litmus.ir import Const, LitmusTest, Load, Rmw, Spin, Store

PLAIN = "int32"
"""The Triton element type of a location without ``bits:`` (signed 32-bit): the ``heap<r>`` pointers."""


def unsigned_names(test: LitmusTest) -> set[str]:
    """The location names whose values are unsigned (see the module docstring)."""
    if not test.uses_widths():
        return set()
    from litmus.model.layout import memory_layout

    layout = memory_layout(test)
    whole = layout.whole if layout is not None else frozenset()
    big: set[str] = set()
    for loc in test.locations:
        if loc.init >= 1 << 31:
            big.add(loc.name)
    for t in test.threads:
        for ins in t.instrs:
            for v in (getattr(ins, "value", None), getattr(ins, "expected", None)):
                if isinstance(ins, (Store, Rmw)) and isinstance(v, Const) and v.value >= 1 << 31:
                    big.add(ins.loc)
            if isinstance(ins, Spin) and ins.read.reset is not None and ins.read.reset >= 1 << 31:
                big.add(ins.loc)
    return {l.name for l in test.locations
            if l.bits != 32 or l.view_of is not None or l.name not in whole or l.name in big}


def slots(test: LitmusTest) -> tuple[tuple[LocationSlot, ...], int]:
    """Every location's slot (physical locations get slots in order; views and element views
    their base's slot and their offset) and the number of physical slots."""
    unsigned = unsigned_names(test)
    physical = [l for l in test.locations if l.view_of is None]
    slot_of = {l.name: k for k, l in enumerate(physical)}
    out = []
    for l in test.locations:
        base = l.view_of if l.view_of is not None else l.name
        out.append(LocationSlot(l.name, slot_of[base], l.home, l.init, l.bits, l.offset, l.view_of,
                                l.name in unsigned))
    return tuple(out), len(physical)


def unit_bytes(test: LitmusTest) -> int:
    """Bytes of one heap unit: 8 when some location has 64 bits, else 4."""
    return 8 if any(l.bits == 64 and l.view_of is None for l in test.locations) else 4


def dtype(loc: LocationSlot) -> str:
    """The Triton element type of the accesses to ``loc``: ``int32`` for a signed 32-bit
    location without ``bits:``, ``uint8`` .. ``uint64`` for sized memory."""
    if loc.bits == 32 and loc.physical and not loc.unsigned:
        return PLAIN
    return f"uint{loc.bits}"


def dtype_bits(name: str) -> int:
    """The width of a Triton integer type name (``uint16`` -> 16)."""
    return int(name.lstrip("uint"))


def unsigned_registers(test: LitmusTest, unsigned: set[str]) -> set[tuple[str, str]]:
    """``(thread, reg)`` of the registers some access to an unsigned name writes."""
    return {(t.name, ins.reg) for t in test.threads for ins in t.instrs
            if isinstance(ins, (Load, Rmw, Spin)) and ins.reg is not None and ins.loc in unsigned}


def out_columns(registers: tuple[str, ...], wide: set[tuple[str, str]]) -> tuple[str, ...]:
    """The register columns of ``out``: each register, and after a 64-bit one its high half."""
    cols: list[str] = []
    for key in registers:
        cols.append(key)
        if tuple(key.split(":", 1)) in wide:
            cols.append(key + HI)
    return tuple(cols)


def fields(test: LitmusTest, locations: tuple[LocationSlot, ...], reg_columns: tuple[str, ...],
           observables: tuple[str, ...]) -> tuple[Field, ...]:
    """How each observable reads back from the raw columns (register columns, then the memory
    words of ``Layout.memory_words``); empty for a test without widths."""
    if not test.uses_widths():
        return ()
    unsigned = {l.name for l in locations if l.unsigned}
    uregs = unsigned_registers(test, unsigned)
    col = {k: i for i, k in enumerate(reg_columns)}
    words: dict[str, int] = {}
    n = len(reg_columns)
    for l in locations:
        if l.physical:
            words[l.name] = n
            n += 2 if l.bits == 64 else 1
    by_name = {l.name: l for l in locations}
    out = []
    for key in observables:
        if ":" in key:
            if key + HI in col:
                out.append(Field(key, (col[key], col[key + HI]), 0, 64, False))
            else:
                out.append(Field(key, (col[key],), 0, 32, tuple(key.split(":", 1)) not in uregs))
            continue
        l = by_name[key]
        base = by_name[l.view_of] if l.view_of is not None else l
        first = words[base.name]
        cols = (first, first + 1) if base.bits == 64 else (first,)
        out.append(Field(key, cols, 8 * l.offset, l.bits, not l.unsigned))
    return tuple(out)


def fill_value(loc: LocationSlot, unit: int) -> int:
    """The signed integer of ``unit`` bytes (4 or 8) that puts ``loc``'s initial value in the
    low bytes of its unit (and 0 in the rest)."""
    v = loc.init & ((1 << loc.bits) - 1)
    bits = 8 * unit
    return v - (1 << bits) if v >= 1 << (bits - 1) else v
