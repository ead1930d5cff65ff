"""The litmus pattern a file's signalling amounts to, as catalog YAML (``litmus lint --emit-yaml``).

The pattern is message passing from the kernel that raises a flag (P0: its payload stores,
what it executes between them and the flag, the flag write with its sem/scope) to the kernel
that waits for it (P1: the spin as written, what follows it, the payload read).  Vector stores
signalled by one thread add P2, a second thread of P0's CTA storing the rest of the tile; a
wait by some threads followed by vector loads adds P3, a thread of P1's CTA reading after the
barrier.  A kernel that both signals and waits (a barrier) plays both sides: the pattern is one
direction of the barrier, rank 0's send to rank 1's wait; one that reads peer memory before the
barrier and writes it after is the write-after-read shape of symm_mem's pattern 2.  A side the
file lacks is the catalog's correct one (taking part in a reset: its producer waits for it, its
consumer of a flag raised every round makes it).  A flag the consumer resets gives two rounds
through the reset, declared ``may_hang: false``.  A barrier on signal pads also gives the pads'
own protocol (``-pads``: every pad back at 0) with the kernel's sem and scope.  ``litmus
model``/``audit``/``run`` take the file as they take the catalog.
"""

from __future__ import annotations

import copy
import re
from dataclasses import dataclass
from typing import Mapping, Union

import yaml

from litmus.lint.events import Event, KernelEvents, Pointer, Site
from litmus.lint.rules import (Shape, _same_threads, is_payload, peer_read_roots, peer_visible, shape_of,
                               ticket_of)


@dataclass(frozen=True)
class Channel:
    """One producer -> consumer flag: the signalling kernel's events and the waiting kernel's."""

    producer: KernelEvents
    signal: Event
    consumer: KernelEvents
    wait: Event


def _rmw_sem(sem: str) -> str:
    return sem if sem in ("relaxed", "acquire", "release", "acq_rel") else "relaxed"


def _load_sem(sem: str) -> str:
    return {"acq_rel": "acquire", "release": "relaxed", "sc": "acquire"}.get(sem, sem if sem != "weak" else "relaxed")


def _signal_op(s: Event, value: int) -> dict:
    if s.kind == "store":
        if s.volatile:
            return {"volatile_store": {"loc": "flag", "value": value}}
        if s.sem in ("relaxed", "release", "acq_rel", "sc"):  # a strong store (inline asm st.release/.relaxed)
            sem = "relaxed" if s.sem == "relaxed" else "release"
            return {"atomic_store": {"loc": "flag", "value": value, "sem": sem, "scope": s.scope}}
        return {"store": {"loc": "flag", "value": value}}
    if s.kind == "spin" or s.op == "cas":
        return {"cas": {"loc": "flag", "expected": s.expected if s.expected is not None else 0, "value": value,
                        "sem": _rmw_sem(s.sem), "scope": s.scope}}
    op = "add" if s.op == "add" else "exch"
    return {op: {"loc": "flag", "value": s.value if op == "add" and s.value is not None else value,
                 "sem": _rmw_sem(s.sem), "scope": s.scope}}


def _spin(w: Event, until: int) -> dict:
    if w.volatile:
        read: object = "volatile"
    elif w.op == "cas":
        read = {"kind": "cas", "reset": w.reset if w.reset is not None else 0, "sem": _rmw_sem(w.sem),
                "scope": w.scope}
    else:
        read = {"kind": "load", "sem": _load_sem(w.sem), "scope": w.scope}
    return {"spin": {"loc": "flag", "until": until, "read": read, "reg": "r0", "bound": 100000}}


Peers = Union[frozenset, Mapping[str, frozenset]]


def peers_of(peers: Peers, *names: str) -> frozenset[str]:
    """The arguments marked as a peer's for the kernels ``names``: ``peers`` is one set for every
    kernel, or a set per kernel (a ``LITMUS_LINT`` mark on one kernel is not another's)."""
    if isinstance(peers, Mapping):
        return frozenset().union(*(peers.get(n, frozenset()) for n in names))
    return frozenset(peers)


