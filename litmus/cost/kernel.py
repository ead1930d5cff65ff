"""The ``cuda`` cost kernel: a variant's signalling in a loop of round trips, timed by the GPU.

One launch runs ``n_trips`` round trips. Programs ``[j*P, (j+1)*P)`` play party ``roles[j]`` (for a
``message`` shape party 0 signals ``ping`` and waits for ``pong``, party 1 waits for ``ping``
and signals ``pong``; for a ``barrier`` shape each party runs its own signalling ops), each
program's ``BLOCK`` lanes are independent instances with their own flags. The ops of one
round trip are emitted by :class:`litmus.codegen.ops.Emitter`, the same table the litmus
kernels use, so sem, scope, volatile, CAS / exchange / store and fences are exactly the
variant's. Flags that are not self-resetting carry a round counter (``seq`` = trip + 1), as
vLLM's and XLA's counters do: before round ``seq`` the flag holds ``seq - 1`` (the heap starts
at 0), a flag write writes ``seq``, a spin for the raised value (``==`` or ``>=``) waits for
``>= seq`` (so a peer one round ahead never strands it) and a spin that waits to leave the
flag's initial value (``!=``) waits for ``!= seq - 1``: every round each spin waits for this
round's write. A flag narrower than 32 bits counts modulo its width (``>=`` as the serial
number ``(v - seq) mod 2^bits < 2^(bits-1)``, ``!=`` against ``(seq - 1) mod 2^bits``), so a
byte flag counts past 255. Any other spin on a counted flag (another comparison or value, a
mask, a CAS; a ``!=`` spin on a flag the round also resets), and a flag several adds raise in
one round, are refused in one line (:func:`_counted_spin`). Each program stores
the GPU global timer (``%globaltimer``, ns) before its first trip and after each trip (kept in
registers until the loop ends, so no timestamp store sits before the next trip's release), and
the spin-timeout status of its last trip, in row ``party * P + pair`` of each output (so the
ranks of a ``ranks`` launch, each running its own parties, fill disjoint rows).  The flags live
in the heap whose address is ``heap_ptr[0]`` (a peer's symmetric-memory buffer on ranks), laid
out by :mod:`litmus.codegen.widths` as the litmus kernels are: a slot of 8 bytes when a flag's
location has 64 bits, else 4, views and vector elements at their offsets in it, and each access
through a pointer of its own width (``heap_uint64``, ``heap_uint32``, ...), so a 64-bit flag is
written and read with 64-bit instructions.

``loopback=True`` plays every party in one program, one after another (all signals of a round,
then all waits), for the Triton interpreter, where the programs of one launch run one after
another and a cross-program spin would never see its flag.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

from litmus.codegen import widths
from litmus.observables import wide_registers
from litmus.codegen.layout import LocationSlot
from litmus.codegen.ops import Emitter, ThreadContext
from litmus.codegen.options import Features
from litmus.cost.shape import Signalling, copied, renamed, same_bytes, suffixed
from litmus.errors import LitmusError
from litmus.ir import Const, Instr, LitmusTest, Load, Rmw, Spin, Store, Thread, spin_exit_text

SEQ = 987654321  # placeholder of the round counter in emitted lines
PREV = 987654320  # placeholder of the previous round's counter
KERNEL = "cost_loop"
MAX_TRIPS = 2048  # round trips one launch can time (timestamps: a register vector; 2048 int64 over one warp fit its registers)


def trips_slots(n_trips: int) -> int:
    """The ``TRIPS`` constexpr for ``n_trips``: the next power of two."""
    if not 1 <= n_trips <= MAX_TRIPS:
        raise LitmusError(f"--round-trips {n_trips}: use 1 to {MAX_TRIPS} per launch (more launches: --repeat)")
    return 1 << (n_trips - 1).bit_length()


@dataclass(frozen=True)
class CostKernel:
    """The module text and what the host needs to launch it."""

    text: str
    locations: tuple[str, ...]  # heap slot order; the scratch slot follows
    parties: int  # programs per pair: one per party (1 in loopback)
    timer: str  # "globaltimer" (tl.extra.cuda), "inline-asm" or "none" (interpreter)
    fallbacks: tuple[str, ...]
    unit_bytes: int = 4  # bytes of one heap slot (8 when a flag's location has 64 bits)

    @property
    def slots(self) -> int:
        """Heap slots per instance (locations + scratch)."""
        return len(self.locations) + 1

    def heap_words(self, instances: int) -> int:
        """The int32 words of the heap of ``instances`` instances."""
        return self.slots * instances * self.unit_bytes // 4


@dataclass(frozen=True)
class _Heap:
    """Where the kernel's locations lie: the slots, unit and element types of
    :mod:`litmus.codegen.widths` (docs/codegen.md, "Access widths"), with slot ``s`` of
    instance ``inst`` at unit ``s * n_inst + inst`` and the scratch slot after the locations."""

    slots: dict[str, LocationSlot]  # every name, views included
    physical: tuple[str, ...]  # the locations with memory of their own, in slot order
    unit: int  # bytes per slot
    wide: frozenset[tuple[str, str]]  # (party thread, register) holding 64 bits

    @staticmethod
    def of(test: LitmusTest) -> "_Heap":
        """The heap of the kernel test ``test`` (:func:`_kernel_test`)."""
        slots, _ = widths.slots(test)
        physical = tuple(l.name for l in sorted(slots, key=lambda l: l.slot) if l.physical)
        wide = wide_registers(test, {l.name: l.bits for l in slots})
        return _Heap({l.name: l for l in slots}, physical, widths.unit_bytes(test), frozenset(wide))

    def dtype(self, name: str) -> str:
        """The Triton element type of the accesses to ``name``."""
        return widths.dtype(self.slots[name])

    def dtypes(self) -> list[str]:
        """The element types other than plain int32 that the accesses use."""
        return sorted({widths.dtype(l) for l in self.slots.values()} - {widths.PLAIN})

    def pointer(self, name: str) -> str:
        """The pointer expression of ``name`` for the lanes' instances."""
        loc = self.slots[name]
        return self._at(loc.slot, loc.offset, self.dtype(name))

    def scratch(self, dtype: str = widths.PLAIN) -> str:
        """The pointer expression of the instances' scratch slot, with element type ``dtype``."""
        return self._at(len(self.physical), 0, dtype)

    def _at(self, slot: int, offset: int, dtype: str) -> str:
        size = widths.dtype_bits(dtype) // 8
        k = self.unit // size  # elements of this type per slot
        heap = "heap" if dtype == widths.PLAIN else f"heap_{dtype}"
        unit = f"{slot} * n_inst + inst"
        return f"{heap} + " + (unit if k == 1 else f"{k} * ({unit})") + (f" + {offset // size}" if offset else "")

    def lines(self) -> list[str]:
        """The kernel's typed heap pointers and, with a 64-bit name or register, its int64 zero."""
        out = [f"heap_{d} = tl.load(heap_ptr).to(tl.pointer_type(tl.{d}))" for d in self.dtypes()]
        if self.wide or any(l.bits == 64 for l in self.slots.values()):
            out.append("zero64 = zero.to(tl.int64)")
        return out


