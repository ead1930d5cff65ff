"""Granules: how the model cuts memory into the pieces its events access (docs/model.md,
"Access widths and single-copy atomicity").

PTX memory operations access byte ranges; reads-from and coherence are per byte.  The model
does not make one event per byte: it cuts each physical location into *granules*, the
partition of its bytes by every boundary of an access to it (through views and vector
elements) and by every 4-byte boundary (the 32-bit tear unit: an aligned 32-bit word that every
access covers whole is one granule, as litmus has always treated a 32-bit location).  A 4-byte
cut that no access makes is left out when the bytes on one side of it are *constant* (every
write puts their initial value back, e.g. the high half of a 64-bit flag that holds 0 or 1):
a tear there is invisible, and an execution in which those bytes read other writes than their
neighbours has a twin, with the same states and hangs, in which they read the same ones.  An
access becomes one event per granule it covers (its *pieces*), a read's register value being
the composite of its pieces' values.  A test without widths has one granule per location, named
after it: the events are exactly those of a test the model saw before widths existed.
"""

from __future__ import annotations

from dataclasses import dataclass

from litmus.errors import LitmusError
from litmus.ir import Const, Instr, LitmusTest, Load, Rmw, Spin, Store
from litmus.observables import wide_registers

TEAR_BYTES = 4
"""The model never cuts an aligned 32-bit word that no narrower access divides."""


@dataclass(frozen=True)
class Piece:
    """The part of a name's value held by one granule: ``bits`` bits at bit ``gbit`` of the
    granule's value, which are bits ``vbit ..`` of the name's value."""

    granule: str
    gbit: int
    vbit: int
    bits: int


@dataclass(frozen=True)
class Layout:
    """The granules of a test and how every location name maps onto them.

    ``granules``: every granule, in location order then by address (the initial writes come in
    this order); ``init``: granule -> initial value; ``pieces``: location name (aliases and
    views too) -> its pieces, lowest address first; ``extent``: name -> (physical location,
    byte offset, byte size); ``whole``: the names that are the one granule of their location
    (a whole 32-bit one keeps its values as written, signed as without ``bits:``; every other
    value is cut into its pieces' widths).
    """

    granules: tuple[str, ...]
    init: dict[str, int]
    pieces: dict[str, tuple[Piece, ...]]
    extent: dict[str, tuple[str, int, int]]
    whole: frozenset[str]
    wide: frozenset[str] = frozenset()  # "P0:r1" of the registers that hold 64 bits (values mod 2^64)

    def values(self, name: str, value: int) -> tuple[int, ...]:
        """The value each piece of an access to ``name`` writes when it writes ``value``: a whole
        32-bit location keeps it as written (signed, as a location without ``bits:`` holds it);
        every other access keeps the bits its width holds (a register stored to a byte keeps
        its low byte, as the hardware does)."""
        if name in self.whole and self.pieces[name][0].bits == 32:
            return (value,)
        return tuple((value >> p.vbit) & ((1 << p.bits) - 1) for p in self.pieces[name])

    def compose(self, name: str, granule_values: dict[str, int] | tuple[int, ...]) -> int:
        """The value of ``name`` from its granules' values (a mapping, or one value per piece)."""
        pieces = self.pieces[name]
        if isinstance(granule_values, tuple):
            vals = granule_values
        else:
            vals = tuple(granule_values[p.granule] for p in pieces)
        if name in self.whole:
            return vals[0]
        out = 0
        for p, v in zip(pieces, vals):
            out |= ((v >> p.gbit) & ((1 << p.bits) - 1)) << p.vbit
        return out