def channels(kernels: list[KernelEvents], file_flag_keys: set[str],
             peers: Peers = frozenset()) -> list[Channel]:
    """Producer -> consumer pairs: each kernel that both raises and waits for a flag (a barrier,
    or the two arms of a lock) with itself, then the kernels that only raise one paired in
    source order with the kernels that only wait."""
    shapes = {k.name: shape_of(k, file_flag_keys, peers_of(peers, k.name)) for k in kernels}
    out = []
    producers, consumers = [], []
    for k in kernels:
        sh = shapes[k.name]
        waits = [w for w in sh.waits if not any(_waits_for_reset(w, s) for s in sh.signals)]
        if sh.signals and waits:
            s = sh.signals[0]
            w = next((w for w in waits if w.index > s.index and w.same_path(s)), waits[0])
            out.append(Channel(k, s, k, w))
        elif sh.signals:
            producers.append((k, sh.signals[-1]))
        elif waits:
            consumers.append((k, waits[0]))
    for (pk, s), (ck, w) in zip(producers, consumers):
        out.append(Channel(pk, s, ck, w))
    # a side the file does not have is the catalog's correct one: a release write after the
    # payload, an acquire spin before reading it
    for pk, s in producers[len(consumers):]:
        ck = _default_consumer(s, peers_of(peers, pk.name))
        out.append(Channel(pk, s, ck, ck.events[0]))
    for ck, w in consumers[len(producers):]:
        pk = _default_producer(w, peers_of(peers, ck.name), _reset_after(ck.events, w) is not None)
        out.append(Channel(pk, pk.events[-1], ck, w))
    return out


def _waits_for_reset(w: Event, s: Event) -> bool:
    """Whether spin ``w`` is the producer waiting, before it signals again, for the consumer's
    reset of the flag ``s`` raises (a wait for 0 on the same flag in the same loop)."""
    return (w.until == 0 and w.ptr is not None and s.ptr is not None and w.ptr.key == s.ptr.key
            and bool(s.loop) and w.loop == s.loop and w.index < s.index)


def _default_scope(e: Event, peers: frozenset[str]) -> str:
    return "sys" if e.ptr is None or e.ptr.shared(peers) else "gpu"


def _default_consumer(s: Event, peers: frozenset[str]) -> KernelEvents:
    """The catalog's correct consumer of ``s``: an acquire spin, then the payload read; for a
    flag set to a constant in every round of a loop, also the release reset that makes the
    next round's signal visible (the reuse the producer must wait for)."""
    until = s.value if s.value not in (None, 0) else 1
    scope = _default_scope(s, peers)
    wait = Event("spin", Site("", 0), "an acquire spin (not in this file)", "load", "acquire",
                 scope, ptr=s.ptr, until=until, index=0)
    load = Event("load", Site("", 0), "tl.load", ptr=Pointer("arg", "payload", "payload", False), index=1)
    if s.loop and s.op != "add" and s.kind != "spin":
        reset = Event("atomic", Site("", 0), "a release reset (not in this file)", "exch", "release", scope,
                      ptr=s.ptr, subset=True, value=0, index=2)
        return KernelEvents("a consumer not in this file (acquire spin, the payload read, then a release reset)",
                            [wait, load, reset])
    return KernelEvents("a consumer not in this file (acquire spin, then the payload read)", [wait, load])


def _default_producer(w: Event, peers: frozenset[str], resets: bool = False) -> KernelEvents:
    """The catalog's correct producer for wait ``w``: the payload store, then a release write;
    when the consumer resets the flag, a wait for the reset (acquire) before each round."""
    scope = _default_scope(w, peers)
    loop = 1 if resets else 0
    events = []
    if resets:
        events.append(Event("spin", Site("", 0), "an acquire wait for the reset (not in this file)", "load", "acquire",
                            scope, ptr=w.ptr, until=0, loop=loop, index=0))
    events.append(Event("store", Site("", 0), "tl.store", ptr=Pointer("arg", "payload", "payload", False), loop=loop,
                        index=len(events)))
    events.append(Event("atomic", Site("", 0), "a release write (not in this file)", "exch", "release", scope,
                        ptr=w.ptr, subset=True, value=w.until if w.until is not None else 1, loop=loop,
                        index=len(events)))
    what = "a wait for the reset, " if resets else ""
    return KernelEvents(f"a producer not in this file ({what}payload store, then a release write)", events)


