"""The signalling of one compiled kernel, in program order: stores, loads, atomics, fences, CTA
barriers and spin loops, each with its sem/scope, where its pointer comes from, and the
user's ``file:line``.  What cannot be told from the TTIR is collected as notes."""

from __future__ import annotations

import ast
import functools
import re
from dataclasses import dataclass, field, replace
from pathlib import Path

from litmus.lint.asm import AsmAccess, summarize
from litmus.lint.ttir import Frame, Function, Op, Region, Value, constant, walk

MEMORY_READS = ("tt.load", "tt.atomic_rmw", "tt.atomic_cas", "tt.elementwise_inline_asm")
BARRIERS = ("ttg.barrier", "gpu.barrier", "tt.debug_barrier")
DESCRIPTOR_STORES = ("tt.descriptor_store", "tt.experimental_descriptor_store")
DESCRIPTOR_LOADS = ("tt.descriptor_load", "tt.experimental_descriptor_load")
_PASS_THROUGH = ("tt.splat", "tt.broadcast", "tt.expand_dims", "tt.bitcast", "tt.reshape", "arith.extsi", "arith.extui",
                 "arith.trunci", "arith.bitcast", "arith.index_cast", "tt.trans", "tt.advance")
_ARITH = {"arith.addi": "+", "arith.subi": "-", "arith.muli": "*", "arith.andi": "&", "arith.ori": "|",
          "arith.xori": "^", "arith.divsi": "/", "arith.remsi": "%", "arith.divui": "/", "arith.remui": "%"}


@dataclass(frozen=True)
class Site:
    """Where the user wrote an operation: the innermost frame in the user's file, and the
    call sites it was inlined through (outermost last)."""

    file: str
    line: int
    via: tuple[Frame, ...] = ()

    def __str__(self) -> str:
        return f"{self.file}:{self.line}"


def base_of(key: str) -> str:
    """The object an address key points into: the key up to its first top-level ``+``."""
    depth = 0
    for i, ch in enumerate(key):
        depth += ch in "([" and 1 or (-1 if ch in ")]" else 0)
        if ch == "+" and depth == 0:
            return key[:i]
    return key


@dataclass(frozen=True)
class Pointer:
    """Where an address comes from.

    ``origin``: ``arg`` (a pointer argument), ``table`` (an address loaded from memory, as
    symm_mem's ``buffer_ptrs``/``signal_pad_ptrs``), ``translated`` (a pointer moved into another
    heap by a loaded base, iris' ``translate``), ``address`` (an integer argument cast to a
    pointer: cannot tell whose memory) or ``unknown``.  ``root``: the argument it derives from.
    ``key``: the address expression, equal for two accesses of the same place."""

    origin: str
    root: str
    key: str
    vector: bool
    shape: str = ""  # the tensor's dims (``128``, ``2x64``) for a vector pointer

    @property
    def base(self) -> str:
        """The object the address points into: the key up to its first offset (``ptr([pads])`` for
        ``ptr([pads])+(pid.x*2)+range(0,2)``). Two accesses with one base reach one flag or
        buffer; the offsets (loop variables, ranges) are not compared."""
        return base_of(self.key)

    def shared(self, peers: frozenset[str]) -> bool:
        """Whether the memory may be another GPU's (or written by another GPU)."""
        return self.origin in ("table", "translated") or self.root in peers

    def describe(self) -> str:
        """The provenance in words."""
        return {
            "arg": f"pointer argument `{self.root}`",
            "table": f"an address loaded from `{self.root}` (a table of peers' addresses)",
            "translated": f"`{self.root}` translated into another rank's heap",
            "address": f"the integer argument `{self.root}` cast to a pointer",
        }.get(self.origin, "a pointer whose origin the TTIR does not show")


