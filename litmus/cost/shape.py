"""The signalling of a catalog variant: which threads signal and wait, on which flags, with which ops.

A *flag* is a location some thread spins on (or, in a test without spins, the first location
a thread reads that another thread writes). Names are compared by their bytes: a view, or an
element of a vector access, is the flag another name of the same bytes is (an access *touches*
a flag when they share a byte). The *signalling ops* of a thread are its accesses to a flag's
location (its *word*: the location and every view of it) plus its fences and CTA barriers, in
program order; data accesses are left out, so the cost is the price of the signalling itself.
An access to the word that touches no flag (the other element of a vector store, the other
half of a packed trigger) *rides* with the flag access next to it: the hardware cannot signal
without it. Two shapes:

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
from litmus.ir import Barrier, Const, Fence, Instr, LitmusTest, Load, Location, Rmw, Spin, SpinRead, Store, Thread

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

    def flag_of(self, loc: str) -> str | None:
        """The flag whose bytes ``loc`` touches (None for a rider or a data location)."""
        return flag_touched(self.test, self.flags, loc)

    def words(self, names: tuple[str, ...] | None = None) -> tuple[str, ...]:
        """Every name of the words of ``names`` (the location each lies in, and its views;
        default every flag's), in test order."""
        bases = {_span(self.test, n)[0] for n in (self.flags if names is None else names)}
        return tuple(l.name for l in self.test.locations if _span(self.test, l.name)[0] in bases)


def _fail(test: LitmusTest, why: str) -> LitmusError:
    return LitmusError(Problem(test.source_file, test.source_line, None,
                               f"{test.id}: litmus cost cannot time it: {why}"))


def _writes(ins: Instr) -> str | None:
    """The location ``ins`` writes as a signal (not a consuming CAS spin), or None."""
    if isinstance(ins, (Store, Rmw)):
        return ins.loc
    return None


def _span(test: LitmusTest, name: str) -> tuple[str, int, int]:
    """The location whose memory ``name`` denotes, and ``name``'s bytes ``[start, end)`` in it."""
    loc = test.location(name)
    start = loc.offset if loc.view_of is not None else 0
    return loc.physical(test), start, start + loc.bits // 8


def touches(test: LitmusTest, a: str, b: str) -> bool:
    """Whether names ``a`` and ``b`` share a byte (a view touches the location it views)."""
    (pa, sa, ea), (pb, sb, eb) = _span(test, a), _span(test, b)
    return pa == pb and sa < eb and sb < ea


def same_bytes(test: LitmusTest, a: str, b: str) -> bool:
    """Whether names ``a`` and ``b`` denote the same bytes (a view and the element view of them)."""
    return _span(test, a) == _span(test, b)


def flag_touched(test: LitmusTest, flags: tuple[str, ...], loc: str) -> str | None:
    """The first of ``flags`` that ``loc`` touches, or None."""
    return next((f for f in flags if touches(test, loc, f)), None)


def _in_words(test: LitmusTest, flags: tuple[str, ...], loc: str) -> bool:
    """Whether ``loc`` lies in the location of one of ``flags`` (touching it or riding with it)."""
    return _span(test, loc)[0] in {_span(test, f)[0] for f in flags}


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
            if any(touches(test, loc, w) for n, ws in written.items() if n != t.name for w in ws):
                found.append(loc)
            break  # only the first read of each thread
    return tuple(dict.fromkeys(found))


def _raise_value(test: LitmusTest, ins: Instr, flag: str) -> int | None:
    """The value ``flag`` holds once ``ins`` wrote it: a constant written over all of its bytes
    (their part of a wider write; init + n for an add to the flag itself), else None."""
    value = getattr(ins, "value", None)
    loc = _writes(ins)
    if loc is None or not isinstance(value, Const):
        return None
    (_, start, end), (_, fs, fe) = _span(test, loc), _span(test, flag)
    if not (touches(test, loc, flag) and start <= fs and fe <= end):
        return None  # a partial write raises no flag alone
    if isinstance(ins, Rmw) and ins.op == "add":
        return test.location(flag).init + value.value if (start, end) == (fs, fe) else None
    return (value.value >> (8 * (fs - start))) & ((1 << (8 * (fe - fs))) - 1)


def _raised(test: LitmusTest, flags: tuple[str, ...]) -> tuple[tuple[str, int], ...]:
    """The first value written to each flag (a store, exch or CAS value; init + n for an add)."""
    out: dict[str, int] = {}
    for t in test.threads:
        for i in t.instrs:
            for flag in flags:
                v = None if flag in out else _raise_value(test, i, flag)
                if v is not None:
                    out[flag] = v
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


def _signalling_ops(test: LitmusTest, t: Thread, flags: tuple[str, ...], spin_reads: bool,
                    raised: dict[str, int]) -> tuple[Instr, ...]:
    ops: list[Instr] = []
    for i in t.instrs:
        loc = getattr(i, "loc", None)
        if isinstance(i, (Fence, Barrier)):
            ops.append(i)
        elif loc is not None and _in_words(test, flags, loc):
            reads = isinstance(i, Load) or (isinstance(i, Rmw) and i.op == "cas" and i.reg is not None
                                            and not _is_signal_cas(i))
            ops.append(_as_spin(i, raised[loc]) if spin_reads and reads and loc in flags else i)
    return tuple(ops)


def _is_signal_cas(i: Rmw) -> bool:
    """A CAS that raises a flag from 0 (``cas(flag, 0, 1)``) rather than waiting on it."""
    return isinstance(i.expected, Const) and i.expected.value == 0 and isinstance(i.value, Const) and i.value.value != 0


class _Roles:
    """The role of each signalling op of a test with flags ``flags``."""

    def __init__(self, test: LitmusTest, flags: tuple[str, ...]) -> None:
        self.test, self.flags = test, flags
        self.init = {l.name: l.init for l in test.locations}

    def __call__(self, ins: Instr) -> str | None:
        """``signal`` (raises a flag), ``wait`` (waits for one), or None (a fence, barrier, plain
        read, or a rider: an access to a flag's word that touches no flag)."""
        if isinstance(ins, Spin):
            if ins.read.kind == "cas" and ins.read.reset is not None and ins.read.reset != self.init[ins.loc]:
                return "signal"
            return "wait"
        if isinstance(ins, (Store, Rmw)) and flag_touched(self.test, self.flags, ins.loc) is not None:
            return "signal"
        return None

    def group(self, ops: tuple[Instr, ...], k: int) -> tuple[Instr, ...]:
        """Op ``k`` with the fences, barriers and riders right before and after it."""
        def joins(o: Instr) -> bool:
            return isinstance(o, (Fence, Barrier)) or (self(o) is None and hasattr(o, "loc")
                                                       and flag_touched(self.test, self.flags, o.loc) is None)

        lo = k
        while lo > 0 and joins(ops[lo - 1]):
            lo -= 1
        hi = k + 1
        while hi < len(ops) and joins(ops[hi]):
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
    role = _Roles(test, flags)
    parties = []
    for t in test.threads:
        ops = _signalling_ops(test, t, flags, spin_reads, dict(raised))
        if any(role(o) is not None for o in ops):
            parties.append(Party(t.name, t.rank, t.cta, ops))
    resetting = tuple(sorted({i.loc for p in parties for i in p.ops if isinstance(i, Spin) and i.read.kind == "cas"
                              and i.read.reset == role.init[i.loc]}))
    roles = [{role(o) for o in p.ops} - {None} for p in parties]
    if len(parties) >= 2 and all(r == {"signal", "wait"} for r in roles):
        _check_places(test, parties)
        return Signalling(test, "barrier", flags, tuple(parties), raised, resetting)
    writer = next((p for p, r in zip(parties, roles) if "signal" in r), None)
    if writer is None:
        raise _fail(test, f"no thread raises flag(s) {list(flags)}")
    k = next(n for n, o in enumerate(writer.ops) if role(o) == "signal")
    flag = flag_touched(test, flags, writer.ops[k].loc)  # type: ignore[union-attr]
    assert flag is not None  # a signal touches a flag

    def waits(o: Instr) -> bool:
        return role(o) == "wait" and touches(test, o.loc, flag)  # type: ignore[union-attr, arg-type]

    reader = next((p for p in parties if p is not writer and any(waits(o) for o in p.ops)), None)
    if reader is None:
        raise _fail(test, f"no other thread waits for flag {flag} that {writer.thread} raises")
    j = next(n for n, o in enumerate(reader.ops) if waits(o))
    _check_places(test, [writer, reader])
    return Signalling(test, "message", flags, (writer, reader), raised, resetting,
                      signal=role.group(writer.ops, k), wait=role.group(reader.ops, j), flag=flag)


def _check_places(test: LitmusTest, parties: list[Party]) -> None:
    places = [(p.rank, p.cta) for p in parties]
    if len(set(places)) != len(places):
        raise _fail(test, "two signalling threads share a CTA; a ping-pong inside one CTA would run its two "
                          "sides one after the other (pick the variant's xcta or xgpu placement)")


def renamed(ops: tuple[Instr, ...], names: dict[str, str]) -> tuple[Instr, ...]:
    """``ops`` with their locations renamed by ``names`` (others kept)."""
    return tuple(replace(o, loc=names.get(o.loc, o.loc)) if hasattr(o, "loc") else o for o in ops)  # type: ignore[union-attr]


def suffixed(test: LitmusTest, names: tuple[str, ...], suffix: str) -> dict[str, str]:
    """A new name for each of ``names``: ``suffix`` appended to a location or a view, and to
    the location of a vector element view (``w.v2[1]`` -> ``w~b.v2[1]``), so the copy of a
    word keeps its element names."""
    out = {}
    for name in names:
        loc = test.location(name)
        if loc.is_element and loc.view_of is not None and name.startswith(loc.view_of + "."):
            out[name] = loc.view_of + suffix + name[len(loc.view_of):]
        else:
            out[name] = name + suffix
    return out


def copied(test: LitmusTest, names: dict[str, str], home: int | None = None) -> list[Location]:
    """The locations of ``names`` (a renaming of whole words, as :func:`suffixed` makes) under
    their new names, on rank ``home`` (None: their own): widths, views, aliases and initial values kept."""
    out = []
    for old, new in names.items():
        loc = test.location(old)
        out.append(replace(loc, name=new, home=loc.home if home is None else home,
                           view_of=names.get(loc.view_of, loc.view_of) if loc.view_of else None,
                           alias_of=names.get(loc.alias_of, loc.alias_of) if loc.alias_of else None))
    return out
