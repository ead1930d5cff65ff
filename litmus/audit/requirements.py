"""What a litmus test asks of compiled code: one :class:`Requirement` per memory op, fence or barrier.

Requirements come from each thread's instructions in program order.  Labels, branches and
register arithmetic ask nothing.  A :class:`~litmus.ir.Spin` asks for its read (a load, or the
iris-style ``cas``) once: the loop body appears once in the text.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from litmus.audit.rules import RuleKey
from litmus.ir import Barrier, Const, Fence, Instr, LitmusTest, Load, Rmw, Spin, Store


@dataclass(frozen=True)
class Requirement:
    """One op of one litmus thread that the compiled code must carry, in order."""

    thread: str
    instr_index: int  # position in the thread's instruction list
    op_kind: str  # load | store | rmw | fence | barrier
    op: str  # the RMW op, "sync"/"arrive" for barriers, "" otherwise
    sem: str  # "-" for weak accesses and barriers
    scope: str  # "-" for weak accesses and barriers
    volatile: bool
    loc: str  # "" for fences and barriers
    line: int | None  # line of the op in the catalog file
    bits: int | None = None  # the access's width in a test with access widths (None: not checked)
    idempotent: bool = False  # an RMW that writes back the value it reads (see IDEMPOTENT_RMW)

    @property
    def key(self) -> RuleKey:
        """The rule-table key this requirement is looked up by (volatile: no sem/scope)."""
        if self.volatile:
            return RuleKey(self.op_kind, self.op, volatile=True)
        return RuleKey(self.op_kind, self.op, self.sem, self.scope)

    def describe(self) -> str:
        """E.g. ``P0 #1 rmw cas release sys on flag``."""
        where = f" on {self.loc}" if self.loc else ""
        if self.bits is not None:
            where += f" ({self.bits}-bit)"
        return f"{self.thread} #{self.instr_index} {self.key.describe()}{where}"

    @property
    def acquires(self) -> bool:
        """Later ops of the thread must stay after this one (acquire side, fence, barrier)."""
        return self.op_kind in ("fence", "barrier") or self.sem in ("acquire", "acq_rel", "sc")

    @property
    def releases(self) -> bool:
        """Earlier ops of the thread must stay before this one (release side, fence, barrier)."""
        return self.op_kind in ("fence", "barrier") or self.sem in ("release", "acq_rel", "sc")

    @property
    def strong(self) -> bool:
        """A relaxed or stronger access (not a plain weak one)."""
        return self.op_kind in ("load", "store", "rmw") and self.sem != "-"


def must_follow(earlier: Requirement, later: Requirement) -> bool:
    """Whether ``later`` must appear after ``earlier`` in the compiled code of their thread.

    True when ``earlier`` acquires, ``later`` releases, both are volatile (compilers keep
    volatile accesses in order), or both are strong accesses to the same location (coherence).
    Two weak accesses, or a weak and a relaxed one, may legally be reordered by the compiler.
    """
    if earlier.thread != later.thread or earlier.instr_index >= later.instr_index:
        return False
    if earlier.acquires or later.releases:
        return True
    if earlier.volatile and later.volatile:
        return True
    return earlier.strong and later.strong and earlier.loc == later.loc


def _access(sem: str, scope: str, volatile: bool) -> tuple[str, str, bool]:
    if volatile:
        return "relaxed", "sys", True
    if sem == "weak":
        return "-", "-", False
    return sem, scope, False


IDEMPOTENT_RMW: dict[str, int] = {"add": 0, "or": 0, "xor": 0}
"""RMW ops and the operand that makes them write back the value they read.  LLVM rewrites every
such RMW as ``atomicrmw or 0`` (InstCombine's canonical idempotent RMW), which is the same read
and write with the same ordering; the AMDGPU backend then emits ``global_atomic_or``."""


def _idempotent(ins: Rmw) -> bool:
    return isinstance(ins.value, Const) and IDEMPOTENT_RMW.get(ins.op) == ins.value.value


def _requirement(thread: str, index: int, ins: Instr) -> Requirement | None:
    line = getattr(ins, "line", None)
    if isinstance(ins, Load):
        sem, scope, vol = _access(ins.sem, ins.scope, ins.volatile)
        return Requirement(thread, index, "load", "", sem, scope, vol, ins.loc, line)
    if isinstance(ins, Store):
        sem, scope, vol = _access(ins.sem, ins.scope, ins.volatile)
        return Requirement(thread, index, "store", "", sem, scope, vol, ins.loc, line)
    if isinstance(ins, Rmw):
        return Requirement(thread, index, "rmw", ins.op, ins.sem, ins.scope, False, ins.loc, line,
                           idempotent=_idempotent(ins))
    if isinstance(ins, Fence):
        return Requirement(thread, index, "fence", "", ins.sem, ins.scope, False, "", line)
    if isinstance(ins, Barrier):
        op = "arrive" if ins.arrive else "sync"
        return Requirement(thread, index, "barrier", op, "-", "-", False, "", line)
    if isinstance(ins, Spin):
        read = ins.read
        if read.kind == "cas":
            return Requirement(thread, index, "rmw", "cas", read.sem, read.scope, False, ins.loc, line)
        sem, scope, vol = _access(read.sem, read.scope, read.volatile)
        return Requirement(thread, index, "load", "", sem, scope, vol, ins.loc, line)
    return None


def requirements(test: LitmusTest) -> list[Requirement]:
    """Every requirement of ``test``, thread by thread, each thread in program order; in a test
    with access widths every memory access also carries its width (``bits``).  An op that no
    path of its thread runs asks nothing: the compiler may delete it (an unsigned 16-bit load
    retried ``until r >= 0`` never runs twice; LLVM drops the second copy on gfx942)."""
    from litmus.model.checker import unreachable_instructions

    widths = {l.name: l.bits for l in test.locations} if test.uses_widths() else {}
    dead = unreachable_instructions(test)
    out: list[Requirement] = []
    for thread in test.threads:
        for index, ins in enumerate(thread.instrs):
            if index in dead.get(thread.name, ()):
                continue
            req = _requirement(thread.name, index, ins)
            if req is not None:
                if req.loc in widths:
                    req = replace(req, bits=widths[req.loc])
                out.append(req)
    return out