@dataclass(frozen=True)
class Event:
    """One signalling-relevant operation.

    ``kind``: ``store`` / ``load`` / ``atomic`` / ``fence`` / ``barrier`` / ``spin``.  For a
    spin, ``op``/``sem``/``scope``/``volatile`` describe the read that decides its exit,
    ``until`` the value it waits for and ``reset`` what a CAS read writes back.  ``subset``:
    executed by some of the CTA's threads only (a scalar atomic, inline asm).  ``loop``: the id
    of the (non-spin) loop it sits in, 0 when none.  ``one_cta``: it sits in the then-arm of an
    ``if`` on ``tl.program_id(...) == constant`` (one CTA of the grid runs it).  ``some_rounds``:
    it sits in an ``if`` on another condition inside its innermost loop, so a round may skip it.
    ``ticket``: it sits in the then-arm of an ``if`` on the value an atomic returned (``if
    tl.atomic_add(counter, 1) == n - 1:``, the CTA that draws the last ticket): that atomic's line."""

    kind: str
    site: Site
    via: str
    op: str = ""
    sem: str = "weak"
    scope: str = "sys"
    volatile: bool = False
    ptr: Pointer | None = None
    subset: bool = False
    loop: int = 0
    expected: int | None = None
    value: int | None = None
    until: int | None = None
    reset: int | None = None
    index: int = 0
    branch: tuple[tuple[int, int], ...] = ()  # (scf.if id, arm) of every if it sits in
    used: bool = False  # an atomic whose result the kernel reads (a ticket, a spin's value)
    one_cta: bool = False
    some_rounds: bool = False  # under an if (not on program_id) inside its loop: not run every round
    ticket: int = 0  # the line of the atomic whose result the if it sits in tests (the last ticket's CTA), or 0

    def same_path(self, other: "Event") -> bool:
        """Whether one execution can run both (they are not in different arms of one if)."""
        arms = dict(self.branch)
        return all(arms.get(i, arm) == arm for i, arm in other.branch)

    @property
    def writes(self) -> bool:
        """Whether it writes memory (a store, an RMW, a CAS or a spin whose CAS writes back)."""
        if self.kind == "spin":
            return self.op == "cas" and self.reset is not None and self.reset != self.until
        if self.kind == "atomic":  # an add of 0 and a CAS that writes back what it expects only read
            if self.op in ("add", "or", "xor") and self.value == 0:
                return False
            if self.op == "cas" and self.expected is not None and self.expected == self.value:
                return False
            return self.op != "load"
        return self.kind == "store"

    @property
    def acquire(self) -> bool:
        """Whether it is (part of) an acquire pattern: acquire sem, or an acquire-capable fence."""
        if self.kind == "fence":
            return self.sem in ("acq_rel", "sc")
        return self.sem in ("acquire", "acq_rel")

    @property
    def release(self) -> bool:
        """Whether it is a release pattern on its own (release / acq_rel sem, or such a fence)."""
        if self.kind == "fence":
            return self.sem in ("acq_rel", "sc")
        return self.sem in ("release", "acq_rel")


@dataclass
class KernelEvents:
    """The events of one kernel and the notes on what the linter could not see."""

    name: str
    events: list[Event] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    file: str = ""  # the user's file the kernel is in ("" for a side the file lacks)


@functools.lru_cache(maxsize=64)
def _statement_starts(file: str) -> dict[int, int]:
    """Line -> the first line of the statement it belongs to, for the lines of multi-line
    statements (a compound statement's header only) of ``file``; empty if it does not parse."""
    try:
        tree = ast.parse(Path(file).read_text())
    except (OSError, SyntaxError, ValueError):
        return {}
    starts: dict[int, int] = {}
    for node in ast.walk(tree):
        if not isinstance(node, ast.stmt) or node.end_lineno is None or node.end_lineno == node.lineno:
            continue
        body = getattr(node, "body", None)
        last = (body[0].lineno - 1 if isinstance(body, list) and body and isinstance(body[0], ast.AST)
                else node.end_lineno)
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            continue
        for line in range(node.lineno + 1, last + 1):
            # the innermost statement wins (ast.walk visits outer statements first)
            starts[line] = node.lineno
    return starts


