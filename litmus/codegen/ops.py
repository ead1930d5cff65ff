"""One IR instruction -> lines of Triton source (the op mapping table of docs/codegen.md)."""

from __future__ import annotations

from dataclasses import dataclass, field

from litmus.errors import Problem, UnsupportedError
from litmus.ir import (BRANCH_CMP, NEGATED_BRANCH, Barrier, Branch, Compute, Const, Fence, Label, Load, Operand,
                       ProxyFence, Reg, Rmw, Spin, Store, spin_exit_text)
from litmus.codegen.layout import (HUNG_BIT, QUIET_COUNT_MASK, QUIET_FINISHED, QUIET_VERSION_MASK,
                                   QUIET_VERSION_SHIFT)
from litmus.codegen.options import Features


QUIET_CHECK = 64
"""A quiescent spin (``ThreadContext.fin``) looks at its instance's wait word every this many reads."""

QUIET_GRACE = 64
"""A spin that does not prove (``ThreadContext.quiet_proof`` off) gives up this many reads after
it saw every other thread of its instance finished: a timeout, with no ordering asked of anyone."""

QUIET_STALL = 32
"""Checks in a row (every :data:`QUIET_CHECK` reads) that saw nothing of the instance change
after which a quiescent spin gives up: a timeout.  In a proving kernel "nothing" is the wait
word; in a hunting one, the other threads' confirm words, each finished or waiting in a spin.
It ends instances no proof can: a lane whose spin exited waits for the other lanes of its
program, so two programs can each hold a lane the other's instance waits for, and without it
such an instance runs to the spin's bound (100,000 reads)."""

QUICK_QUIET = (1, 2, 8)
"""``(check, grace, stall)`` in place of :data:`QUIET_CHECK`, :data:`QUIET_GRACE` and
:data:`QUIET_STALL` with ``CodegenOptions.quick_hangs`` (the cpu backend, where one read of a
spin is one pass of Python over every lane, milliseconds rather than nanoseconds): a check every
read, and a grace and stall of a few reads, end a certain hang in a few passes instead of the
spin's whole bound."""

QUIET_ROUNDS = 2
"""Checks in a row that must find every thread of the instance finished or waiting before a
spin tries to prove the hang: the reads in between (at least :data:`QUIET_CHECK`) are still a
chance to see a late write the ordinary way, without the acquire the proof takes."""

QUIET_PARK = 1 + (1 << QUIET_VERSION_SHIFT)
"""Added to the wait word when a thread starts waiting or finishes: one more, a new version."""

QUIET_UNPARK = -1 + (1 << QUIET_VERSION_SHIFT)
"""Added when a thread stops waiting (its spin exited, or it gave up): one fewer, a new version."""

HARNESS_TAG = "# harness"
"""Ends a line inside an op's code that is harness, not the op (litmus.audit.op_code skips it)."""

_COMPUTE_SYMBOLS = {"add": "+", "sub": "-", "mul": "*", "and": "&", "or": "|", "xor": "^", "shl": "<<", "shr": ">>"}

_PTX_TYPE = {  # access bits -> (PTX type, inline-asm register constraint, Triton type of that register)
    8: ("u8", "r", "int32"),  # ld/st take a register wider than the type (zero-extended / truncated)
    16: ("u16", "r", "int32"),
    32: ("b32", "r", "int32"),
    64: ("b64", "l", "int64"),
}

_RMW_CALLS = {
    "exch": "tl.atomic_xchg",
    "add": "tl.atomic_add",
    "and": "tl.atomic_and",
    "or": "tl.atomic_or",
    "xor": "tl.atomic_xor",
    "min": "tl.atomic_min",
    "max": "tl.atomic_max",
}


@dataclass
class ThreadContext:
    """Names of one thread's values in the generated role block.

    ``mask`` is None when the thread has the program to itself (no lane masking needed).
    """

    name: str
    ident: str  # identifier prefix, e.g. "P0"
    mask: str | None
    scratch: str  # pointer vector to this thread's per-instance scratch words
    regs: dict[str, str]  # IR register -> variable
    addr: dict[str, str]  # location -> pointer-vector variable
    status: str
    spin_bits: dict[int, int] = field(default_factory=dict)  # instr index -> status bit
    zero: str = "zero"  # the role's all-zero int32 vector (one per role in parallel mode)
    mem: dict[str, str] = field(default_factory=dict)  # sized location -> Triton type (uint8 .. uint64)
    wide: set[str] = field(default_factory=set)  # register variables holding 64 bits (int64)
    zero64: str = "zero64"  # the role's all-zero int64 vector
    scratches: dict[str, str] = field(default_factory=dict)  # Triton type -> this thread's typed scratch pointer
    fin: str | None = None  # pointer to the instance's wait word (quiescence; None: spins run to their bound)
    quiet_threads: int = 0  # threads of an instance: the wait count at which no write can come
    confirm: str | None = None  # pointer to this thread's confirm word (quiescence)
    confirm_others: tuple[str, ...] = ()  # pointers to the other threads' confirm words
    quiet_scope: str = "gpu"  # scope of the harness's atomics on those words
    quiet_proof: bool = True  # prove hangs (fences while a proof is under way); else give up, a timeout

    def dtype(self, loc: str) -> str:
        """The Triton element type of the accesses to ``loc`` (``int32``: plain 32-bit)."""
        return self.mem.get(loc, "int32")

    def scratch_of(self, dtype: str) -> str:
        """This thread's scratch pointer with element type ``dtype``."""
        return self.scratches.get(dtype, self.scratch)