def timer_api() -> str:
    """``globaltimer`` when ``triton.language.extra.cuda.globaltimer`` exists, else ``inline-asm``."""
    try:
        import triton.language.extra.cuda as cuda_extra
    except ImportError:
        return "inline-asm"
    return "globaltimer" if hasattr(cuda_extra, "globaltimer") else "inline-asm"


def _counted(sig: Signalling, ops: tuple[Instr, ...]) -> tuple[Instr, ...]:
    """``ops`` with the raised value of every non-resetting flag replaced by the counter
    placeholder (``SEQ``) and the value a ``!=`` spin waits to leave by the previous round's
    (``PREV``); raises ``LitmusError`` (one line) for a spin the counter cannot time."""
    out: list[Instr] = []
    for o in ops:
        loc = getattr(o, "loc", None)
        flag = None if loc is None else (loc if isinstance(o, Spin) and loc in sig.flags else sig.flag_of(loc))
        if flag is None or flag in sig.resetting:
            out.append(o)
            continue
        raised, init = sig.raised_value(flag), sig.test.location(flag).init
        if isinstance(o, (Store, Rmw)) and not same_bytes(sig.test, o.loc, flag):
            raise LitmusError(f"{sig.test.id}: {o.loc} and the flag {flag} are not the same bytes; cost counts "
                              "rounds in the flag's own bytes, so a write of other bytes cannot carry the count")
        if isinstance(o, Store) and o.value == Const(raised):
            o = replace(o, value=Const(SEQ))
        elif isinstance(o, Rmw) and o.op == "exch" and o.value == Const(raised):
            o = replace(o, value=Const(SEQ))
        elif isinstance(o, Rmw) and o.op == "cas" and o.expected == Const(init) and o.value == Const(raised):
            o = replace(o, expected=Const(PREV), value=Const(SEQ))
        elif isinstance(o, Rmw) and o.op == "add":
            if not (o.value == Const(1) and init == 0):
                raise LitmusError(f"{sig.test.id}: an add of {o.value} to a flag starting at {init} cannot "
                                  "count rounds; cost supports add-by-1 flags from 0")
            adds = sum(isinstance(w, Rmw) and w.op == "add" and sig.flag_of(w.loc) == flag for w in _timed_ops(sig))
            if adds > 1:
                raise LitmusError(f"{sig.test.id}: {adds} adds to {flag} in a round do not count rounds (a spin for "
                                  "the round's number would leave at once); cost supports one add per flag and round")
        elif isinstance(o, Spin):
            o = _counted_spin(sig, o, flag)
        out.append(o)
    return tuple(out)


