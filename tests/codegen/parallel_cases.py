"""Shared by test_parallel.py and parallel_runner.py: the parallel-mode cases, a coverage
transform, and an exact simulation of what the Triton interpreter does with a parallel kernel.

Under ``TRITON_INTERPRET=1`` the programs of one launch run one after another, and inside a
program each emitted op runs over all lanes before the next.  Instances never share words, so
instance ``x`` sees its roles' ops in the order (program that plays the role, position of the op
in the program), and a spin that is not satisfied when it runs never will be (nothing else runs
meanwhile): it times out, or, in a quiescing kernel (``CodegenOptions.quiesce``) whose other
threads have all run already, it is proven hung.  :func:`simulate` replays that order per
instance.
"""

from __future__ import annotations

import re
from dataclasses import replace
from pathlib import Path

from litmus.ir import (BRANCH_CMP, COMPARE, Barrier, Branch, Compute, Const, Fence, Label, LitmusTest, Load,
                       Location, Rmw, Spin, Store, spin_exits)

ROOT = Path(__file__).resolve().parents[2]

# name, catalog test id, programs G, BLOCK, iterations
CASES: list[dict] = [
    {"name": f"{tid}-G{g}", "id": tid, "programs": g, "block": 4, "iterations": 2, "seed": 7 + g}
    for tid in ("MP[relaxed-xcta-sys]", "SB[relaxed-sys]", "WRC[relacq-sys]", "IRIW[relaxed-sys]",
                "MP[relacq-samecta-sys]", "SYMM-barrier-p1[p1-acqrel-sys]", "SYMM-barrier[acqrel-sys-tworounds]",
                "XLA-block-barrier[relacq-sys]", "SEQLOCK[atomic-fence-sys]")
    for g in (1, 4)
] + [
    # a program count that is no power of two (real grids are SMs x CTAs per SM), and the harness
    {"name": "WRC-G3", "id": "WRC[relacq-sys]", "programs": 3, "block": 8, "iterations": 1, "seed": 3},
    {"name": "MP-harness", "id": "MP[relaxed-xcta-sys]", "programs": 4, "block": 4, "iterations": 2, "seed": 1,
     "harness": True},
    # another role at home (Stress.role_map): it plays each instance in the instance's own program
    {"name": "IRIW-home2", "id": "IRIW[relaxed-sys]", "programs": 4, "block": 4, "iterations": 2, "seed": 9, "home": 2},
    {"name": "WRC-home1-unshuffled", "id": "WRC[relacq-sys]", "programs": 3, "block": 8, "iterations": 1, "seed": None,
     "home": 1},
] + [
    # every program plays the roles in the rotation starting at role pid % R; a spinning test keeps one order
    {"name": f"{tid}-rotated-G{g}", "id": tid, "programs": g, "block": 4, "iterations": 2, "seed": 5 + g,
     "rotation": True}
    for tid in ("IRIW[relaxed-sys]", "WRC[relacq-sys]", "MP[relacq-samecta-sys]", "SYMM-barrier-p1[p1-acqrel-sys]")
    for g in (3, 4)
]
SPIN_BOUND = 2


def run_interpreted(module: str, cases: list[dict]) -> dict:
    """Run runner ``module`` (``tests.codegen.<name>``) on ``cases`` under TRITON_INTERPRET=1 in a
    subprocess; its JSON answer (the last line of its stdout)."""
    import json
    import os
    import subprocess
    import sys

    # keep the caller's PYTHONPATH (where carried packages such as pydantic may live)
    path = os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH", "")) if p)
    env = dict(os.environ, TRITON_INTERPRET="1", PYTHONPATH=path)
    proc = subprocess.run([sys.executable, "-m", module, json.dumps(cases)],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])


def case_layout(case: dict, mode: str):
    """The layout of ``case``'s test (with coverage counters) in ``mode`` on the interpreter."""
    from litmus.codegen import CodegenOptions, generate

    return generate(with_coverage(load_case_test(case["id"])),
                    CodegenOptions(backend="interpreter", mode=mode, block=case["block"])).layout