def statement_lines(file: str, line: int) -> set[int]:
    """``line`` and the other lines of the statement that starts there (the compiled code's
    ``.loc`` markers may name any of them)."""
    return {line} | {other for other, start in _statement_starts(file).items() if start == line}


def _start(frame: Frame) -> Frame:
    """``frame`` at the first line of its statement: Triton versions put the location of a
    call that spans lines on its first line (3.9) or its last (3.6)."""
    start = _statement_starts(frame.file).get(frame.line)
    return replace(frame, line=start, col=0) if start is not None else frame


def _site(frames: tuple[Frame, ...], user_file: str) -> Site:
    """The outermost frame in the user's file (the kernel's own line), with the frames it
    was inlined from (helpers), innermost first."""
    frames = tuple(_start(f) for f in frames)
    mine = [f for f in frames if f.file == user_file] or list(frames)
    if not mine:
        return Site(user_file, 0)
    outer = mine[-1]
    return Site(outer.file, outer.line, tuple(frames[:frames.index(outer)]))


def _asm_operand(op: Op, n: int) -> Value | None:
    """The ``tt.elementwise_inline_asm`` operand that ``$n`` of its string names: ``$n`` counts
    the constraints, whose outputs (``=r``) come first and are no operands."""
    m = re.search(r'constraints = "([^"]*)"', op.text)
    outputs = sum(1 for c in (m.group(1).split(",") if m else []) if c.strip().startswith("="))
    idx = n - outputs
    return op.operands[idx] if 0 <= idx < len(op.operands) else None


def _shape(op: Op) -> str:
    """The dims of the first tensor in ``op``'s type signature (``128`` for ``tensor<128x!tt.ptr<f32>>``)."""
    m = re.search(r"tensor<((?:\d+x)*\d+)x", op.result_type)
    return m.group(1) if m else ""


