"""A variant's signalling as a litmus test of many round trips, for the ``cpu`` and ``ranks`` backends.

Those backends run litmus tests, so the timing loop is unrolled into one: ``message`` shapes
become a ping-pong (the writer signals ``ping<j>`` and waits for ``pong<j>`` with the reader's
wait ops; the reader waits for ``ping<j>`` and signals ``pong<j>`` with the writer's signal
ops), ``barrier`` shapes repeat every party's signalling ops. A flag that is not self-resetting
gets a fresh location per round trip (its value is never reused, so no round can mistake an
old signal for a new one); a self-resetting flag is reused as the pattern reuses it. A copy of
a flag is a copy of its whole word: its width, initial value and views (vector elements too),
so the backend generates the same access widths as for the variant itself. Every
spin gets a register (``P0:t<j>`` / ``P1:s<j>`` for a ping-pong, ``P<k>:w<j>_<n>`` for a
barrier) holding the last value it read, so a round trip counts as done exactly when each
of its spins read a value that ends it (its own comparison: ``==``, ``>=``, ``!=`` ...). A
spin must wait on the fresh copy: one that its thread reaches before touching the word in that
round and that the word's initial value already ends (``!= v`` on a flag not starting at ``v``)
would not wait, and the test is refused (:func:`check_spins_wait`). One status column holds at
most 31 spins: that bounds the round trips of one launch (:func:`max_trips`).
"""

from __future__ import annotations

from dataclasses import replace

from litmus.cost.shape import Signalling, copied, renamed, suffixed
from litmus.errors import LitmusError
from litmus.ir import Condition, Instr, LitmusTest, Location, Rmw, Spin, Thread, TrueProp, spin_exit_text, spin_exits

MAX_SPINS = 31  # status bits of one out column (litmus.codegen.roles._MAX_SPINS)


def _spins(ops: tuple[Instr, ...]) -> int:
    return sum(isinstance(o, Spin) for o in ops)


def spins_per_trip(sig: Signalling) -> int:
    """Spins one round trip (message) or one barrier round executes, over all parties."""
    if sig.shape == "message":
        return 2 * (_spins(sig.wait))
    return sum(_spins(p.ops) for p in sig.parties)


