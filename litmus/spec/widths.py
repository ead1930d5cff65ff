"""Access widths in a pattern: the declared locations with their ``bits`` and views (checked),
the element views vector accesses make, and the range checks of values stored to sized memory.

A location with ``bits:`` or a view is *sized*: its values are unsigned and must fit its width
(a location without ``bits:`` holds 32-bit signed values, unchecked).  See
docs/format.md, "Locations" and "Vector accesses".
"""

from __future__ import annotations

from typing import Any, Callable

from litmus import ir
from litmus.spec import documents as m
from litmus.spec.shape import suggest
from litmus.spec.yamlpos import LDict, LList, Pos

Report = Callable[[Pos, str], None]


class Memory:
    """The locations of one variant: the declared ones and the element views of its vector
    accesses (made on demand, in order of first use), and which names are sized."""

    def __init__(self, declared: tuple[ir.Location, ...], sized: set[str]):
        self.declared = {l.name: l for l in declared}
        self.sized = sized
        self.elements: dict[str, ir.Location] = {}
        self.groups = 0

    def names(self) -> list[str]:
        """The declared location names, in order (what ops and the condition may name)."""
        return list(self.declared)

    def bits(self, name: str) -> int:
        """The width of a declared location or view."""
        return self.declared[name].bits

    def group(self) -> int:
        """A fresh vector group number (unique in the test)."""
        self.groups += 1
        return self.groups

    def element(self, name: str, vec: int, index: int, line: int | None) -> str:
        """The element view of element ``index`` of a ``vec``-element access to ``name``."""
        loc = self.declared[name]
        ename = ir.element_name(name, vec, index)
        if ename not in self.elements:
            size = loc.bits // vec
            base = self.declared.get(loc.view_of, loc) if loc.view_of is not None else loc
            offset = loc.offset + index * size // 8
            self.elements[ename] = ir.Location(ename, _slice(base.init, offset, size), base.home, line,
                                               bits=size, view_of=base.name, offset=offset)
        return ename

    def all(self) -> tuple[ir.Location, ...]:
        """Every location of the variant: the declared ones, then the element views."""
        return tuple(self.declared.values()) + tuple(self.elements.values())


def _slice(value: int, offset: int, bits: int) -> int:
    """Bits ``[8*offset, 8*offset + bits)`` of ``value`` (little-endian bytes), unsigned."""
    return (value >> (8 * offset)) & ((1 << bits) - 1)


def declared_locations(doc: m.PatternDoc, raw: LDict, report: Report) -> Memory:
    """The IR of ``locations:``: plain locations and views, each view checked (known base that is
    no view, aligned, inside its base, no init or home of its own), initial values of sized
    locations checked against their width."""
    raw_locs: LDict = raw["locations"]
    specs = doc.locations
    sized: set[str] = set()
    plain: dict[str, ir.Location] = {}
    views: list[tuple[str, m.LocationFull]] = []
    for name, spec in specs.items():
        line = raw_locs.key_pos[name].line
        if not isinstance(spec, m.LocationFull):
            plain[name] = ir.Location(name, int(spec), 0, line)  # type: ignore[arg-type]
            continue
        if spec.view is not None:
            views.append((name, spec))
            continue
        bits = int(spec.bits)  # type: ignore[arg-type]
        if "bits" in spec.model_fields_set:
            sized.add(name)
            _check_fits(int(spec.init), bits, f"the initial value of {name}", _pos(raw_locs, name, "init"), report)
        plain[name] = ir.Location(name, int(spec.init), int(spec.home), line, bits=bits)
    out = dict(plain)
    for name, spec in views:
        out[name] = _view(name, spec, specs, plain, raw_locs, report)
        sized.add(name)
    # keep the declaration order
    return Memory(tuple(out[n] for n in specs if n in out), sized)


def _pos(raw_locs: LDict, name: str, key: str, of_key: bool = False) -> Pos:
    entry = raw_locs.get(name)
    if isinstance(entry, LDict) and key in entry:
        return entry.key_pos[key] if of_key else entry.val_pos[key]
    return raw_locs.key_pos[name]