def memory_layout(test: LitmusTest, force: bool = False, merge: bool = True) -> Layout | None:
    """The granules of ``test``; None when it uses no widths (the model then works on whole
    locations, one event per access).  ``force`` builds one anyway and ``merge=False`` keeps every
    4-byte cut (the laws compare these with the default)."""
    widths = test.uses_widths()
    if not (force or widths):
        return None
    for l in test.locations:
        if l.alias_of is not None:
            if widths:
                raise LitmusError.at(test.source_file, l.line, f"{l.name} aliases {l.alias_of}: aliases and "
                                     "access widths in one test are not modelled; drop the widths or the alias")
            return None  # forced: a test with aliases is checked on whole locations
    extent: dict[str, tuple[str, int, int]] = {}
    for l in test.locations:
        base = test.location(l.view_of) if l.view_of is not None else l
        extent[l.name] = (base.name, l.offset if l.view_of is not None else 0, l.bits // 8)
    cuts: dict[str, set[int]] = {l.name: {0, l.bits // 8} for l in test.locations if l.view_of is None}
    writes: list[tuple[Instr, tuple[str, int, int]]] = []
    for t in test.threads:
        for i in t.instrs:
            if isinstance(i, (Load, Store, Rmw, Spin)) and i.loc in extent:
                base, off, size = extent[i.loc]
                cuts[base] |= {off, off + size}
                if not isinstance(i, Load):
                    writes.append((i, extent[i.loc]))
    for base, points in cuts.items():  # the 32-bit tear unit, where a tear could be seen
        bounds = sorted(points)
        init = test.location(base).init
        for a, b in zip(bounds, bounds[1:]):
            for c in range(a + TEAR_BYTES - a % TEAR_BYTES, b, TEAR_BYTES):
                if not (merge and (_constant(writes, init, base, a, c) or _constant(writes, init, base, c, b))):
                    points.add(c)
    granules: list[str] = []
    spans: dict[str, list[tuple[str, int, int]]] = {}  # base -> (granule, offset, size)
    init: dict[str, int] = {}
    for base, points in cuts.items():
        bounds = sorted(points)
        loc = test.location(base)
        if len(bounds) == 2:
            spans[base] = [(base, 0, bounds[1])]
            granules.append(base)
            init[base] = loc.init
            continue
        spans[base] = []
        for lo, hi in zip(bounds, bounds[1:]):
            g = f"{base}+{lo}:{hi}"
            spans[base].append((g, lo, hi - lo))
            granules.append(g)
            init[g] = (loc.init >> (8 * lo)) & ((1 << (8 * (hi - lo))) - 1)
    pieces: dict[str, tuple[Piece, ...]] = {}
    for name, (base, off, size) in extent.items():
        out = []
        for g, goff, gsize in spans[base]:
            lo, hi = max(off, goff), min(off + size, goff + gsize)
            if lo < hi:
                out.append(Piece(g, 8 * (lo - goff), 8 * (lo - off), 8 * (hi - lo)))
        pieces[name] = tuple(out)
    whole = frozenset(name for name, (base, off, size) in extent.items()
                      if len(spans[base]) == 1 and off == 0 and size == spans[base][0][2])
    wide = frozenset(f"{t}:{r}" for t, r in wide_registers(test, {l.name: l.bits for l in test.locations}))
    return Layout(tuple(granules), init, pieces, extent, whole, wide)


def _constant(writes: list[tuple[Instr, tuple[str, int, int]]], init: int, base: str, lo: int, hi: int) -> bool:
    """Whether every write to bytes ``[lo, hi)`` of ``base`` provably puts their initial value
    back (stores and exchanges of constants, or-ing or xor-ing zeros there, and-ing ones, CAS
    resets of spins); anything computed counts as not constant."""
    mask = (1 << (8 * (hi - lo))) - 1
    want = (init >> (8 * lo)) & mask
    for i, (b, off, size) in writes:
        if b != base or off >= hi or off + size <= lo:
            continue

        def part(v: int) -> int:
            return (v >> (8 * (lo - off))) & mask

        if isinstance(i, Store):
            ok = isinstance(i.value, Const) and part(i.value.value) == want
        elif isinstance(i, Rmw):
            v = i.value.value if isinstance(i.value, Const) else None
            ok = v is not None and ((i.op in ("exch", "cas") and part(v) == want) or (i.op in ("or", "xor") and part(v) == 0)
                                    or (i.op == "and" and part(v) == mask))
        else:  # a spin: it writes only as a CAS with a reset
            ok = not (isinstance(i, Spin) and i.read.kind == "cas" and i.read.reset is not None
                      and part(i.read.reset) != want)
        if not ok:
            return False
    return True