def _shared_filter(events: list[Event], sh: Shape, s: Event, peers: frozenset[str],
                   read_roots: frozenset[str] = frozenset()) -> list[Event]:
    """In a barrier on peer memory only accesses to peer memory, or to memory a kernel of the file
    reads through a peer pointer, count (the rules' view too)."""
    if sh.barrier and s.ptr is not None and s.ptr.shared(peers):
        return [e for e in events if peer_visible(e, peers, read_roots)]
    return events


MAX_COUNTER_SENDERS = 3
"""A counter waited up to more senders than this is emitted with one sender (the model's cost
grows with every thread); the spin then cannot reach its value and the model says it may hang."""


def counter_senders(s: Event, until: int) -> int:
    """How many senders a counter barrier's wait counts: a wait for ``until`` on a flag each
    sender adds ``s.value`` to (iris' ``atomic_add(tile_completed, 1)`` by each of N-1 ranks,
    waited for until it holds N-1). One for any other signal."""
    if s.kind != "atomic" or s.op != "add" or not s.value or s.value < 0 or until <= s.value or until % s.value:
        return 1
    n = until // s.value
    return n if n <= MAX_COUNTER_SENDERS else 1


def pattern_for(ch: Channel, name: str, peers: Peers, file_flag_keys: set[str], origin: str,
                read_roots: frozenset[str] = frozenset()) -> dict:
    """The YAML document (as a dict) of one channel: message passing (payload stores before the
    flag, loads after the wait) or, for a barrier whose kernel reads peer memory before it and
    writes after it, the write-after-read shape of symm_mem's pattern 2. A counter barrier (each
    sender adds to one counter, the waiter waits for their sum) has as many senders as the wait
    counts, each storing its own payload (``x2``...) on a rank of its own."""
    peers = peers_of(peers, ch.producer.name, ch.consumer.name)
    pe, ce = ch.producer.events, ch.consumer.events
    psh: Shape = shape_of(ch.producer, file_flag_keys, peers)
    csh: Shape = shape_of(ch.consumer, file_flag_keys, peers)
    s, w = ch.signal, ch.wait
    until = w.until if w.until is not None else 1
    xgpu = any(e.ptr is not None and e.ptr.shared(peers) for e in (s, w))
    # a flag raised by the last ticket's CTA publishes what came before the ticket
    ticket = ticket_of(pe, s)
    start = ticket.index if ticket is not None else s.index
    prev = max((x.index for x in psh.signals if x.index < start), default=-1)
    if s in psh.unlocks:  # a mutex publishes what its critical section wrote
        prev = max([prev] + [lk.index for lk in psh.locks if lk.index < s.index and lk.same_path(s)])

    def before(kind: str) -> list[Event]:
        evs = [e for e in pe if prev < e.index < s.index and e.kind == kind and is_payload(e, psh) and e.same_path(s)]
        return _shared_filter(evs, psh, s, peers, read_roots)

    def after(kind: str) -> list[Event]:
        evs = [e for e in ce if e.index > w.index and e.kind == kind and is_payload(e, csh) and e.same_path(w)]
        return _shared_filter(evs, csh, s, peers, read_roots)

    removed = w.op == "removed"  # a spin the compiler removed: the compiled consumer does not wait
    reset = None if w in csh.locks or removed else _reset_after(ce, w)  # a mutex's release is no reset
    if reset is not None and not (ch.producer is ch.consumer and not before("store")):
        pre_stores = before("store")
        last = pre_stores[-1].index if pre_stores else prev
        between = [e for e in pe if last < e.index < s.index and e.same_path(s) and e.kind in ("fence", "barrier")]
        return _two_rounds(ch, name, origin, xgpu, until, bool(pre_stores), reset, between)
    war = ch.producer is ch.consumer and not before("store") and bool(before("load")) and bool(after("store"))
    pre = before("load" if war else "store")
    post = after("store" if war else "load")
    block = bool(pre) and s.subset and any(e.ptr is not None and e.ptr.vector and not _same_threads(s, e)
                                           for e in pre)
    split = w.subset and any(e.ptr is not None and e.ptr.vector for e in post)
    # a flag raised by one CTA (`if pid == 0:`) after stores every CTA makes, with no wait between
    # (a grid barrier): P8, another CTA of P0's GPU, stores its block z (MP-grid's P2)
    grid = (not war and s.one_cta and any(not e.one_cta for e in pre)
            and not any(e.kind == "spin" and e.same_path(s) for e in pe
                        if max(e2.index for e2 in pre if not e2.one_cta) < e.index < s.index))
    # the last ticket's CTA: P8, another CTA, stores its block z and takes its ticket (an add on
    # `grid`) first; P0's ticket is an RMW that reads P8's add (MP-grid[ticket-*])
    drawn = ticket is not None and not war and any(not e.one_cta for e in pre)

    def first(loc: str, reg: str) -> dict:
        return {"load": {"reg": reg, "loc": loc}} if war else {"store": {"loc": loc, "value": 1}}

    def second(loc: str, reg: str) -> dict:
        return {"store": {"loc": loc, "value": 1}} if war else {"load": {"reg": reg, "loc": loc}}

    senders = 1 if war else counter_senders(s, until)
    extra = [f"x{i}" for i in range(2, senders + 1)]  # the other senders' payloads
    p0: list[object] = [first("x", "r1")] if pre else []
    p2: list[object] = [first("y", "r2")] if block else []
    ordering: list[object] = []  # what P0 executes between its payload and the signal
    last_pre = pre[-1].index if pre else prev
    for e in pe:
        if last_pre < e.index < s.index and e.same_path(s):
            if drawn and e is ticket:
                ordering.append({"spin": {"loc": "grid", "until": 1, "read": {
                    "kind": "cas", "reset": 2, "sem": _rmw_sem(e.sem), "scope": e.scope}, "bound": 100000}})
            elif e.kind == "barrier":
                ordering.append({"bar.sync": {}})
                if block:
                    p2.append({"bar.sync": {}})
            elif e.kind == "fence":
                ordering.append({"fence": {"sem": e.sem if e.sem in ("acq_rel", "sc") else "sc", "scope": e.scope}})
    p0 += ordering
    p0.append(_signal_op(s, until))
    upto = post[0].index if post else len(ce)
    p1: list[object] = [] if removed else [_spin(w, until)]
    p3: list[object] = []
    for e in ce:
        if not (w.index < e.index < upto) or not e.same_path(w):
            continue
        if e.kind == "fence":
            p1.append({"fence": {"sem": e.sem if e.sem in ("acq_rel", "sc") else "sc", "scope": e.scope}})
        elif e.kind == "barrier":
            p1.append({"bar.sync": {}})
            if split:
                p3.append({"bar.sync": {}})
        elif e.kind in ("atomic", "load") and e.acquire and e.ptr is not None and w.ptr is not None \
                and e.ptr.base == w.ptr.base:
            # an acquire read of the flag after the wait (symm-mem-recipes' ld.acquire of its pad, after
            # bar.sync): a scalar one runs in every thread, the readers (P3) too
            for thread, reg in ((p1, "r9"), *(((p3, "r8"),) if split and not e.ptr.vector else ())):
                thread.append({"atomic_load": {"reg": reg, "loc": "flag", "sem": "acquire", "scope": e.scope}})
    tail, tail_name = (p3, "P3") if split else (p1, "P1")
    tail.append(second("x", "r1"))
    if block:
        tail.append(second("y", "r2"))
    for i, loc in enumerate(extra, 2):
        tail.append(second(loc, f"r{8 + i}"))
    if grid or drawn:
        tail.append(second("z", "r7"))
    if war:
        bad = ["P0:r1 == 1"] + (["P2:r2 == 1"] if block else [])
    else:
        bad = [f"{tail_name}:r1 == 0"] + ([f"{tail_name}:r2 == 0"] if block else [])
        bad += [f"{tail_name}:r{8 + i} == 0" for i in range(2, senders + 1)]
        bad += [f"{tail_name}:r7 == 0"] if grid or drawn else []
    home = 1 if xgpu else 0
    at1 = {"rank": 1, "cta": 0} if xgpu else {"rank": 0, "cta": 1}
    threads: dict[str, object] = {"P0": {"at": {"rank": 0, "cta": 0}, "do": p0}, "P1": {"at": at1, "do": p1}}
    if block:
        threads["P2"] = {"at": {"rank": 0, "cta": 0}, "do": p2}
    if split:
        threads["P3"] = {"at": at1, "do": p3}
    if grid or drawn:
        p8: list[object] = [first("z", "r1")]
        if drawn and ticket is not None:  # its own ticket, with the sem and scope of the kernel's
            p8.append({"add": {"loc": "grid", "value": 1, "sem": _rmw_sem(ticket.sem), "scope": ticket.scope}})
        threads["P8"] = {"at": {"rank": 0, "cta": 1 if xgpu else 2}, "do": p8}
    for i, loc in enumerate(extra, 2):  # sender i runs on rank i (or CTA i of one GPU), as P0 does
        at = {"rank": i, "cta": 0} if xgpu else {"rank": 0, "cta": i}
        threads[f"P{2 + i}"] = {"at": at, "do": ([first(loc, "r1")] if pre else []) + copy.deepcopy(ordering)
                                + [_signal_op(s, until)]}
    # a wait for 0 (a mutex taken by a set-spin) starts with the flag held by the producer
    locations = {"x": {"init": 0 if (pre or war) else 1, "home": home}, "flag": {"init": 1 if until == 0 else 0,
                                                                                  "home": home}}
    if block:
        locations["y"] = {"init": 0, "home": home}
    for loc in extra + (["z"] if grid or drawn else []):
        locations[loc] = dict(locations["x"])
    if drawn:
        locations["grid"] = {"init": 0, "home": 0}
    cond = ("" if removed else f"P1:r0 == {until} /\\ ") + ("(" + " \\/ ".join(bad) + ")" if len(bad) > 1
                                                               else bad[0])
    where = "another GPU" if xgpu else "another CTA of the same GPU"
    if war:
        story = ("P0 reads x (the peer's buffer) before raising the flag; P1 writes x after its wait. Target: the "
                 "read returns the later write.")
    else:
        story = (("The payload was written by an earlier kernel (x starts at 1). " if not pre else "")
                 + (f"The consumer's spin at line {w.site.line} is not in the compiled code: P1 does not wait. "
                    if removed else "")
                 + ("P0 raises the flag in one CTA only; P8, another CTA, stores its block z before it. "
                    if grid else "")
                 + (f"P0 raises the flag in the CTA that draws the last ticket (line {ticket.site.line}); P8, "
                    "another CTA, stores its block z and takes its ticket first. " if drawn and ticket else "")
                 + (f"The wait counts {senders} senders (P0, {', '.join(f'P{2 + i}' for i in range(2, senders + 1))}"
                    "), each adding to the counter after its own payload. " if senders > 1 else "")
                 + "Target: the flag seen, the payload stale.")
    return {
        "name": name,
        "title": (f"{ch.producer.name}, as written (litmus lint)" if ch.producer is ch.consumer
                  else f"{ch.producer.name} -> {ch.consumer.name}, as written (litmus lint)"),
        "description": (f"The signalling of {ch.producer.name}"
                        + (f" (flag raised at line {s.site.line})" if s.site.line else "")
                        + f" and {ch.consumer.name}" + (f" (wait at line {w.site.line})" if w.site.line else "")
                        + f", with the consumer on {where}. " + story),
        "source": origin,
        "tags": ["lint"],
        "locations": locations,
        "threads": threads,
        "exists": cond,
        "expect": "forbidden",
        "why": "the kernel relies on it (litmus model says whether the PTX model agrees; litmus run looks for the "
               "outcome on hardware)",
    }


