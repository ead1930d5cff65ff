"""The lint rules: shapes of a kernel's signalling that the memory model lets go wrong.

Each rule names the catalog variant its shape is (``RULES`` below, as data) and the fix in
Triton terms; the verdict comes from the model on that variant (:mod:`litmus.lint.verdicts`).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from litmus.lint.events import Event, KernelEvents, Site, base_of
from litmus.lint.source import SourceSpin, plain_spins, source_reads, spin_roots
from litmus.lint.verdicts import Verdict, catalog_verdict

RULES: dict[str, str] = {
    "peer-scope": "an atomic or spin on memory that may be a peer's, with a scope (cta/gpu) that excludes other GPUs",
    "block-publish": "a signal by one thread after the CTA's vector stores, with no tl.debug_barrier() between",
    "relaxed-signal": "payload stores followed by a flag write that is no release (relaxed, volatile or plain)",
    "volatile-poll": "a spin whose read is no acquire (tl.load(volatile=True), a relaxed atomic), payload loads after",
    "consumer-block": "a wait by some threads (inline asm) followed by the CTA's vector loads with no barrier between",
    "barrier-war": "reads of peer memory before a relaxed barrier and writes to it after, in one kernel",
    "plain-reset": "a flag reset to 0 after its wait by a plain tl.store or a relaxed atomic",
    "signal-reuse": "a flag set to a constant in a loop, with no wait for the consumer's reset between rounds",
    "acquire-reread": "a plain tl.load of an address the kernel read before an inline-asm acquire, with no store, "
                      "atomic or barrier between: the compiler reuses the first value",
    "spin-removed": "a while loop on a plain tl.load that the compiled kernel no longer has: it does not wait",
    "cross-cta-publish": "stores by every CTA, then a flag raised by one CTA (`if pid == 0:`, or the last ticket's "
                         "CTA with a ticket that is no acquire) with no grid barrier between: the release does not "
                         "order the other CTAs' stores",
}
"""Rule name -> what it looks for (``litmus lint --help`` and docs/lint.md list them)."""

CATALOG_VARIANTS: tuple[str, ...] = (
    "MP[relacq-xgpu-cta]", "MP[relacq-xgpu-gpu]", "MP[relaxed-xgpu-sys]", "MP-mixed[volatile-xgpu]",
    "MP-iris[relacq-gpu-xgpu]", "MP-iris[plain-signal-sys]", "MP-iris[relaxed-signal-sys]", "MP-iris[relaxed-wait-sys]",
    "MP-iris-volatile[volatile-as-written]", "MP-block[nobar-release-sys]", "MP-block-consumer[bar-relaxed-sys]",
    "MP-block-consumer[nobar-acquire-sys]", "MP-iris-reset-war[relaxed-reset-after-read]",
    "MP-reset-race[relacq-plain-reset]", "MP-reset-race[iris-cas-signal-cas-reset]",
    "SYMM-barrier[relaxed-gpu-xgpu]", "SYMM-barrier-p0[inkernel-write]", "SYMM-barrier-p1[acqrel-nopre-sys]",
    "SYMM-barrier-p1[acqrel-nopost-sys]", "SYMM-barrier-p1[recipes-nobar-acq-sys]", "SYMM-barrier-p2[p2-relaxed]",
    "MP-spin-removed[plain-spin-removed]", "MP-grid[cta0-release-sys]", "MP-grid[ticket-release-sys]",
)
"""Every catalog variant a finding can name (the rules below pick one by the shape's details)."""

COMPILER_VARIANTS: tuple[str, ...] = ("MP-reread[plain-ldacq-plain]", "MP-reread[plain-fence-plain]")
"""Catalog variants the model calls correct and a compiler miscompiles (``acquire-reread``): the
finding is about the compiled code, so it does not make ``litmus lint`` exit 1."""


@dataclass(frozen=True)
class Finding:
    """One problem in a user's kernel: where, what, the catalog shape, the model's verdict, the fix."""

    rule: str
    kernel: str
    site: Site
    message: str
    fix: str
    verdict: Verdict
    related: tuple[Site, ...] = ()
    compiled_barrier: bool | None = None  # block-publish: a barrier in this target's compiled code anyway?

    @property
    def pattern(self) -> str:
        """The catalog variant this shape is, ``NAME[variant]``."""
        return self.verdict.test_id

    @property
    def incorrect(self) -> bool:
        """Whether the model lets this shape go wrong."""
        return self.verdict.incorrect

    def as_dict(self) -> dict[str, object]:
        """A JSON-ready record."""
        return {"rule": self.rule, "kernel": self.kernel, "file": self.site.file, "line": self.site.line,
                "via": [str(f) for f in self.site.via], "message": self.message, "fix": self.fix,
                "pattern": self.pattern, "catalog_file": self.verdict.source_file,
                "model": {"bug_allowed": self.verdict.bug_allowed, "may_hang": self.verdict.may_hang,
                          "why": self.verdict.why, "missing": list(self.verdict.missing)},
                "incorrect": self.incorrect, "related": [str(s) for s in self.related],
                "compiled_barrier": self.compiled_barrier}


@dataclass
class Shape:
    """The signalling roles of one kernel's events."""

    signals: list[Event] = field(default_factory=list)
    waits: list[Event] = field(default_factory=list)
    flag_keys: set[str] = field(default_factory=set)
    barrier: bool = False  # a signal then a wait in one kernel (each rank sends, then waits)
    locks: list[Event] = field(default_factory=list)  # mutex acquisitions (also in waits)
    unlocks: list[Event] = field(default_factory=list)  # their releases (also in signals)
    removed: list[tuple[SourceSpin, Event]] = field(default_factory=list)  # source spins the TTIR lacks (also waits)


def removed_spins(k: KernelEvents) -> list[tuple[SourceSpin, Event]]:
    """The plain-load ``while`` spins of ``k``'s source that its compiled events have no spin for,
    each with a stand-in wait event placed where the loop was (what follows it is the payload)."""
    if not k.file:
        return []
    have = {line for e in k.events if e.kind == "spin" for line in (e.site.line, *(f.line for f in e.site.via))}
    out = []
    for spin in plain_spins(k.file):
        if spin.function != k.name or any(spin.line <= line <= spin.end for line in have):
            continue
        after = next((e.index for e in k.events if e.site.line > spin.end), len(k.events))
        wait = Event("spin", Site(k.file, spin.line), f"`while` on a plain tl.load of `{spin.address}`", "removed",
                     "weak", "sys", index=after - 1)
        out.append((spin, wait))
    return out


def peer_read_roots(kernels: list[KernelEvents]) -> frozenset[str]:
    """Arguments some kernel reads through a peer pointer (``iris.load(C + off, rank, remote)``):
    a store to them through a plain pointer is what peers read, so it is payload."""
    return frozenset(e.ptr.root for k in kernels for e in k.events if e.kind == "load" and e.ptr is not None
                     and e.ptr.origin in ("translated", "table") and e.ptr.root)


def peer_visible(e: Event, peers: frozenset[str], read_roots: frozenset[str]) -> bool:
    """Whether a store's memory is a peer's or read by a peer (through a translated pointer)."""
    return e.ptr is not None and (e.ptr.shared(peers) or e.ptr.root in read_roots)

def _is_set_spin(e: Event) -> bool:
    """A spin ``while cas(p, 0, v) != 0`` (v != 0): wait for 0, then set it."""
    return e.kind == "spin" and e.op == "cas" and e.until == 0 and e.reset not in (None, 0)


def shape_of(k: KernelEvents, file_flag_keys: set[str], peers: frozenset[str] = frozenset()) -> Shape:
    """Which events signal, which wait, which pointers are flags; whether it is a barrier.

    A set-spin followed by a wait on another flag, or under the ``if`` of a ticket, is a send (a
    signal, symm_mem's ``put_signal``); without one it takes a mutex (a wait), and the next write
    of 0 to the same place releases it (a signal).  Atomics between the two are data the mutex
    guards.  A release write of a constant under the ``if`` of a ticket is the flag the last
    ticket's CTA raises (a signal)."""
    s = Shape()
    ev = k.events
    # names a plain spin of the file reads its flag through, even one the compiler removed
    spin_named = spin_roots(k.file) if k.file else frozenset()
    spun = {e.ptr.key for e in ev if e.kind == "spin" and e.ptr} | file_flag_keys
    # the objects spun on: a spin on `locks + next_pid` (a loop's counter) and a store to `locks + pid`
    # reach one array of flags, whose offsets are not compared (as for an acquire after a wait)
    spun_bases = {base_of(key) for key in spun}
    s.flag_keys = {e.ptr.key for e in ev if e.kind in ("spin", "atomic") and e.ptr} | file_flag_keys
    spins = [e for e in ev if e.kind == "spin"]
    # a set-spin under the last ticket's `if` sends for the grid (kraken's `send_signal` once every tile is in)
    sends = [e for e in spins if _is_set_spin(e) and (any(
        w.index > e.index and w.same_path(e) and not _is_set_spin(w) and w.ptr is not None and e.ptr is not None
        and w.ptr.key != e.ptr.key for w in spins) or ticket_of(ev, e) is not None)]
    s.locks = [e for e in spins if _is_set_spin(e) and e not in sends and e.ptr is not None]
    critical: list[tuple[int, int]] = []
    for lock in s.locks:
        unlock = next((e for e in ev if e.index > lock.index and e.same_path(lock) and e.kind in ("atomic", "store")
                       and e.value == 0 and e.ptr is not None and lock.ptr is not None
                       and e.ptr.key == lock.ptr.key), None)
        if unlock is not None:
            s.unlocks.append(unlock)
            critical.append((lock.index, unlock.index))
    guarded = {e.index for e in ev for lo, hi in critical if lo < e.index < hi}
    for e in ev:
        if e in sends or e in s.unlocks:
            s.signals.append(e)
        elif e.kind == "spin":
            s.waits.append(e)
        elif e.index in guarded:
            continue  # data under the mutex, atomics included
        elif e.kind == "atomic" and e.writes and e.ptr is not None and e.value != 0 and (
                e.ptr.key in spun or e.ptr.shared(peers)
                or (e.value is not None and (e.op in ("exch", "cas") or e.used))):
            # a flag: waited for in this file, in peer memory, set to a constant, or a counter whose
            # value the kernel reads (a ticket); an atomic_add of data is a reduction, one whose
            # result nobody reads a statistic
            s.signals.append(e)
        elif e.kind in ("store", "atomic") and e.ticket and e.release and e.writes and e.ptr is not None \
                and e.value not in (None, 0) and ticket_of(ev, e) is not None:
            # the flag the CTA that draws the last ticket raises (Triton-distributed's
            # `if atomic_add(counter, 1) == num_pid - 1: st(peer_flag, 1, semantic="release")`)
            s.signals.append(e)
        elif e.kind == "store" and e.ptr is not None and not e.ptr.vector and (
                e.volatile or e.ptr.key in s.flag_keys or e.ptr.base in spun_bases
                or (e.ptr.root in spin_named and e.ptr.origin in ("arg", "translated", "table"))) \
                and e.value not in (None, 0):
            # a scalar store of a constant to a flag: waited for in the file (also by a spin the compiler
            # removed), at this address or another slot of the same array
            s.signals.append(e)
    if not s.signals and not s.waits:
        # a kernel with no other signalling that stores a constant to a peer's memory raises a flag
        # with it (iris' `tl.store(flag + pid, 1)` with `--peer flag`); next to atomics it is data
        s.signals = [e for e in ev if e.kind == "store" and e.ptr is not None and not e.ptr.vector
                     and e.ptr.shared(peers) and e.value not in (None, 0) and e.index not in guarded]
    s.removed = removed_spins(k)
    s.waits = sorted(s.waits + [w for _, w in s.removed], key=lambda w: w.index)
    s.barrier = any(w.index > sig.index and w.same_path(sig) for w in s.waits for sig in s.signals
                    if sig not in s.unlocks and w not in s.locks)
    return s


def ticket_of(events: list[Event], e: Event) -> Event | None:
    """The ticket ``e`` sits under: the atomic before it, on its path, whose returned value the
    ``if`` around ``e`` tests (``if tl.atomic_add(counter, 1) == n - 1:``)."""
    return next((t for t in reversed(events) if t.index < e.index and t.kind == "atomic" and t.used
                 and t.site.line == e.ticket and t.same_path(e)), None) if e.ticket else None


def is_payload(e: Event, shape: Shape) -> bool:
    """Whether ``e`` is a plain load/store of data (not of a flag the kernel signals through, not a
    strong inline-asm access such as ``ld.acquire``)."""
    return (e.kind in ("store", "load") and not e.volatile and e.sem == "weak" and e.ptr is not None
            and e.ptr.key not in shape.flag_keys)


def _between(events: list[Event], lo: int, hi: int, kinds: tuple[str, ...]) -> list[Event]:
    """Events of ``kinds`` strictly between indexes ``lo`` and ``hi`` (on the path of the one at ``hi``)."""
    anchor = next((e for e in events if e.index == hi), None)
    return [e for e in events if lo < e.index < hi and e.kind in kinds and (anchor is None or e.same_path(anchor))]


def _same_threads(signal: Event, access: Event) -> bool:
    """Whether a tensor atomic runs in the threads that made ``access``: a tl.atomic_* over a
    tensor of the access's shape (one layout, element i in one thread). Inline asm and scalar
    atomics are never taken so."""
    if signal.via.startswith("inline asm") or signal.ptr is None or access.ptr is None:
        return False
    return signal.ptr.vector and signal.ptr.shape == access.ptr.shape


def _fix_scope(e: Event) -> str:
    if e.via.startswith("inline asm"):
        return "write `.sys` in the asm instruction (e.g. `atom.global.release.sys.cas.b32`)"
    return f"use `scope='sys'` on this {e.via}"


@dataclass
class _Check:
    """One kernel under check: its events, their roles, the marked peers, what was found."""

    kernel: KernelEvents
    shape: Shape
    peers: frozenset[str]
    read_roots: frozenset[str] = frozenset()  # arguments a kernel of the file reads through peer pointers
    findings: list[Finding] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    relaxed_barrier_reported: bool = False

    @property
    def ev(self) -> list[Event]:
        return self.kernel.events

    def add(self, rule: str, site: Site, message: str, fix: str, test_id: str, related: tuple[Site, ...] = ()) -> None:
        assert test_id in CATALOG_VARIANTS + COMPILER_VARIANTS, f"add {test_id} to CATALOG_VARIANTS"
        self.findings.append(Finding(rule, self.kernel.name, site, message, fix, catalog_verdict(test_id), related))

    def payload(self, kind: str, after: int, before: int, path: Event) -> list[Event]:
        """Payload accesses of ``kind`` strictly between two indexes, on ``path``'s path."""
        return [e for e in self.ev if after < e.index < before and e.kind == kind and is_payload(e, self.shape)
                and e.same_path(path)]


def _peer_scope(c: _Check) -> None:
    for e in c.ev:
        if e.kind not in ("atomic", "spin") or e.volatile or e.scope not in ("cta", "gpu") or e.ptr is None \
                or not e.ptr.shared(c.peers):
            continue
        if c.shape.barrier and e.op == "cas":
            tid = "SYMM-barrier[relaxed-gpu-xgpu]"
        elif e.op == "cas":
            tid = "MP-iris[relacq-gpu-xgpu]"
        else:
            tid = f"MP[relacq-xgpu-{e.scope}]"
        c.add("peer-scope", e.site, f"`scope='{e.scope}'` on a peer pointer: {e.via} reaches {e.ptr.describe()}, "
              f"and {e.scope} scope does not include another GPU", _fix_scope(e), tid)


def _block_publish(c: _Check, s: Event, stores: list[Event]) -> None:
    # a tensor signal over the stores' own elements runs in the threads that stored them
    vec = [e for e in stores if e.ptr is not None and e.ptr.vector and not _same_threads(s, e)]
    if not s.subset or not vec or _between(c.ev, vec[-1].index, s.index, ("barrier",)):
        return
    line = vec[-1].site.line
    if s.via.startswith("inline asm") or (s.ptr is not None and s.ptr.vector):
        what = "signal by some threads"
        who = "runs in the threads that hold its elements only, so it publishes only those threads' part"
    else:
        what = "scalar tl.store" if s.kind == "store" else "scalar atomic"
        who = "runs on one thread, so it publishes only that thread's part"
    store = vec[-1].via
    # a TMA store is issued by one thread and written asynchronously: a barrier alone does not order it
    tma = (" (a tensor descriptor store is asynchronous: its tile must also be complete before the flag)"
           if store.startswith("tensor descriptor") else "")
    c.add("block-publish", s.site, f"{what} after vector stores with no `tl.debug_barrier()` between: {s.via} "
          f"{who} of the {store} at line {line}",
          f"put `tl.debug_barrier()` between the {store} at line {line} and line {s.site.line}{tma}",
          "SYMM-barrier-p1[acqrel-nopre-sys]" if c.shape.barrier else "MP-block[nobar-release-sys]", (vec[-1].site,))


def _relaxed_signal(c: _Check, s: Event, stores: list[Event]) -> None:
    line = stores[-1].site.line
    if s.release or any(f.release for f in _between(c.ev, stores[-1].index, s.index, ("fence",))):
        return
    wait = next((w for w in c.shape.waits if w.index > s.index and w.same_path(s)), None)
    if c.shape.barrier and wait is not None and not wait.acquire:
        c.relaxed_barrier_reported = True
        c.add("relaxed-signal", s.site, "relaxed barrier after this kernel's own stores: the pad CASes are relaxed, "
              f"so the tl.store at line {line} is not ordered before the peer's reads (symm_mem pattern 0 covers "
              "earlier kernels' writes only)",
              "use the acq_rel barrier (symm_mem pattern 1): a release send and an acquire wait, with "
              "`tl.debug_barrier()` before and after", "SYMM-barrier-p0[inkernel-write]", (stores[-1].site,))
        return
    if s.volatile:
        tid, what = "MP-mixed[volatile-xgpu]", "a volatile store (relaxed.sys)"
    elif s.kind == "store":
        tid, what = "MP-iris[plain-signal-sys]", "a plain tl.store (weak)"
    elif s.op == "cas" or s.kind == "spin":
        tid, what = "MP-iris[relaxed-signal-sys]", f"{s.via} with sem='{s.sem}'"
    else:
        tid, what = "MP[relaxed-xgpu-sys]", f"{s.via} with sem='{s.sem}'"
    if s in c.shape.unlocks:
        c.add("relaxed-signal", s.site, f"mutex released by {what} after the tl.store at line {line} in the "
              "critical section: it is no release, so the next holder may read the data as it was before",
              "release the lock with `tl.atomic_xchg(lock, 0, sem='release')` (the default sem, acq_rel, releases "
              "too)", tid, (stores[-1].site,))
        return
    c.add("relaxed-signal", s.site, f"flag raised by {what} after the payload tl.store at line {line}: it is no "
          "release, so the payload may arrive after the flag",
          "raise the flag with `sem='release'` (e.g. `tl.atomic_xchg(flag, 1, sem='release', scope='sys')`)",
          tid, (stores[-1].site,))


def _signals(c: _Check) -> None:
    last = -1
    for s in c.shape.signals:
        if s in c.shape.unlocks:  # what a mutex publishes is what its critical section wrote
            last = max([last] + [lk.index for lk in c.shape.locks if lk.index < s.index and lk.same_path(s)])
        stores = c.payload("store", last, s.index, s)
        if c.shape.barrier and s.ptr is not None and s.ptr.shared(c.peers):
            # in a barrier on peer memory only stores the peers can read count: to peer memory, or to
            # memory a kernel of the file reads through a peer pointer (iris' one-shot all-reduce)
            stores = [e for e in stores if peer_visible(e, c.peers, c.read_roots)]
        last = s.index
        if stores:
            _block_publish(c, s, stores)
            _relaxed_signal(c, s, stores)
            _cross_cta(c, s, stores)


def _cross_cta(c: _Check, s: Event, stores: list[Event]) -> None:
    """A release by one CTA (``if pid == 0:``) after stores every CTA makes: it orders its own
    CTA's stores only (with a CTA barrier), never the other CTAs'."""
    grid = [e for e in stores if not e.one_cta]
    if not s.one_cta or not s.release or not grid:
        return
    if any(w.kind == "spin" for w in _between(c.ev, grid[-1].index, s.index, ("spin",))):
        return  # a wait between: a grid barrier (or another CTA's flag) the linter takes as ordering them
    line = grid[-1].site.line
    c.add("cross-cta-publish", s.site, f"flag raised by one CTA ({s.via} under `if tl.program_id(...) == ...`) "
          f"after the tl.store at line {line}, which every CTA runs: the release orders only the stores of the "
          "CTA that makes it, so another CTA's block may reach the reader after the flag",
          "put a grid barrier before the `if` (every CTA: `tl.debug_barrier()`, `tl.atomic_add(counter, 1, "
          "sem='release', scope='gpu')`, then spin with `sem='acquire'` until it reaches the grid size), or raise "
          "one flag per CTA (`flag + pid`) and have the reader wait for each",
          "MP-grid[cta0-release-sys]", (grid[-1].site,))


def _ticket_publish(c: _Check) -> None:
    """A release by the CTA that draws the last ticket, after stores every CTA makes, where the
    ticket is no acquire: the ticket reads the other CTAs' adds without synchronising with them,
    so their stores are not ordered before the release."""
    for s in c.shape.signals:
        t = ticket_of(c.ev, s)
        if t is None or t.acquire or s.one_cta:  # `if pid == 0:` is cross_cta's
            continue
        grid = [e for e in c.payload("store", -1, t.index, t) if not e.one_cta]
        # an acquire between the ticket and the flag (PyTorch #128455's __threadfence) completes it
        if not grid or any(e.acquire for e in _between(c.ev, t.index, s.index, ("fence", "atomic", "load", "spin"))):
            continue
        store = grid[-1]
        how = (f"`atom.acq_rel.{t.scope}` in the asm" if t.via.startswith("inline asm")
               else f"`sem='acq_rel'` on this {t.via}")
        c.add("cross-cta-publish", s.site, f"flag raised by the CTA that draws the last ticket ({s.via}, under the "
              f"`if` on what the {t.via} at line {t.site.line} returned) after the {store.via} at line "
              f"{store.site.line}, which every CTA runs: the ticket is sem='{t.sem}', no acquire, so it reads the "
              "other CTAs' adds without synchronising with them, and their stores may reach the reader after the flag",
              f"take the ticket at line {t.site.line} with {how}, so the last CTA acquires the others' releases; "
              "each CTA also needs `tl.debug_barrier()` before its ticket",
              "MP-grid[ticket-release-sys]", (store.site, t.site))


def _acquires(e: Event, w: Event) -> bool:
    """Whether ``e``, after wait ``w``, completes its acquire: a fence does for any address; an
    acquire read (an atomic, an inline-asm ``ld.acquire``) only of the flag the wait read (the same
    object: pointer base), since only a read of the flag's value synchronises with its release."""
    if e.kind == "fence":
        return e.acquire
    if e.kind not in ("atomic", "load") or not e.acquire or e.ptr is None or w.ptr is None:
        return False
    return e.ptr.base == w.ptr.base


def _volatile_poll(c: _Check, w: Event, loads: list[Event]) -> None:
    acquires = [e for e in c.ev if w.index < e.index < loads[0].index and _acquires(e, w)]
    if w.acquire or acquires:
        return
    sends = [s for s in c.shape.signals if s.index < w.index and s.same_path(w)]
    own_stores = [e for e in c.payload("store", -1, sends[-1].index, w) if e.ptr is not None
                  and e.ptr.shared(c.peers)] if sends else []
    if c.shape.barrier and sends and not own_stores:
        c.notes.append(f"{w.site}: relaxed barrier (symm_mem pattern 0): it orders only data written by earlier "
                       "kernels, which is all this kernel reads after it")
        return
    if c.relaxed_barrier_reported:
        return
    if w.volatile:
        tid, what = "MP-iris-volatile[volatile-as-written]", "`tl.load(volatile=True)` spin with no acquire"
    elif c.shape.barrier:
        tid, what = "SYMM-barrier-p1[recipes-nobar-acq-sys]", f"relaxed barrier wait ({w.via})"
    elif w.op == "cas":
        tid, what = "MP-iris[relaxed-wait-sys]", f"relaxed CAS spin ({w.via})"
    else:
        tid, what = "MP-block-consumer[bar-relaxed-sys]", f"spin with sem='{w.sem}' ({w.via})"
    other = [e for e in c.ev if w.index < e.index < loads[0].index and e.kind in ("atomic", "load") and e.acquire]
    also = (f"; the acquire at line {other[0].site.line} ({other[0].via}) reads another address, "
            "and an acquire synchronises only through the flag it reads" if other else "")
    fix = ("spin on an acquire read, `tl.atomic_add(flag, 0, sem='acquire', scope='sys')` or "
           "`tl.atomic_cas(flag, 1, 0, sem='acquire', scope='sys')`, or follow the loop with one such read")
    if w.via.startswith("inline asm"):
        fix = ("acquire in the wait (`atom.global.acquire.sys.cas.b32`), or after the CTA barrier read the very "
               "slot the wait read with `ld.acquire.sys.global.u32`")
    c.add("volatile-poll", w.site, f"{what}: the {loads[0].via} at line {loads[0].site.line} may read the payload as "
          f"it was before the flag{also}", fix, tid, (loads[0].site,))


def _consumer_block(c: _Check, w: Event, loads: list[Event]) -> None:
    vec = [e for e in loads if e.ptr is not None and e.ptr.vector and not _same_threads(w, e)]
    if not w.subset or not vec or _between(c.ev, w.index, vec[0].index, ("barrier",)):
        return
    c.add("consumer-block", w.site, f"the wait runs on some threads only ({w.via}); the tl.load at line "
          f"{vec[0].site.line} by the other threads is not ordered after it",
          f"put `tl.debug_barrier()` after the wait, before line {vec[0].site.line}",
          "SYMM-barrier-p1[acqrel-nopost-sys]" if c.shape.barrier else "MP-block-consumer[nobar-acquire-sys]",
          (vec[0].site,))


def _plain_reset(c: _Check, w: Event) -> None:
    if w in c.shape.locks:  # a mutex's release is judged as a signal (relaxed-signal, block-publish)
        return
    for r in c.ev:
        if r.index <= w.index or not r.same_path(w) or r.ptr is None or w.ptr is None or r.ptr.key != w.ptr.key:
            continue
        plain = r.kind == "store" and not r.volatile and r.value == 0
        relaxed = r.kind == "atomic" and r.op == "exch" and r.value == 0 and not r.release
        if not (plain or relaxed):
            continue
        c.add("plain-reset", r.site, f"flag reset to 0 by {'a plain tl.store' if plain else r.via} after the wait "
              f"at line {w.site.line}: the reset can land after the producer's next signal and hang the next wait, "
              "and it does not order this kernel's reads before the producer's reuse",
              "reset with `tl.atomic_xchg(flag, 0, sem='release', scope='sys')` after the payload is read and have "
              "the producer wait for 0 before signalling again, or count rounds (a counter per slot, alternating "
              "slots) instead of resetting",
              "MP-reset-race[relacq-plain-reset]" if plain else "MP-iris-reset-war[relaxed-reset-after-read]",
              (w.site,))


def _spin_removed(c: _Check) -> None:
    """A plain-load ``while`` of the source with no loop in the compiled code: the kernel does not
    wait (the catalog variant is the consumer as compiled)."""
    for spin, w in c.shape.removed:
        c.add("spin-removed", w.site, f"the compiler removed your spin: the `while` at line {spin.line} waits on a "
              f"plain tl.load of `{spin.address}`, which the compiler may take for unchanging; the compiled kernel "
              "has no loop and no read of the flag, so it goes on at once and reads the payload before it is "
              "written (were the load only hoisted, a 0 read once would spin forever)",
              f"spin on an acquire atomic, which the compiler keeps: `while tl.atomic_add({spin.address}, 0, "
              "sem='acquire', scope='sys') == 0: pass`, and raise the flag with `tl.atomic_xchg(..., 1, "
              "sem='release', scope='sys')`", "MP-spin-removed[plain-spin-removed]",
              (Site(w.site.file, spin.load_line),))


def _waits(c: _Check) -> None:
    for w in c.shape.waits:
        if w.op == "removed":  # judged by spin-removed: the compiled kernel does not wait at all
            continue
        loads = c.payload("load", w.index, len(c.ev), w)
        if loads:
            _volatile_poll(c, w, loads)
            _consumer_block(c, w, loads)
        _plain_reset(c, w)


def _barrier_war(c: _Check) -> None:
    """symm_mem pattern 2 inside one kernel: reads before a relaxed barrier, writes after it."""
    if not c.shape.barrier:
        return
    for s in c.shape.signals:
        w = next((x for x in c.shape.waits if x.index > s.index and x.same_path(s)), None)
        if w is None:
            continue
        reads = [e for e in c.payload("load", -1, s.index, s) if e.ptr is not None and e.ptr.shared(c.peers)]
        writes = [e for e in c.payload("store", w.index, len(c.ev), w) if e.ptr is not None
                  and e.ptr.shared(c.peers)]
        if not reads or not writes:
            continue
        released = s.release or any(f.release for f in _between(c.ev, -1, s.index, ("fence",)))
        acquired = w.acquire or any(f.acquire for f in _between(c.ev, w.index, writes[0].index,
                                                                 ("fence", "atomic", "load")))
        if released and acquired:
            continue
        c.add("barrier-war", writes[0].site, f"write to symmetric memory after a relaxed barrier (lines "
              f"{s.site.line} / {w.site.line}) that a peer read before it (tl.load at line {reads[0].site.line}): "
              "the relaxed barrier does not order the peer's read before this write (symm_mem pattern 2 relies on "
              "the kernel boundary)",
              "move the writes to the next kernel, or use the acq_rel barrier (release send, acquire wait)",
              "SYMM-barrier-p2[p2-relaxed]", (reads[0].site,))


def _signal_reuse(c: _Check) -> None:
    for s in c.shape.signals:
        # a signal under a per-round `if` (stream-K's `if start_iter != tile_iter`) is not set every round
        if not s.loop or s.some_rounds or s.kind == "spin" or s.op not in ("exch", "cas", "") or s.ptr is None:
            continue
        if any(w.kind == "spin" and w.loop == s.loop and w.ptr is not None and w.ptr.key == s.ptr.key for w in c.ev):
            continue
        c.add("signal-reuse", s.site, f"flag set to a constant by {s.via} in every round of a loop, with no wait for "
              "the consumer's reset in the loop: a round's signal can be lost (or overwritten by the reset) and the "
              "consumer's next wait hang",
              "wait for the reset before signalling again (a spin until the flag is 0, acquire), or signal a round "
              "number / counter (`tl.atomic_add`) that never needs a reset",
              "MP-reset-race[iris-cas-signal-cas-reset]" if s.op == "cas" else "MP-reset-race[relacq-plain-reset]")


_REREAD_SAFE = ("make the re-read strong: `tl.load(p, volatile=True)` (or `tl.atomic_load(p, sem='relaxed', "
                "scope=...)` on triton >= 3.9); or acquire with an atomic (`tl.atomic_add(flag, 0, sem='acquire', "
                "scope=...)`), or put `tl.debug_barrier()` between the acquire and the re-read")


def _acquire_reread(c: _Check) -> None:
    """A plain re-read, after an inline-asm acquire, of an address the kernel read before it, with
    no store, atomic or CTA barrier between: compiled to no load (docs/compiler-bugs/ptxas-report.md).

    Both reads and the acquire must be statements of one block (one path, in this order), and
    the address the same expression, its names not assigned between."""
    acquires = [e for e in c.ev if "inline asm" in e.via and e.acquire and e.kind in ("load", "spin", "fence")]
    if not acquires:
        return
    file = acquires[0].site.file
    reads = source_reads(file, c.kernel.name)
    for second in reads:
        for first in (r for r in reads if r.before(second) and not r.reassigned(second)):
            between = [e for e in c.ev if first.line < e.site.line < second.line]
            acq = next((e for e in between if e in acquires and e.kind == "load"), None) \
                or next((e for e in between if e in acquires), None)
            if acq is None or any(e.kind in ("store", "atomic", "barrier") or (e.kind == "spin" and e.op != "load")
                                  for e in between):
                continue
            how = {
                "load": "ptxas 11.8 to 13.5 (-O1 and above) lets the plain load move above `ld.acquire` and reuses "
                        "the first value (triton 3.6, 3.7); triton 3.8 and 3.9 merge the two tl.load themselves",
                "spin": "triton 3.8 and 3.9 merge the two tl.load across the spin loop (ptxas keeps a load after a "
                        "loop: triton 3.6 and 3.7 keep it)",
                "fence": "triton 3.8 and 3.9 merge the two tl.load across the inline-asm fence (docs/compiler-bugs.md, "
                         "finding 3); ptxas keeps a load after a fence",
            }[acq.kind]
            c.add("acquire-reread", Site(file, second.line), f"plain re-read of `{second.address}` after the "
                  f"inline-asm acquire at line {acq.site.line} ({acq.via}), read before it at line {first.line}: the "
                  f"compiled code may return the first value, read before the acquire. {how}", _REREAD_SAFE,
                  "MP-reread[plain-fence-plain]" if acq.kind == "fence" else "MP-reread[plain-ldacq-plain]",
                  (Site(file, first.line), acq.site))
            break


def check_kernel(k: KernelEvents, peers: frozenset[str], file_flag_keys: set[str] | None = None,
                 read_roots: frozenset[str] = frozenset()) -> tuple[list[Finding], list[str]]:
    """The findings for one kernel's events, and notes on shapes that are fine only by assumption.

    ``read_roots``: arguments the file's kernels read through peer pointers (:func:`peer_read_roots`);
    the kernel's own are always added."""
    c = _Check(k, shape_of(k, file_flag_keys or set(), peers), peers, read_roots | peer_read_roots([k]))
    for rule in (_peer_scope, _signals, _ticket_publish, _waits, _spin_removed, _barrier_war, _signal_reuse,
                 _acquire_reread):
        rule(c)
    unique = {(f.rule, f.site.line, f.pattern): f for f in c.findings}  # unrolled loops repeat a shape
    return sorted(unique.values(), key=lambda f: (f.site.line, f.rule)), list(dict.fromkeys(c.notes))
