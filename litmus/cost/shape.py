"""The signalling of a catalog variant: which threads signal and wait, on which flags, with which ops.

A *flag* is a location some thread spins on (or, in a test without spins, the first location
a thread reads that another thread writes). The *signalling ops* of a thread are its accesses
to flags plus its fences and CTA barriers, in program order; data accesses are left out, so
the cost is the price of the signalling itself. Two shapes:

- ``message``: one thread raises a flag that another waits for (MP and its kin). The signal
  is the writer's first flag write with the fences and barriers next to it; the wait is the
  reader's first read of that flag (made a spin when the variant reads it once) with the
  fences and barriers next to it. Timed as a ping-pong: the message there and back.
- ``barrier``: every signalling thread both raises a flag and waits for one (symm_mem, XLA,
  vLLM-style barriers). Timed by running each thread's signalling ops again and again.

A flag is *self-resetting* when a CAS spin puts it back to its initial value as it succeeds
(iris' ``atomic_cas(flag, 1, 0)``, symm_mem's ``wait_signal``): it can be reused as it is.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from litmus.errors import LitmusError, Problem
from litmus.ir import Barrier, Const, Fence, Instr, LitmusTest, Load, Rmw, Spin, SpinRead, Store, Thread

@dataclass(frozen=True)
class Party:
    """One signalling thread: where it runs and its signalling ops in program order."""

    thread: str
    rank: int
    cta: int
    ops: tuple[Instr, ...]


@dataclass(frozen=True)
class Signalling:
    """The signalling of one variant (see the module docstring).

    ``message``: ``signal`` (the writer's ops) and ``wait`` (the reader's, starting or ending
    with a :class:`Spin`), ``parties`` = (writer, reader) with their whole signalling ops.
    ``barrier``: ``parties`` each repeat their ops; ``signal`` and ``wait`` are empty.
    ``raised``: the value each flag is raised to; ``resetting``: the self-resetting flags.
    """

    test: LitmusTest
    shape: str
    flags: tuple[str, ...]
    parties: tuple[Party, ...]
    raised: tuple[tuple[str, int], ...]
    resetting: tuple[str, ...]
    signal: tuple[Instr, ...] = ()
    wait: tuple[Instr, ...] = ()
    flag: str = ""  # message: the flag the signal raises

    def raised_value(self, loc: str) -> int:
        """The value ``loc`` is raised to."""
        return dict(self.raised)[loc]


def _fail(test: LitmusTest, why: str) -> LitmusError:
    return LitmusError(Problem(test.source_file, test.source_line, None,
                               f"{test.id}: litmus cost cannot time it: {why}"))


def _writes(ins: Instr) -> str | None:
    """The location ``ins`` writes as a signal (not a consuming CAS spin), or None."""
    if isinstance(ins, (Store, Rmw)):
        return ins.loc
    return None


def _flags(test: LitmusTest) -> tuple[str, ...]:
    spun = [i.loc for t in test.threads for i in t.instrs if isinstance(i, Spin)]
    if spun:
        return tuple(dict.fromkeys(spun))
    written = {t.name: {_writes(i) for i in t.instrs} - {None} for t in test.threads}
    found: list[str] = []
    for t in test.threads:
        for i in t.instrs:
            loc = i.loc if isinstance(i, Load) or (isinstance(i, Rmw) and i.reg is not None) else None
            if loc is None:
                continue
            if any(loc in w for n, w in written.items() if n != t.name):
                found.append(loc)
            break  # only the first read of each thread
    return tuple(dict.fromkeys(found))


def _raised(test: LitmusTest, flags: tuple[str, ...]) -> tuple[tuple[str, int], ...]:
    """The first value written to each flag (a store, exch or CAS value; init + n for an add)."""
    out: dict[str, int] = {}
    for t in test.threads:
        for i in t.instrs:
            loc = _writes(i)
            if loc in flags and loc not in out and isinstance(getattr(i, "value", None), Const):
                v = i.value.value  # type: ignore[union-attr]
                out[loc] = test.location(loc).init + v if isinstance(i, Rmw) and i.op == "add" else v
    for loc in flags:
        if loc not in out:  # raised only by CAS spins (symm_mem's send): the reset value
            spins = [i for t in test.threads for i in t.instrs
                     if isinstance(i, Spin) and i.loc == loc and i.read.reset is not None
                     and i.read.reset != test.location(loc).init]
            if spins:
                out[loc] = int(spins[0].read.reset)  # type: ignore[arg-type]
    missing = [loc for loc in flags if loc not in out]
    if missing:
        raise _fail(test, f"no thread writes a constant to flag(s) {missing}")
    return tuple(sorted(out.items()))


def _as_spin(ins: Instr, until: int) -> Instr:
    """A single read of a flag as a spin that waits for ``until`` (keeps sem, scope, volatile)."""
    if isinstance(ins, Load):
        return Spin(ins.loc, until, SpinRead("load", ins.sem, ins.scope, ins.volatile), reg=ins.reg, line=ins.line)
    if isinstance(ins, Rmw) and ins.op == "cas" and isinstance(ins.expected, Const) and isinstance(ins.value, Const):
        return Spin(ins.loc, ins.expected.value, SpinRead("cas", ins.sem, ins.scope, reset=ins.value.value),
                    reg=ins.reg, line=ins.line)
    if isinstance(ins, Rmw):
        return Spin(ins.loc, until, SpinRead("load", "acquire" if ins.sem in ("acquire", "acq_rel") else "relaxed",
                                             ins.scope), reg=ins.reg, line=ins.line)
    return ins


def _signalling_ops(t: Thread, flags: tuple[str, ...], spin_reads: bool, raised: dict[str, int]) -> tuple[Instr, ...]:
    ops: list[Instr] = []
    for i in t.instrs:
        if isinstance(i, (Fence, Barrier)):
            ops.append(i)
        elif getattr(i, "loc", None) in flags:
            reads = isinstance(i, Load) or (isinstance(i, Rmw) and i.op == "cas" and i.reg is not None
                                            and not _is_signal_cas(i))
            ops.append(_as_spin(i, raised[i.loc]) if spin_reads and reads else i)  # type: ignore[union-attr]
    return tuple(ops)


def _is_signal_cas(i: Rmw) -> bool:
    """A CAS that raises a flag from 0 (``cas(flag, 0, 1)``) rather than waiting on it."""
    return isinstance(i.expected, Const) and i.expected.value == 0 and isinstance(i.value, Const) and i.value.value != 0


def _role(ins: Instr, init: dict[str, int]) -> str | None:
    """``signal`` (raises a flag), ``wait`` (waits for one), or None (a fence, barrier or plain read)."""
    if isinstance(ins, Spin):
        if ins.read.kind == "cas" and ins.read.reset is not None and ins.read.reset != init[ins.loc]:
            return "signal"
        return "wait"
    if isinstance(ins, (Store, Rmw)):
        return "signal"
    return None


def _group(ops: tuple[Instr, ...], k: int) -> tuple[Instr, ...]:
    """Op ``k`` with the fences and barriers right before and after it."""
    lo = k
    while lo > 0 and isinstance(ops[lo - 1], (Fence, Barrier)):
        lo -= 1
    hi = k + 1
    while hi < len(ops) and isinstance(ops[hi], (Fence, Barrier)):
        hi += 1
    return ops[lo:hi]


def signalling(test: LitmusTest) -> Signalling:
    """The signalling of ``test``; raises ``LitmusError`` (file:line, why) when it has none to time."""
    flags = _flags(test)
    if not flags:
        raise _fail(test, "no flag (no spin, and no thread first reads a location another thread writes); "
                          "cost times signalling patterns such as MP, symm_mem or XLA barriers")
    raised = _raised(test, flags)
    spin_reads = not any(isinstance(i, Spin) for t in test.threads for i in t.instrs)
    init = {l.name: l.init for l in test.locations}
    parties = []
    for t in test.threads:
        ops = _signalling_ops(t, flags, spin_reads, dict(raised))
        if any(_role(o, init) is not None for o in ops):
            parties.append(Party(t.name, t.rank, t.cta, ops))
    resetting = tuple(sorted({i.loc for p in parties for i in p.ops if isinstance(i, Spin) and i.read.kind == "cas"
                              and i.read.reset == init[i.loc]}))
    roles = [{_role(o, init) for o in p.ops} - {None} for p in parties]
    if len(parties) >= 2 and all(r == {"signal", "wait"} for r in roles):
        _check_places(test, parties)
        return Signalling(test, "barrier", flags, tuple(parties), raised, resetting)
    writer = next((p for p, r in zip(parties, roles) if "signal" in r), None)
    if writer is None:
        raise _fail(test, f"no thread raises flag(s) {list(flags)}")
    k = next(n for n, o in enumerate(writer.ops) if _role(o, init) == "signal")
    flag = writer.ops[k].loc  # type: ignore[union-attr]
    reader = next((p for p in parties if p is not writer and any(
        _role(o, init) == "wait" and getattr(o, "loc", None) == flag for o in p.ops)), None)
    if reader is None:
        raise _fail(test, f"no other thread waits for flag {flag} that {writer.thread} raises")
    j = next(n for n, o in enumerate(reader.ops) if _role(o, init) == "wait" and getattr(o, "loc", None) == flag)
    _check_places(test, [writer, reader])
    return Signalling(test, "message", flags, (writer, reader), raised, resetting,
                      signal=_group(writer.ops, k), wait=_group(reader.ops, j), flag=flag)


def _check_places(test: LitmusTest, parties: list[Party]) -> None:
    places = [(p.rank, p.cta) for p in parties]
    if len(set(places)) != len(places):
        raise _fail(test, "two signalling threads share a CTA; a ping-pong inside one CTA would run its two "
                          "sides one after the other (pick the variant's xcta or xgpu placement)")


def renamed(ops: tuple[Instr, ...], names: dict[str, str]) -> tuple[Instr, ...]:
    """``ops`` with their locations renamed by ``names`` (others kept)."""
    return tuple(replace(o, loc=names.get(o.loc, o.loc)) if hasattr(o, "loc") else o for o in ops)  # type: ignore[union-attr]