def _reset_after(events: list[Event], w: Event) -> Event | None:
    """The consumer's write of 0 to the flag it waited for, after the wait (a reset), if any."""
    return next((e for e in events if e.index > w.index and e.same_path(w) and e.ptr is not None and w.ptr is not None
                 and e.ptr.key == w.ptr.key and e.kind in ("store", "atomic") and e.value == 0
                 and (e.kind == "store" or e.op in ("exch", "cas"))), None)


def _reset_op(r: Event) -> dict:
    if r.kind == "store":
        return {"store": {"loc": "flag", "value": 0}}
    if r.sem == "relaxed":
        return {"atomic_store": {"loc": "flag", "value": 0, "sem": "relaxed", "scope": r.scope}}
    return {"exch": {"loc": "flag", "value": 0, "sem": _rmw_sem(r.sem), "scope": r.scope}}


def _order_op(e: Event) -> dict:
    if e.kind == "barrier":
        return {"bar.sync": {}}
    return {"fence": {"sem": e.sem if e.sem in ("acq_rel", "sc") else "sc", "scope": e.scope}}


def _two_rounds(ch: Channel, name: str, origin: str, xgpu: bool, until: int, payload: bool, reset: Event,
                between: list[Event] | None = None) -> dict:
    """Two rounds through one flag that the consumer resets: the reset can race the second
    signal (a hang), and each round's payload must be seen (MP-reset-race's shape). When the
    producer waits for the reset before the second round, the first round's read must also
    not see the second round's payload (the reset's write-after-read)."""
    s, w = ch.signal, ch.wait
    ready = [e for e in ch.producer.events if e.kind == "spin" and e.ptr is not None and s.ptr is not None
             and e.ptr.key == s.ptr.key and e.until == 0 and e.loop and e.loop == s.loop]
    p0: list[object] = []
    for value in (1, 2):
        if ready and value == 2:
            p0.append({"spin": {"loc": "flag", "until": 0, "read": {"kind": "load", "sem": _load_sem(ready[0].sem),
                                                                   "scope": ready[0].scope}, "bound": 100000}})
        p0 += [{"store": {"loc": "x", "value": value}}, *(_order_op(e) for e in between or ()), _signal_op(s, until)]
    p1: list[object] = [_spin(w, until), {"load": {"reg": "r1", "loc": "x"}}, _reset_op(reset),
                        {"spin": {**_spin(w, until)["spin"], "reg": "r2"}}, {"load": {"reg": "r3", "loc": "x"}}]
    home = 1 if xgpu else 0
    at1 = {"rank": 1, "cta": 0} if xgpu else {"rank": 0, "cta": 1}
    return {
        "name": name,
        "title": f"{ch.producer.name} -> {ch.consumer.name}, two rounds through a reset flag (litmus lint)",
        "description": (f"The flag raised {_at(s, 'producer')} is waited for {_at(w, 'consumer')} and reset "
                        f"{_at(reset, 'consumer')}; the producer raises it again for a second round"
                        + (" after waiting for the reset" if ready else "") + ". Target: a round's flag seen, its "
                        "payload stale" + (" (or the first read sees the second round's)" if ready else "")
                        + "; may_hang: false is the kernel's claim that no wait hangs."
                        + ("" if payload else " (The kernel writes no payload; x stands for the data the flag "
                                                "guards.)")),
        "source": origin,
        "tags": ["lint", "reset"],
        "locations": {"x": {"init": 0, "home": home}, "flag": {"init": 0, "home": home}},
        "threads": {"P0": {"at": {"rank": 0, "cta": 0}, "do": p0}, "P1": {"at": at1, "do": p1}},
        "exists": f"P1:r0 == {until} /\\ P1:r2 == {until} /\\ (P1:r1 {'!= 1' if ready else '== 0'} \\/ P1:r3 != 2)",
        "expect": "forbidden",
        "may_hang": False,
        "why": "the kernel relies on it (litmus model says whether the PTX model agrees, hang included)",
    }


