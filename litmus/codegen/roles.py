"""The pieces of a generated kernel: the layout, each role's lanes, threads, ops and outputs, the
iteration loop, and the grid- and rank-mode kernel text; :mod:`litmus.codegen.parallel` builds
the parallel-mode kernel from the same pieces, and :mod:`litmus.codegen.generate` puts a module
together."""

from __future__ import annotations

import re
from dataclasses import replace
from typing import Callable, Sequence

from litmus.codegen.harness import harness_lines
from litmus.codegen import widths
from litmus.codegen.layout import (
    HI,
    JIT_DECORATOR,
    KERNEL_ARGS,
    KernelEntry,
    Layout,
    SpinSlot,
)
from litmus.observables import observable_registers, observables, wide_registers
from litmus.codegen.layout import QUIET_FINISHED
from litmus.codegen.ops import QUIET_PARK, Emitter, ThreadContext, active_var, jump_var
from litmus.codegen.options import CodegenOptions
from litmus.errors import Problem, UnsupportedError
from litmus.ir import Barrier, Branch, Compute, Const, Label, LitmusTest, Load, Reg, Rmw, Spin, Store, Thread, spin_exits

_MAX_SPINS = 31  # status bits in one int32 column


def _ident(text: str) -> str:
    return re.sub(r"\W", "_", text)


def cta_roles(test: LitmusTest, rank: int | None = None) -> tuple[tuple[Thread, ...], ...]:
    """Threads grouped by (rank, cta), in order of first appearance; one group = one role (of
    rank ``rank`` only, when given)."""
    groups: dict[tuple[int, int], list[Thread]] = {}
    for t in test.threads:
        if rank is None or t.rank == rank:
            groups.setdefault((t.rank, t.cta), []).append(t)
    return tuple(tuple(g) for g in groups.values())


def _spin_slots(test: LitmusTest) -> tuple[SpinSlot, ...]:
    slots: list[SpinSlot] = []
    for t in test.threads:
        for i, ins in enumerate(t.instrs):
            if isinstance(ins, Spin):
                slots.append(SpinSlot(t.name, i, len(slots), ins.loc))
    if len(slots) > _MAX_SPINS:
        raise UnsupportedError(Problem(test.source_file, test.source_line, None,
                                       f"{test.id}: {len(slots)} spins; at most {_MAX_SPINS} fit the status column"))
    return tuple(slots)


def _thread_regs(t: Thread) -> list[str]:
    regs: list[str] = [r for r, _ in t.reg_init]
    for ins in t.instrs:
        names: list[str] = []
        if isinstance(ins, (Load, Rmw, Spin)) and ins.reg is not None:
            names.append(ins.reg)
        if isinstance(ins, Compute):
            names.append(ins.dst)
        for op in (getattr(ins, "value", None), getattr(ins, "expected", None)):
            if isinstance(op, Reg):
                names.append(op.name)
        regs += [n for n in names if n not in regs]
    return regs


def build_layout(test: LitmusTest, options: CodegenOptions) -> Layout:
    """The calling convention of ``test``'s kernels under ``options``."""
    locs, n_physical = widths.slots(test)
    keys = tuple(f"{t}:{r}" for t, r in observable_registers(test))
    regs = widths.out_columns(keys, wide_registers(test, {l.name: l.bits for l in locs}))
    if options.mode == "grid":
        kernels = (KernelEntry("litmus_grid", None, tuple(tuple(t.name for t in g) for g in cta_roles(test))),)
    elif options.mode == "parallel":
        kernels = (KernelEntry("litmus_parallel", None, tuple(tuple(t.name for t in g) for g in cta_roles(test)),
                               parallel=True),)
    else:
        ranks = sorted({t.rank for t in test.threads})
        kernels = tuple(
            KernelEntry(f"litmus_rank{r}", r, tuple(tuple(t.name for t in g) for g in cta_roles(test, r)))
            for r in ranks
        )
    return Layout(
        test_id=test.id,
        mode=options.mode,
        block=options.block,
        addressing=options.addressing,
        n_ranks=max(test.ranks) + 1 if test.ranks else 1,
        locations=locs,
        scratch_slot=n_physical,
        threads=tuple(t.name for t in test.threads),
        out_columns=regs + ("status",),
        observables=observables(test),
        spins=_spin_slots(test),
        kernels=kernels,
        unit_bytes=widths.unit_bytes(test),
        fields=widths.fields(test, locs, regs, observables(test)),
        wait_slot=n_physical + 1 if quiesces(test, options) else None,
        wait_home=min(t.rank for t in test.threads),
        quiet_proof=proves_hangs(test, options),
    )


def quiesces(test: LitmusTest, options: CodegenOptions) -> bool:
    """Whether ``test``'s kernels under ``options`` count finished threads so that a certain
    hang ends early (``CodegenOptions.quiesce``: tests that declare ``may_hang`` and spin)."""
    return (options.quiesce and test.expect is not None and test.expect.may_hang
            and any(isinstance(i, Spin) for t in test.threads for i in t.instrs))