def _counted_spin(sig: Signalling, spin: Spin, flag: str) -> Spin:
    """``spin`` on the counted flag ``flag`` waiting for this round's write: ``until`` the
    counter (``== raised`` / ``>= raised``, emitted as ``>= seq``) or leaving the previous
    round's counter (``!= init``, emitted as ``!= seq - 1``).  Anything else would not wait
    every round (``>= 2`` on a flag counting 1, 2, 3 ... leaves at once from round 2; ``!= 0``
    after a reset to 0 at once too) or never leave: refused, naming the variant and why."""
    raised, init = sig.raised_value(flag), sig.test.location(flag).init

    def refuse(why: str) -> LitmusError:
        return LitmusError(f"{sig.test.id}: the loop kernel cannot time the spin `{spin_exit_text(spin)}`: {why}")

    if spin.read.kind == "cas":
        raise refuse(f"a CAS spin on {flag}, which no CAS spin puts back to {init}, cannot count rounds")
    if spin.mask is not None:
        raise refuse("the round counter fills the flag's bytes, a masked comparison would not see it")
    if spin.cmp in ("==", ">=") and spin.until == raised:
        return replace(spin, until=SEQ)
    if spin.cmp == "!=" and spin.until == init and raised != init:
        resets = [o for o in _timed_ops(sig) if isinstance(o, (Store, Rmw)) and sig.flag_of(o.loc) == flag
                  and not _counts(sig, o, flag)]
        if resets:
            raise refuse(f"{flag} is also written {_op_text(resets[0])}, which may put back the previous round's "
                         "value and end the spin at once")
        return replace(spin, until=PREV)
    raise refuse(f"it counts rounds in {flag} (the signal raising it from {init} to {raised} writes the round's "
                 f"number), so only `== {raised}`, `>= {raised}` (this round's number) or `!= {init}` (leaving the "
                 "previous round's) wait every round")


def _timed_ops(sig: Signalling) -> tuple[Instr, ...]:
    """Every op the loop kernel runs in a round (before counting)."""
    return sig.signal + sig.wait if sig.shape == "message" else tuple(o for p in sig.parties for o in p.ops)


def _counts(sig: Signalling, o: Instr, flag: str) -> bool:
    """Whether the write ``o`` of ``flag`` becomes the round counter (a write of the raised
    value, or an add of 1)."""
    raised, init = sig.raised_value(flag), sig.test.location(flag).init
    value = getattr(o, "value", None)
    if isinstance(o, Rmw) and o.op == "add":
        return value == Const(1)
    if isinstance(o, Rmw) and o.op == "cas":
        return o.expected == Const(init) and value == Const(raised)
    return value == Const(raised)


def _op_text(o: Instr) -> str:
    value = getattr(o, "value", None)
    return f"{getattr(o, 'op', 'store')} {getattr(value, 'value', value)}"


Round = tuple[tuple[Instr, ...], tuple[Instr, ...]]


