"""Symbolic traces: reads-from first, values computed from it (docs/model.md,
"Dense RMW tests: reads-from first, and the work budget").

The general pipeline (:mod:`litmus.model.traces`) *guesses* each read's value from its
location's value domain and runs a thread once per guess: a thread of ``k`` reads over a domain
of ``d`` values has up to ``d**k`` traces, and a test the product of its threads' counts of trace
combinations, each then searched for a reads-from matching its guesses.  A thread of RMWs whose
values feed each other (``add``) makes both numbers explode: three threads of ten RMWs and loads
of one location gave about 10**12 combinations.

A *straight-line* thread (loads, stores, RMWs, fences, register arithmetic, barriers with
constant operands; no branch, label or spin) has one shape whatever its reads return, except that
a ``cas`` writes or not.  Here each such thread is run once per success/failure choice of its
``cas`` es, with read values left *symbolic*: a write's value (and a final register, and a
``cas`` comparison) is a function of the values of the thread's earlier reads.  A frame of such
traces lets each read take any write of its location; after a reads-from choice the values
follow in the order of ``rf | data`` (acyclic in every consistent execution: No-Thin-Air in
``ptx`` and ``ptx75``, ``po | rf`` acyclic in ``sc``), the ``cas`` comparisons are checked, and
the execution goes on as in the general path.  Every execution the general path examines is
found here once (its reads-from determines its values), so the states and hangs are the same:
checked as a law (``tests/model/test_dense.py``).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Callable, Iterator, Mapping, Union

from litmus.ir import Barrier, Compute, Const, Fence, LitmusTest, Load, Operand, ProxyFence, Reg, Rmw, Store, Thread
from litmus.model.layout import Layout
from litmus.model.traces import PROXY_TAGS, TEvent, _COMPUTE, _rmw_sems, _unit, rmw_result, thread_registers

Env = Mapping[int, int]
"""Trace-local read index -> the value it read."""


@dataclass(frozen=True)
class Sym:
    """A value computed from the values of some reads of one trace: ``fn(env)``, with ``inputs``
    the trace-local indices of the reads it needs."""

    inputs: frozenset[int]
    fn: Callable[[Env], int]


Value = Union[int, Sym]


def _lift(v: Value) -> Sym:
    if isinstance(v, Sym):
        return v
    return Sym(frozenset(), lambda env, c=v: c)


def _apply(f: Callable[..., int], *vals: Value) -> Value:
    """``f(*vals)``, folded when every value is a constant."""
    if not any(isinstance(v, Sym) for v in vals):
        return f(*vals)
    syms = [_lift(v) for v in vals]
    inputs = frozenset().union(*(s.inputs for s in syms))
    fns = [s.fn for s in syms]
    return Sym(inputs, lambda env: f(*(g(env) for g in fns)))


@dataclass(frozen=True)
class STrace:
    """One shape of a straight-line thread: its events (reads with ``value=None``, writes with
    ``None`` where the value is symbolic), the symbolic values of those writes (trace index ->
    :class:`Sym`), its final registers, and the ``cas`` comparisons this shape assumes (each a
    :class:`Sym` that must evaluate true)."""

    events: tuple[TEvent, ...]
    values: tuple[tuple[int, Sym], ...]
    regs: tuple[tuple[str, Value], ...]
    constraints: tuple[Sym, ...]
    status: str = "done"


STRAIGHT = (Load, Store, Rmw, Fence, ProxyFence, Compute, Barrier)


def straight_line(test: LitmusTest) -> bool:
    """Whether every thread of ``test`` is straight-line code (no branch, label or spin; barrier
    operands constant): then :func:`symbolic_traces` applies."""
    for t in test.threads:
        for i in t.instrs:
            if not isinstance(i, STRAIGHT):
                return False
            if isinstance(i, Barrier) and not all(o is None or isinstance(o, Const) for o in (i.id, i.count, i.quorum)):
                return False
    return True


@dataclass
class _St:
    regs: dict[str, Value]
    rdeps: dict[str, frozenset[int]]
    events: list[TEvent]
    values: list[tuple[int, Sym]]
    constraints: list[Sym]
    vec: tuple[int, int] | None = None

    def clone(self) -> "_St":
        return _St(dict(self.regs), dict(self.rdeps), list(self.events), list(self.values),
                   list(self.constraints), self.vec)


def symbolic_traces(thread: Thread, layout: Layout | None = None,
                    addresses: Mapping[str, tuple[str, str]] | None = None) -> list[STrace]:
    """Every shape of the straight-line ``thread`` (one per success/failure choice of its
    ``cas`` es), with the events, data dependencies and registers the general path gives each of
    its traces (:func:`litmus.model.traces.thread_traces`), read values symbolic."""
    regs0: dict[str, Value] = {r: 0 for r in thread_registers(thread)}
    regs0.update(dict(thread.reg_init))
    start = _St(regs0, {r: frozenset() for r in regs0}, [], [], [])
    out = list(_run(thread.instrs, 0, start, layout))
    if addresses:
        out = [dataclasses.replace(tr, events=tuple(_locate(e, addresses) for e in tr.events)) for tr in out]
    return out


def _locate(e: TEvent, addresses: Mapping[str, tuple[str, str]]) -> TEvent:
    if e.loc is None or e.loc not in addresses:
        return e
    phys, generic = addresses[e.loc]
    return dataclasses.replace(e, loc=phys, vloc=generic)


def _val(st: _St, o: Operand | None) -> Value:
    if isinstance(o, Const):
        return o.value
    if isinstance(o, Reg):
        return st.regs.get(o.name, 0)
    return 0


def _dep(st: _St, *ops: Operand | None) -> frozenset[int]:
    out: frozenset[int] = frozenset()
    for o in ops:
        if isinstance(o, Reg):
            out |= st.rdeps.get(o.name, frozenset())
    return out


def _write(st: _St, e: TEvent, v: Value) -> None:
    """Append write ``e`` with value ``v`` (symbolic: recorded in ``st.values``)."""
    if isinstance(v, Sym):
        st.values.append((len(st.events), v))
        st.events.append(e)
    else:
        st.events.append(dataclasses.replace(e, value=v))


def _run(instrs: tuple, pc: int, st: _St, layout: Layout | None) -> Iterator[STrace]:
    while pc < len(instrs):
        i = instrs[pc]
        pc += 1
        if layout is not None and (not isinstance(i, (Load, Store)) or i.group is None):
            st.vec = None
        if isinstance(i, Compute):
            f = _COMPUTE.get(i.op)
            if f is None:
                raise ValueError(f"unknown compute op {i.op!r}")
            st.regs[i.dst] = _apply(f, _val(st, i.a), _val(st, i.b))
            st.rdeps[i.dst] = _dep(st, i.a, i.b)
        elif isinstance(i, Fence):
            st.events.append(TEvent("F", sem=i.sem, scope=i.scope))
        elif isinstance(i, ProxyFence):
            st.events.append(TEvent("F", sem="weak", scope="cta", proxy=PROXY_TAGS[i.kind]))
        elif isinstance(i, Barrier):
            count = None if i.count is None else _val(st, i.count)
            quorum = None if i.quorum is None else _val(st, i.quorum)
            st.events.append(TEvent("B", sem="weak", scope="cta", bar_key=(_val(st, i.id), count),  # type: ignore[arg-type]
                                    arrive=i.arrive, proxy="", quorum=quorum))  # type: ignore[arg-type]
        elif isinstance(i, Store):
            v = _val(st, i.value)
            data = _dep(st, i.value)
            if layout is None:
                _write(st, TEvent("W", i.loc, None, i.sem, i.scope, data=data, proxy=PROXY_TAGS[i.proxy]), v)
                continue
            pieces = layout.pieces[i.loc]
            idx = len(st.events)
            multi = len(pieces) > 1
            unit = _unit(st, i, idx, multi)  # type: ignore[arg-type]
            extent = layout.extent[i.loc][1:]
            for j, p in enumerate(pieces):
                pv = _apply(lambda x, j=j, name=i.loc: layout.values(name, x)[j], v)
                _write(st, TEvent("W", p.granule, None, i.sem, i.scope, data=data, proxy=PROXY_TAGS[i.proxy],
                                  extent=extent, acc=idx if multi else None, unit=unit), pv)
        elif isinstance(i, Load):
            old, reads = _reads(st, i, layout, i.sem)
            st.regs[i.reg] = old
            st.rdeps[i.reg] = reads
        elif isinstance(i, Rmw):
            yield from _rmw(instrs, pc, st, i, layout)
            return
        else:
            raise TypeError(f"not a straight-line instruction: {i!r}")
    yield STrace(tuple(st.events), tuple(st.values), tuple(sorted(st.regs.items())), tuple(st.constraints))


def _reads(st: _St, i: Load | Rmw, layout: Layout | None, sem: str) -> tuple[Value, frozenset[int]]:
    """Append the read events of ``i``; its symbolic value and the reads it is made of."""
    idx = len(st.events)
    proxy = PROXY_TAGS[i.proxy]
    if layout is None:
        st.events.append(TEvent("R", i.loc, None, sem, i.scope, proxy=proxy))
        return Sym(frozenset([idx]), lambda env: env[idx]), frozenset([idx])
    pieces = layout.pieces[i.loc]
    k = len(pieces)
    multi = k > 1
    extent = layout.extent[i.loc][1:]
    unit = _unit(st, i, idx, multi) if isinstance(i, Load) else (idx if multi else None)  # type: ignore[arg-type]
    for p in pieces:
        st.events.append(TEvent("R", p.granule, None, sem, i.scope, proxy=proxy, extent=extent,
                                acc=idx if multi else None, unit=unit))
    reads = frozenset(range(idx, idx + k))
    name = i.loc
    return Sym(reads, lambda env: layout.compose(name, tuple(env[j] for j in range(idx, idx + k)))), reads


def _rmw(instrs: tuple, pc: int, st: _St, i: Rmw, layout: Layout | None) -> Iterator[STrace]:
    rsem, wsem = _rmw_sems(i.sem)
    idx = len(st.events)
    old, reads = _reads(st, i, layout, rsem)
    value = _val(st, i.value)
    expected = None if i.expected is None else _val(st, i.expected)
    deps = _dep(st, i.value, i.expected) | reads
    outcomes: list[tuple[bool, Sym | None]] = [(True, None)]
    if i.op == "cas":
        eq = _lift(_apply(lambda o, e: int(o == e), old, expected))  # type: ignore[arg-type]
        outcomes = [(True, eq), (False, Sym(eq.inputs, lambda env, f=eq.fn: int(not f(env))))]
    for writes, cond in outcomes:
        s = st.clone() if len(outcomes) > 1 else st
        if cond is not None:
            s.constraints.append(cond)
        if writes:
            # a cas that writes read ``expected``: it writes ``value``
            new = value if i.op == "cas" else _apply(lambda o, v: rmw_result(i.op, o, v, None), old, value)  # type: ignore[arg-type]
            if layout is None:
                _write(s, TEvent("W", i.loc, None, wsem, i.scope, rmw_read=idx, data=deps, proxy=PROXY_TAGS[i.proxy]), new)
            else:
                pieces = layout.pieces[i.loc]
                multi = len(pieces) > 1
                widx = len(s.events)
                extent = layout.extent[i.loc][1:]
                for j, p in enumerate(pieces):
                    pv = _apply(lambda x, j=j, name=i.loc: layout.values(name, x)[j], new)
                    _write(s, TEvent("W", p.granule, None, wsem, i.scope, rmw_read=idx + j, data=deps,
                                     proxy=PROXY_TAGS[i.proxy], extent=extent, acc=widx if multi else None,
                                     unit=widx if multi else None), pv)
        if i.reg:
            s.regs[i.reg] = old
            s.rdeps[i.reg] = reads
        yield from _run(instrs, pc, s, layout)


class _Cycle(Exception):
    """The values of a reads-from choice depend on themselves (a cycle in ``rf | data``)."""


def resolver(frame: object, combo: list[STrace]) -> Callable[[tuple[int, ...]], tuple[object, dict[str, Value]] | None]:
    """For a frame of the shapes ``combo`` (one per thread): a function from a reads-from choice
    (one write per ``frame.reads``) to the frame with every value filled in and each thread's
    final registers (``(frame, [regs per thread])``), or None when the choice closes a cycle in
    ``rf | data`` or breaks a ``cas`` comparison its shapes assume."""
    events: list[TEvent] = frame.events  # type: ignore[attr-defined]
    thread_of: list[int] = frame.thread_of  # type: ignore[attr-defined]
    offsets: dict[int, int] = {}
    for k, t in enumerate(thread_of):
        if t >= 0 and t not in offsets:
            offsets[t] = k
    sym_of: dict[int, tuple[int, Sym]] = {}  # global write index -> (thread offset, its value)
    for t, tr in enumerate(combo):
        off = offsets.get(t, 0)
        for i, v in tr.values:
            sym_of[off + i] = (off, v)
    reads: list[int] = frame.reads  # type: ignore[attr-defined]
    base_vals = [e.value for e in events]
    checks = [(offsets.get(t, 0), c) for t, tr in enumerate(combo) for c in tr.constraints]
    regs = [(offsets.get(t, 0), tr.regs) for t, tr in enumerate(combo)]
    replace = dataclasses.replace
    open_events = [k for k, e in enumerate(events) if e.value is None and e.kind in "RW"]
    made: dict[tuple[int, int], TEvent] = {}  # (event, value) -> the event with that value

    def resolve(choice: tuple[int, ...]) -> tuple[object, list[dict[str, int]]] | None:
        src = dict(zip(reads, choice))
        vals = list(base_vals)
        busy = set()

        def value(k: int) -> int:
            v = vals[k]
            if v is not None:
                return v
            if k in busy:
                raise _Cycle()
            busy.add(k)
            if k in src:
                v = value(src[k])
            else:
                off, s = sym_of[k]
                v = s.fn(_Env(off, value))
            vals[k] = v
            return v

        try:
            for off, c in checks:
                if not c.fn(_Env(off, value)):
                    return None
            for k in sym_of:
                value(k)
            for r in reads:
                value(r)
            out_regs = [{name: (v if not isinstance(v, Sym) else v.fn(_Env(off, value))) for name, v in rs}
                        for off, rs in regs]
        except _Cycle:
            return None
        concrete = list(events)
        for k in open_events:
            key = (k, vals[k])
            e = made.get(key)
            if e is None:
                e = made[key] = replace(events[k], value=vals[k])
            concrete[k] = e
        return replace(frame, events=concrete), out_regs  # type: ignore[call-overload]

    return resolve  # type: ignore[return-value]


class _Env:
    """The values of one trace's reads (trace-local index -> value), computed on demand."""

    __slots__ = ("off", "value")

    def __init__(self, off: int, value: Callable[[int], int]) -> None:
        self.off = off
        self.value = value

    def __getitem__(self, j: int) -> int:
        return self.value(self.off + j)