def proves_hangs(test: LitmusTest, options: CodegenOptions | None = None) -> bool:
    """Whether ``test``'s quiescing kernels prove their hangs (a conformance variant: its target
    is declared forbidden, and a proven hang is evidence of its absence) rather than give up
    once the other threads finished (a variant hunting an allowed target: a proof takes
    fences, and fences change what the test shows).  With ``quick_hangs`` (the cpu backend,
    whose memory shows no weak behaviour for a fence to hide) every variant proves: a proven
    hang is an ended instance, a given-up one is not."""
    if options is not None and options.quick_hangs:
        return True
    return test.expect is not None and test.expect.outcome == "forbidden"


def fin_lines(layout: Layout, t: Thread, ctx: ThreadContext, emitter: Emitter) -> list[str]:
    """After thread ``t``'s last op: its confirm word marked finished and its count in the
    instance's wait word, after a fence in a kernel that proves its hangs (a release pattern:
    its writes come first); harness, not a test event; nothing without a wait word.  Scope:
    :func:`quiet_scope`."""
    if layout.wait_slot is None:
        return []
    mk = f", mask={ctx.mask}" if ctx.mask else ""
    scope = quiet_scope(layout)
    fence = [emitter.harness_fence(ctx, "release: this thread's writes come before its finish")] if ctx.quiet_proof else []
    return [f"# --- harness: {t.name} finished (its confirm word and the wait word: quiescent hangs)"] + fence + [
            f'tl.atomic_xchg({ctx.confirm}, {ctx.zero} + {QUIET_FINISHED}{mk}, sem="relaxed", scope="{scope}")',
            f'tl.atomic_add(f_{ctx.ident}, {ctx.zero} + {QUIET_PARK}{mk}, sem="relaxed", scope="{scope}")']


def role_header(role: tuple[Thread, ...], options: CodegenOptions) -> list[str]:
    """Comment lines naming a role's threads (and its lane split when they share a CTA)."""
    names = ", ".join(f"{t.name} (rank {t.rank}, cta {t.cta})" for t in role)
    lines = [f"# threads: {names}"]
    if len(role) > 1:
        lines.append(f"# shared CTA: lanes [s*BLOCK, (s+1)*BLOCK) play thread s; ops in one "
                     f"{options.shared_cta_order} program order")
        lines.append("# thread s > 0 at lane j plays the instance thread 0 plays at lane "
                     f"(j * (k_s % BLOCK | 1) + c_s % BLOCK + {SLOT_ROTATION} * s) % BLOCK, (k_s, c_s) = its perm row")
    return lines


# Triton spreads a tensor of ``span * BLOCK`` lanes over the CTA's threads in tiles of
# ``32 * num_warps`` (or a multiple), so lanes ``j`` and ``s * BLOCK + j`` sit in one hardware
# thread: with one lane per instance for every thread of a shared-CTA role, one hardware thread
# would play all of an instance's same-CTA threads in program order, and no weak outcome (nor a
# missing CTA barrier) between them could show. An odd rotation of 33 lanes per slot puts the
# partners in other hardware threads for every power-of-two tile from 64 lanes up, even with
# shuffling off (with four warps, for s = 1 to 3, mostly in another warp); the slot's own perm
# row varies the pairing.
SLOT_ROTATION = 33


def slot_lane_line(p: str, slot: int, pi: int, sfx: str) -> str:
    """``j_<p>``: the lane of the role's block whose instance the ``slot``-th thread of a
    shared-CTA role plays at its own lane ``local``; ``pi``: the thread's perm row.
    :func:`litmus.run.buffers.slot_lane` mirrors it."""
    return (f"j_{p} = (local{sfx} * ((tl.load(perm + {2 * pi}) % BLOCK) | 1) "
            f"+ tl.load(perm + {2 * pi + 1}) % BLOCK + {SLOT_ROTATION * slot}) % BLOCK")


def lane_span(width: int) -> int:
    """How many ``BLOCK``s of lanes a role of ``width`` threads sharing a CTA spans: the next
    power of two, since ``tl.arange`` takes power-of-two ranges only.  The lanes past
    ``width * BLOCK`` play no thread: every thread's lane mask leaves them out."""
    return 1 << max(0, width - 1).bit_length()


def lane_lines(width: int, sfx: str, wide: bool = False) -> list[str]:
    """The role's lane vector, lane-within-thread and zero vector (names end in ``sfx``); with
    ``wide`` also the int64 zero vector ``zero64`` (64-bit registers and values)."""
    span = lane_span(width)
    return [f"lane{sfx} = tl.arange(0, {span} * BLOCK)" if width > 1 else f"lane{sfx} = tl.arange(0, BLOCK)",
            f"local{sfx} = lane{sfx} % BLOCK" if width > 1 else f"local{sfx} = lane{sfx}",
            f"zero{sfx} = lane{sfx} * 0"] + ([f"zero64{sfx} = zero{sfx}.to(tl.int64)"] if wide else [])


def _heap_lines(homes: list[int], typed: Sequence[tuple[int, str]] = ()) -> list[str]:
    """Scalar int32 pointers ``heap<r>`` to the heaps of ranks ``homes``, and the typed pointers
    ``heap<r>_<dtype>`` of ``typed`` (rank, Triton integer type) pairs (access widths)."""
    return ([f"heap{r} = tl.load(heap_ptrs + {r}).to(tl.pointer_type(tl.int32))" for r in homes]
            + [f"heap{r}_{d} = tl.load(heap_ptrs + {r}).to(tl.pointer_type(tl.{d}))" for r, d in typed])


