"""The ``cuda`` cost kernel: a variant's signalling in a loop of round trips, timed by the GPU.

One launch runs ``n_trips`` round trips. Programs ``[j*P, (j+1)*P)`` play party ``roles[j]`` (for a
``message`` shape party 0 signals ``ping`` and waits for ``pong``, party 1 waits for ``ping``
and signals ``pong``; for a ``barrier`` shape each party runs its own signalling ops), each
program's ``BLOCK`` lanes are independent instances with their own flags. The ops of one
round trip are emitted by :class:`litmus.codegen.ops.Emitter`, the same table the litmus
kernels use, so sem, scope, volatile, CAS / exchange / store and fences are exactly the
variant's. Flags that are not self-resetting carry a round counter (``seq`` = trip + 1): a
flag write writes ``seq`` and a spin waits for ``seq`` (a barrier's spin for ``>= seq``, so a
peer one round ahead never strands it), as vLLM's and XLA's counters do. Each program stores
the GPU global timer (``%globaltimer``, ns) before its first trip and after each trip (kept in
registers until the loop ends, so no timestamp store sits before the next trip's release), and
the spin-timeout status of its last trip, in row ``party * P + pair`` of each output (so the
ranks of a ``ranks`` launch, each running its own parties, fill disjoint rows).  The flags live
in the int32 heap whose address is ``heap_ptr[0]`` (a peer's symmetric-memory buffer on ranks).

``loopback=True`` plays every party in one program, one after another (all signals of a round,
then all waits), for the Triton interpreter, where the programs of one launch run one after
another and a cross-program spin would never see its flag.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

from litmus.codegen.ops import Emitter, ThreadContext
from litmus.codegen.options import Features
from litmus.cost.shape import Signalling, renamed
from litmus.errors import LitmusError
from litmus.ir import Const, Instr, Load, Rmw, Spin, Store

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

    @property
    def slots(self) -> int:
        """Heap slots per instance (locations + scratch)."""
        return len(self.locations) + 1


def timer_api() -> str:
    """``globaltimer`` when ``triton.language.extra.cuda.globaltimer`` exists, else ``inline-asm``."""
    try:
        import triton.language.extra.cuda as cuda_extra
    except ImportError:
        return "inline-asm"
    return "globaltimer" if hasattr(cuda_extra, "globaltimer") else "inline-asm"


def _counted(sig: Signalling, ops: tuple[Instr, ...]) -> tuple[Instr, ...]:
    """``ops`` with the raised value of every non-resetting flag replaced by the counter placeholder."""
    out: list[Instr] = []
    for o in ops:
        loc = getattr(o, "loc", None)
        if loc is None or loc.split("~")[0] in sig.resetting:
            out.append(o)
            continue
        base = loc.split("~")[0]
        raised, init = sig.raised_value(base), sig.test.location(base).init
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
        elif isinstance(o, Spin) and o.until == raised:
            o = replace(o, until=SEQ)
        out.append(o)
    return tuple(out)


def _rounds(sig: Signalling) -> list[tuple[tuple[Instr, ...], tuple[Instr, ...]]]:
    """Per party: (ops up to its first wait, the rest), flags renamed to their kernel slots."""
    if sig.shape == "message":
        f = sig.flag
        ping, pong = {f: f"{f}~ping"}, {f: f"{f}~pong"}
        return [(renamed(sig.signal, ping), renamed(sig.wait, pong)),
                (renamed(sig.wait, ping), renamed(sig.signal, pong))]
    out = []
    for p in sig.parties:
        ops = renamed(p.ops, {f: f"{f}~b" for f in sig.flags})
        k = next((n for n, o in enumerate(ops) if isinstance(o, Spin) and not (
            o.read.kind == "cas" and o.read.reset != sig.test.location(o.loc.split("~")[0]).init)), len(ops))
        out.append((ops[:k], ops[k:]))
    return out


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
    rounds = [(_strip_regs(_counted(sig, a)), _strip_regs(_counted(sig, b))) for a, b in _rounds(sig)]
    locations = tuple(dict.fromkeys(getattr(o, "loc") for a, b in rounds for o in a + b if hasattr(o, "loc")))
    emitter = Emitter(test_id=sig.test.id, source_file=sig.test.source_file, backend=backend, features=feats,
                      spin_bound=spin_bound)
    timer = timer_api() if feats.inline_asm else "none"
    body: list[str] = []
    if loopback:
        ctxs = [_context(k, rounds[k], locations) for k in range(len(rounds))]
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
            ctx, setup = _context(k, (a, b), locations)
            body.append(f"if role == {k}:")
            body += ["    " + ln for ln in setup + _loop(emitter, [(ctx, a + b)], [ctx])]
    if fence_threads is not None:
        body = [out for ln in body for out in _fence_by(ln, fence_threads)]
    text = _module(sig, body, timer, emitter.fallbacks)
    return CostKernel(text, locations, 1 if loopback else len(rounds), timer, tuple(emitter.fallbacks))


def _context(k: int, ops: tuple[tuple[Instr, ...], tuple[Instr, ...]],
             locations: tuple[str, ...]) -> tuple[ThreadContext, list[str]]:
    p = f"T{k}"
    all_ops = ops[0] + ops[1]
    regs = sorted({o.reg for o in all_ops if isinstance(o, Load)})
    spin_idx = [n for n, o in enumerate(all_ops) if isinstance(o, Spin)]
    ctx = ThreadContext(name=f"party{k}", ident=p, mask=None, scratch=f"s_{p}",
                        regs={r: f"{p}_{r}" for r in regs}, addr={}, status=f"st_{p}",
                        spin_bits={n: 0 for n in spin_idx}, zero="zero")
    setup = [f"s_{p} = heap + {len(locations)} * n_inst + inst"]
    for loc in dict.fromkeys(o.loc for o in all_ops if hasattr(o, "loc")):  # type: ignore[union-attr]
        var = f"a_{p}_{loc.replace('~', '_')}"
        ctx.addr[loc] = var
        setup.append(f"{var} = heap + {locations.index(loc)} * n_inst + inst  # {loc}")
    setup += [f"{v} = zero" for v in ctx.regs.values()]
    setup.append(f"{ctx.status} = zero")
    return ctx, setup


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
            lines += ["    " + _sub(ln) for ln in emitter.emit(ctx, _index_in(ctx, ops, n), o)]
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


def _sub(line: str) -> str:
    """Put the round counter in place of its placeholders.  A wait becomes ``>= seq``: the
    counter only grows, so a wait cannot miss its round's value once a later round overwrote
    it.  (With ``==`` and fences run by only some threads, spins timed out on the H200, 2-44 of
    1,000 trips; with ``>=`` and the barrier after a predicated fence every trip completes:
    docs/results/h200-cost.md.  Which of the two changes mattered was not measured apart.)"""
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


def _module(sig: Signalling, body: list[str], timer: str, fallbacks: list[str]) -> str:
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
    lines += ["    " + ln for ln in body]
    return "\n".join(lines) + "\n"