def _at(e: Event, role: str) -> str:
    """``at line N``, or, for a side the file lacks, by whom."""
    return f"at line {e.site.line}" if e.site.line else f"by the {role} (not in this file)"


def _pad_protocol(ch: Channel, name: str, peers: frozenset[str], origin: str) -> dict | None:
    """For a barrier on peer memory whose send is ``while cas(pad, 0, 1) != 0`` and whose wait is
    ``while cas(pad, 1, 0) != 1`` (symm_mem's), the barrier's own claim with the kernel's sem and
    scope: every pad back at 0 (SYMM-barrier's shape). At gpu scope the pad CASes of two GPUs are
    not morally strong, which the message-passing pattern alone does not show."""
    s, w = ch.signal, ch.wait
    if ch.producer is not ch.consumer or s.kind != "spin" or w.kind != "spin" or s.op != "cas" or w.op != "cas":
        return None
    if s.until != 0 or s.reset in (None, 0) or w.until in (None, 0) or w.reset != 0:
        return None
    if not any(e.ptr is not None and e.ptr.shared(peers) for e in (s, w)):
        return None

    def spin(loc: str, e: Event) -> dict:
        return {"spin": {"loc": loc, "until": e.until, "read": {"kind": "cas", "reset": e.reset,
                                                              "sem": _rmw_sem(e.sem), "scope": e.scope},
                         "bound": 100000}}

    return {
        "name": f"{name}-pads",
        "title": f"{ch.producer.name}: the signal pads return to 0 (litmus lint)",
        "description": (f"The barrier of {ch.producer.name} (send at line {s.site.line}, wait at line "
                        f"{w.site.line}) on two ranks, with the sem and scope as written: the send sets the peer's "
                        "pad, the wait resets one's own. Target: a pad not back at 0 (the CASes are not atomic "
                        "with each other)."),
        "source": origin,
        "tags": ["lint", "barrier"],
        "locations": {"pad0": {"init": 0, "home": 0}, "pad1": {"init": 0, "home": 1}},
        "threads": {"P0": {"at": {"rank": 0, "cta": 0}, "do": [spin("pad1", s), spin("pad0", w)]},
                    "P1": {"at": {"rank": 1, "cta": 0}, "do": [spin("pad0", s), spin("pad1", w)]}},
        "forall": "pad0 == 0 /\\ pad1 == 0",
        "expect": "forbidden",
        "why": "the barrier relies on it: each pad is set once and reset once",
    }