def assert_instance_matches(got: dict, x: int, test: LitmusTest, layout, orders: list, program_of: dict,
                            name: str, iteration: int = 0) -> None:
    """Instance ``x`` of a runner's answer ``got`` (registers, final memory, status bits) is what
    :func:`simulate` predicts when thread ``t`` runs in program ``program_of[t]`` (program ``p``
    running the ops in ``orders[(p + iteration) % len(orders)]``)."""
    from litmus.codegen.layout import HUNG_BIT

    regs, mem, timeouts, hung = simulate(test, orders, program_of, proves=layout.wait_slot is not None and layout.quiet_proof,
                                         iteration=iteration)
    row = got["out"][x]
    for col, key in enumerate(layout.out_columns[:-1]):
        thread, reg = key.split(":", 1)
        assert row[col] == regs[thread].get(reg, 0), (name, x, key, program_of)
    for loc, values in got["locs"].items():
        assert values[x] == mem[loc], (name, x, loc, program_of)
    bits = sum(1 << s.bit for s in layout.spins if (s.thread, s.index) in timeouts) | (HUNG_BIT if hung else 0)
    assert row[layout.status_column] == bits, (name, x, program_of)


def runner_answer(out, heaps, layout, n: int, perms: list, source_text: str, **extra: object) -> dict:
    """What an interpreter runner prints for one case: ``out``'s rows, every location's value per
    instance, the perm rows, the emitted op order, and ``extra``."""
    from litmus.run.buffers import location_columns

    return {"out": out.tolist(), "locs": {loc.name: col.tolist() for loc, col in
                                           zip(layout.locations, location_columns(heaps, layout, n))},
            "perms": perms, "orders": emitted_orders(source_text), **extra}


def assert_grid_run_matches(got: dict, case: dict, test: LitmusTest, layout) -> None:
    """Every instance of a grid-mode runner's answer ``got`` for ``case`` is what
    :func:`simulate` predicts from the programs the mirror (:func:`grid_placement`) gives it."""
    orders = [[tuple(op) for op in order] for order in got["orders"]]
    for x, where in enumerate(grid_placement(layout, case, got["perms"])):
        [iteration] = {it for _, it in where.values()}
        assert_instance_matches(got, x, test, layout, orders, {t: prog for t, (prog, _) in where.items()}, case["name"],
                                iteration)


def grid_placement(layout, case: dict, perms: list) -> list[dict[str, tuple[int, int]]]:
    """For every instance of a grid-mode ``case`` run (``programs``, ``block``, ``iterations``)
    with ``perms``, ``(program, iteration)`` per thread, from the mirror
    (:func:`litmus.run.buffers.grid_instance`); a thread that plays an instance twice fails."""
    from litmus.run.buffers import grid_instance, slot_lane

    p, block, iters = case["programs"], case["block"], case["iterations"]
    where: list[dict[str, tuple[int, int]]] = [{} for _ in range(p * block * iters)]
    for role, names in enumerate(layout.kernel(None).roles):
        row = tuple(perms[layout.threads.index(names[0])])
        for slot, name in enumerate(names):
            own = tuple(perms[layout.threads.index(name)])
            for b in range(p):
                for lane in range(block):
                    for it in range(iters):
                        x = grid_instance(row, b, slot_lane(own, slot, lane, block), it, p * block, block)
                        assert name not in where[x], f"{case['name']}: {name} plays instance {x} twice"
                        where[x][name] = (role * p + b, it)
    return where


def load_case_test(test_id: str) -> LitmusTest:
    """The catalog test ``test_id``."""
    from litmus.spec import find_pattern

    name = test_id.split("[", 1)[0]
    return next(t for t in find_pattern(name, [ROOT / "catalog"]) if t.id == test_id)


def with_coverage(test: LitmusTest) -> LitmusTest:
    """``test`` with one more location per thread, ``cov_<thread>``, that the thread increments
    as its last op: afterwards every instance's counters are 1 iff every thread played every
    instance exactly once."""
    locs = tuple(Location(f"cov_{t.name}", 0, t.rank) for t in test.threads)
    threads = tuple(replace(t, instrs=t.instrs + (Rmw("add", None, f"cov_{t.name}", Const(1)),))
                    for t in test.threads)
    return replace(test, locations=test.locations + locs, threads=threads)


def emitted_order(source_text: str) -> list[tuple[str, int]]:
    """``(thread, op index)`` in the order the generated kernel runs them (its ``# --- P0[i]`` lines)."""
    return [(m.group(1), int(m.group(2))) for m in re.finditer(r"# --- (\w+)\[(\d+)\]", source_text)]