class _Extractor:
    def __init__(self, fn: Function, user_file: str, functions: tuple[Function, ...] = ()):
        self.fn = fn
        self.user_file = user_file
        self.functions = {f.name: f for f in functions}
        self.alias: dict[int, Value] = {}  # a called function's argument -> the caller's operand
        self.call_frames: tuple[Frame, ...] = ()
        self.out = KernelEvents(fn.name, file=user_file)
        self.loops = 0
        self.branch: tuple[tuple[int, int], ...] = ()
        self.one_cta = False
        self.ifs = 0
        self.round_ifs = 0  # ifs (not on program_id) entered since the innermost loop began
        self.ticket = 0  # the line of the atomic the enclosing then-arm's condition reads, 0 when none
        self.keys: dict[int, str] = {}
        self.address_loads: set[int] = set()
        bodies = [fn.body, *(f.body for f in functions if f is not fn)]
        self.used: set[int] = {v.id for body in bodies for op in walk(body) for v in op.operands}
        # loads that compute addresses (pointer tables, heap bases) are no payload
        for op in (op for body in bodies for op in walk(body)):
            if op.name == "tt.int_to_ptr":
                self._mark_address_loads(op, set())
            elif op.name == "tt.addptr" and len(op.operands) > 1 and op.operands[1].op is not None:
                self._mark_address_loads(op.operands[1].op, set())

    def _mark_address_loads(self, op: Op, seen: set[int]) -> None:
        for v in op.operands:
            if v.id in seen or v.op is None:
                continue
            seen.add(v.id)
            if v.op.name == "tt.load":
                self.address_loads.add(id(v.op))
            else:
                self._mark_address_loads(v.op, seen)

    # -- pointers ---------------------------------------------------------------------------

    def resolve(self, v: Value) -> Value:
        """``v``, or the caller's value when ``v`` is an argument of a function being walked as a call."""
        while v.id in self.alias:
            v = self.alias[v.id]
        return v

    def key(self, v: Value, depth: int = 0) -> str:
        v = self.resolve(v)
        if v.id in self.keys:
            return self.keys[v.id]
        k = self._key(v, depth)
        self.keys[v.id] = k
        return k

    def _key(self, v: Value, depth: int) -> str:
        if depth > 40:
            return "…"
        op = v.op
        if op is None:
            return v.name if v.owner is None else f"loop:{v.name}"
        c = constant(v)
        if c is not None:
            return str(c)
        if op.name == "tt.get_program_id":
            return "pid." + (op.text.split("tt.get_program_id", 1)[1].split(":")[0].strip() or "x")
        if op.name == "tt.make_range":
            m = re.search(r"end = (\d+).*start = (\d+)", op.text)
            return f"range({m.group(2)},{m.group(1)})" if m else "range"
        if op.name == "tt.addptr" and len(op.operands) >= 2:
            return f"{self.key(op.operands[0], depth + 1)}+{self.key(op.operands[1], depth + 1)}"
        if op.name in _PASS_THROUGH and op.operands:
            return self.key(op.operands[0], depth + 1)
        if op.name == "tt.int_to_ptr" and op.operands:
            return f"ptr({self.key(op.operands[0], depth + 1)})"
        if op.name == "tt.ptr_to_int" and op.operands:
            return f"int({self.key(op.operands[0], depth + 1)})"
        if op.name in _ARITH and len(op.operands) >= 2:
            return f"({self.key(op.operands[0], depth + 1)}{_ARITH[op.name]}{self.key(op.operands[1], depth + 1)})"
        if op.name == "tt.load" and op.operands:
            return f"[{self.key(op.operands[0], depth + 1)}]"
        if op.name == "tt.make_tensor_descriptor" and op.operands:
            return f"desc({self.key(op.operands[0], depth + 1)})"
        return f"{op.name}#{v.id}"

    def pointer(self, v: Value, vector: bool, shape: str = "") -> Pointer:
        roots: list[str] = []
        seen: set[int] = set()
        state = {"int_to_ptr": False, "loaded": False, "ptr_to_int": "", "table": "", "loopvar": False}

        def visit(x: Value, under_int: bool, depth: int) -> None:
            x = self.resolve(x)
            if x.id in seen or depth > 60:
                return
            seen.add(x.id)
            op = x.op
            if op is None:
                if x.owner is None:
                    roots.append(x.name)
                else:
                    state["loopvar"] = True
                return
            if op.name == "tt.int_to_ptr":
                state["int_to_ptr"] = True
                for o in op.operands:
                    visit(o, True, depth + 1)
                return
            if op.name == "tt.ptr_to_int":
                if op.operands:
                    table_before = list(roots)
                    visit(op.operands[0], False, depth + 1)
                    new = [r for r in roots if r not in table_before]
                    if new and not state["ptr_to_int"]:
                        state["ptr_to_int"] = new[0]
                return
            if op.name == "tt.load":
                if under_int or state["int_to_ptr"]:
                    state["loaded"] = True
                    before = list(roots)
                    if op.operands:
                        visit(op.operands[0], False, depth + 1)
                    new = [r for r in roots if r not in before]
                    if new and not state["table"]:
                        state["table"] = new[0]
                    del roots[len(before):]
                return
            for o in op.operands:
                visit(o, under_int, depth + 1)

        visit(v, False, 0)
        key = self.key(v)
        if state["int_to_ptr"]:
            if state["loaded"] and state["ptr_to_int"]:
                return Pointer("translated", str(state["ptr_to_int"]), key, vector, shape)
            if state["loaded"]:
                return Pointer("table", str(state["table"]), key, vector, shape)
            return Pointer("address" if roots else "unknown", roots[0] if roots else "", key, vector, shape)
        if roots and not state["loopvar"]:
            return Pointer("arg", roots[0], key, vector, shape)
        return Pointer("unknown", roots[0] if roots else "", key, vector, shape)

    # -- events -----------------------------------------------------------------------------

    def emit(self, ev: Event) -> None:
        self.out.events.append(replace(ev, branch=self.branch, one_cta=self.one_cta,
                                       some_rounds=bool(ev.loop) and self.round_ifs > 0, ticket=self.ticket))

    def program_guard(self, cond: Value, depth: int = 0) -> bool:
        """Whether ``cond`` holds in one CTA only: ``program_id == constant``, alone or and-ed
        with other conditions (``pid == 0 and thread_idx == 0``)."""
        op = self.resolve(cond).op
        if op is None or depth > 8:
            return False
        if op.name == "arith.andi":
            return any(self.program_guard(o, depth + 1) for o in op.operands)
        if op.name != "arith.cmpi" or op.text.split("arith.cmpi", 1)[1].split(",")[0].strip() != "eq":
            return False
        keys = [self.key(o) for o in op.operands]
        return any(k.startswith("pid.") for k in keys) and any(constant(o) is not None for o in op.operands)

    def ticket_of(self, cond: Value, depth: int = 0) -> int:
        """The line of the atomic whose returned value ``cond`` compares (``tl.atomic_add(c, 1) == n - 1``,
        also through an inline-asm ``atom``), or 0."""
        op = self.resolve(cond).op
        if op is None or depth > 8:
            return 0
        if op.name in ("tt.atomic_rmw", "tt.atomic_cas") or (
                op.name == "tt.elementwise_inline_asm" and any(a.kind == "atomic" for a in self.asm(op).accesses)):
            return self.site(op).line
        if op.name not in ("arith.cmpi", "arith.andi") and op.name not in _PASS_THROUGH:
            return 0
        return next((line for o in op.operands if (line := self.ticket_of(o, depth + 1))), 0)

    def site(self, op: Op) -> Site:
        return _site(op.frames + self.call_frames, self.user_file)

    def access(self, op: Op, loop: int) -> list[Event]:
        """Events for one memory op (not a loop)."""
        site = self.site(op)
        body = op.text.split(op.name, 1)[1]
        if op.name == "tt.store" and op.operands:
            ptr = op.operands[0]
            vec = "tensor<" in op.result_type
            val = constant(op.operands[1]) if len(op.operands) > 1 else None
            return [Event("store", site, "tl.store", ptr=self.pointer(ptr, vec, _shape(op)), subset=not vec, loop=loop,
                          value=val)]
        if op.name == "tt.load" and op.operands and id(op) not in self.address_loads:
            vol = "isVolatile = true" in op.text
            vec = "tensor<" in op.result_type.split("->")[0]
            return [Event("load", site, "tl.load(volatile=True)" if vol else "tl.load",
                          sem="relaxed" if vol else "weak", scope="sys", volatile=vol,
                          ptr=self.pointer(op.operands[0], vec, _shape(op)), subset=False, loop=loop)]
        if op.name == "tt.atomic_rmw" and op.operands:
            m = re.match(r"\s*(\w+),\s*(\w+),\s*(\w+),", body)
            kind, sem, scope = m.groups() if m else ("rmw", "acq_rel", "gpu")
            vec = "tensor<" in op.result_type.split("->")[0]
            val = constant(op.operands[1]) if len(op.operands) > 1 else None
            return [Event("atomic", site, f"tl.atomic_{'xchg' if kind == 'exch' else kind}", kind, sem, scope,
                          ptr=self.pointer(op.operands[0], vec, _shape(op)), subset=True, loop=loop, value=val,
                          used=any(r.id in self.used for r in op.results))]
        if op.name == "tt.atomic_cas" and len(op.operands) >= 3:
            m = re.match(r"\s*(\w+),\s*(\w+),", body)
            sem, scope = m.groups() if m else ("acq_rel", "gpu")
            vec = "tensor<" in op.result_type.split("->")[0]
            return [Event("atomic", site, "tl.atomic_cas", "cas", sem, scope,
                          ptr=self.pointer(op.operands[0], vec, _shape(op)),
                          subset=True, loop=loop, expected=constant(op.operands[1]), value=constant(op.operands[2]))]
        if op.name in DESCRIPTOR_STORES + DESCRIPTOR_LOADS and op.operands:
            # a tensor descriptor's (TMA) tile: the CTA's data, at the descriptor and its offsets
            store = op.name in DESCRIPTOR_STORES
            return [Event("store" if store else "load", site, f"tensor descriptor {'store' if store else 'load'}",
                          ptr=self.pointer(op.operands[0], True, _shape(op)), loop=loop)]
        if op.name in BARRIERS:
            return [Event("barrier", site, "tl.debug_barrier()", loop=loop)]
        if op.name == "tt.elementwise_inline_asm":
            accesses = self.asm(op).accesses
            if not accesses and "pure = false" in op.text:
                self.out.notes.append(f"{site}: inline asm with side effects but no instruction the linter reads "
                                      "(PTX atom/red, ld, st, fence, membar, bar.sync); its memory effects are not "
                                      "seen")
            return [self.asm_event(op, a, loop) for a in accesses]
        if op.name == "tt.call":
            self.out.notes.append(f"{site}: a call the compiler did not inline ({body.split('(')[0].strip()}) to a "
                                  "function the TTIR does not hold; its memory operations are not seen")
        return []

    def call(self, op: Op, loop: int) -> bool:
        """Walk a non-inlined ``tt.call``'s callee in place (its arguments are the call's operands)."""
        m = re.match(r"\s*@([\w$.-]+)\(", op.text.split("tt.call", 1)[1])
        callee = self.functions.get(m.group(1)) if m else None
        if callee is None or len(self.call_frames) > 16:
            return False
        saved = (dict(self.alias), self.call_frames, self.keys)
        for arg, value in zip(callee.args, op.operands):
            self.alias[arg.id] = value
        self.call_frames = op.frames + self.call_frames
        self.keys = {}  # the callee's values stand for other addresses at each call
        self.region(callee.body, loop)
        self.alias, self.call_frames, self.keys = saved
        return True

    def asm(self, op: Op):
        m = re.search(r'"((?:[^"\\]|\\.)*)"', op.text)
        return summarize(m.group(1) if m else "")

    def asm_pointer(self, op: Op, a: AsmAccess | None = None) -> Pointer | None:
        def vector(v: Value) -> bool:  # a scalar pointer operand is one address, as a scalar tl.store's
            text = v.type or (v.op.result_type if v.op else "")
            # a cast prints its type as `i64 -> !tt.ptr<i32>`: the result is what follows the arrow
            return not text.split("->")[-1].strip().startswith("!tt.ptr")

        if a is not None and a.operand is not None:
            v = _asm_operand(op, a.operand)
            if v is not None:
                return self.pointer(v, vector(v), _shape(op))
        for v in op.operands:
            if v.type.startswith("!tt.ptr") or "ptr" in (v.op.result_type if v.op else v.type):
                return self.pointer(v, vector(v), _shape(op))
        return self.pointer(op.operands[0], vector(op.operands[0]), _shape(op)) if op.operands else None

    def asm_constant(self, op: Op, literal: int | None, operand: int | None) -> int | None:
        """A value of an asm instruction: its literal, or the constant the ``$n`` it names is given."""
        if literal is not None or operand is None:
            return literal
        v = _asm_operand(op, operand)
        return constant(self.resolve(v)) if v is not None else None

    def asm_event(self, op: Op, a: AsmAccess, loop: int) -> Event:
        site = self.site(op)
        ptr = self.asm_pointer(op, a) if a.kind in ("load", "store", "atomic") else None
        # the asm's result read by the kernel: an atomic's (a ticket); an st's `mov $0, 0` is no result
        used = a.kind == "atomic" and any(r.id in self.used for r in op.results)
        return Event(a.kind, site, f"inline asm `{a.text}`", a.op if a.kind == "atomic" else "", a.sem,
                     a.scope, a.volatile, ptr, subset=True, loop=loop,
                     expected=self.asm_constant(op, a.expected, a.expected_operand),
                     value=self.asm_constant(op, a.value, a.value_operand), used=used)

    # -- spins ------------------------------------------------------------------------------

    def inside(self, op: Op | None, loop_op: Op) -> bool:
        while op is not None:
            if op is loop_op:
                return True
            op = op.parent
        return False

    def reads_feeding(self, v: Value, loop_op: Op, seen: set[int], cmps: list[Op]) -> list[Op]:
        if v.id in seen or len(seen) > 500:
            return []
        seen.add(v.id)
        if v.op is None:
            if v.owner is loop_op and len(loop_op.regions) > 1:
                # a before-region argument is what the after region yields; an after-region argument is
                # what scf.condition forwards
                idx = next((i for i, a in enumerate(loop_op.regions[v.region].args) if a is v), None)
                src_ops = loop_op.regions[1 - v.region].ops if v.region == 0 else loop_op.regions[0].ops
                last = src_ops[-1] if src_ops else None
                shift = 0 if v.region == 0 else 1
                if idx is not None and last is not None and last.name in ("scf.yield", "scf.condition") \
                        and idx + shift < len(last.operands):
                    return self.reads_feeding(last.operands[idx + shift], loop_op, seen, cmps)
            return []
        op = v.op
        if not self.inside(op.parent, loop_op) and op.parent is not loop_op:
            return []
        if op.name in MEMORY_READS:
            if op.name != "tt.elementwise_inline_asm" or any(a.kind in ("load", "atomic")
                                                                 for a in self.asm(op).accesses):
                return [op]
        if op.name == "arith.cmpi":
            cmps.append(op)
        found: list[Op] = []
        for o in op.operands:
            found += self.reads_feeding(o, loop_op, seen, cmps)
        for r in op.regions:  # scf.if results: what the branches yield
            if r.ops and r.ops[-1].name == "scf.yield":
                for o in r.ops[-1].operands:
                    found += self.reads_feeding(o, loop_op, seen, cmps)
        return found

    def spin(self, op: Op, loop: int) -> bool:
        """Record ``op`` (an scf.while) as a spin if its exit depends on a memory read."""
        if not op.regions or not op.regions[0].ops or op.regions[0].ops[-1].name != "scf.condition":
            return False
        cond = op.regions[0].ops[-1]
        if not cond.operands:
            return False
        cmps: list[Op] = []
        reads = self.reads_feeding(cond.operands[0], op, set(), cmps)
        if not reads:
            return False
        read = reads[0]
        evs = self.access(read, loop)
        ev = next((e for e in evs if e.kind in ("load", "atomic")), None)
        if ev is None:
            return False
        until = None
        if ev.op == "cas" and ev.expected is not None:
            until = ev.expected
        elif cmps:
            cmp = cmps[0]
            pred = cmp.text.split("arith.cmpi", 1)[1].split(",")[0].strip()
            consts = [constant(o) for o in cmp.operands]
            c = next((x for x in consts if x is not None), None)
            if c is not None:
                # loop while != c: waits for c; while == 0: waits for non-zero (1); while < c: for c
                ordered = c if pred in ("slt", "ult", "sle", "ule") else None
                until = {"ne": c, "eq": 1 if c == 0 else None}.get(pred, ordered)
        site = self.site(op)
        if until is None:
            self.out.notes.append(f"{site}: the spin's exit value is not a constant the linter can read; "
                                  "its litmus pattern waits for 1")
        # a scalar tl.atomic_* result reaches every thread through shared memory and a CTA barrier,
        # and a tl.load spin runs in every thread: only an inline-asm spin waits in some threads
        self.emit(Event("spin", site, f"loop on {ev.via}", ev.op or "load", ev.sem, ev.scope, ev.volatile, ev.ptr,
                        subset=read.name == "tt.elementwise_inline_asm", loop=loop,
                        expected=ev.expected, value=ev.value, until=until,
                        reset=ev.value if ev.op == "cas" else None))
        return True

    # -- walk -------------------------------------------------------------------------------

    def loop_regions(self, op: Op) -> None:
        """Walk a (non-spin) loop's regions as loop ``self.loops``; the ifs around it are not the loop's."""
        saved, self.round_ifs = self.round_ifs, 0
        for r in op.regions:
            self.region(r, self.loops)
        self.round_ifs = saved

    def region(self, region: Region, loop: int) -> None:
        for op in region.ops:
            if op.name == "scf.while":
                if self.spin(op, loop):
                    continue
                self.loops += 1
                self.loop_regions(op)
                continue
            if op.name == "scf.for":
                self.loops += 1
                bounds = op.operands[:3]
                if any(self.reads_feeding(b, op, set(), []) for b in bounds) or any(
                        b.op is not None and b.op.name in MEMORY_READS for b in bounds):
                    self.out.notes.append(f"{self.site(op)}: a for loop whose bounds are read from memory "
                                          "(data-dependent); it is not analysed as a spin")
                self.loop_regions(op)
                continue
            if op.name == "tt.elementwise_inline_asm":
                summary = self.asm(op)
                reads = [a for a in summary.accesses if a.kind in ("load", "atomic")]
                if summary.loops and reads:
                    # every CAS of a looping asm is a spin of its own (symm-mem-recipes' send_signal then
                    # wait_signal in one string); otherwise the last read decides the loop's exit
                    spun = [r for r in reads if r.op == "cas"] or [reads[-1]]
                    for a in spun:
                        ev = self.asm_event(op, a, loop)
                        until = ev.expected if a.op == "cas" else (
                            self.asm_constant(op, a.until, a.until_operand) if a.kind == "load" else None)
                        if until is None:
                            self.out.notes.append(f"{self.site(op)}: an inline-asm loop whose exit value the "
                                                  "linter cannot read; its litmus pattern waits for 1")
                        self.emit(Event("spin", ev.site, ev.via, a.op or "load", a.sem, a.scope, a.volatile, ev.ptr,
                                        subset=True, loop=loop, expected=ev.expected, value=ev.value, until=until,
                                        reset=ev.value if a.op == "cas" else None))
                    others = [a2 for a2 in summary.accesses if a2.kind in ("fence", "barrier")]
                    for a2 in others:
                        self.emit(self.asm_event(op, a2, loop))
                    continue
            if op.name == "tt.call" and self.call(op, loop):
                continue
            for ev in self.access(op, loop):
                self.emit(ev)
            if op.name == "scf.if":
                self.ifs += 1
                outer, me, one = self.branch, self.ifs, self.one_cta
                guard = bool(op.operands) and self.program_guard(op.operands[0])
                ticket, drawn = self.ticket, (self.ticket_of(op.operands[0]) if op.operands else 0)
                self.round_ifs += not guard
                for arm, r in enumerate(op.regions):
                    self.branch = outer + ((me, arm),)
                    self.one_cta = one or (guard and arm == 0)
                    self.ticket = drawn if drawn and arm == 0 else ticket
                    self.region(r, loop)
                self.branch, self.one_cta, self.ticket = outer, one, ticket
                self.round_ifs -= not guard
                continue
            for r in op.regions:
                self.region(r, loop)


def extract(fn: Function, user_file: str, functions: tuple[Function, ...] = ()) -> KernelEvents:
    """The events of ``fn`` in program order (regions flattened, calls to ``functions`` walked in
    place), with notes."""
    ex = _Extractor(fn, user_file, functions)
    ex.region(fn.body, 0)
    events = [replace(e, index=i) for i, e in enumerate(ex.out.events)]
    ex.out.events = events
    for e in events:
        if e.kind in ("atomic", "spin") and e.ptr is not None and e.ptr.origin in ("address", "unknown"):
            ex.out.notes.append(f"{e.site}: {e.via} uses {e.ptr.describe()}; the linter cannot prove whose memory "
                                "this is (mark a peer's with --peer ARG)")
    return ex.out