def _view(name: str, spec: m.LocationFull, specs: dict[str, Any], plain: dict[str, ir.Location],
          raw_locs: LDict, report: Report) -> ir.Location:
    """The IR of view ``name``, after reporting what is wrong with it (a wrong view still gets a
    location, so that its uses do not add errors of their own; the pattern does not load)."""
    base_name = str(spec.view)
    bits = int(spec.bits)  # type: ignore[arg-type]
    offset = int(spec.offset)  # type: ignore[arg-type]
    line = raw_locs.key_pos[name].line
    stub = ir.Location(name, 0, 0, line, bits=bits)
    for key in ("init", "home"):
        if key in spec.model_fields_set:
            report(_pos(raw_locs, name, key, of_key=True),
                   f"view {name} has no {key} of its own: its bytes are {base_name}'s; remove {key}: "
                   f"(set it on {base_name})")
    where = _pos(raw_locs, name, "view")
    if base_name == name:
        report(where, f"view {name} names itself; a view names bytes of another location")
        return stub
    base_spec = specs.get(base_name)
    if base_spec is None:
        report(where, f"view {name} is a view of unknown location '{base_name}'"
               + suggest(base_name, [n for n in specs if n != name], "declare it under locations:"))
        return stub
    if isinstance(base_spec, m.LocationFull) and base_spec.view is not None:
        report(where, f"view {name} is a view of {base_name}, which is itself a view (of {base_spec.view}); "
                      f"make {name} a view of {base_spec.view} with the offset counted from there")
        return stub
    base = plain[base_name]
    size = bits // 8
    if offset % size:
        report(_pos(raw_locs, name, "offset"),
               f"view {name}: offset {offset} is not a multiple of its size ({size} bytes); a {bits}-bit view "
               f"must be aligned (offset 0, {size}, {2 * size}, ...)")
        return stub
    if offset + size > base.bits // 8:
        report(_pos(raw_locs, name, "offset") if "offset" in spec.model_fields_set else where,
               f"view {name}: bytes {offset} to {offset + size - 1} lie outside {base_name}, which has "
               f"{base.bits // 8} bytes ({base.bits} bits); make {base_name} wider (bits:) or the view "
               f"narrower")
        return stub
    return ir.Location(name, _slice(base.init, offset, bits), base.home, line, bits=bits, view_of=base_name,
                       offset=offset)


def _check_fits(value: int, bits: int, what: str, pos: Pos, report: Report) -> bool:
    if 0 <= value < (1 << bits):
        return True
    report(pos, f"{what}: {value} does not fit {bits} bits; values of sized memory (locations with bits:, "
                f"views, vector elements) are unsigned, 0 to {(1 << bits) - 1:#x}")
    return False


def check_constants(values: list[tuple[ir.Operand | None, Pos]], bits: int, what: str, report: Report) -> bool:
    """Whether every integer among ``values`` fits ``bits`` unsigned bits (reporting those that do not)."""
    ok = True
    for v, pos in values:
        if isinstance(v, ir.Const):
            ok = _check_fits(v.value, bits, what, pos, report) and ok
    return ok


def item_pos(raw: LDict, key: str, index: int, default: Pos) -> Pos:
    """The position of item ``index`` of the list under ``key``, else of the value, else ``default``."""
    value = raw.get(key)
    if isinstance(value, LList) and index < len(value.item_pos):
        return value.item_pos[index]
    return raw.val_pos.get(key, default)


def vector_locations(memory: Memory, op: str, loc: str, vec: int | None, given: Any, key: str,
                     raw: LDict, pos: Pos, thread: str, report: Report) -> list[str] | None:
    """The location of each element an access of ``op`` to ``loc`` makes: ``[loc]`` for a scalar
    access, the element views for ``vec: N``; None after reporting a mismatch between ``vec`` and
    the ``key`` field (``value`` or ``reg``), whose value is ``given``."""
    noun = "values" if key == "value" else "registers"
    where = raw.val_pos.get(key, pos)
    if vec is None:
        if isinstance(given, list):
            add = (f"add vec: {len(given)} (a vector of {len(given)} elements), or" if len(given) in ir.VECTOR_SIZES
                   else f"a vector has {' or '.join(map(str, ir.VECTOR_SIZES))} elements;")
            report(where, f"{key} of {op} in {thread} is a list, which only a vector access (vec:) takes; "
                          f"{add} give one {noun[:-1]}")
            return None
        return [loc]
    bits = memory.bits(loc)
    size = bits // vec
    if size < 8:
        fit = [n for n in ir.VECTOR_SIZES if bits // n >= 8]
        use = f"use vec: {fit[-1]} or fewer" if fit else "access it as a scalar"
        report(raw.val_pos.get("vec", pos),
               f"vec: {vec} on {loc} ({bits} bits) would make {size}-bit elements; elements are at least "
               f"8 bits: {use}, or make {loc} wider")
        return None
    if not isinstance(given, list) or len(given) != vec:
        got = f"a list of {len(given)}" if isinstance(given, list) else repr(given)
        report(where, f"{op} in {thread} with vec: {vec} takes {key}: a list of {vec} {noun}, one per "
                      f"element ({size} bits each, element 0 at the lowest address); got {got}")
        return None
    if key == "reg" and len(set(given)) != len(given):
        twice = next(r for r in given if given.count(r) > 1)
        report(where, f"{op} in {thread} writes register '{twice}' twice; a vector load needs one register "
                      "per element")
        return None
    return [memory.element(loc, vec, i, pos.line) for i in range(vec)]