def emitted_orders(source_text: str) -> list[list[tuple[str, int]]]:
    """The op order of each alternative a kernel's programs take in turn
    (``litmus.codegen.roles.order_branches``: program ``p`` runs ``orders[p % len(orders)]``):
    alternative ``k`` holds the ops outside every ``play_order`` branch and those of branch ``k``,
    in text order (in grid mode every role's, each program running its own role's)."""
    header = re.compile(r"^(\s*)(?:(?:if|elif) play_order == (\d+):|else:  # play_order == (\d+))$")
    ops: list[tuple[int | None, tuple[str, int]]] = []
    branch: tuple[int, int] | None = None  # (indent of the header, alternative)
    for line in source_text.splitlines():
        indent = len(line) - len(line.lstrip())
        if m := header.match(line):
            branch = (len(m.group(1)), int(m.group(2) or m.group(3)))
            continue
        if branch is not None and line.strip() and indent <= branch[0]:
            branch = None
        if m := re.search(r"# --- (\w+)\[(\d+)\]", line):
            ops.append((branch[1] if branch else None, (m.group(1), int(m.group(2)))))
    n = 1 + max((k for k, _ in ops if k is not None), default=0)
    return [[op for k, op in ops if k in (None, alt)] for alt in range(n)]


def _rmw(op: str, old: int, value: int) -> int:
    return {"add": old + value, "exch": value, "and": old & value, "or": old | value, "xor": old ^ value,
            "min": min(old, value), "max": max(old, value)}[op]


def simulate(test: LitmusTest, orders: list[list[tuple[str, int]]], program_of: dict[str, int],
             proves: bool = False, iteration: int = 0) -> tuple[dict, dict, set, set]:
    """Registers, final memory, timed-out and proven-hung ``(thread, op index)`` of one
    instance of iteration ``iteration`` whose thread ``t`` runs in program ``program_of[t]``,
    program ``p``'s ops in the kernel's emitted order ``orders[(p + iteration) % len(orders)]``.  With ``proves`` (a kernel that proves its hangs), a spin that cannot exit is
    hung, not timed out, when every other thread's program ran before its own (they all
    finished: the proof succeeds)."""
    def pos(op: tuple[str, int]) -> int:
        return orders[(program_of[op[0]] + iteration) % len(orders)].index(op)

    events = sorted(orders[0], key=lambda op: (program_of[op[0]], pos(op)))
    mem = {loc.name: loc.init for loc in test.locations}
    regs = {t.name: dict(t.reg_init) for t in test.threads}
    timeouts, hung = set(), set()
    waiting: dict[str, str | None] = {t.name: None for t in test.threads}  # the label a branch went to
    branch = {b: COMPARE[c] for b, c in BRANCH_CMP.items()}
    compute = {"mov": lambda a, b: a, "add": lambda a, b: a + b, "sub": lambda a, b: a - b,
               "mul": lambda a, b: a * b, "and": lambda a, b: a & b, "or": lambda a, b: a | b,
               "xor": lambda a, b: a ^ b, "shl": lambda a, b: a << b, "shr": lambda a, b: a >> b}
    for name, i in events:
        ins = test.thread(name).instrs[i]
        r = regs[name]
        val = (lambda o: o.value if isinstance(o, Const) else r.get(o.name, 0))
        if isinstance(ins, Label):
            if waiting[name] == ins.name:
                waiting[name] = None
            continue
        if waiting[name] is not None:
            continue  # skipped by a forward branch, as the kernel's lane mask does
        if isinstance(ins, Branch):
            if ins.cond is None or branch[ins.cond](val(ins.lhs), val(ins.rhs)):
                waiting[name] = ins.target
            continue
        if isinstance(ins, Compute):
            r[ins.dst] = compute[ins.op](val(ins.a), val(ins.b) if ins.b is not None else 0)
            continue
        if isinstance(ins, Load):
            r[ins.reg] = mem[ins.loc]
        elif isinstance(ins, Store):
            mem[ins.loc] = val(ins.value)
        elif isinstance(ins, Rmw):
            old = mem[ins.loc]
            if ins.op == "cas":
                if old == val(ins.expected):
                    mem[ins.loc] = val(ins.value)
            else:
                mem[ins.loc] = _rmw(ins.op, old, val(ins.value))
            if ins.reg is not None:
                r[ins.reg] = old
        elif isinstance(ins, Spin):
            old = mem[ins.loc]
            if spin_exits(ins, old) and ins.read.kind == "cas":
                mem[ins.loc] = ins.read.reset
            if not spin_exits(ins, old):
                alone = all(program_of[t.name] < program_of[name] for t in test.threads if t.name != name)
                (hung if proves and alone else timeouts).add((name, i))
            if ins.reg is not None:
                r[ins.reg] = old
        elif not isinstance(ins, (Fence, Barrier)):
            raise TypeError(ins)
    return regs, mem, timeouts, hung
