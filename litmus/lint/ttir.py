"""Read Triton's TTIR (MLIR text) into a tree of operations with SSA values and source locations.

Only what the linter needs is kept: each operation's name, results, operands (resolved to value
ids, so a name reused in a sibling region stays distinct), its attributes as text, its nested
regions (``scf.while`` before/after, ``scf.for`` body, ``scf.if`` then/else) and the user's
``file:line:col`` its ``loc(...)`` resolves to (the whole call-site chain for inlined helpers).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from litmus.errors import LitmusError


@dataclass(frozen=True)
class Frame:
    """One source position: ``file:line:col``."""

    file: str
    line: int
    col: int

    def __str__(self) -> str:
        return f"{self.file}:{self.line}"


@dataclass
class Value:
    """An SSA value: an operation's result (``op``, ``index``) or a region's block argument."""

    id: int
    name: str
    op: "Op | None" = None
    index: int = 0
    owner: "Op | None" = None  # for a block argument: the op whose region defines it
    region: int = 0
    type: str = ""


@dataclass
class Region:
    """One region of an operation: its block arguments and operations in order."""

    args: list[Value] = field(default_factory=list)
    ops: list["Op"] = field(default_factory=list)


@dataclass
class Op:
    """One TTIR operation (one printed line, plus the regions it opens)."""

    name: str
    text: str
    results: list[Value] = field(default_factory=list)
    operands: list[Value] = field(default_factory=list)
    inits: list[Value] = field(default_factory=list)  # scf.while / scf.for iter_args initial values
    regions: list[Region] = field(default_factory=list)
    frames: tuple[Frame, ...] = ()  # innermost first
    parent: "Op | None" = None
    result_names: str | None = None  # the printed ``%a, %b =`` of an op with regions, defined at its ``}``

    @property
    def result_type(self) -> str:
        """The text after the last top-level ``:`` (the printed type signature), or ``""``."""
        body = _strip_loc(self.text)
        i = body.rfind(" : ")
        return body[i + 3:] if i >= 0 else ""


@dataclass
class Function:
    """A ``tt.func``: its name, arguments (name -> value) and body."""

    name: str
    args: list[Value]
    body: Region
    frames: tuple[Frame, ...] = ()


_LOC_DEF = re.compile(r"^(#loc\d*) = loc\((.*)\)\s*$")
_OP_START = re.compile(r'^\s*(?:(%[\w.$-]+(?::\d+)?(?:\s*,\s*%[\w.$-]+)*)\s*=\s*)?"?([a-z_][\w.]*)"?(.*)$')
_VALUE = re.compile(r"%([\w.$-]+)(?:#(\d+))?")
_TRAILING_LOC = re.compile(r"\s+loc\((.*)\)\s*$")
_CONST = re.compile(r"arith\.constant (?:dense<)?(-?\d+|true|false)")


def _strip_loc(text: str) -> str:
    m = _TRAILING_LOC.search(text)
    return text[:m.start()] if m else text


def _strip_strings(text: str) -> str:
    return re.sub(r'"(?:[^"\\]|\\.)*"', '""', text)


class _Locs:
    """``#locN`` aliases resolved to frame chains (innermost first)."""

    def __init__(self, lines: list[str]):
        self.raw: dict[str, str] = {}
        for line in lines:
            m = _LOC_DEF.match(line.strip())
            if m:
                self.raw[m.group(1)] = m.group(2)
        self.cache: dict[str, tuple[Frame, ...]] = {}

    def resolve(self, body: str, depth: int = 0) -> tuple[Frame, ...]:
        """Frames of a ``loc(...)`` body, e.g. ``"f.py":3:5`` or ``callsite(#loc1 at #loc2)``."""
        body = body.strip()
        if depth > 64:
            return ()
        if body.startswith("#loc"):
            if body not in self.cache:
                self.cache[body] = ()  # cycles resolve to nothing
                self.cache[body] = self.resolve(self.raw.get(body, "unknown"), depth + 1)
            return self.cache[body]
        m = re.fullmatch(r'"((?:[^"\\]|\\.)*)":(\d+):(\d+)(?:\s+to\s+.*)?', body)
        if m:
            return (Frame(m.group(1), int(m.group(2)), int(m.group(3))),)
        m = re.fullmatch(r"callsite\((.*) at (.*)\)", body)
        if m:
            return self.resolve(m.group(1), depth + 1) + self.resolve(m.group(2), depth + 1)
        m = re.fullmatch(r'"(?:[^"\\]|\\.)*"\((.*)\)', body)  # a named location: "x"(#loc3)
        if m:
            return self.resolve(m.group(1), depth + 1)
        m = re.fullmatch(r"fused(?:<[^>]*>)?\[(.*)\]", body)
        if m:
            for part in m.group(1).split(","):
                frames = self.resolve(part, depth + 1)
                if frames:
                    return frames
        return ()


class _Scope:
    def __init__(self, parent: "_Scope | None"):
        self.parent = parent
        self.names: dict[str, Value] = {}

    def get(self, name: str) -> Value | None:
        s: _Scope | None = self
        while s is not None:
            if name in s.names:
                return s.names[name]
            s = s.parent
        return None