def documents(kernels: list[KernelEvents], peers: Peers, stem: str, origin: str,
              file_flag_keys: set[str]) -> list[tuple[Channel, dict]]:
    """Each producer -> consumer channel of the file with the pattern documents it gives (one,
    or two for a barrier on signal pads: the message passing and the pads' protocol)."""
    out = []
    read_roots = peer_read_roots(kernels)
    for ch in channels(kernels, file_flag_keys, peers):
        own = ch.producer if ch.producer.events and ch.producer.events[0].site.line else ch.consumer
        name = re.sub(r"[^A-Za-z0-9-]", "-", f"LINT-{stem}-{own.name}")
        out.append((ch, pattern_for(ch, name, peers, file_flag_keys, origin, read_roots)))
        pads = _pad_protocol(ch, name, peers_of(peers, ch.producer.name), origin)
        if pads is not None:
            out.append((ch, pads))
    return out


def emit_yaml(kernels: list[KernelEvents], peers: Peers, stem: str, origin: str,
              file_flag_keys: set[str]) -> str:
    """YAML text: the patterns of every producer -> consumer channel of the file (empty if none)."""
    docs = [d for _, d in documents(kernels, peers, stem, origin, file_flag_keys)]
    return "---\n".join(yaml.safe_dump(d, sort_keys=False, width=110, default_flow_style=None) for d in docs)