def _rounds(sig: Signalling) -> tuple[list[Round], list[str]]:
    """Per party: (ops up to its first wait, the rest), rounds counted and the flags' words
    renamed to their kernel slots; and the suffixes of those copies of the words."""
    words = sig.words()
    if sig.shape == "message":
        ping, pong = suffixed(sig.test, words, "~ping"), suffixed(sig.test, words, "~pong")
        signal, wait = _counted(sig, sig.signal), _counted(sig, sig.wait)
        rounds = [(renamed(signal, ping), renamed(wait, pong)), (renamed(wait, ping), renamed(signal, pong))]
        return rounds, ["~ping", "~pong"]
    names = suffixed(sig.test, words, "~b")
    out = []
    for p in sig.parties:
        ops = _counted(sig, p.ops)
        k = next((n for n, o in enumerate(ops) if isinstance(o, Spin) and not (
            o.read.kind == "cas" and o.read.reset != sig.test.location(o.loc).init)), len(ops))
        out.append((renamed(ops[:k], names), renamed(ops[k:], names)))
    return out, ["~b"]


def _kernel_test(sig: Signalling, rounds: list[Round], suffixes: list[str]) -> LitmusTest:
    """The test whose threads are the parties' round ops and whose locations are the copies of
    the flags' words they use (in order of first use): what :mod:`litmus.codegen.widths` lays out."""
    copies = [loc for sfx in suffixes for loc in copied(sig.test, suffixed(sig.test, sig.words(), sfx))]
    base = {l.name: l.view_of or l.name for l in copies}
    names = [getattr(o, "loc") for a, b in rounds for o in a + b if hasattr(o, "loc")]
    used = list(dict.fromkeys(base[n] for n in names))
    locations = [l for b in used for l in copies if base[l.name] == b]
    threads = [Thread(f"T{k}", 0, k, a + b) for k, (a, b) in enumerate(rounds)]
    return replace(sig.test, locations=tuple(locations), threads=tuple(threads))


def _strip_regs(ops: tuple[Instr, ...]) -> tuple[Instr, ...]:
    return tuple(replace(o, reg=None) if isinstance(o, (Spin, Rmw)) else o for o in ops)


def cost_kernel(sig: Signalling, backend: str = "cuda", features: Features | None = None,
                spin_bound: int = 1_000_000, loopback: bool = False, fence_threads: int | None = None) -> CostKernel:
    """The loop kernel of ``sig`` for ``backend`` (``cuda``, or ``interpreter`` with ``loopback``).

    ``fence_threads``: how many threads of each CTA execute the variant's fences (the first
    ``n`` by ``%tid.x``; None: every thread, as the litmus kernels do). Needs inline PTX (cuda).
    """
    if backend not in ("cuda", "interpreter"):
        raise LitmusError(f"cost kernel: backend {backend!r}; use cuda or interpreter")
    if fence_threads is not None and (backend != "cuda" or fence_threads < 1):
        raise LitmusError(f"--fence-threads {fence_threads}: a positive thread count, on the cuda backend only "
                          "(the interpreter has no threads to pick)")
    if features is None:
        from litmus.codegen.options import detect_features

        features = detect_features()  # the installed triton's (tl.atomic_load/store are new in 3.9)
    feats = features
    if backend != "cuda":
        feats = replace(feats, inline_asm=False)
    counted, suffixes = _rounds(sig)
    rounds = [(_strip_regs(a), _strip_regs(b)) for a, b in counted]
    heap = _Heap.of(_kernel_test(sig, rounds, suffixes))
    emitter = Emitter(test_id=sig.test.id, source_file=sig.test.source_file, backend=backend, features=feats,
                      spin_bound=spin_bound)
    timer = timer_api() if feats.inline_asm else "none"
    body: list[str] = []
    if loopback:
        ctxs = [_context(k, rounds[k], heap) for k in range(len(rounds))]
        body += ["if True:"] + ["    " + ln for c in ctxs for ln in c[1]]
        if sig.shape == "message":  # ping there, pong back
            loop = [(ctxs[0][0], rounds[0][0]), (ctxs[1][0], rounds[1][0]), (ctxs[1][0], rounds[1][1]),
                    (ctxs[0][0], rounds[0][1])]
        else:  # every party's signals, then every party's waits
            loop = ([(ctxs[k][0], a) for k, (a, _) in enumerate(rounds)]
                    + [(ctxs[k][0], b) for k, (_, b) in enumerate(rounds)])
        body += ["    " + ln for ln in _loop(emitter, loop, [c[0] for c in ctxs])]
    else:
        for k, (a, b) in enumerate(rounds):
            ctx, setup = _context(k, (a, b), heap)
            body.append(f"if role == {k}:")
            body += ["    " + ln for ln in setup + _loop(emitter, [(ctx, a + b)], [ctx])]
    if fence_threads is not None:
        body = [out for ln in body for out in _fence_by(ln, fence_threads)]
    text = _module(sig, heap.lines(), body, timer, emitter.fallbacks)
    return CostKernel(text, heap.physical, 1 if loopback else len(rounds), timer, tuple(emitter.fallbacks), heap.unit)


