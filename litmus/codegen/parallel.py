"""Parallel mode: one kernel whose every program plays every role (cuda-litmus style).

The grid is ``P`` programs (``progs_per_role``), all meant to be resident at once.  Each program
plays every role of the test, one lane vector per role (``width * BLOCK`` lanes for a role of
``width`` threads sharing a CTA), and loops over ``n_instances // (P * BLOCK)`` iterations.  In
iteration ``it``, lane ``j`` of program ``pid`` plays, for role ``r``, instance
``it * P * BLOCK + q * BLOCK + l`` with the role's row ``(k, kc) = perm[first thread of r]``,
``c = kc % BLOCK``, ``o = kc // BLOCK`` and ``h = k // BLOCK``:

- instance lane ``l = (j * k + c) % BLOCK`` (``k % BLOCK`` odd: a bijection of the lanes);
- the home role (``h = 1``, one per launch; the host picks which: ``Stress.role_map``):
  ``q = pid`` (``o`` unused);
- every other role: ``q = (pid + 1 + (l + o) % max(P - 1, 1)) % P``: another program than the
  one where the home role plays the instance whenever ``P > 1`` (cuda-litmus'
  ``stripe_workgroup``), and, when the roles' offsets ``o`` differ modulo ``P - 1``, another
  program than every other role's too.
- a thread ``s > 0`` of a role whose threads share a CTA takes ``j`` through its own lane
  permutation first (``litmus.codegen.roles.slot_lane_line``): it plays the same instances in
  the same program as the role's first thread, from other hardware threads.

So for each role the map ``(it, pid, j) -> instance`` is a bijection onto ``[0, n_instances)``;
``litmus.run.parallel`` builds the rows and mirrors the map in Python.

Op order: a role whose threads share a CTA and spin has two program orders
(``roles.role_orders``), and program ``pid`` plays alternative ``(pid + it) % n`` in iteration
``it`` (``roles.order_branches``; alternative ``k`` takes each role's order ``k``), or, with the
run harness, the order the control block picks (``harness.ORDER_PICK``: every program the same
one per iteration, or one throughout).  With
``CodegenOptions.role_rotation``, program ``pid`` of a spin-free test plays the roles in the
cyclic rotation starting at role ``(pid + it) % R`` (one branch per rotation, the instance map
unchanged), so the roles' ops meet in every relative order a rotation gives.  A spin must not
wait for a write that every program reaches only later, so the ops of all roles are emitted in
*phases* split just before each spin: phase ``k`` holds each role's ops from its ``k``-th spin
(inclusive) up to its next spin, role after role (phase 0: every role's ops before its first
spin).  Within a role the order is grid mode's (``shared_cta_order``, CTA
barriers aligned).
"""

from __future__ import annotations

from litmus.codegen.roles import (
    DEFAULT_PICK,
    cta_roles,
    lane_lines,
    mask_line,
    output_lines,
    role_header,
    ordered_lines,
    role_orders,
    thread_contexts,
    starved_spins,
    thread_setup,
    drop_dead_assignments,
    drop_overwritten_inits,
    iteration_loop,
    kernel_def,
    LOOP_MARK,
    needs_wide,
    role_heap_lines,
    slot_lane_line,
)
from litmus.codegen.harness import ORDER_PICK, harness_lines, order_pick_lines
from litmus.codegen.layout import KernelEntry, Layout
from litmus.codegen.ops import Emitter, ThreadContext
from litmus.codegen.options import CodegenOptions
from litmus.ir import LitmusTest, Spin, Thread, spin_exit_text

Op = tuple[Thread, ThreadContext, int]

def spin_phases(order: list[Op]) -> list[list[Op]]:
    """``order`` cut just before each spin: element 0 holds the ops before the first spin,
    element ``k`` those from the ``k``-th spin up to the next one."""
    phases: list[list[Op]] = [[]]
    for op in order:
        t, _, i = op
        if isinstance(t.instrs[i], Spin):
            phases.append([])
        phases[-1].append(op)
    return phases


def phase_order(orders: list[list[Op]]) -> list[Op]:
    """The ops of several roles in one program: phase 0 of every role, then phase 1, ..."""
    cut = [spin_phases(o) for o in orders]
    return [op for k in range(max(len(c) for c in cut)) for c in cut if k < len(c) for op in c[k]]


def role_rotations(test: LitmusTest, orders: list[list[Op]]) -> list[list[list[Op]]]:
    """The role orders the programs of a rotating kernel play (``CodegenOptions.role_rotation``):
    every cyclic rotation of ``orders``, or ``orders`` alone for a test with spins (a rotation
    could put a spin ahead of the write it waits for) or with one role."""
    if len(orders) < 2 or any(isinstance(i, Spin) for t in test.threads for i in t.instrs):
        return [orders]
    return [orders[r:] + orders[:r] for r in range(len(orders))]


