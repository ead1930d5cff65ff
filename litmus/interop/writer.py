"""Write any :class:`litmus.ir.LitmusTest` as a PTX ``.litmus`` file (the format :mod:`.reader` reads).

Everything the catalog uses is written in the syntax Dat3M's ``LitmusPTX.g4`` accepts, and reads
back identically; what the grammar cannot spell travels in the description
(:mod:`litmus.interop.metadata`):

- ``variant``: written into the header as ``PTX NAME[variant]`` (read back into ``variant``).
- location homes: a description line ``homes: x@1 flag@0`` when some home is not 0.
- volatile accesses: written ``relaxed.sys`` (their meaning), marked ``P0:volatile@N`` on the
  ``litmus:`` line.
- :class:`~litmus.ir.Spin`: written as a loop ``LCnn: <read> ; bne r, until, LCnn`` (a CAS
  spin reads with ``atom.<sem>.<scope>.cas r, x, until, reset``; another exit comparison loops
  on its negation, ``beq``/``bge``/...; a mask adds ``and m, r, mask`` and branches on ``m``),
  marked ``P0:spin@N:BOUND:REG``
  so that the reader folds the loop back into the ``Spin`` (bound and register included).
- an RMW that keeps no old value, other than ``red`` of an arithmetic op: written as ``atom``
  into a scratch register, marked ``P0:noreg@N``.
- proxies: ``tld``/``suld``/``cold``/``sust``/``suatom``/``sured``, ``fence.proxy.<kind>``,
  ``y @ <proxy> aliases x`` in the init block; a barrier's quorum as its third operand.  The
  async proxy has no ``.litmus`` form (an error).
- outside the grammar, for tests only the reader needs to read: ``and``/``or``/``xor`` register
  arithmetic, ``min``/``max``/``inc``/``dec`` RMWs, ``true`` conditions, registers not named
  ``r<N>`` and labels not named ``LC<N>`` are written in the reader's wider dialect.
- dropped: ``title``, ``origin``, ``tags``, ``params``, ``expect``, ``source_file``,
  ``source_line``, all ``line`` numbers, the scope of weak accesses (always ``sys``), and
  ``"`` and braces in the description (written as ``'`` and parentheses).
  :func:`litmus.interop.normalize_for_roundtrip` clears exactly these.
"""

from __future__ import annotations

import dataclasses
import re