def _context(k: int, ops: Round, heap: _Heap) -> tuple[ThreadContext, list[str]]:
    p = f"T{k}"
    all_ops = ops[0] + ops[1]
    regs = {r: f"{p}_{r}" for r in sorted({o.reg for o in all_ops if isinstance(o, Load)})}
    spin_idx = [n for n, o in enumerate(all_ops) if isinstance(o, Spin)]
    names = list(dict.fromkeys(o.loc for o in all_ops if hasattr(o, "loc")))  # type: ignore[union-attr]
    typed = heap.dtypes()
    ctx = ThreadContext(name=f"party{k}", ident=p, mask=None, scratch=f"s_{p}", regs=regs, addr={},
                        status=f"st_{p}", spin_bits={n: 0 for n in spin_idx}, zero="zero",
                        mem={n: heap.dtype(n) for n in heap.slots if heap.dtype(n) != widths.PLAIN},
                        wide={v for r, v in regs.items() if (f"T{k}", r) in heap.wide},
                        scratches={d: f"s_{p}_{d}" for d in typed})
    setup = [f"s_{p} = {heap.scratch()}"] + [f"{ctx.scratches[d]} = {heap.scratch(d)}" for d in typed]
    for loc in names:
        var = f"a_{p}_{_ident(loc)}"
        ctx.addr[loc] = var
        setup.append(f"{var} = {heap.pointer(loc)}  # {loc}")
    setup += [f"{v} = {'zero64' if v in ctx.wide else 'zero'}" for v in ctx.regs.values()]
    setup.append(f"{ctx.status} = zero")
    return ctx, setup


def _ident(name: str) -> str:
    """``name`` as a Python identifier part (``w~ping.v2[1]`` -> ``w_ping_v2_1_``)."""
    return "".join(c if c.isalnum() or c == "_" else "_" for c in name)


def _loop(emitter: Emitter, parts: list[tuple[ThreadContext, tuple[Instr, ...]]],
          ctxs: list[ThreadContext]) -> list[str]:
    """The timed loop: per trip, each part's ops; then the timestamp and the status."""
    status = " | ".join(c.status for c in ctxs)
    lines = ["t_base = times + gpid * (n_trips + 1)",
             "tl.store(t_base, _now(0))",
             "slots = tl.arange(0, TRIPS)",
             "stamps = tl.zeros([TRIPS], dtype=tl.int64)  # kept in registers: no store between trips",
             "k = 0",
             "bad = 0",
             "while (k < n_trips) & (bad == 0):",
             "    seq = zero + (k + 1)"]
    for ctx, ops in parts:
        for n, o in enumerate(ops):
            bits = widths.dtype_bits(ctx.mem.get(getattr(o, "loc", ""), "uint32"))
            lines += ["    " + _sub(ln, bits) for ln in emitter.emit(ctx, _index_in(ctx, ops, n), o)]
    lines += [f"    bad = tl.max({status}, 0)",
              "    stamps = tl.where(slots == k, _now(k + 1), stamps)",
              "    k += 1",
              "tl.store(t_base + 1 + slots, stamps, mask=slots < n_trips)",
              "tl.store(status + gpid, bad)",
              "tl.store(trips + gpid, k - (bad != 0).to(tl.int32))  # trips completed"]
    return lines


def _index_in(ctx: ThreadContext, ops: tuple[Instr, ...], n: int) -> int:
    """The index the emitter's spin-bit table knows op ``n`` by (every spin maps to bit 0)."""
    if isinstance(ops[n], Spin) and n not in ctx.spin_bits:
        ctx.spin_bits[n] = 0
    return n


