"""The in-kernel run harness: per-program pre-stress and a start barrier before the test's ops.

Emitted only with ``CodegenOptions(harness=True)`` (the ``cuda`` run backend); the audit and the
interpreter backends compile the test without it.  Neither part is an event of the test: they
touch only a *control block*, an int32 buffer whose address is ``heap_ptrs[layout.n_ranks]``
(one entry after the rank heaps), laid out as below.  The host fills it before each launch
(``litmus.run.stress.control_header``); all zeros turns both parts off.

- **Pre-stress** (MC Mutants / GPUHarbor): each program first makes ``PRE_ITERS`` passes over
  the scratch words with the two-access pattern of ``PATTERN`` (bit 0: the first access
  stores, bit 1: the second), each lane walking its own pseudo-random addresses, so the test's
  accesses start while the memory system is busy.
- **Start barrier**: each program takes a ticket from ``ARRIVALS`` (one relaxed atomic add)
  and polls until the ``GROUP`` programs of its ticket group (the last group: up to ``TOTAL``)
  have arrived, or ``POLLS`` polls have passed.  Programs that are resident together thus
  begin their test ops together; the bound means a group that cannot all be resident only
  costs time, never a hang.
- **Barrier percentage** (parallel mode only, ``harness_lines(..., join=True)``): program
  ``pid`` joins the barrier only when ``(pid * JOIN_MUL + JOIN_ADD) % P < JOIN_COUNT`` (``P`` =
  ``progs_per_role``, the programs of the launch); the host picks ``JOIN_MUL`` co-prime with
  ``P``, so exactly ``JOIN_COUNT`` seeded programs join, and sets ``GROUP = TOTAL =
  JOIN_COUNT`` (``litmus.run.parallel.join_words``).
- **Order pick** (parallel mode only, ``order_pick_lines``): where a program takes several op
  orders in turn (``litmus.codegen.roles.order_branches``), program ``pid`` plays order
  ``(pid * (1 - ORDER_PID_OFF) + it * (1 - ORDER_IT_OFF) + ORDER_BASE) % n`` in iteration ``it``:
  all zeros is ``(pid + it) % n``; with ``ORDER_PID_OFF`` every program plays the same order in an
  iteration; with both ``*_OFF`` words every program plays order ``ORDER_BASE % n`` throughout
  (``litmus.run.stress.order_words``, ``Stress.order_pick``).
"""

from __future__ import annotations

ARRIVALS = 0  # start-barrier ticket counter (the host zeroes it every launch)
GROUP = 1  # programs per barrier group; 0 turns the barrier off
POLLS = 2  # most polls a program waits at the barrier
PRE_ITERS = 3  # pre-stress passes per program; 0 turns pre-stress off
PRE_MASK = 4  # scratch words - 1 (the scratch size is a power of two)
SEED = 5  # round seed: where each lane's walk starts
PATTERN = 6  # bit 0: first access stores; bit 1: second access stores
SINK = 7  # pre-stress loads are summed here, so the compiler keeps them
TOTAL = 8  # programs in the launch (the last barrier group may be smaller)
JOIN_MUL = 9  # parallel mode: multiplier of the seeded choice of barrier programs
JOIN_ADD = 10  # parallel mode: offset of that choice
JOIN_COUNT = 11  # parallel mode: programs that join the barrier
ORDER_PID_OFF = 12  # parallel mode: 1 drops pid from the order a program plays
ORDER_IT_OFF = 13  # parallel mode: 1 drops the iteration from it
ORDER_BASE = 14  # parallel mode: added to it
SCRATCH = 16  # first scratch word

HEADER_WORDS = SCRATCH
"""Control-block words before the scratch region."""


ORDER_PICK = "(pid * po_pid + it * po_it + po_base)"
"""The parallel kernel's order pick (:func:`order_pick_lines` defines its names)."""


def order_pick_lines() -> list[str]:
    """Program-level lines of a parallel kernel with the harness: the factors of
    :data:`ORDER_PICK`, read from the control block (``ctl``, defined by :func:`harness_lines`)."""
    return [f"po_pid = 1 - tl.load(ctl + {ORDER_PID_OFF})  # which op order a program plays: ORDER_PICK",
            f"po_it = 1 - tl.load(ctl + {ORDER_IT_OFF})",
            f"po_base = tl.load(ctl + {ORDER_BASE})"]


def harness_lines(n_ranks: int, join: bool = False) -> list[str]:
    """Kernel lines (role level; program level in parallel mode) that run pre-stress and then
    the start barrier; with ``join`` only the seeded ``JOIN_COUNT`` programs take part in it."""
    c = "ctl"
    return [
        "# --- harness (litmus.codegen.harness): pre-stress, then the start barrier; not test events",
        f"{c} = tl.load(heap_ptrs + {n_ranks}).to(tl.pointer_type(tl.int32))",
        f"hp_n = tl.load({c} + {PRE_ITERS})",
        "if hp_n > 0:",
        f"    hp_mask = tl.load({c} + {PRE_MASK})",
        f"    hp_pat = tl.load({c} + {PATTERN})",
        f"    hp_pos = (lane * 31 + pid * 7919 + tl.load({c} + {SEED})) & hp_mask",
        "    hp_acc = lane * 0",
        "    hp_i = 0",
        "    while hp_i < hp_n:",
        f"        hp_a = {c} + {SCRATCH} + hp_pos",
        f"        hp_b = {c} + {SCRATCH} + ((hp_pos + hp_mask // 2 + 1) & hp_mask)",
        "        if (hp_pat & 1) != 0:",
        "            tl.store(hp_a, hp_acc + hp_i)",
        "        else:",
        "            hp_acc += tl.load(hp_a, volatile=True)",
        "        if (hp_pat & 2) != 0:",
        "            tl.store(hp_b, hp_acc + pid)",
        "        else:",
        "            hp_acc += tl.load(hp_b, volatile=True)",
        "        hp_pos = (hp_pos * 1103515245 + 12345 + hp_i) & hp_mask",
        "        hp_i += 1",
        f"    tl.store({c} + {SINK}, tl.sum(hp_acc, 0))",
        f"hb_group = tl.load({c} + {GROUP})",
    ] + (_join_lines(c) if join else []) + [
        "if hb_group > 0:",
        f'    hb_ticket = tl.atomic_add({c} + {ARRIVALS}, 1, sem="relaxed", scope="gpu")',
        f"    hb_goal = tl.minimum((hb_ticket // hb_group + 1) * hb_group, tl.load({c} + {TOTAL}))",
        f"    hb_polls = tl.load({c} + {POLLS})",
        "    hb_seen = hb_ticket + 1",
        "    hb_k = 0",
        "    while (hb_seen < hb_goal) & (hb_k < hb_polls):",
        f"        hb_seen = tl.load({c} + {ARRIVALS}, volatile=True)",
        "        hb_k += 1",
    ]


def _join_lines(c: str) -> list[str]:
    """Lines that turn the barrier off (``hb_group = 0``) in programs not chosen to join it."""
    return [
        f"hb_sel = (pid * tl.load({c} + {JOIN_MUL}) + tl.load({c} + {JOIN_ADD})) % progs_per_role",
        f"if hb_sel >= tl.load({c} + {JOIN_COUNT}):",
        "    hb_group = hb_group * 0",
    ]