def typed_heaps(layout: Layout, ranks: set[int]) -> list[tuple[int, str]]:
    """The (rank, type) pairs of the typed heap pointers a block needs: every sized location's
    home with its type, and each of ``ranks`` (the threads' own, for typed scratch pointers)."""
    dtypes = sorted({widths.dtype(l) for l in layout.locations} - {widths.PLAIN})
    pairs = {(l.home, widths.dtype(l)) for l in layout.locations if widths.dtype(l) != widths.PLAIN}
    pairs |= {(r, d) for r in ranks for d in dtypes}
    return sorted(pairs)


def role_heap_lines(layout: Layout, ranks: set[int]) -> list[str]:
    """The heap pointer lines of a block whose threads run on ``ranks``."""
    wait = {layout.wait_home} if layout.wait_slot is not None else set()
    return _heap_lines(sorted({loc.home for loc in layout.locations} | ranks | wait), typed_heaps(layout, ranks))


def thread_contexts(layout: Layout, role: tuple[Thread, ...], sfx: str) -> list[tuple[Thread, ThreadContext]]:
    """One :class:`ThreadContext` per thread of ``role`` (addresses are filled by :func:`thread_setup`)."""
    spin_bits = {(s.thread, s.index): s.bit for s in layout.spins}
    mem = {l.name: widths.dtype(l) for l in layout.locations if widths.dtype(l) != widths.PLAIN}
    wide = {tuple(k[: -len(HI)].split(":", 1)) for k in layout.out_columns if k.endswith(HI)}
    contexts = []
    for t in role:
        p = f"T{layout.threads.index(t.name)}"
        regs = {r: f"{p}_{_ident(r)}" for r in _thread_regs(t)}
        contexts.append((t, ThreadContext(
            name=t.name, ident=p, mask=f"m_{p}" if len(role) > 1 else None, scratch=f"s_{p}",
            regs=regs, addr={}, status=f"st_{p}",
            spin_bits={i: b for (tn, i), b in spin_bits.items() if tn == t.name}, zero=f"zero{sfx}",
            mem=mem, wide={regs[r] for r in regs if (t.name, r) in wide}, zero64=f"zero64{sfx}",
            scratches={d: f"s_{p}_{d}" for d in sorted(set(mem.values()))},
            **_quiet_fields(layout, t, p))))
    return contexts


def _quiet_fields(layout: Layout, t: Thread, p: str) -> dict[str, object]:
    """The quiescence fields of thread ``t``'s :class:`ThreadContext` (prefix ``p``): its
    pointers to the instance's wait word and confirm words (none without a wait word)."""
    if layout.wait_slot is None:
        return {}
    me = layout.threads.index(t.name)
    return {"fin": f"f_{p}", "quiet_threads": len(layout.threads), "confirm": f"c_{p}_{me}",
            "confirm_others": tuple(f"c_{p}_{k}" for k in range(len(layout.threads)) if k != me),
            "quiet_scope": quiet_scope(layout), "quiet_proof": layout.quiet_proof}


def quiet_scope(layout: Layout) -> str:
    """Scope of the quiescence harness's atomics: ``sys`` in rank mode, where ranks are
    processes (on several GPUs), else ``gpu`` (every rank a group of CTAs of one grid)."""
    return "sys" if layout.mode == "rank" else "gpu"


def needs_wide(layout: Layout) -> bool:
    """Whether the kernels need the int64 zero vector (a 64-bit location or register)."""
    return any(l.bits == 64 for l in layout.locations) or any(k.endswith(HI) for k in layout.out_columns)


def mask_line(ctx: ThreadContext, slot: int, sfx: str) -> list[str]:
    """The lane mask of the ``slot``-th thread of a shared-CTA role (nothing for a lone thread)."""
    return [f"{ctx.mask} = (lane{sfx} >= {slot} * BLOCK) & (lane{sfx} < {slot + 1} * BLOCK)"] if ctx.mask else []