def _sub(line: str, bits: int = 32) -> str:
    """Put the round counter in place of its placeholders, in a flag of ``bits`` bits.  A wait
    for the counter becomes ``>= seq``: the counter only grows, so a wait cannot miss its
    round's value once a later round overwrote it.  (With ``==`` and fences run by only some
    threads, spins timed out on the H200, 2-44 of 1,000 trips; with ``>=`` and the barrier after
    a predicated fence every trip completes: docs/results/h200-cost.md.  Which of the two
    changes mattered was not measured apart.)  A wait to leave the previous round's counter
    stays ``!= seq - 1``.  A flag narrower than 32 bits holds the counter modulo ``2^bits``
    (a byte flag wraps after 255 of up to 2048 rounds): ``>=`` is compared as a serial number,
    ``!=`` against the previous counter's low bits."""
    if bits < 32:
        low, half = (1 << bits) - 1, 1 << (bits - 1)
        line = re.sub(rf"\((\w+) (?:==|>=) {SEQ}\)", rf"(((\1 - seq) & {low}) < {half})", line)
        line = line.replace(f"!= {PREV})", f"!= ((seq - 1) & {low}))")
    return (line.replace(f"== {SEQ})", ">= seq)")
            .replace(f"zero + {SEQ}", "seq").replace(f"zero + {PREV}", "(seq - 1)")
            .replace(str(SEQ), "seq").replace(str(PREV), "seq - 1"))  # and in comments


_FENCE = re.compile(r'"fence\.(\w+)\.(\w+); mov\.u32 \$0, 0;"')


def _fence_by(line: str, n: int) -> list[str]:
    """``line`` with an emitted inline-PTX fence run only by threads ``%tid.x < n`` of the CTA,
    followed by a CTA barrier (``bar.sync``), as real code follows a few threads' fence with
    ``__syncthreads()``: the other threads wait for the fence, so its cost is in the round trip
    (without it they run ahead and the fencing threads' cost goes unmeasured)."""
    fenced = _FENCE.sub(lambda m: ('"{ .reg .pred %pf; .reg .u32 %tf; mov.u32 %tf, %tid.x; '
                                   f'setp.lt.u32 %pf, %tf, {n}; @%pf fence.{m.group(1)}.{m.group(2)}; }} '
                                   'mov.u32 $0, 0;"'), line)
    if fenced == line:
        return [line]
    indent = line[: len(line) - len(line.lstrip())]
    return [fenced, f"{indent}tl.debug_barrier()  # the CTA waits for its {n} fencing thread(s)"]


def _module(sig: Signalling, heap: list[str], body: list[str], timer: str, fallbacks: list[str]) -> str:
    if timer == "globaltimer":
        head = ["from triton.language.extra.cuda import globaltimer as _globaltimer", ""]
        now = ["@triton.jit", "def _now(k):", "    return _globaltimer()"]
    elif timer == "inline-asm":
        head = [""]
        now = ["@triton.jit", "def _now(k):",
               '    return tl.inline_asm_elementwise("mov.u64 $0, %globaltimer;", "=l", [], dtype=tl.int64, '
               "is_pure=False, pack=1)"]
    else:
        head = [""]
        now = ["@triton.jit", "def _now(k):", "    return tl.cast(k, tl.int64)  # no timer under the interpreter: the trip number"]
    lines = [f'"""litmus cost loop kernel for {sig.test.id} ({sig.shape}); timer: {timer}.',
             "Fallbacks:" + ("" if fallbacks else " none."), *[f"  {f}" for f in fallbacks], '"""', "",
             "import triton", "import triton.language as tl", *head, "",
             "@triton.jit", "def _any(a, b):", "    return a | b", "", "", *now, "", "",
             "@triton.jit",
             f"def {KERNEL}(heap_ptr, roles, times, status, trips, n_trips, progs, BLOCK: tl.constexpr, "
             "TRIPS: tl.constexpr):",
             "    pid = tl.program_id(0)",
             "    role = tl.load(roles + pid // progs)  # the party this program plays",
             "    pair = pid % progs",
             "    gpid = role * progs + pair  # its row in times, status and trips",
             "    heap = tl.load(heap_ptr).to(tl.pointer_type(tl.int32))",
             "    lane = tl.arange(0, BLOCK)",
             "    zero = lane * 0",
             "    n_inst = progs * BLOCK",
             "    inst = (pair * BLOCK + lane).to(tl.int64)"]
    lines += ["    " + ln for ln in heap + body]
    return "\n".join(lines) + "\n"
