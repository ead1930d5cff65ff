"""Per-thread traces: run one thread's instructions with guessed read values.

A :class:`Trace` is one path through a thread: the memory, fence and barrier events it
performs (each read with a guessed value from the location's value domain), its final
registers, and whether it finished (``done``) or got stuck in a loop that cannot exit
(``stuck``: its ``hang`` reads must see co-final values for the hang to be real).

Loops: a backward jump whose iteration only read memory and left every register that is live
at the loop head unchanged is a *failed spin iteration*; it is never repeated (the standard
spin-loop assumption) and instead yields a ``stuck`` trace.  Other backward jumps are
unrolled at most ``unroll`` times per thread; a path that needs more is ``stuck`` too.

Access widths (a :class:`~litmus.model.layout.Layout`): an access makes one event per granule
it covers, each read guessing its granule's value, the register getting the composite; the
events of one access share ``acc`` and those of one access or one vector instruction share
``unit`` (no program order inside a unit).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from itertools import product
from typing import Iterator, Mapping

from litmus.errors import LitmusError
from litmus.ir import (
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
    Reg,
    Rmw,
    Spin,
    Store,
    Thread,
    COMPARE,
    BRANCH_CMP,
    spin_exits,
)
from litmus.model import budget
from litmus.model.layout import Layout


@dataclass(frozen=True, slots=True)
class TEvent:
    """One event of a trace.  ``kind`` is ``R``, ``W``, ``F`` (fence) or ``B`` (barrier).

    ``sem`` is the event's own order (``weak``, ``relaxed``, ``acquire``, ``release``,
    ``acq_rel`` for fences, ``sc`` for fences).  ``rmw_read`` is the trace index of the read
    half of an RMW (on its write half).  ``data``/``ctrl``: trace indices of the reads this
    event depends on.  ``hang``: a read of a stuck loop.  ``until``: for a hanging
    :class:`~litmus.ir.Spin` read, the value that would have let it exit.  ``loc`` is the
    physical location; ``vloc`` the generic virtual address the access named (they differ
    only for proxy aliases).  ``proxy``: ``GEN TEX SUR CON`` for accesses and fences,
    ``ALIAS`` for ``fence.proxy.alias``, ``""`` for barriers.  ``quorum``: a barrier's quorum.

    With access widths (``loc`` is then a granule): ``extent``, the (byte offset, byte size) the
    access covers in its physical location; ``acc``, the trace index of the first event of an
    access that covers several granules (its events share it); ``unit``, the trace index of the
    first event of such an access or of a vector instruction (no program order inside a unit).
    """

    kind: str
    loc: str | None = None
    value: int | None = None
    sem: str = "weak"
    scope: str = "sys"
    rmw_read: int | None = None
    data: frozenset[int] = frozenset()
    ctrl: frozenset[int] = frozenset()
    bar_key: tuple[int, int | None] | None = None
    arrive: bool = False
    hang: bool = False
    until: int | None = None
    proxy: str = "GEN"
    vloc: str | None = None
    quorum: int | None = None
    extent: tuple[int, int] | None = None
    acc: int | None = None
    unit: int | None = None


PROXY_TAGS = {"generic": "GEN", "texture": "TEX", "surface": "SUR", "constant": "CON",
              "alias": "ALIAS", "async": "ASYNC"}
"""IR proxy names -> the event tags of Dat3M's ``ptx-v7.5.cat`` (``ASYNC``: litmus's extension)."""

Addresses = Mapping[str, tuple[str, str]]
"""Location name -> (physical location, generic virtual address)."""


@dataclass(frozen=True)
class Trace:
    """One path through a thread: events, final registers, ``done`` or ``stuck``."""

    events: tuple[TEvent, ...]
    regs: tuple[tuple[str, int], ...]
    status: str
    ran: frozenset[int] = field(default=frozenset(), compare=False)  # indices of the instructions it ran


@dataclass
class _State:
    pc: int
    regs: dict[str, int]
    rdeps: dict[str, frozenset[int]]
    ctrl: frozenset[int]
    events: list[TEvent]
    backjumps: int = 0
    snaps: dict[str, tuple[dict[str, int], int]] = field(default_factory=dict)
    vec: tuple[int, int] | None = None  # (group, unit) of the vector instruction being run
    ran: set[int] = field(default_factory=set)

    def clone(self) -> "_State":
        return _State(self.pc, dict(self.regs), dict(self.rdeps), self.ctrl, list(self.events),
                      self.backjumps, dict(self.snaps), self.vec, set(self.ran))


_COMPUTE = {
    "mov": lambda a, b: a,
    "add": lambda a, b: a + b,
    "sub": lambda a, b: a - b,
    "mul": lambda a, b: a * b,
    "and": lambda a, b: a & b,
    "or": lambda a, b: a | b,
    "xor": lambda a, b: a ^ b,
    "shl": lambda a, b: a << b,
    "shr": lambda a, b: a >> b,
}

_BRANCH = {branch: COMPARE[cmp] for branch, cmp in BRANCH_CMP.items()}


def rmw_result(op: str, old: int, value: int, expected: int | None) -> int | None:
    """The value an RMW ``op`` writes when it reads ``old``; None when it writes nothing."""
    if op == "cas":
        return value if old == expected else None
    if op == "exch":
        return value
    if op == "add":
        return old + value
    if op == "and":
        return old & value
    if op == "or":
        return old | value
    if op == "xor":
        return old ^ value
    if op == "min":
        return min(old, value)
    if op == "max":
        return max(old, value)
    if op == "inc":
        return 0 if old >= value else old + 1
    if op == "dec":
        return value if old == 0 or old > value else old - 1
    raise ValueError(f"unknown RMW op {op!r}")


def _uses(i: Instr) -> set[str]:
    ops: list[Operand | None] = []
    if isinstance(i, Store):
        ops = [i.value]
    elif isinstance(i, Rmw):
        ops = [i.value, i.expected]
    elif isinstance(i, Barrier):
        ops = [i.id, i.count, i.quorum]
    elif isinstance(i, Compute):
        ops = [i.a, i.b]
    elif isinstance(i, Branch):
        ops = [i.lhs, i.rhs]
    return {o.name for o in ops if isinstance(o, Reg)}


def _defs(i: Instr) -> set[str]:
    if isinstance(i, Load):
        return {i.reg}
    if isinstance(i, (Rmw, Spin)) and i.reg:
        return {i.reg}
    if isinstance(i, Compute):
        return {i.dst}
    return set()


def thread_registers(thread: Thread) -> set[str]:
    """Every register the thread names (initialised, read or written)."""
    regs = {r for r, _ in thread.reg_init}
    for i in thread.instrs:
        regs |= _uses(i) | _defs(i)
    return regs


def live_in(thread: Thread, labels: Mapping[str, int]) -> list[frozenset[str]]:
    """Registers live before each instruction (all registers are live at the thread's end)."""
    instrs = thread.instrs
    n = len(instrs)
    everything = frozenset(thread_registers(thread))
    live = [frozenset[str]() for _ in range(n + 1)]
    live[n] = everything
    changed = True
    while changed:
        changed = False
        for pc in range(n - 1, -1, -1):
            i = instrs[pc]
            if isinstance(i, Branch):
                succ = set(live[labels[i.target]])
                if i.cond is not None:
                    succ |= live[pc + 1]
            else:
                succ = set(live[pc + 1])
            new = frozenset((succ - _defs(i)) | _uses(i))
            if new != live[pc]:
                live[pc] = new
                changed = True
    return live


def label_positions(thread: Thread, file: str = "") -> dict[str, int]:
    """Label name -> instruction index; raises LitmusError for a branch to a missing label."""
    labels = {i.name: pc for pc, i in enumerate(thread.instrs) if isinstance(i, Label)}
    for i in thread.instrs:
        if isinstance(i, Branch) and i.target not in labels:
            raise LitmusError.at(file, i.line, f"{thread.name}: branch to unknown label "
                                               f"{i.target!r}; add '{i.target}:' to the thread")
    return labels


def thread_traces(thread: Thread, domain: Mapping[str, tuple[int, ...]], unroll: int,
                  file: str = "", addresses: Addresses | None = None,
                  layout: Layout | None = None) -> list[Trace]:
    """Every trace of ``thread`` when reads may return any value of ``domain[loc]``
    (``addresses``: alias names -> their physical location and generic address; ``layout``:
    the granules of a test with access widths, ``domain`` then being per granule)."""
    labels = label_positions(thread, file)
    live = live_in(thread, labels)
    regs0 = {r: 0 for r in thread_registers(thread)}
    regs0.update(dict(thread.reg_init))
    start = _State(0, regs0, {r: frozenset() for r in regs0}, frozenset(), [])
    traces = list(_run(thread, start, domain, unroll, labels, live, layout))
    if addresses:
        traces = [Trace(tuple(_locate(e, addresses) for e in tr.events), tr.regs, tr.status, tr.ran)
                  for tr in traces]
    return traces


def _locate(e: TEvent, addresses: Addresses) -> TEvent:
    """``e`` with ``loc`` the physical location and ``vloc`` the generic address it names."""
    if e.loc is None or e.loc not in addresses:
        return e
    phys, generic = addresses[e.loc]
    return dataclasses.replace(e, loc=phys, vloc=generic)


def _val(st: _State, o: Operand | None) -> int:
    if isinstance(o, Const):
        return o.value
    if isinstance(o, Reg):
        return st.regs.get(o.name, 0)
    return 0


def _dep(st: _State, *ops: Operand | None) -> frozenset[int]:
    out: frozenset[int] = frozenset()
    for o in ops:
        if isinstance(o, Reg):
            out |= st.rdeps.get(o.name, frozenset())
    return out


def _finish(st: _State, status: str) -> Trace:
    budget.charge()
    return Trace(tuple(st.events), tuple(sorted(st.regs.items())), status, frozenset(st.ran))


def _mark_hang(st: _State, since: int, until: int | None = None) -> None:
    for k in range(since, len(st.events)):
        e = st.events[k]
        if e.kind == "R":
            st.events[k] = dataclasses.replace(e, hang=True, until=until)


def _run(thread: Thread, st: _State, domain: Mapping[str, tuple[int, ...]], unroll: int,
         labels: Mapping[str, int], live: list[frozenset[str]], layout: Layout | None = None) -> Iterator[Trace]:
    instrs = thread.instrs
    while st.pc < len(instrs):
        i = instrs[st.pc]
        st.ran.add(st.pc)
        if layout is not None:
            if not isinstance(i, (Load, Store)) or i.group is None:
                st.vec = None
            if isinstance(i, (Load, Store, Rmw, Spin)):
                if isinstance(i, Store):
                    _store_pieces(st, i, layout)
                    st.pc += 1
                    continue
                yield from _branch_pieces(thread, st, domain, unroll, labels, live, i, layout)
                return
        if isinstance(i, Label):
            st.snaps[i.name] = (dict(st.regs), len(st.events))
            st.pc += 1
        elif isinstance(i, Compute):
            f = _COMPUTE.get(i.op)
            if f is None:
                raise ValueError(f"unknown compute op {i.op!r}")
            st.regs[i.dst] = f(_val(st, i.a), _val(st, i.b))
            st.rdeps[i.dst] = _dep(st, i.a, i.b)
            st.pc += 1
        elif isinstance(i, Fence):
            st.events.append(TEvent("F", sem=i.sem, scope=i.scope, ctrl=st.ctrl))
            st.pc += 1
        elif isinstance(i, ProxyFence):
            # a proxy fence orders within the CTA; it has no order of its own (weak)
            st.events.append(TEvent("F", sem="weak", scope="cta", ctrl=st.ctrl,
                                    proxy=PROXY_TAGS[i.kind]))
            st.pc += 1
        elif isinstance(i, Barrier):
            count = None if i.count is None else _val(st, i.count)
            quorum = None if i.quorum is None else _val(st, i.quorum)
            st.events.append(TEvent("B", sem="weak", scope="cta", ctrl=st.ctrl,
                                    bar_key=(_val(st, i.id), count), arrive=i.arrive,
                                    proxy="", quorum=quorum))
            st.pc += 1
        elif isinstance(i, Store):
            st.events.append(TEvent("W", i.loc, _val(st, i.value), i.sem, i.scope,
                                    data=_dep(st, i.value), ctrl=st.ctrl,
                                    proxy=PROXY_TAGS[i.proxy]))
            st.pc += 1
        elif isinstance(i, Branch):
            if i.cond is None:
                taken = True
            else:
                taken = _BRANCH[i.cond](_val(st, i.lhs), _val(st, i.rhs))
                st.ctrl = st.ctrl | _dep(st, i.lhs, i.rhs)
            if not taken:
                st.pc += 1
                continue
            target = labels[i.target]
            if target > st.pc:
                st.pc = target
                continue
            snap = st.snaps.get(i.target)
            since = snap[1] if snap else len(st.events)
            pure = snap is not None and all(e.kind == "R" for e in st.events[since:]) and all(
                st.regs.get(r, 0) == snap[0].get(r, 0) for r in live[target])
            if pure or st.backjumps >= unroll:
                _mark_hang(st, since)
                yield _finish(st, "stuck")
                return
            st.backjumps += 1
            st.pc = target
        elif isinstance(i, Load):
            yield from _branch_read(thread, st, domain, unroll, labels, live, i)
            return
        elif isinstance(i, Rmw):
            yield from _branch_rmw(thread, st, domain, unroll, labels, live, i)
            return
        elif isinstance(i, Spin):
            yield from _branch_spin(thread, st, domain, unroll, labels, live, i)
            return
        else:
            raise TypeError(f"unknown instruction {i!r}")
    yield _finish(st, "done")


def _branch_read(thread, st, domain, unroll, labels, live, i: Load) -> Iterator[Trace]:
    for v in domain[i.loc]:
        s = st.clone()
        idx = len(s.events)
        s.events.append(TEvent("R", i.loc, v, i.sem, i.scope, ctrl=s.ctrl,
                               proxy=PROXY_TAGS[i.proxy]))
        s.regs[i.reg] = v
        s.rdeps[i.reg] = frozenset([idx])
        s.pc += 1
        yield from _run(thread, s, domain, unroll, labels, live)


def _rmw_sems(sem: str) -> tuple[str, str]:
    read = "acquire" if sem in ("acquire", "acq_rel") else "relaxed"
    write = "release" if sem in ("release", "acq_rel") else "relaxed"
    return read, write


def _branch_rmw(thread, st, domain, unroll, labels, live, i: Rmw) -> Iterator[Trace]:
    rsem, wsem = _rmw_sems(i.sem)
    for old in domain[i.loc]:
        s = st.clone()
        idx = len(s.events)
        s.events.append(TEvent("R", i.loc, old, rsem, i.scope, ctrl=s.ctrl,
                               proxy=PROXY_TAGS[i.proxy]))
        new = rmw_result(i.op, old, _val(s, i.value), None if i.expected is None else _val(s, i.expected))
        if new is not None:
            s.events.append(TEvent("W", i.loc, new, wsem, i.scope, rmw_read=idx,
                                   data=_dep(s, i.value, i.expected) | {idx}, ctrl=s.ctrl,
                                   proxy=PROXY_TAGS[i.proxy]))
        if i.reg:
            s.regs[i.reg] = old
            s.rdeps[i.reg] = frozenset([idx])
        s.pc += 1
        yield from _run(thread, s, domain, unroll, labels, live)


def _branch_spin(thread, st, domain, unroll, labels, live, i: Spin) -> Iterator[Trace]:
    rd = i.read
    if rd.kind == "cas":
        rsem, wsem = _rmw_sems(rd.sem)
    else:
        rsem, wsem = rd.sem, rd.sem
    for v in domain[i.loc]:
        s = st.clone()
        idx = len(s.events)
        s.events.append(TEvent("R", i.loc, v, rsem, rd.scope, ctrl=s.ctrl))
        if not spin_exits(i, v):
            _mark_hang(s, idx, until=i.until)
            yield _finish(s, "stuck")
            continue
        if rd.kind == "cas" and rd.reset is not None:
            s.events.append(TEvent("W", i.loc, rd.reset, wsem, rd.scope, rmw_read=idx,
                                   data=frozenset([idx]), ctrl=s.ctrl))
        s.ctrl = s.ctrl | {idx}
        if i.reg:
            s.regs[i.reg] = v
            s.rdeps[i.reg] = frozenset([idx])
        s.pc += 1
        yield from _run(thread, s, domain, unroll, labels, live)


# ------------------------------------------------------------------ accesses cut into granules


def _unit(st: _State, i: Load | Store, idx: int, multi: bool) -> int | None:
    """The unit the events of ``i`` (starting at trace index ``idx``) belong to: the vector
    instruction's for an element, their own for an access of several granules, else None."""
    if i.group is not None:
        if st.vec is None or st.vec[0] != i.group:
            st.vec = (i.group, idx)
        return st.vec[1]
    return idx if multi else None


def _store_pieces(st: _State, i: Store, layout: Layout) -> None:
    pieces = layout.pieces[i.loc]
    idx = len(st.events)
    multi = len(pieces) > 1
    unit = _unit(st, i, idx, multi)
    extent = layout.extent[i.loc][1:]
    data = _dep(st, i.value)
    for p, v in zip(pieces, layout.values(i.loc, _val(st, i.value))):
        st.events.append(TEvent("W", p.granule, v, i.sem, i.scope, data=data, ctrl=st.ctrl,
                                proxy=PROXY_TAGS[i.proxy], extent=extent, acc=idx if multi else None,
                                unit=unit))


def _branch_pieces(thread, st, domain, unroll, labels, live, i: Load | Rmw | Spin,
                   layout: Layout) -> Iterator[Trace]:
    """A read (of a load, an RMW or a spin) of every granule ``i`` covers, once per combination
    of the granules' values, then the rest of the thread."""
    pieces = layout.pieces[i.loc]
    k = len(pieces)
    multi = k > 1
    extent = layout.extent[i.loc][1:]
    if isinstance(i, Spin):
        rd = i.read
        rsem, wsem = _rmw_sems(rd.sem) if rd.kind == "cas" else (rd.sem, rd.sem)
        scope, proxy = rd.scope, "GEN"
    elif isinstance(i, Rmw):
        rsem, wsem = _rmw_sems(i.sem)
        scope, proxy = i.scope, PROXY_TAGS[i.proxy]
    else:
        rsem, wsem, scope, proxy = i.sem, i.sem, i.scope, PROXY_TAGS[i.proxy]
    for combo in product(*(domain[p.granule] for p in pieces)):
        s = st.clone()
        idx = len(s.events)
        unit = _unit(s, i, idx, multi) if isinstance(i, Load) else (idx if multi else None)
        for p, v in zip(pieces, combo):
            s.events.append(TEvent("R", p.granule, v, rsem, scope, ctrl=s.ctrl, proxy=proxy, extent=extent,
                                   acc=idx if multi else None, unit=unit))
        reads = frozenset(range(idx, idx + k))
        old = layout.compose(i.loc, combo)
        new: int | None = None
        deps = reads
        if isinstance(i, Spin):
            if not spin_exits(i, old):
                _mark_hang(s, idx, until=i.until)
                yield _finish(s, "stuck")
                continue
            new = i.read.reset if i.read.kind == "cas" else None
        elif isinstance(i, Rmw):
            new = rmw_result(i.op, old, _val(s, i.value), None if i.expected is None else _val(s, i.expected))
            deps = _dep(s, i.value, i.expected) | reads
        if new is not None:
            widx = len(s.events)
            for j, (p, v) in enumerate(zip(pieces, layout.values(i.loc, new))):
                s.events.append(TEvent("W", p.granule, v, wsem, scope, rmw_read=idx + j, data=deps, ctrl=s.ctrl,
                                       proxy=proxy, extent=extent, acc=widx if multi else None,
                                       unit=widx if multi else None))
        if isinstance(i, Spin):
            s.ctrl = s.ctrl | reads  # what follows a spin depends on the value that let it exit
        if i.reg:
            s.regs[i.reg] = old
            s.rdeps[i.reg] = reads
        s.pc += 1
        yield from _run(thread, s, domain, unroll, labels, live, layout)