def parse(text: str, file: str = "<ttir>") -> list[Function]:
    """The ``tt.func`` functions of a TTIR module (MLIR text with locations)."""
    lines = text.splitlines()
    locs = _Locs(lines)
    counter = [0]
    functions: list[Function] = []

    def new_value(name: str, **kw: object) -> Value:
        counter[0] += 1
        return Value(counter[0], name, **kw)  # type: ignore[arg-type]

    # a stack of (op, region, scope) for the regions being filled
    stack: list[tuple[Op | None, Region, _Scope]] = []
    current_fn: Function | None = None

    def frames_of(line: str) -> tuple[Frame, ...]:
        m = _TRAILING_LOC.search(line)
        return locs.resolve(m.group(1)) if m else ()

    def define_results(op: Op, spec: str | None, scope: _Scope) -> None:
        if not spec:
            return
        for part in spec.split(","):
            part = part.strip()
            name, _, count = part.partition(":")
            n = int(count) if count else 1
            for k in range(n):
                v = new_value(name[1:] if n == 1 else f"{name[1:]}#{k}", op=op, index=len(op.results))
                op.results.append(v)
                scope.names[v.name] = v

    def operands(op_text: str, scope: _Scope) -> list[Value]:
        found = []
        for m in _VALUE.finditer(_strip_strings(_strip_loc(op_text))):
            name = m.group(1) + (f"#{m.group(2)}" if m.group(2) else "")
            v = scope.get(name) or scope.get(m.group(1))
            if v is not None:
                found.append(v)
        return found

    for number, raw in enumerate(lines, 1):
        line = raw.strip()
        if not line or line.startswith("#loc") or line.startswith("module"):
            continue
        if line.startswith("tt.func"):
            m = re.match(r"tt\.func\s+(?:public\s+|private\s+)?@([\w$.]+)\((.*)\)", line)
            if m is None:
                raise LitmusError.at(file, number, "could not read this tt.func line of the TTIR")
            fn_scope = _Scope(None)
            args = []
            for am in re.finditer(r"%([\w.$-]+): ([^ ,()]+(?:<[^>]*>)?)", m.group(2)):
                v = new_value(am.group(1), type=am.group(2))
                fn_scope.names[v.name] = v
                args.append(v)
            current_fn = Function(m.group(1), args, Region(args=args), frames_of(line))
            stack = [(None, current_fn.body, fn_scope)]
            continue
        if current_fn is None:
            continue
        if line.startswith("}"):
            op, region, scope = stack.pop()
            rest = line[1:].strip()
            if rest.endswith("{"):  # "} do {" / "} else {": the same op's next region
                assert op is not None
                nxt = Region()
                op.regions.append(nxt)
                stack.append((op, nxt, _Scope(scope.parent)))
                continue
            if op is None:  # the function's closing brace
                functions.append(current_fn)
                current_fn = None
                continue
            if rest.startswith("loc("):
                op.frames = locs.resolve(rest[4:-1]) or op.frames
            outer_scope = stack[-1][2]
            define_results(op, op.result_names, outer_scope)
            continue
        if line.startswith("^bb"):
            _, region, scope = stack[-1]
            for am in re.finditer(r"%([\w.$-]+): ([^ ,()]+)", line):
                owner = stack[-1][0]
                v = new_value(am.group(1), owner=owner, region=len(owner.regions) - 1 if owner else 0, type=am.group(2))
                region.args.append(v)
                scope.names[v.name] = v
            continue
        m = _OP_START.match(line)
        if m is None:
            continue
        spec, name, rest = m.group(1), m.group(2), m.group(3)
        parent_op, region, scope = stack[-1]
        op = Op(name=name, text=line, frames=frames_of(line), parent=parent_op)
        region.ops.append(op)
        if line.endswith("{"):
            inner = _Scope(scope)
            header = _strip_strings(rest)
            # iter_args / while operands: "(%a = %b, ...)" define block args of region 0
            for am in re.finditer(r"%([\w.$-]+) = %([\w.$-]+)", header):
                init = scope.get(am.group(2))
                v = new_value(am.group(1), owner=op, region=0)
                inner.names[v.name] = v
                if init is not None:
                    op.inits.append(init)
            op.operands = [v for v in operands(header.split("{")[0], scope) if v not in op.inits]
            first = Region(args=list(inner.names.values()))
            op.regions.append(first)
            op.result_names = spec
            stack.append((op, first, inner))
            continue
        op.operands = operands(rest, scope)
        define_results(op, spec, scope)
    if current_fn is not None or len(stack) > 1:
        raise LitmusError.at(file, None, "the TTIR ended inside a function (unbalanced braces)")
    return functions


def constant(value: Value) -> int | None:
    """The integer an ``arith.constant`` (scalar or splat ``dense<>``) defines, else None."""
    op = value.op
    if op is None:
        return None
    if op.name == "arith.constant":
        m = _CONST.search(op.text)
        if m:
            t = m.group(1)
            return {"true": 1, "false": 0}.get(t, None) if not t.lstrip("-").isdigit() else int(t)
    if op.name in ("tt.splat", "arith.extsi", "arith.extui", "arith.trunci", "arith.bitcast") and op.operands:
        return constant(op.operands[0])
    return None


def walk(region: Region):
    """Every op of ``region`` and of the regions nested in it, in printed order."""
    for op in region.ops:
        yield op
        for r in op.regions:
            yield from walk(r)