def thread_setup(layout: Layout, t: Thread, ctx: ThreadContext) -> list[str]:
    """Per-instance values of one thread once ``i_<p>`` is known: heap offset, scratch and
    location pointers, registers (initial values) and the status word."""
    p = ctx.ident
    lines = ["if inst_stride == 1:  # unstrided heaps (the GPU compiler folds this; the interpreter cannot)",
             f"    b_{p} = i_{p}",
             "else:",
             f"    b_{p} = i_{p} * inst_stride"]
    used = {getattr(ins, "loc", None) for ins in t.instrs} - {None}
    scaled = sorted({layout.unit_bytes // (l.bits // 8) for l in layout.locations if l.name in used}
                    | {layout.unit_bytes // (widths.dtype_bits(d) // 8) for d in ctx.scratches} | {layout.unit_words})
    lines += [f"bk{k}_{p} = b_{p} * {k}" for k in scaled if k > 1]
    lines.append(f"s_{p} = {_slot_pointer(t.rank, layout.scratch_slot, p, layout)}")
    if layout.wait_slot is not None:
        lines.append(f"f_{p} = {_slot_pointer(layout.wait_home, layout.wait_slot, p, layout)}  # wait word (harness)")
        lines += [f"c_{p}_{k} = {_slot_pointer(layout.wait_home, layout.confirm_slot(name), p, layout)}  "
                  f"# {name}'s confirm word (harness)" for k, name in enumerate(layout.threads)]
    for d, var in ctx.scratches.items():
        lines.append(f"{var} = {_typed_pointer(t.rank, layout.scratch_slot, 0, d, p, layout)}")
    for loc in layout.locations:
        if loc.name in used:
            var = f"a_{p}_{_ident(loc.name)}"
            ctx.addr[loc.name] = var
            d = widths.dtype(loc)
            where = f"{loc.name} ({loc.bits} bits" + (f", bytes {loc.offset}.. of {loc.view_of})" if loc.view_of else ")")
            lines.append(f"{var} = {_typed_pointer(loc.home, loc.slot, loc.offset, d, p, layout)}  # "
                         + (where if not layout.plain else loc.name))
    init = dict(t.reg_init)
    for r, var in ctx.regs.items():
        zero = ctx.zero64 if var in ctx.wide else ctx.zero
        lines.append(f"{var} = {zero} + {init.get(r, 0)}  # {t.name}:{r}")
    if has_branches(t):
        lines.append(f"{active_var(ctx)} = {ctx.mask if ctx.mask else ctx.zero + ' == 0'}  # lanes not waiting at a label")
        for name in sorted({i.target for i in t.instrs if isinstance(i, Branch)}):
            lines.append(f"{jump_var(ctx, name)} = {ctx.zero} != 0  # lanes that branched to {name}")
    lines.append(f"{ctx.status} = {ctx.zero}")
    return lines


def role_order(contexts: list[tuple[Thread, ThreadContext]], options: CodegenOptions,
               spins_ahead: bool = False) -> list[tuple[Thread, ThreadContext, int]]:
    """A program order of a role's ops (``shared_cta_order``; CTA barriers aligned).  Between
    two CTA barriers the threads' ops come thread after thread, or with ``spins_ahead`` the
    other threads' ops before their first spin ahead of every spin (:func:`spins_last`)."""
    arrange = spins_last if spins_ahead else list
    aligned = barrier_aligned_order(contexts, arrange) if len(contexts) > 1 else None
    if options.shared_cta_order == "sequential" and aligned is not None:
        return aligned
    if options.shared_cta_order == "sequential":
        return arrange([(t, c, i) for t, c in contexts for i in range(len(t.instrs))])
    longest = max(len(t.instrs) for t, _ in contexts)
    return [(t, c, i) for i in range(longest) for t, c in contexts if i < len(t.instrs)]


def role_orders(test: LitmusTest, contexts: list[tuple[Thread, ThreadContext]],
                options: CodegenOptions) -> list[list[tuple[Thread, ThreadContext, int]]]:
    """The program orders a role's programs take in turn (:func:`order_branches`).

    A spin's exit test synchronises the CTA as a barrier does, so where threads that share a CTA
    spin, one order cannot show both ways a missing CTA barrier fails: the other threads running
    ahead of the spinning one (symm_mem's pattern 1 without its second ``sync_threads``:
    :func:`spins_last`) and behind it (without its first: thread after thread).  Such a role
    gets both, the second only when no spin in it waits for a later op of its own CTA
    (:func:`stalls_own_cta`); any other role has its one order."""
    ahead = role_order(contexts, options, spins_ahead=True)
    behind = role_order(contexts, options)
    if behind == ahead or stalls_own_cta(test, behind):
        return [ahead]
    return [ahead, behind]


def role_order_count(test: LitmusTest, options: CodegenOptions) -> int:
    """How many op orders the programs of ``test``'s grid- or rank-mode kernel take in turn
    (:func:`role_orders`, :func:`order_branches`): a launch needs that many programs or
    iterations to play each."""
    return max((len(role_orders(test, [(t, None) for t in role], options))  # type: ignore[misc]
                for role in cta_roles(test)), default=1)


def written_value(ins: object) -> tuple[str, int | None] | None:
    """``(location, value)`` that ``ins`` may write (value None: not a constant), or None."""
    if isinstance(ins, Store):
        return ins.loc, ins.value.value if isinstance(ins.value, Const) else None
    if isinstance(ins, Rmw):
        return ins.loc, ins.value.value if ins.op in ("cas", "exch") and isinstance(ins.value, Const) else None
    if isinstance(ins, Spin) and ins.read.kind == "cas":
        return ins.loc, ins.read.reset
    return None


def starved_spins(test: LitmusTest, order: Sequence[tuple[Thread, object, int]],
                  earlier_from: Callable[[Thread, Thread], bool], later_from: Callable[[Thread, Thread], bool],
                  outside: Sequence[tuple[str, int | None]] = ()) -> list[tuple[Thread, int, list[str]]]:
    """Each spin of ``order`` that waits for what only later ops write: ``(thread, op index, the
    later ops as 'P1[2]')``.  What frees a spin: what its thread last left at the location (else
    the initial value), a value written by an earlier op of a thread ``u`` with
    ``earlier_from(spinner, u)``, or a value in ``outside``; the later ops that count are those of
    threads with ``later_from(spinner, u)``."""
    init = {loc.name: loc.init for loc in test.locations}
    starved = []
    for p, (t, _, i) in enumerate(order):
        ins = t.instrs[i]
        if not isinstance(ins, Spin):
            continue
        own = [w for j in range(i) if (w := written_value(t.instrs[j])) is not None and w[0] == ins.loc]
        seen = {own[-1][1]} if own else {init.get(ins.loc, 0)}  # what the thread itself last left there
        seen |= {v for loc, v in outside if loc == ins.loc}
        seen |= {w[1] for u, _, j in order[:p] if earlier_from(t, u)
                 and (w := written_value(u.instrs[j])) is not None and w[0] == ins.loc}
        if None in seen or any(spin_exits(ins, v) for v in seen):
            continue
        later = [f"{u.name}[{j}]" for u, _, j in order[p + 1:]
                 if later_from(t, u) and (w := written_value(u.instrs[j])) is not None
                 and w[0] == ins.loc and (w[1] is None or spin_exits(ins, w[1]))]
        if later:
            starved.append((t, i, later))
    return starved


def stalls_own_cta(test: LitmusTest, order: Sequence[tuple[Thread, object, int]]) -> bool:
    """Whether a spin in ``order`` (the ops of threads that share a CTA) waits for a value that
    only ops of its own CTA emitted after it write: its exit test holds the CTA, so it times out.
    What the thread itself last left there (else the initial value), a value another thread of
    the CTA wrote before, or one a thread outside the CTA may write, frees it."""
    inside = {t.name for t, _, _ in order}
    outside = [w for t in test.threads if t.name not in inside for ins in t.instrs
               if (w := written_value(ins)) is not None]
    return bool(starved_spins(test, order, lambda t, u: u is not t, lambda t, u: True, outside))


DEFAULT_PICK = "(pid + it)"
"""The op order program ``pid`` plays in iteration ``it``, modulo the number of orders."""


def ordered_lines(emitter: Emitter, orders: list[list[tuple[Thread, ThreadContext, int]]], layout: Layout,
                  tail: list[str], pick: str = DEFAULT_PICK) -> list[str]:
    """The lines of the ops of ``orders`` (:func:`op_lines`), which the programs take in turn
    (:func:`order_branches`), then ``tail``.  The ops every order has at the same place at its
    start or its end are emitted once, outside the branches: LLVM would merge their copies into
    one instruction that the line table gives to neither copy."""
    def key(op: tuple[Thread, ThreadContext, int]) -> tuple[str, int]:
        return op[0].name, op[2]

    first, size = orders[0], min(len(o) for o in orders)
    head = next((k for k in range(size) if len({key(o[k]) for o in orders}) > 1), size)
    tail_ops = next((k for k in range(size - head) if len({key(o[-1 - k]) for o in orders}) > 1), size - head)
    middles = [op_lines(emitter, o[head:len(o) - tail_ops], layout) for o in orders]
    return (op_lines(emitter, first[:head], layout) + order_branches(middles, pick)
            + op_lines(emitter, first[len(first) - tail_ops:], layout) + tail)


def order_branches(bodies: list[list[str]], pick: str = DEFAULT_PICK) -> list[str]:
    """The lines of one program order (``bodies[0]`` alone), or of several that the programs
    take in turn, order ``pick % n`` (default: program ``pid`` order ``(pid + it) % n`` in
    iteration ``it``, so a launch of one program per role plays each too):
    ``if play_order == 0: ... else:  # play_order == n-1`` (an ``else``, so every branch assigns
    what the others do)."""
    if len(bodies) == 1:
        return bodies[0]
    lines = [f"play_order = {pick} % {len(bodies)}  # which of the {len(bodies)} op orders this program plays"]
    for k, body in enumerate(bodies):
        last = k == len(bodies) - 1
        lines.append(f"else:  # play_order == {k}" if last else f"{'if' if k == 0 else 'elif'} play_order == {k}:")
        lines += ["    " + line for line in body]
    return lines


def op_lines(emitter: Emitter, order: list[tuple[Thread, ThreadContext, int]],
              layout: Layout | None = None) -> list[str]:
    """The Triton lines of the ops in ``order``, each after a ``# --- P0[i]`` comment, and
    after each thread's last op its :func:`fin_lines` (with ``layout``).

    In a thread with (forward) branches every op runs on the lanes still active (the mask is
    ``act_<thread>``), and a register keeps its value on the lanes that are not."""
    lines: list[str] = []
    branching = {t.name: (replace(ctx, mask=active_var(ctx)), set(ctx.regs.values()))
                 for t, ctx, _ in order if has_branches(t)}
    for t, ctx, i in order:
        ins = t.instrs[i]
        where = f" (line {ins.line})" if getattr(ins, "line", None) else ""
        lines.append(f"# --- {t.name}[{i}]{where}")
        if t.name in branching:
            masked, regs = branching[t.name]
            act = masked.mask
            for line in emitter.emit(masked, i, ins):
                lhs, sep, rhs = line.partition(" = ")
                if sep and lhs in regs and not isinstance(ins, (Label, Branch)):
                    line = f"{lhs} = tl.where({act}, {rhs}, {lhs})"
                lines.append(line)
        else:
            lines += emitter.emit(ctx, i, ins)
        if layout is not None and i == len(t.instrs) - 1:
            lines += fin_lines(layout, t, ctx, emitter)
    return lines


def has_branches(t: Thread) -> bool:
    """Whether thread ``t`` has branches (then its ops run under an active-lane mask)."""
    return any(isinstance(i, Branch) for i in t.instrs)


def branch_problem(t: Thread) -> tuple[int | None, str] | None:
    """``(line, why)`` when ``t``'s control flow has no Triton form: a branch back to an earlier
    label (a loop: say it with a spin), or a CTA barrier in a thread with branches."""
    labels = {i.name: k for k, i in enumerate(t.instrs) if isinstance(i, Label)}
    for k, i in enumerate(t.instrs):
        if isinstance(i, Branch) and labels.get(i.target, len(t.instrs)) <= k:
            return i.line, (f"{t.name}: the branch to {i.target} goes back (a loop); only forward branches "
                            "have a Triton form (write a bounded loop as a spin or a retry)")
        if isinstance(i, Branch) and i.target not in labels:
            return i.line, f"{t.name}: the branch target {i.target} is not a label of the thread"
    if has_branches(t) and any(isinstance(i, Barrier) for i in t.instrs):
        bar = next(i for i in t.instrs if isinstance(i, Barrier))
        return bar.line, (f"{t.name}: a CTA barrier in a thread with branches has no Triton form "
                          "(tl.debug_barrier runs on every lane)")
    return None


def output_lines(layout: Layout, contexts: list[tuple[Thread, ThreadContext]]) -> list[str]:
    """Stores of each thread's observable registers into ``out`` and its spin-timeout bits."""
    lines: list[str] = []
    for t, ctx in contexts:
        lines.append(f"# outputs of {t.name}")
        lines.append(f"o_{ctx.ident} = i_{ctx.ident} * {layout.n_cols}")
        mk = f", mask={ctx.mask}" if ctx.mask else ""
        for col, key in enumerate(layout.out_columns[:-1]):
            thread, reg = key.split(":", 1)
            hi = reg.endswith(HI)
            reg = reg[: -len(HI)] if hi else reg
            if thread == t.name:
                var = ctx.regs.get(reg)
                value = var if var is not None else f"({ctx.zero} + {dict(t.reg_init).get(reg, 0)})"
                if hi:
                    value = f"({value} >> 32).to(tl.int32)"
                elif var is not None and var in ctx.wide:
                    value = f"{value}.to(tl.int32)"
                lines.append(f"tl.store({_out_pointer(col, ctx.ident)}, {value}{mk})  # {key}")
        if ctx.spin_bits:
            smask = f"({ctx.status} != 0)" + (f" & {ctx.mask}" if ctx.mask else "")
            lines.append(f'tl.atomic_or({_out_pointer(layout.status_column, ctx.ident)}, {ctx.status}, '
                         f'mask={smask}, sem="relaxed", scope="gpu")')
    return lines


def _role_lines(test: LitmusTest, layout: Layout, role: tuple[Thread, ...], emitter: Emitter,
                options: CodegenOptions) -> list[str]:
    """The body of one ``if role == g:`` block (grid and rank modes): set-up, then the loop over
    iterations (:func:`iteration_loop`) that plays one instance per lane in each."""
    width = len(role)
    pre = role_header(role, options) + lane_lines(width, "", needs_wide(layout))
    pre.append("first = (block * BLOCK + local).to(tl.int64)")
    pre.append("per_iter = progs_per_role * BLOCK  # instances per iteration")
    pre += role_heap_lines(layout, {t.rank for t in role})
    body: list[str] = []
    contexts = thread_contexts(layout, role, "")
    # Threads sharing a CTA must play the same instances in the same program, or the
    # instance's two sides would sit in different CTAs: they all use the role's first thread's
    # permutation, each from a lane of the block permuted by its own row (slot_lane_line).
    pi = layout.threads.index(role[0].name)
    p0 = contexts[0][1].ident
    for slot, (t, ctx) in enumerate(contexts):
        p = ctx.ident
        pre += mask_line(ctx, slot, "")
        if slot == 0:
            pre.append(f"# thread {t.name}: in iteration it, instance i = it * per_iter + (j * k + c * (it + 1)) "
                       f"% per_iter, (k, c) = perm[{pi}]")
            pre += _instance_lines(p, pi)
        else:
            pre += [slot_lane_line(p, slot, layout.threads.index(t.name), ""),
                    f"x_{p} = ((block * BLOCK + j_{p}).to(tl.int64) * k_{p0} + c_{p0}) % per_iter"]
        # each iteration shifts the instances by c more, so a program meets other partners
        body += [f"if c_{p0} == 0:",
                 f"    i_{p} = x_{p} + it * per_iter  # thread {t.name}",
                 "else:",
                 f"    i_{p} = (x_{p} + it * c_{p0}) % per_iter + it * per_iter  # thread {t.name}"]
        body += thread_setup(layout, t, ctx)
    if options.harness:
        pre += harness_lines(layout.n_ranks)
    body += ordered_lines(emitter, role_orders(test, contexts, options), layout, output_lines(layout, contexts))
    if width == 1:
        body = drop_overwritten_inits(body, {ctx.regs[r]: r for _, ctx in contexts for r in ctx.regs})
    return iteration_loop(drop_dead_assignments(pre + [LOOP_MARK] + body), options.backend)


LOOP_MARK = "# --- iteration loop"


def iteration_loop(lines: list[str], backend: str) -> list[str]:
    """``lines`` with everything after :data:`LOOP_MARK` indented into a loop of ``it`` over
    ``n_instances // per_iter`` iterations (a ``while`` loop under the interpreter: triton
    3.6's interpreter cannot take a run-time tensor as ``range``'s bound)."""
    cut = lines.index(LOOP_MARK)
    head, body = lines[:cut + 1], ["    " + line for line in lines[cut + 1:]]
    if backend == "interpreter":
        return head + ["it = 0", "while it < n_instances // per_iter:"] + body + ["    it += 1"]
    return head + ["for it in range(n_instances // per_iter):"] + body


def _instance_lines(p: str, pi: int) -> list[str]:
    """``x_p``: the instance each lane plays within an iteration under permutation row ``pi``;
    the identity permutation (no shuffling) skips the int64 multiply and modulo."""
    return [f"k_{p} = tl.load(perm + {2 * pi})",
            f"c_{p} = tl.load(perm + {2 * pi + 1})",
            f"if (k_{p} == 1) & (c_{p} == 0):",
            f"    x_{p} = first",
            "else:",
            f"    x_{p} = (first * k_{p} + c_{p}) % per_iter"]


def _slot_pointer(home: int, slot: int, p: str, layout: Layout | None = None) -> str:
    """int32 pointer expression of heap slot ``slot`` on rank ``home`` for thread ``p``'s lanes:
    the slot base is a scalar, so each lane costs one pointer add."""
    if layout is not None and layout.unit_words != 1:
        return _typed_pointer(home, slot, 0, widths.PLAIN, p, layout)
    return f"heap{home} + b_{p}" if slot == 0 else f"(heap{home} + {slot} * loc_stride) + b_{p}"


def _typed_pointer(home: int, slot: int, offset: int, dtype: str, p: str, layout: Layout) -> str:
    """Pointer expression (element type ``dtype``) of the bytes ``offset ..`` of slot ``slot`` on
    rank ``home`` for thread ``p``'s lanes: unit ``slot * loc_stride + i * inst_stride`` holds
    ``k = unit_bytes / size`` elements, so the element index is ``k * unit + offset / size``."""
    size = widths.dtype_bits(dtype) // 8
    k = layout.unit_bytes // size
    heap = f"heap{home}" if dtype == widths.PLAIN else f"heap{home}_{dtype}"
    if k == 1 and offset == 0 and dtype == widths.PLAIN:
        return _slot_pointer(home, slot, p)
    parts = ([f"{slot * k} * loc_stride"] if slot else []) + ([str(offset // size)] if offset else [])
    base = f"({heap} + {' + '.join(parts)})" if parts else heap
    return f"{base} + {'b_' + p if k == 1 else f'bk{k}_{p}'}"


def _out_pointer(col: int, p: str) -> str:
    """Pointer expression of ``out`` column ``col`` of thread ``p``'s instances."""
    return f"out + o_{p}" if col == 0 else f"(out + {col}) + o_{p}"


def drop_overwritten_inits(lines: list[str], regs: dict[str, str]) -> list[str]:
    """``lines`` without the zero-initialisation of registers that are certainly assigned before
    they are read: the first later line naming the register is an unconditional (unindented)
    assignment to it that does not read it.  Initial values from the test (``reg_init``) are
    dropped only under the same condition, since they are then never observed.
    """
    keep = []
    for n, line in enumerate(lines):
        m = _ASSIGN.match(line)
        if m and m.group(1) in regs and _ZERO_INIT.match(line.split(" = ", 1)[1]):
            var = m.group(1)
            pattern = re.compile(rf"\b{re.escape(var)}\b")
            later = next((ln for ln in lines[n + 1:] if pattern.search(ln)), None)
            if later is not None and not later[:1].isspace() and later.startswith(f"{var} = ") \
                    and not pattern.search(later.split(" = ", 1)[1]):
                continue
        keep.append(line)
    return keep


def barrier_aligned_order(contexts: list[tuple[Thread, "ThreadContext"]],
                          arrange: Callable[[list[tuple[Thread, "ThreadContext", int]]],
                                            list[tuple[Thread, "ThreadContext", int]]] = list,
                          ) -> list[tuple[Thread, "ThreadContext", int]] | None:
    """One program order for threads sharing a CTA that keeps their CTA barriers aligned.

    ``bar.sync`` means every thread of the CTA reaches barrier k before any passes it, so
    each thread's ops between barriers k-1 and k are emitted (thread after thread, then put in
    order by ``arrange``, e.g. :func:`spins_last`) before barrier k, which is emitted once.
    Threads that use different numbers of barriers give None (no aligned order exists).
    """
    segments: list[list[tuple[list[int], int | None]]] = []
    for t, _ in contexts:
        segs: list[tuple[list[int], int | None]] = []
        cur: list[int] = []
        for i, ins in enumerate(t.instrs):
            if isinstance(ins, Barrier):
                segs.append((cur, i))
                cur = []
            else:
                cur.append(i)
        segs.append((cur, None))
        segments.append(segs)
    if len({len(s) for s in segments}) != 1 or len(segments[0]) == 1:
        return None
    order: list[tuple[Thread, "ThreadContext", int]] = []
    first_t, first_c = contexts[0]
    for k in range(len(segments[0])):
        order += arrange([(t, c, i) for (t, c), segs in zip(contexts, segments) for i in segs[k][0]])
        bar = segments[0][k][1]
        if bar is not None:
            order.append((first_t, first_c, bar))
    return order


def spins_last(ops: list[tuple[Thread, "ThreadContext", int]]) -> list[tuple[Thread, "ThreadContext", int]]:
    """``ops`` (threads of one CTA, each in its own order, between two CTA barriers) with every
    thread's ops before its first spin moved ahead of every spin.

    A spin's exit test reduces over all the program's lanes, which synchronises the CTA's
    warps as a barrier does: emitted after another thread's spin, an op could never run before
    that spin ends, and a missing CTA barrier (symm_mem's pattern 1 without its second
    ``sync_threads``) could never show. Any interleaving that keeps each thread's order is a
    schedule of the CTA; this one lets the other threads run ahead of a spinning one."""
    first_spin: dict[str, int] = {}
    for pos, (t, _, i) in enumerate(ops):
        if isinstance(t.instrs[i], Spin) and t.name not in first_spin:
            first_spin[t.name] = pos
    early = [op for pos, op in enumerate(ops) if pos < first_spin.get(op[0].name, len(ops))]
    return early + [op for pos, op in enumerate(ops) if pos >= first_spin.get(op[0].name, len(ops))]


def kernel_def(name: str) -> list[str]:
    """The decorator and ``def`` line of generated kernel ``name`` (arguments ``KERNEL_ARGS``)."""
    args = ", ".join(a + (": tl.constexpr" if a == "BLOCK" else "") for a in KERNEL_ARGS)
    return [JIT_DECORATOR, f"def {name}({args}):"]


def kernel_text(test: LitmusTest, layout: Layout, entry: KernelEntry, emitter: Emitter,
                 options: CodegenOptions) -> str:
    threads = {t.name: t for t in test.threads}
    out = kernel_def(entry.name)
    doc = f"{test.id}: " + ("every thread (grid mode)" if entry.rank is None else f"the threads of rank {entry.rank}")
    out.append(f'    """{doc}; roles: {list(entry.roles)}."""')
    out += ["    pid = tl.program_id(0)",
            "    role = pid // progs_per_role",
            "    block = pid % progs_per_role"]
    for g, names in enumerate(entry.roles):
        out.append(f"    if role == {g}:")
        body = _role_lines(test, layout, tuple(threads[n] for n in names), emitter, options)
        out += ["        " + line for line in body]
    return "\n".join(out) + "\n"


_ASSIGN = re.compile(r"^([A-Za-z_]\w*) = ")
_HARNESS = re.compile(r"^(?:(?:s|o|st|f)_T\d+(?:_u?int\d+)?|bk\d+_T\d+|heap\d+_uint\d+|(?:local|zero(?:64)?)(?:_R\d+)?)$")
_ZERO_INIT = re.compile(r"zero(?:64)?(?:_R\d+)? \+ ")
_PURE_CALLS = re.compile(r"tl\.load\((heap_ptrs|perm) \+ \d+\)|tl\.pointer_type|tl\.u?int(8|16|32|64)|tl\.arange")


def _has_effect(line: str) -> bool:
    """Whether the right-hand side of ``line`` calls into triton beyond pure arithmetic."""
    return "tl." in _PURE_CALLS.sub("", line.split(" = ", 1)[1])


def drop_dead_assignments(lines: list[str]) -> list[str]:
    """``lines`` without assignments to names that no other line reads.

    Every emitted line is a full-width vector op (a NumPy pass over all lanes under the
    interpreter), so per-thread scratch, status and output pointers of threads that never
    use them cost real time.  Names assigned more than once are kept.
    """
    while True:
        text = "\n".join(lines)
        targets: dict[str, int] = {}
        for line in lines:
            m = _ASSIGN.match(line)
            if m:
                targets[m.group(1)] = targets.get(m.group(1), 0) + 1
        dead = {
            name for name, n in targets.items()
            if n == 1 and len(re.findall(rf"\b{re.escape(name)}\b", text)) == 1
        }
        # only harness pointers/indices may go, and only when pure arithmetic: a memory op
        # is an event of the test and a register is part of its outcome
        dead = {name for name in dead if _HARNESS.match(name) and not any(
            (m := _ASSIGN.match(ln)) and m.group(1) == name and _has_effect(ln) for ln in lines)}
        if not dead:
            return lines
        lines = [ln for ln in lines if not ((m := _ASSIGN.match(ln)) and m.group(1) in dead)]