from litmus.condition import format_prop, kind_text
from litmus.errors import LitmusError
from litmus.interop.instructions import IDENT
from litmus.interop.metadata import (
    Annotation,
    header_safe,
    is_annotations_line,
    is_homes_line,
    join_description,
)
from litmus.ir import (
    RMW_OPS,
    SPIN_LOOP_BRANCH,
    Barrier,
    Branch,
    Compute,
    Fence,
    Instr,
    Label,
    LitmusTest,
    Load,
    Operand,
    ProxyFence,
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
    _check_widths(test)
    _check_names(test)
    notes: list[str] = []
    annotations: list[Annotation] = []
    columns = [_thread_lines(test, t, annotations) for t in test.threads]
    homes = {loc.name: loc.home for loc in test.locations}
    description = join_description(
        header_safe(test.description), homes if any(homes.values()) else {}, notes, annotations
    )
    header = f"PTX {test.name}[{test.variant}]" if test.variant else f"PTX {test.name}"
    out = [header]
    if description:
        out += [f'"{line}"' for line in description.split("\n")]
    out.append("{")
    for loc in test.locations:
        if loc.alias_of is None:
            out.append(f"{loc.name}={loc.init};")
        else:
            out.append(f"{loc.name} @ {loc.alias_proxy} aliases {loc.alias_of};")
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


def _check_widths(test: LitmusTest) -> None:
    """Access widths, views and vectors have no .litmus form here: a located error."""
    if not test.uses_widths():
        return
    fix = "not expressible in .litmus (the writer has 32-bit locations only); check it from the YAML"
    for loc in test.locations:
        if loc.view_of is not None or loc.bits != 32:
            what = f"view {loc.name} of {loc.view_of}" if loc.view_of is not None else f"{loc.bits}-bit location {loc.name}"
            raise LitmusError.at(test.source_file, loc.line, f"cannot write {test.id} as a PTX .litmus file: {what} is {fix}")
    for t in test.threads:
        for i in t.instrs:
            if getattr(i, "group", None) is not None:
                raise LitmusError.at(test.source_file, getattr(i, "line", None),
                                     f"cannot write {test.id} as a PTX .litmus file: the vector access of {t.name} is {fix}")


def _check_names(test: LitmusTest) -> None:
    if not test.name or re.search(r"[\s\[\]{}\"]", test.name):
        raise _fail(test, f"the name {test.name!r} must be non-empty, without spaces, "
                          "brackets, braces or quotes")
    if re.search(r"[\s\[\]{}\"]", test.variant):
        raise _fail(test, f"the variant {test.variant!r} must have no spaces, brackets, "
                          "braces or quotes")
    if any(is_homes_line(line) or is_annotations_line(line) for line in test.description.split("\n")):
        raise _fail(test, "the description has a line starting 'homes:' or 'litmus:', which are reserved")
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


def _access(kind: str, sem: str, scope: str) -> str:
    if sem == "weak":
        return f"{kind}.weak"
    return f"{kind}.{sem}.{scope}"


def _thread_lines(test: LitmusTest, t: Thread, annotations: list[Annotation]) -> list[str]:
    """The cells of thread ``t``'s column, one per instruction the reader will build; spins
    expanded, and what the grammar cannot spell added to ``annotations``."""
    labels = {i.name for i in t.instrs if isinstance(i, Label)}
    regs = _registers(t)
    scratch: str | None = None
    cells: list[str] = []
    for instr in t.instrs:
        k = len(cells)
        if isinstance(instr, Spin):
            label = _fresh("LC", labels)
            reg = instr.reg or _fresh("r", regs)
            labels.add(label)
            regs.add(reg)
            masked = None
            if instr.mask is not None:
                masked = _fresh("r", regs)
                regs.add(masked)
            cells += _spin(test, instr, label, reg, masked)
            annotations.append(Annotation(t.name, "spin", k, instr.bound, instr.reg))
            if instr.read.kind == "load" and instr.read.volatile:
                annotations.append(Annotation(t.name, "volatile", k + 1))
            continue
        if isinstance(instr, (Load, Store)) and instr.volatile:
            annotations.append(Annotation(t.name, "volatile", k))
        if isinstance(instr, Rmw) and instr.reg is None and instr.op not in _RED_OPS:
            if scratch is None:
                scratch = _fresh("r", regs)
                regs.add(scratch)
            annotations.append(Annotation(t.name, "noreg", k))
            instr = dataclasses.replace(instr, reg=scratch)
        cells.append(_instr(test, t, instr))
    return cells


def _fresh(prefix: str, used: set[str]) -> str:
    n = 0
    while f"{prefix}{n:02d}" in used:
        n += 1
    return f"{prefix}{n:02d}"


def _spin(test: LitmusTest, s: Spin, label: str, reg: str, masked: str | None) -> list[str]:
    r = s.read
    if r.kind == "cas":
        if r.reset is None:
            raise _fail(test, f"the CAS spin on {s.loc} has no reset value")
        read = f"atom.{r.sem}.{r.scope}.cas {reg}, {s.loc}, {s.until}, {r.reset}"
    else:
        sem, scope = ("relaxed", "sys") if r.volatile else (r.sem, r.scope)
        read = f"{_access('ld', sem, scope)} {reg}, {s.loc}"
    branch = SPIN_LOOP_BRANCH[s.cmp]
    if s.mask is None:
        return [f"{label}:", read, f"b{branch} {reg}, {s.until}, {label}"]
    return [f"{label}:", read, f"and {masked}, {reg}, {s.mask}", f"b{branch} {masked}, {s.until}, {label}"]


# red.<sem>.<scope>.<op> in LitmusPTX.g4 (the other ops are written as atom, see noreg)
_RED_OPS = ("add", "and", "or", "xor")
_OPCODES = {  # (IR instruction kind, proxy) -> Dat3M opcode
    ("ld", "generic"): "ld", ("ld", "texture"): "tld", ("ld", "surface"): "suld",
    ("ld", "constant"): "cold", ("st", "generic"): "st", ("st", "surface"): "sust",
    ("atom", "generic"): "atom", ("atom", "surface"): "suatom",
    ("red", "generic"): "red", ("red", "surface"): "sured",
}


def _opcode(test: LitmusTest, t: Thread, kind: str, proxy: str) -> str:
    op = _OPCODES.get((kind, proxy))
    if op is None:
        raise _fail(test, f"{t.name}: a {kind} through the {proxy} proxy has no .litmus form "
                          "(LitmusPTX.g4 has tld/suld/cold, sust, suatom and sured only)")
    return op


def _instr(test: LitmusTest, t: Thread, i: Instr) -> str:
    if isinstance(i, Load):
        sem, scope = ("relaxed", "sys") if i.volatile else (i.sem, i.scope)
        return f"{_access(_opcode(test, t, 'ld', i.proxy), sem, scope)} {i.reg}, {i.loc}"
    if isinstance(i, Store):
        sem, scope = ("relaxed", "sys") if i.volatile else (i.sem, i.scope)
        return f"{_access(_opcode(test, t, 'st', i.proxy), sem, scope)} {i.loc}, {_op(i.value)}"
    if isinstance(i, Rmw):
        if i.op not in RMW_OPS:
            raise _fail(test, f"{t.name}: RMW operation {i.op!r} is not one of {', '.join(RMW_OPS)}")
        args = ([i.reg] if i.reg is not None else []) + [i.loc]
        args += [_op(i.expected)] if i.op == "cas" else []
        args.append(_op(i.value))
        kind = _opcode(test, t, "atom" if i.reg is not None else "red", i.proxy)
        return f"{kind}.{i.sem}.{i.scope}.{i.op} " + ", ".join(args)
    if isinstance(i, Fence):
        return f"fence.{i.sem}.{i.scope}"
    if isinstance(i, ProxyFence):
        if i.kind == "async":
            raise _fail(test, f"{t.name}: fence.proxy.async has no .litmus form (LitmusPTX.g4 has "
                              "no async proxy)")
        return f"fence.proxy.{i.kind}"
    if isinstance(i, Barrier):
        ops = [i.id] + ([i.count] if i.count is not None else [])
        if i.quorum is not None:
            if i.count is None:
                raise _fail(test, f"{t.name}: a barrier with a quorum needs a barrier id "
                                  "(bar.cta.sync a, b, q)")
            ops.append(i.quorum)
        return f"bar.cta.{'arrive' if i.arrive else 'sync'} " + ", ".join(_op(o) for o in ops)
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