def _instance_offset_lines(p: str, row: str, lane: str) -> list[str]:
    """``x_<p>``: the instance (within one iteration) each lane of thread ``p`` plays, from its
    role's permutation row (``k_<row>``, ``kc_<row>``) at lane ``lane`` of the block; see the
    module docstring for the formula."""
    return [f"l_{p} = ({lane} * k_{row} + kc_{row} % BLOCK) % BLOCK",
            f"q_{p} = (pid + (1 - k_{row} // BLOCK) * (1 + (l_{p} + kc_{row} // BLOCK) % stripe)) % progs_per_role",
            f"x_{p} = (q_{p} * BLOCK + l_{p}).to(tl.int64)"]


def parallel_kernel_text(test: LitmusTest, layout: Layout, entry: KernelEntry, emitter: Emitter,
                         options: CodegenOptions) -> str:
    """The ``litmus_parallel`` kernel (arguments ``KERNEL_ARGS``; ``progs_per_role`` = programs)."""
    threads = {t.name: t for t in test.threads}
    roles = [tuple(threads[n] for n in names) for names in entry.roles]
    pre: list[str] = []
    if options.harness:
        pre.append("lane = tl.arange(0, BLOCK)  # the harness's lanes")
        pre += harness_lines(layout.n_ranks, join=True) + order_pick_lines()
    pre += role_heap_lines(layout, {t.rank for t in test.threads})
    pre += ["per_iter = progs_per_role * BLOCK  # instances per iteration",
            "stripe = tl.maximum(progs_per_role - 1, 1)"]
    body: list[str] = []
    orders: list[list[Op]] = []
    lone_regs: dict[str, str] = {}
    all_contexts: list[tuple[Thread, ThreadContext]] = []
    for g, role in enumerate(roles):
        sfx = f"_R{g}"
        pi = layout.threads.index(role[0].name)
        pre += [f"# role {g}"] + role_header(role, options) + lane_lines(len(role), sfx, needs_wide(layout))
        contexts = thread_contexts(layout, role, sfx)
        first = contexts[0][1].ident
        pre.append(f"# role {g}: instance lane l = (j * k + c) % BLOCK, (k + BLOCK * h, c + BLOCK * o) = perm[{pi}]; "
                   "program pid (h = 1: the home role) or (pid + 1 + (l + o) % max(P - 1, 1)) % P")
        pre += [f"k_{first} = tl.load(perm + {2 * pi})", f"kc_{first} = tl.load(perm + {2 * pi + 1})"]
        for slot, (t, ctx) in enumerate(contexts):
            pre += mask_line(ctx, slot, sfx)
            lane = f"local{sfx}"
            if slot:  # same instances, same program, another hardware thread (roles.SLOT_ROTATION)
                pre.append(slot_lane_line(ctx.ident, slot, layout.threads.index(t.name), sfx))
                lane = f"j_{ctx.ident}"
            pre += _instance_offset_lines(ctx.ident, first, lane)
            body.append(f"i_{ctx.ident} = x_{ctx.ident} + it * per_iter  # thread {t.name}")
            body += thread_setup(layout, t, ctx)
        orders.append(role_orders(test, contexts, options))
        all_contexts += contexts
        if len(role) == 1:
            lone_regs.update({ctx.regs[r]: r for _, ctx in contexts for r in ctx.regs})
    n = max(len(o) for o in orders)  # a role's program orders (roles.role_orders), in turn
    alternatives = [[o[k % len(o)] for o in orders] for k in range(n)]
    if options.role_rotation and n == 1:
        alternatives = role_rotations(test, alternatives[0])
    body += ordered_lines(emitter, [phase_order(alt) for alt in alternatives], layout, output_lines(layout, all_contexts),
                          pick=ORDER_PICK if options.harness else DEFAULT_PICK)
    body = drop_overwritten_inits(body, lone_regs)
    lines = iteration_loop(drop_dead_assignments(pre + [LOOP_MARK] + body), options.backend)
    out = kernel_def(entry.name) + [
        f'    """{test.id}: parallel mode, every program plays every role; roles: {list(entry.roles)}."""',
        "    pid = tl.program_id(0)"]
    out += ["    " + line for line in lines]
    return "\n".join(out) + "\n"


def spin_hazards(test: LitmusTest) -> list[str]:
    """Spins that parallel mode's phase order may starve, one line each (empty: none).

    Every program runs the roles' ops in one phased order (:func:`phase_order`), so a spin whose
    exit value only another role's *later* op (in that order) can write waits for a program that
    is itself blocked at an earlier spin (flag reset and reuse patterns); such a test belongs in
    grid mode.  A spin is safe when its exit value is the location's initial value or may be
    written by an op earlier in the order.  Each role's ops are read in thread order, the way
    grid mode emits one-thread roles.
    """
    orders = [[(t, None, i) for t in role for i in range(len(t.instrs))] for role in cta_roles(test)]
    role_of = {t.name: (t.rank, t.cta) for t in test.threads}

    def other_role(t: Thread, u: Thread) -> bool:
        return role_of[u.name] != role_of[t.name]

    order = phase_order(orders)  # type: ignore[arg-type]
    return [f"{t.name}[{i}] waits for {spin_exit_text(t.instrs[i])}, which only {', '.join(later)} "
            "write(s), later in the phased order"
            for t, i, later in starved_spins(test, order, other_role, other_role)]