@dataclass
class Emitter:
    """Emits the Triton lines of a thread's instructions, recording fallbacks."""

    test_id: str
    source_file: str
    backend: str
    features: Features
    spin_bound: int | None
    quick_hangs: bool = False  # CodegenOptions.quick_hangs
    fallbacks: list[str] = field(default_factory=list)
    _counter: int = 0

    @property
    def quiet_timing(self) -> tuple[int, int, int]:
        """``(check, grace, stall)`` of quiescent spins (:data:`QUICK_QUIET` with ``quick_hangs``)."""
        return QUICK_QUIET if self.quick_hangs else (QUIET_CHECK, QUIET_GRACE, QUIET_STALL)

    # ------------------------------------------------------------------ helpers

    def _fresh(self, stem: str) -> str:
        self._counter += 1
        return f"{stem}{self._counter}"

    def _unsupported(self, ctx: ThreadContext, ins: object, why: str) -> UnsupportedError:
        line = getattr(ins, "line", None)
        msg = (
            f"{self.test_id}: thread {ctx.name}: {type(ins).__name__} cannot be compiled to Triton: {why}; "
            "drop this test from code generation (the model still checks it) or rewrite it without it"
        )
        return UnsupportedError(Problem(self.source_file, line, None, msg))

    def _fallback(self, ctx: ThreadContext, index: int, asked: str, emitted: str) -> str:
        note = f"{ctx.name}[{index}] {asked}: fallback {emitted} (backend {self.backend})"
        self.fallbacks.append(note)
        return f"# FALLBACK {asked} -> {emitted}"

    @staticmethod
    def _vec(op: Operand, ctx: ThreadContext) -> str:
        if isinstance(op, Const):
            return f"({ctx.zero} + {op.value})"
        if isinstance(op, Reg):
            return ctx.regs[op.name]
        raise TypeError(op)

    @staticmethod
    def _mask_kw(mask: str | None) -> str:
        return f", mask={mask}" if mask else ""

    @staticmethod
    def _redirect(ctx: ThreadContext, ptr: str, dtype: str = "int32") -> str:
        """A pointer vector that sends lanes not owned by the thread to scratch (for mask-less ops)."""
        return f"tl.where({ctx.mask}, {ptr}, {ctx.scratch_of(dtype)})" if ctx.mask else ptr

    # ------------------------------------------------------------------ widths

    @staticmethod
    def _bits(dtype: str) -> int:
        return int(dtype.lstrip("uint"))

    def _value(self, op: Operand, ctx: ThreadContext, dtype: str) -> str:
        """``op`` as a vector for a store to memory of type ``dtype``: int64 for 64 bits, int32
        otherwise (constants as the signed integer of the memory's width: the same bits)."""
        if dtype == "int32":
            if isinstance(op, Reg) and ctx.regs[op.name] in ctx.wide:
                return f"{ctx.regs[op.name]}.to(tl.int32)"
            return self._vec(op, ctx)
        bits = 64 if self._bits(dtype) == 64 else 32
        if isinstance(op, Const):
            v = op.value & ((1 << bits) - 1)
            v = v - (1 << bits) if v >= 1 << (bits - 1) else v
            return f"({ctx.zero64 if bits == 64 else ctx.zero} + {v})"
        var = self._vec(op, ctx)
        if (var in ctx.wide) != (bits == 64):
            return f"{var}.to(tl.int{bits})"
        return var

    @staticmethod
    def _to_reg(expr: str, dtype: str, wide: bool) -> str:
        """A value read from memory of type ``dtype`` as a register (int64 when ``wide``, else int32;
        narrower unsigned values zero-extended)."""
        if dtype == "int32" and not wide:
            return expr
        return f"{expr}.to(tl.int{64 if wide else 32})"

    def _narrow_rmw(self, ctx: ThreadContext, ins: object, dtype: str, what: str) -> None:
        """Raise when ``what`` (a Triton atomic) has no form on ``dtype`` elements: the RMWs take
        32- and 64-bit elements, ``atomic_cas`` also 16-bit ones."""
        bits = self._bits(dtype)
        if bits == 8 or (bits == 16 and what != "tl.atomic_cas"):
            ok = "32- and 64-bit elements (and 16-bit ones for tl.atomic_cas)"
            raise self._unsupported(ctx, ins, f"no Triton form: {what} on {'an' if bits == 8 else 'a'} {bits}-bit location ({getattr(ins, 'loc', '')}); "
                                    f"Triton's atomics take {ok}")

    def _narrow_fallback(self, ctx: ThreadContext, index: int, ins: object, dtype: str, asked: str,
                         kind: str) -> tuple[str, list[str]] | None:
        """For an 8/16-bit access whose fallback would be an RMW (which Triton lacks at that
        width): the interpreter's plain access (every interpreter access is performed at once,
        so it is as strong as any), None elsewhere (the caller refuses)."""
        if self._bits(dtype) >= 32:
            return None
        if self.backend != "interpreter":
            return None
        note = self._fallback(ctx, index, asked, f"tl.{kind} (plain; the interpreter performs each access at "
                              "once, and Triton has no 8/16-bit RMW to stand in)")
        return kind, [note]

    # ------------------------------------------------------------------ reads / writes

    def _read(self, ctx: ThreadContext, index: int, ptr: str, mask: str | None, sem: str, scope: str,
              volatile: bool, what: str, dtype: str = "int32", ins: object = None) -> tuple[str, list[str]]:
        """An expression reading ``ptr`` (elements of type ``dtype``) with the given ordering, plus
        comment lines; its value has type ``dtype``."""
        mk = self._mask_kw(mask)
        bits = self._bits(dtype)
        tag = "" if dtype == "int32" else f" ({bits} bits)"
        if volatile:
            return f"tl.load({ptr}{mk}, volatile=True)", [f"# {what}: ld.volatile (relaxed.sys){tag}"]
        if sem == "weak":
            return f"tl.load({ptr}{mk})", [f"# {what}: plain load{tag}"]
        if self.features.atomic_load:
            return f'tl.atomic_load({ptr}{mk}, sem="{sem}", scope="{scope}")', [f"# {what}: ld.{sem}.{scope}{tag}"]
        if self.features.inline_asm:
            # triton without tl.atomic_load (3.6): the PTX instruction itself, not an RMW stand-in
            src = f"tl.where({mask}, {ptr}, {ctx.scratch_of(dtype)})" if mask else ptr
            ptype, reg, rty = _PTX_TYPE[bits]
            expr = (f'tl.inline_asm_elementwise("ld.{sem}.{scope}.global.{ptype} $0, [$1];", "={reg},l", [{src}], '
                    f"dtype=tl.{rty}, is_pure=False, pack=1)")
            if dtype != "int32":
                expr += f".to(tl.{dtype})"
            return (expr, [f"# {what}: ld.{sem}.{scope}.global.{ptype} (inline PTX; lanes not read go to scratch)"])
        if self.backend == "cuda" and sem == "relaxed" and scope == "sys":
            note = self._fallback(ctx, index, f"{what} ld.relaxed.sys", "tl.load(volatile=True) (ld.volatile = relaxed.sys)")
            return f"tl.load({ptr}{mk}, volatile=True)", [note]
        narrow = self._narrow_fallback(ctx, index, ins, dtype, f"{what} ld.{sem}.{scope}", "load")
        if narrow is not None:
            return f"tl.load({ptr}{mk})", narrow[1]
        self._narrow_rmw(ctx, ins, dtype, "tl.atomic_add (the stand-in for an atomic load)")
        note = self._fallback(ctx, index, f"{what} ld.{sem}.{scope}",
                              f'tl.atomic_add(p, 0, sem="{sem}", scope="{scope}") (an RMW: also a write event)')
        return f'tl.atomic_add({ptr}, {ctx.zero}{mk}, sem="{sem}", scope="{scope}")', [note]

    def _write(self, ctx: ThreadContext, index: int, ins: Store) -> list[str]:
        ptr = ctx.addr[ins.loc]
        dtype = ctx.dtype(ins.loc)
        bits = self._bits(dtype)
        val = self._value(ins.value, ctx, dtype)
        mk = self._mask_kw(ctx.mask)
        ptype, reg, _ = _PTX_TYPE[bits]
        tag = "" if dtype == "int32" else f" ({bits} bits)"
        if ins.volatile:
            if self.features.inline_asm:
                return [
                    f"# store volatile: st.volatile.global.{ptype} (inline PTX)",
                    f"tl.inline_asm_elementwise(\"st.volatile.global.{ptype} [$1], $2; mov.u32 $0, 0;\", "
                    f"\"=r,l,{reg}\", [{self._redirect(ctx, ptr, dtype)}, {val}], dtype=tl.int32, is_pure=False, pack=1)",
                ]
            if bits < 32 and self.features.atomic_store:
                note = self._fallback(ctx, index, "store volatile (st.volatile)",
                                      'tl.atomic_store(sem="relaxed", scope="sys") (same model meaning: relaxed.sys)')
                return [note, f'tl.atomic_store({ptr}, {val}{mk}, sem="relaxed", scope="sys")']
            narrow = self._narrow_fallback(ctx, index, ins, dtype, "store volatile (st.volatile)", "store")
            if narrow is not None:
                return narrow[1] + [f"tl.store({ptr}, {val}{mk})"]
            self._narrow_rmw(ctx, ins, dtype, "tl.atomic_xchg (the stand-in for a volatile store)")
            note = self._fallback(ctx, index, "store volatile (st.volatile)",
                                  'tl.atomic_xchg(sem="relaxed", scope="sys") (same model meaning: relaxed.sys)')
            return [note, f'tl.atomic_xchg({ptr}, {val}{mk}, sem="relaxed", scope="sys")']
        if ins.sem == "weak":
            return [f"# store: plain st{tag}", f"tl.store({ptr}, {val}{mk})"]
        if self.features.atomic_store:
            return [f"# store: st.{ins.sem}.{ins.scope}{tag}",
                    f'tl.atomic_store({ptr}, {val}{mk}, sem="{ins.sem}", scope="{ins.scope}")']
        if self.features.inline_asm:
            return [f"# store: st.{ins.sem}.{ins.scope}.global.{ptype} (inline PTX: triton has no tl.atomic_store)",
                    f'tl.inline_asm_elementwise("st.{ins.sem}.{ins.scope}.global.{ptype} [$1], $2; mov.u32 $0, 0;", '
                    f'"=r,l,{reg}", [{self._redirect(ctx, ptr, dtype)}, {val}], dtype=tl.int32, is_pure=False, pack=1)']
        narrow = self._narrow_fallback(ctx, index, ins, dtype, f"store st.{ins.sem}.{ins.scope}", "store")
        if narrow is not None:
            return narrow[1] + [f"tl.store({ptr}, {val}{mk})"]
        self._narrow_rmw(ctx, ins, dtype, "tl.atomic_xchg (the stand-in for an atomic store)")
        note = self._fallback(ctx, index, f"store st.{ins.sem}.{ins.scope}",
                              f'tl.atomic_xchg(sem="{ins.sem}", scope="{ins.scope}") (an RMW: also a read event)')
        return [note, f'tl.atomic_xchg({ptr}, {val}{mk}, sem="{ins.sem}", scope="{ins.scope}")']

    # ------------------------------------------------------------------ per kind

    def emit(self, ctx: ThreadContext, index: int, ins: object) -> list[str]:
        """Source lines (no indentation) for instruction ``index`` of thread ``ctx``."""
        if isinstance(ins, Label):
            return [f"# label {ins.name}: lanes that branched here run again",
                    f"{active_var(ctx)} = {active_var(ctx)} | {jump_var(ctx, ins.name)}"]
        if isinstance(ins, Branch):
            return self._branch(ctx, ins)
        if isinstance(ins, Compute):
            return self._compute(ctx, ins)
        if isinstance(ins, ProxyFence):
            raise self._unsupported(ctx, ins, f"no Triton form: fence.proxy.{ins.kind} (Triton has no proxy "
                                    "fences; the model checks it under ptx75)")
        if getattr(ins, "proxy", "generic") != "generic":
            raise self._unsupported(ctx, ins, f"no Triton form: a {ins.proxy} proxy access (Triton "  # type: ignore[union-attr]
                                    "accesses memory through the generic proxy only)")
        if isinstance(ins, Load) and ins.warm:
            # its own cache operator: a default plain load after it would otherwise be merged into
            # it by LLVM, even across a fence (an inline asm without a memory clobber)
            read = f"tl.load({ctx.addr[ins.loc]}{self._mask_kw(ctx.mask)}, cache_modifier='.ca')"
            var = ctx.regs[ins.reg]
            return [f"# load {ins.reg} = {ins.loc}: warm load (warm_reads), ld.global.ca",
                    f"{var} = {self._to_reg(read, ctx.dtype(ins.loc), var in ctx.wide)}"]
        if isinstance(ins, Load):
            dtype = ctx.dtype(ins.loc)
            expr, notes = self._read(ctx, index, ctx.addr[ins.loc], ctx.mask, ins.sem, ins.scope, ins.volatile,
                                     f"load {ins.reg} = {ins.loc}", dtype, ins)
            var = ctx.regs[ins.reg]
            if ins.group is not None:
                notes = [f"# vector group {ins.group}: element {ins.loc}, its own access"] + notes
            return notes + [f"{var} = {self._to_reg(expr, dtype, var in ctx.wide)}"]
        if isinstance(ins, Store):
            group = [f"# vector group {ins.group}: element {ins.loc}, its own access"] if ins.group is not None else []
            return group + self._write(ctx, index, ins)
        if isinstance(ins, Rmw):
            return self._rmw(ctx, index, ins)
        if isinstance(ins, Fence):
            return self._fence(ctx, index, ins)
        if isinstance(ins, Barrier):
            if ins.arrive or ins.count is not None or ins.quorum is not None or ins.id != Const(0):
                raise self._unsupported(ctx, ins, "no Triton form: only a full `bar.sync 0` (tl.debug_barrier) is "
                                        "available; arrive, a thread count, a quorum and a barrier id "
                                        "other than 0 are not")
            return ["# barrier: bar.sync 0", "tl.debug_barrier()"]
        if isinstance(ins, Spin):
            return self._spin(ctx, index, ins)
        raise TypeError(f"unknown instruction {ins!r}")

    def _branch(self, ctx: ThreadContext, ins: Branch) -> list[str]:
        """A forward branch: the active lanes that take it wait (inactive) until its label."""
        act, jump = active_var(ctx), jump_var(ctx, ins.target)
        if ins.cond is None:
            return [f"# goto {ins.target}", f"{jump} = {jump} | {act}", f"{act} = {act} & ({ctx.zero} != 0)"]
        if ins.lhs is None or ins.rhs is None:
            raise self._unsupported(ctx, ins, "a conditional branch needs two operands")
        lhs, rhs = self._vec(ins.lhs, ctx), self._vec(ins.rhs, ctx)
        text = f"{_operand_text(ins.lhs)} {BRANCH_CMP[ins.cond]} {_operand_text(ins.rhs)}"
        return [f"# b{ins.cond} {text} -> {ins.target}",
                f"{jump} = {jump} | ({act} & ({lhs} {BRANCH_CMP[ins.cond]} {rhs}))",
                f"{act} = {act} & ({lhs} {BRANCH_CMP[NEGATED_BRANCH[ins.cond]]} {rhs})"]

    def _compute(self, ctx: ThreadContext, ins: Compute) -> list[str]:
        a = self._vec(ins.a, ctx)
        if ins.op == "mov":
            if ctx.regs[ins.dst] in ctx.wide and a not in ctx.wide:
                a = f"{a}.to(tl.int64)"
            return [f"# register: {ins.dst} = {_operand_text(ins.a)}", f"{ctx.regs[ins.dst]} = {a}"]
        if ins.b is None or ins.op not in _COMPUTE_SYMBOLS:
            raise self._unsupported(ctx, ins, f"register op {ins.op!r} needs two operands and is one of "
                                    f"{', '.join(_COMPUTE_SYMBOLS)}")
        sym = _COMPUTE_SYMBOLS[ins.op]
        rhs = f"{a} {sym} {self._vec(ins.b, ctx)}"
        if ctx.regs[ins.dst] in ctx.wide:
            rhs = f"({rhs}).to(tl.int64)"
        return [f"# register: {ins.dst} = {_operand_text(ins.a)} {sym} {_operand_text(ins.b)}",
                f"{ctx.regs[ins.dst]} = {rhs}"]

    def _rmw(self, ctx: ThreadContext, index: int, ins: Rmw) -> list[str]:
        ptr = ctx.addr[ins.loc]
        dtype = ctx.dtype(ins.loc)
        # an old value nobody reads is a bare call: a name bound to it would change type from op to
        # op, which triton refuses across the branches of roles.order_branches
        dst = ctx.regs[ins.reg] if ins.reg is not None else ""
        assign = f"{dst} = " if dst else ""
        val = self._value(ins.value, ctx, dtype)
        tag = "" if dtype == "int32" else f" ({self._bits(dtype)} bits)"
        head = f"# rmw {ins.op}: atom.{ins.sem}.{ins.scope}.{ins.op}{tag}"

        def result(call: str) -> str:
            return call if ins.reg is None else self._to_reg(call, dtype, dst in ctx.wide)

        if ins.op == "cas":
            if ins.expected is None:
                raise self._unsupported(ctx, ins, "a cas needs an expected value")
            self._narrow_rmw(ctx, ins, dtype, "tl.atomic_cas")
            exp = self._value(ins.expected, ctx, dtype)
            if dtype != "int32":  # tl.atomic_cas takes operands of the pointer's type
                exp, val = f"{exp}.to(tl.{dtype})", f"{val}.to(tl.{dtype})"
            return [head, assign + result(f'tl.atomic_cas({self._redirect(ctx, ptr, dtype)}, {exp}, {val}, '
                                               f'sem="{ins.sem}", scope="{ins.scope}")')]
        call = _RMW_CALLS.get(ins.op)
        if call is None:
            raise self._unsupported(ctx, ins, f"atom.{ins.op} (wrapping increment/decrement) has no Triton call")
        self._narrow_rmw(ctx, ins, dtype, call)
        return [head, assign + result(f'{call}({ptr}, {val}{self._mask_kw(ctx.mask)}, sem="{ins.sem}", '
                                           f'scope="{ins.scope}")')]

    def _fence(self, ctx: ThreadContext, index: int, ins: Fence) -> list[str]:
        if self.features.inline_asm:
            return [f"# fence: fence.{ins.sem}.{ins.scope} (inline PTX; runs on every lane of the program)",
                    f'tl.inline_asm_elementwise("fence.{ins.sem}.{ins.scope}; mov.u32 $0, 0;", "=r", [], '
                    "dtype=tl.int32, is_pure=False, pack=1)"]
        note = self._fallback(ctx, index, f"fence.{ins.sem}.{ins.scope}",
                              f'tl.atomic_add(scratch, 0, sem="acq_rel", scope="{ins.scope}") on a private '
                              "scratch word (orders like a fence only where the backend lowers acq_rel "
                              "RMWs with fences)")
        return [note, f'tl.atomic_add({ctx.scratch}, {ctx.zero}{self._mask_kw(ctx.mask)}, sem="acq_rel", '
                      f'scope="{ins.scope}")']

    def _spin(self, ctx: ThreadContext, index: int, ins: Spin) -> list[str]:
        bound = self.spin_bound if self.spin_bound is not None else ins.bound
        bit = ctx.spin_bits[index]
        ptr = ctx.addr[ins.loc]
        dtype = ctx.dtype(ins.loc)
        done, val, it, got = (self._fresh(s) for s in ("spin_done", "spin_val", "spin_it", "spin_got"))
        rd = ins.read
        tag = "" if dtype == "int32" else f", {self._bits(dtype)} bits"
        quiet = ctx.fin is not None
        hung = self._fresh("spin_hung") if quiet and ctx.quiet_proof else None
        gave = self._fresh("spin_gave") if quiet and not ctx.quiet_proof else None
        stale, seen = (self._fresh("spin_stale"), self._fresh("spin_seen")) if quiet else ("", "")
        _, grace, stall = self.quiet_timing
        stalled = f"({stale} >= {stall})"
        settled = (f"{done} | {hung} | {stalled}" if hung else
                   f"{done} | ({gave} > {grace}) | {stalled}" if gave else done)
        lines = [f"# spin until {spin_exit_text(ins)} ({rd.kind} read{tag}, at most {bound} reads; "
                 f"timeout -> status bit {bit})"
                 + ("; ends early, status HUNG_BIT, once every thread of the instance is provably stuck" if hung else "")
                 + (f"; gives up {grace} reads after every other thread of the instance finished" if gave else "")
                 + (f"; gives up after {stall} checks in a row that saw nothing of the instance change"
                    if quiet else ""),
                 f"{done} = {'(' + ctx.mask + ') == 0' if ctx.mask else ctx.zero + ' != 0'}",
                 f"{val} = {ctx.zero if dtype == 'int32' else ctx.zero + '.to(tl.' + dtype + ')'}",
                 f"{it} = 0"]
        if quiet:
            lines += [f"{stale} = {ctx.zero}  {HARNESS_TAG}: checks in a row that saw nothing of the instance change",
                      f"{seen} = {ctx.zero} - 7  {HARNESS_TAG}: what the last check saw (-7: nothing yet)"]
        if hung is not None:
            parked, streak, mine = self._fresh("spin_parked"), self._fresh("spin_quiet"), self._fresh("spin_mine")
            lines += [f"{hung} = {ctx.zero} != 0  {HARNESS_TAG}: lanes whose instance is proven hung",
                      f"{parked} = {ctx.zero}  {HARNESS_TAG}: lanes counted waiting in the wait word",
                      f"{streak} = {ctx.zero}  {HARNESS_TAG}: checks in a row that found every thread waiting or finished",
                      f"{mine} = {ctx.zero} - 2  {HARNESS_TAG}: what this lane last wrote in its confirm word"]
        if gave is not None:
            marked = self._fresh("spin_marked")
            lines += [f"{gave} = {ctx.zero}  {HARNESS_TAG}: reads since every other thread finished (0: not yet)",
                      f"{marked} = {ctx.zero}  {HARNESS_TAG}: lanes whose confirm word says waiting here"]
        lines.append(f"while (tl.reduce(tl.where({settled}, 0, 1), 0, _any) > 0) & ({it} < {bound}):")
        read = self._spin_read(ctx, index, ins, ptr, dtype, got, f"{done} == 0", f"tl.where({done}, {{scratch}}, {ptr})", "")
        body = read + [f"{val} = tl.where({done}, {val}, {got})",
                       f"{done} = {done} | ({_spin_test(got, ins)})",
                       f"{it} += 1"]
        tail: list[str] = []
        if gave is not None:
            body += self._give_up_check(ctx, index, it, done, gave, stale, seen, marked)
            tail = [f'tl.atomic_xchg({ctx.confirm}, {ctx.zero}, mask={marked} != 0, sem="relaxed", '
                    f'scope="{ctx.quiet_scope}")  {HARNESS_TAG}: no longer waiting here']
        if hung is not None:
            body += self._quiet_check(ctx, index, ins, ptr, dtype, it, done, val, hung, parked, streak, mine,
                                      stale, seen)
            tail = [f"tl.atomic_add({ctx.fin}, {ctx.zero} + {QUIET_UNPARK}, mask={parked} != 0, sem=\"relaxed\", "
                    f"scope=\"{ctx.quiet_scope}\")  {HARNESS_TAG}: no longer waiting (a new version)"]
        lines += ["    " + b for b in body]
        lines += tail
        timeout = f"tl.where({hung}, {HUNG_BIT}, {1 << bit})" if hung is not None else str(1 << bit)
        lines.append(f"{ctx.status} = {ctx.status} | tl.where({done}, 0, {timeout})")
        if ins.reg is not None:
            var = ctx.regs[ins.reg]
            lines.append(f"{var} = {self._to_reg(val, dtype, var in ctx.wide)}")
        return lines

    def _spin_read(self, ctx: ThreadContext, index: int, ins: Spin, ptr: str, dtype: str, got: str,
                   live: str, cas_ptr: str, suffix: str) -> list[str]:
        """Lines that read spin ``ins``'s location into ``got`` on the lanes ``live``; a CAS spin
        reads ``cas_ptr`` (``{scratch}`` in it: the thread's scratch word, where lanes not read
        go); ``suffix`` ends each code line (the harness tag)."""
        rd = ins.read
        if rd.kind == "cas":
            if rd.reset is None:
                raise self._unsupported(ctx, ins, "a cas spin needs `reset`")
            if ins.cmp != "==" or ins.mask is not None:
                raise self._unsupported(ctx, ins, "a cas spin exits when its compare succeeds: cmp must be "
                                        "== and there is no mask")
            self._narrow_rmw(ctx, ins, dtype, "tl.atomic_cas")
            if dtype == "int32":
                exp, new = f"{ctx.zero} + {ins.until}", f"{ctx.zero} + {rd.reset}"
            else:  # tl.atomic_cas takes operands of the pointer's type
                exp, new = (f"{self._value(Const(v), ctx, dtype)}.to(tl.{dtype})" for v in (ins.until, rd.reset))
            return [f"# cas spin: atom.{rd.sem}.{rd.scope}.cas(flag, {ins.until}, {rd.reset}) until it returns {ins.until}",
                    f"{got} = tl.atomic_cas({cas_ptr.format(scratch=ctx.scratch_of(dtype))}, {exp}, "
                    f'{new}, sem="{rd.sem}", scope="{rd.scope}"){suffix}']
        expr, notes = self._read(ctx, index, ptr, live, rd.sem, rd.scope, rd.volatile,
                                 f"spin read {ins.loc}", dtype, ins)
        return notes + [f"{got} = {expr}{suffix}"]

    def harness_fence(self, ctx: ThreadContext, why: str, mask: str | None = None) -> str:
        """One line: a ``fence.acq_rel`` at the quiescence harness's scope, on the lanes in
        ``mask`` (every lane without one): inline PTX, predicated per lane; without inline asm,
        an acq_rel RMW on the thread's scratch word.  Neither an atomic with release or acquire
        semantics nor a reduction over the program: Triton brackets both with ``bar.sync``, a
        CTA barrier that would change the test's timing."""
        scope, var = ctx.quiet_scope, self._fresh("quiet_fence")
        if self.features.inline_asm and mask is None:
            return (f'{var} = tl.inline_asm_elementwise("fence.acq_rel.{scope}; mov.u32 $0, 0;", "=r", [], '
                    f"dtype=tl.int32, is_pure=False, pack=1)  {HARNESS_TAG}: {why}")
        if self.features.inline_asm:
            return (f'{var} = tl.inline_asm_elementwise("{{ .reg .pred p; setp.ne.s32 p, $1, 0; @p fence.acq_rel.{scope}; '
                    f'mov.u32 $0, 0; }}", "=r,r", [tl.where({mask}, 1, 0)], dtype=tl.int32, is_pure=False, pack=1)  '
                    f"{HARNESS_TAG}: {why}")
        return (f'{var} = tl.atomic_add({ctx.scratch}, {ctx.zero}{self._mask_kw(mask)}, sem="acq_rel", '
                f'scope="{scope}")  {HARNESS_TAG}: {why}')

    def _give_up_check(self, ctx: ThreadContext, index: int, it: str, done: str, gave: str, stale: str,
                       seen: str, marked: str) -> list[str]:
        """The harness lines of a spin that does not prove its hang (a hunting variant).  Every
        :data:`QUIET_CHECK` reads a waiting lane marks its confirm word waiting (spin ``index``)
        and reads the other threads' confirm words: :data:`QUIET_GRACE` reads after it saw them
        all finished, or :data:`QUIET_STALL` checks in a row after it saw them all finished or
        waiting and unchanged, it gives up (a timeout).  Relaxed harness words only: no count,
        no fence, nothing that could order the test's accesses."""
        h, z = HARNESS_TAG, ctx.zero
        alone, still, key, other = (self._fresh(s) for s in ("quiet_alone", "quiet_still", "quiet_key", "quiet_other"))
        waiting = f"{done} == 0"
        inner = [f'tl.atomic_xchg({ctx.confirm}, {z} + {index + 1}, mask=({waiting}) & ({marked} == 0), '
                 f'sem="relaxed", scope="{ctx.quiet_scope}")  {h}: waiting in spin {index}',
                 f"{marked} = tl.where({waiting}, 1, {marked})  {h}",
                 f"{alone} = ({waiting}) & ({gave} == 0)  {h}",
                 f"{still} = {waiting}  {h}",
                 f"{key} = {z}  {h}"]
        for c in ctx.confirm_others:
            inner += [f"{other} = tl.load({c}, mask={waiting}, other=0, volatile=True)  {h}",
                      f"{alone} = {alone} & ({other} == {QUIET_FINISHED})  {h}",
                      f"{still} = {still} & (({other} == {QUIET_FINISHED}) | ({other} > 0))  {h}: finished or waiting",
                      f"{key} = {key} * 31 + {other}  {h}"]
        inner += [f"{gave} = tl.where({alone}, 1, {gave})  {h}",
                  f"{stale} = tl.where({still} & ({key} == {seen}), {stale} + 1, 0)  {h}",
                  f"{seen} = {key}  {h}"]
        return ([f"if {it} % {self.quiet_timing[0]} == 0:  {h}: has every other thread of the instance finished, or stalled?"]
                + ["    " + line for line in inner]
                + [f"{gave} = tl.where({gave} > 0, {gave} + 1, {gave})  {h}"])

    def _quiet_check(self, ctx: ThreadContext, index: int, ins: Spin, ptr: str, dtype: str, it: str, done: str,
                     val: str, hung: str, parked: str, streak: str, mine: str, stale: str, seen: str) -> list[str]:
        """The harness lines of a quiescent spin's loop (docs/codegen.md "Quiescent hangs").

        Every :data:`QUIET_CHECK` reads a waiting lane counts itself in the wait word, and once
        :data:`QUIET_ROUNDS` checks in a row found every thread of its instance waiting or
        finished at one version ``v`` of the word, it tries to prove the hang in two phases:
        it releases its writes (a fence, then ``2v`` in its confirm word); once every other
        thread has released at ``v`` or finished, it acquires (a fence after reading their
        confirm words), reads its location once more (which may still exit the spin) and
        confirms ``2v + 1``.  When every other thread has confirmed ``2v + 1`` or finished, no
        thread can write again: the lane and its instance are hung.  Only the relaxed count
        runs at every check; the fences run only while a proof is under way.  A lane that saw
        the same wait word at :data:`QUIET_STALL` checks in a row, and so no proof end, gives
        up (a timeout)."""
        h, scope, z = HARNESS_TAG, ctx.quiet_scope, ctx.zero
        live, word, check, ver, again, exits, other = (self._fresh(s) for s in (
            "quiet_live", "quiet_word", "quiet_check", "quiet_ver", "quiet_got", "quiet_exits", "quiet_other"))
        count = f"({word} & {QUIET_COUNT_MASK})"
        released, verified = f"(2 * {ver})", f"(2 * {ver} + 1)"
        ready = f"{live} & ({streak} >= {QUIET_ROUNDS}) & ({hung} == 0)"  # may try a proof at this check

        def others_at(states: list[str]) -> list[str]:
            lines = []
            for c in ctx.confirm_others:
                ok = " | ".join(f"({other} == {st})" for st in states + [str(QUIET_FINISHED)])
                lines += [f"{other} = tl.load({c}, mask={check}, other=0, volatile=True)  {h}",
                          f"{check} = {check} & ({ok})  {h}"]
            return lines

        inner = [
            f"{live} = ({done} == 0) & ({hung} == 0)  {h}",
            f'tl.atomic_add({ctx.fin}, {z} + {QUIET_PARK}, mask={live} & ({parked} == 0), sem="relaxed", '
            f'scope="{scope}")  {h}: waiting',
            f"{parked} = tl.where({live}, 1, {parked})  {h}",
            f"{word} = tl.load({ctx.fin}, mask={live}, other=0, volatile=True)  {h}",
            f"{hung} = {hung} | ({live} & (({word} & {HUNG_BIT}) != 0))  {h}: another thread proved the hang",
            f"{stale} = tl.where({live} & ({word} == {seen}), {stale} + 1, 0)  {h}: no thread parked, left or finished",
            f"{seen} = tl.where({live}, {word}, {seen})  {h}",
            f"{streak} = tl.where({live} & ({count} == {ctx.quiet_threads}), {streak} + 1, 0)  {h}",
            f"{check} = {ready}  {h}",
            f"{ver} = ({word} >> {QUIET_VERSION_SHIFT}) & {QUIET_VERSION_MASK}  {h}",
            f"{check} = {check} & ({mine} != {released}) & ({mine} != {verified})  {h}: not yet released at this version",
            self.harness_fence(ctx, "release: this thread's writes come before its confirm word", check),
            f'tl.atomic_xchg({ctx.confirm}, {released}, mask={check}, sem="relaxed", scope="{scope}")  {h}',
            f"{mine} = tl.where({check}, {released}, {mine})  {h}",
            f"{check} = {ready} & ({mine} == {released})  {h}",
        ] + others_at([released, verified]) + [
            self.harness_fence(ctx, "acquire: every write released at this version is visible from here", check),
        ]
        kept = len(self.fallbacks)
        inner += self._spin_read(ctx, index, ins, ptr, dtype, again, check,
                                 f"tl.where({check}, {ptr}, {{scratch}})", f"  {h}")
        del self.fallbacks[kept:]  # the spin's own read, already noted
        inner += [
            f"{exits} = {check} & ({_spin_test(again, ins)})  {h}",
            f"{val} = tl.where({exits}, {again}, {val})  {h}",
            f"{done} = {done} | {exits}  {h}",
            f"{check} = {check} & ({exits} == 0)  {h}",
            f'tl.atomic_xchg({ctx.confirm}, {verified}, mask={check}, sem="relaxed", scope="{scope}")  '
            f"{h}: nothing this lane waits for has come by this version",
            f"{mine} = tl.where({check}, {verified}, {mine})  {h}",
            f"{check} = {ready} & ({done} == 0) & ({mine} == {verified})  {h}",
        ] + others_at([verified]) + [
            f'tl.atomic_or({ctx.fin}, {z} + {HUNG_BIT}, mask={check}, sem="relaxed", scope="{scope}")  '
            f"{h}: proven: tell the other threads",
            f"{hung} = {hung} | {check}  {h}",
        ]
        return [f"if {it} % {self.quiet_timing[0]} == 0:  {h}: is every thread of the instance waiting or finished?"] + [
            "    " + line for line in inner]


def _spin_test(got: str, ins: Spin) -> str:
    """The Triton expression that is true where the read value ``got`` ends spin ``ins``."""
    lhs = got if ins.mask is None else f"({got} & {ins.mask})"
    return f"{lhs} {ins.cmp} {ins.until}"


def _operand_text(op: Operand | None) -> str:
    return op.name if isinstance(op, Reg) else str(getattr(op, "value", op))


def active_var(ctx: ThreadContext) -> str:
    """The variable holding the lanes of ``ctx``'s thread not waiting at a branch's label."""
    return f"act_{ctx.ident}"


def jump_var(ctx: ThreadContext, label: str) -> str:
    """The variable holding the lanes of ``ctx``'s thread that branched to ``label``."""
    return f"j_{ctx.ident}_{''.join(c if c.isalnum() else '_' for c in label)}"