def max_trips(sig: Signalling) -> int:
    """The most round trips one unrolled launch can hold."""
    return max(1, MAX_SPINS // max(1, spins_per_trip(sig)))


def places(sig: Signalling, world_size: int | None) -> list[tuple[int, int]]:
    """``(rank, cta)`` of each party: ranks renumbered from 0 in order of appearance; on a world
    too small for them every party goes to rank 0, each in a CTA of its own."""
    order: dict[int, int] = {}
    for p in sig.parties:
        order.setdefault(p.rank, len(order))
    if world_size is not None and len(order) > world_size:
        return [(0, k) for k in range(len(sig.parties))]
    ctas: dict[tuple[int, int], int] = {}
    out = []
    for p in sig.parties:
        rank = order[p.rank]
        key = (rank, p.cta)
        if key not in ctas:
            ctas[key] = sum(1 for r, _ in ctas if r == rank)
        out.append((rank, ctas[key]))
    return out


def _with_regs(ops: tuple[Instr, ...], reg: "list[str]") -> tuple[Instr, ...]:
    """``ops`` with each spin's register taken from ``reg`` (in order) and RMW results dropped."""
    out: list[Instr] = []
    for o in ops:
        if isinstance(o, Spin):
            o = replace(o, reg=reg.pop(0))
        elif isinstance(o, Rmw):
            o = replace(o, reg=None)
        out.append(o)
    return tuple(out)


def _bounded(ops: tuple[Instr, ...], bound: int | None) -> tuple[Instr, ...]:
    return tuple(replace(o, bound=bound) if isinstance(o, Spin) and bound is not None else o for o in ops)


def unrolled_test(sig: Signalling, trips: int, world_size: int | None = None,
                  spin_bound: int | None = None) -> LitmusTest:
    """``trips`` round trips (message) or barrier rounds of ``sig`` as one litmus test."""
    cap = max_trips(sig)
    if not 1 <= trips <= cap:
        raise LitmusError(f"{sig.test.id}: {trips} round trips in one launch; use 1 to {cap} "
                          f"({MAX_SPINS} spins fit one launch, a round trip here has {spins_per_trip(sig)})")
    check_spins_wait(sig)
    at = places(sig, world_size)
    test = sig.test
    if sig.shape == "message":
        threads, locations = _pingpong(sig, trips, at, spin_bound)
    else:
        threads, locations = _rounds(sig, trips, at, spin_bound)
    return replace(test, variant=f"{test.variant}~{sig.shape}x{trips}" if test.variant else f"{sig.shape}x{trips}",
                   threads=tuple(threads), locations=tuple(locations),
                   condition=Condition("exists", TrueProp(), "true"), expect=None,
                   params=test.params + (("cost_trips", str(trips)),))


def check_spins_wait(sig: Signalling) -> None:
    """Refuse ``sig`` (one line, naming the variant) when one of its spins would not wait on the
    fresh copy of its word: the first access of its thread to that word in a round, on a flag
    that is not self-resetting, ending on the word's initial value (``!= 0`` on a flag that
    starts at 0 waits; ``!= 0`` on one that starts at 1, or ``== 0`` there, does not)."""
    # a ping-pong's signal and wait use copies of their own (ping, pong); a barrier party's ops one
    timed = [sig.signal, sig.wait] if sig.shape == "message" else [p.ops for p in sig.parties]
    for ops in timed:
        touched: set[tuple[str, ...]] = set()  # the words this thread accessed before, in the round
        for o in ops:
            loc = getattr(o, "loc", None)
            if loc is None:
                continue
            word = sig.words((loc,))
            flag = loc if loc in sig.flags else sig.flag_of(loc)
            init = sig.test.location(loc).init
            if isinstance(o, Spin) and word not in touched and flag not in sig.resetting and spin_exits(o, init):
                raise LitmusError(f"{sig.test.id}: the spin `{spin_exit_text(o)}` would not wait: {loc} starts at "
                                  f"{init}, which already ends it, so a round trip would time no signal")
            touched.add(word)


def _fresh(sig: Signalling, flag: str, j: int, name: str, words: tuple[str, ...]) -> dict[str, str]:
    """The names round ``j`` uses for ``words`` (``name`` after the original one): the same
    words when ``flag`` is self-resetting."""
    return suffixed(sig.test, words, name + ("" if flag in sig.resetting else str(j)))


def _pingpong(sig: Signalling, trips: int, at: list[tuple[int, int]],
              bound: int | None) -> tuple[list[Thread], list[Location]]:
    (w_rank, w_cta), (r_rank, r_cta) = at
    w_ops: list[Instr] = []
    r_ops: list[Instr] = []
    locs: dict[str, Location] = {}
    words = sig.words(tuple(getattr(o, "loc") for o in sig.signal + sig.wait if hasattr(o, "loc")))
    for j in range(trips):
        ping, pong = _fresh(sig, sig.flag, j, "", words), _fresh(sig, sig.flag, j, "_back", words)
        for loc in copied(sig.test, ping, r_rank) + copied(sig.test, pong, w_rank):
            locs.setdefault(loc.name, loc)
        w_ops += _with_regs(renamed(sig.signal, ping), [])
        w_ops += _with_regs(renamed(sig.wait, pong), [f"t{j}"] * _spins(sig.wait))
        r_ops += _with_regs(renamed(sig.wait, ping), [f"s{j}"] * _spins(sig.wait))
        r_ops += _with_regs(renamed(sig.signal, pong), [])
    threads = [Thread("P0", w_rank, w_cta, _bounded(tuple(w_ops), bound)),
               Thread("P1", r_rank, r_cta, _bounded(tuple(r_ops), bound))]
    return threads, list(locs.values())


def _rounds(sig: Signalling, trips: int, at: list[tuple[int, int]],
            bound: int | None) -> tuple[list[Thread], list[Location]]:
    rank_of = {p.rank: r for p, (r, _) in zip(sig.parties, at)}
    locs: dict[str, Location] = {}
    threads = []
    for k, (party, (rank, cta)) in enumerate(zip(sig.parties, at)):
        ops: list[Instr] = []
        for j in range(trips):
            names: dict[str, str] = {}
            for f in sig.flags:  # each flag's word fresh unless the flag resets itself
                word = _fresh(sig, f, j, "", sig.words((f,)))
                names.update(word)
                for loc in copied(sig.test, word, rank_of.get(sig.test.location(f).home, 0)):
                    locs.setdefault(loc.name, loc)
            regs = [f"w{j}_{n}" for n in range(_spins(party.ops))]
            ops += _with_regs(renamed(party.ops, names), regs)
        threads.append(Thread(f"P{k}", rank, cta, _bounded(tuple(ops), bound)))
    return threads, list(locs.values())


def completed_trips(state: dict[str, int], sig: Signalling, test: LitmusTest) -> int:
    """Round trips of one instance whose spins all read a value that ends them (their own
    comparison, mask included: ``!= 0`` is done on any other value); in order: the first miss
    ends them."""
    spins = [(t.name, i) for t in test.threads for i in t.instrs if isinstance(i, Spin)]
    trips = int(dict(test.params).get("cost_trips", "0"))
    done = 0
    for j in range(trips):
        ok = all(_exited(state.get(f"{name}:{i.reg}"), i) for name, i in spins
                 if i.reg is not None and _trip_of(i.reg) == j)
        if not ok:
            break
        done += 1
    return done


def _exited(value: int | None, spin: Spin) -> bool:
    """Whether ``spin``'s register ``value`` (its last read; None: not reported) ends it."""
    return value is not None and spin_exits(spin, value)


def _trip_of(reg: str) -> int:
    """The round trip a cost spin register belongs to (``t3``, ``s3``, ``w3_0`` -> 3)."""
    return int(reg[1:].split("_", 1)[0])
