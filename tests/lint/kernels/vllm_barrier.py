"""A vLLM-style two-slot counter barrier (custom all-reduce's ``peer_counter[val % 2]``).

Each CTA keeps its round counter ``val``; thread r writes ``val`` into this rank's slot of
rank r's signal pad, in the half ``val % 2``, with a release at sys scope, then waits until
rank r's slot in its own pad holds ``val`` (acquire).  Counting rounds in two alternating
slots means no slot is ever reset, so no reset can race the next round's signal.  The broken
form uses one slot holding a 1, reset with a plain ``tl.store(slot, 0)`` after the wait: the
reset can land after a fast peer's next signal, and the next wait hangs.
"""

import triton
import triton.language as tl


@triton.jit
def two_slot_barrier_ok(signal_ptrs: "*i64", counters: "*i32", buffer_ptrs: "*i64", out: "*fp32",
                        rank: tl.constexpr, WS: tl.constexpr, GRID: tl.constexpr, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mine = tl.load(buffer_ptrs + rank).to(tl.pointer_type(tl.float32))
    tl.store(mine + offs, tl.full([BLOCK], 1.0, tl.float32))
    val = tl.load(counters + pid) + 1
    slot = val % 2
    peers = tl.arange(0, WS)
    peer_pads = tl.load(signal_ptrs + peers).to(tl.pointer_type(tl.int32))
    tl.debug_barrier()
    tl.atomic_xchg(peer_pads + (slot * GRID + pid) * WS + rank, val + peers * 0, sem="release", scope="sys")
    own_pad = tl.load(signal_ptrs + rank).to(tl.pointer_type(tl.int32))
    for p in tl.static_range(WS):
        while tl.atomic_add(own_pad + (slot * GRID + pid) * WS + p, 0, sem="acquire", scope="sys") != val:
            pass
    tl.debug_barrier()
    peer = tl.load(buffer_ptrs + (rank + 1) % WS).to(tl.pointer_type(tl.float32))
    tl.store(out + offs, tl.load(peer + offs))
    tl.store(counters + pid, val)


@triton.jit
def one_slot_barrier_broken(signal_ptrs: "*i64", buffer_ptrs: "*i64", out: "*fp32",
                            rank: tl.constexpr, WS: tl.constexpr, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mine = tl.load(buffer_ptrs + rank).to(tl.pointer_type(tl.float32))
    tl.store(mine + offs, tl.full([BLOCK], 1.0, tl.float32))
    peers = tl.arange(0, WS)
    peer_pads = tl.load(signal_ptrs + peers).to(tl.pointer_type(tl.int32))
    tl.debug_barrier()
    tl.atomic_xchg(peer_pads + pid * WS + rank, 1 + peers * 0, sem="release", scope="sys")
    own_pad = tl.load(signal_ptrs + rank).to(tl.pointer_type(tl.int32))
    for p in tl.static_range(WS):
        while tl.atomic_add(own_pad + pid * WS + p, 0, sem="acquire", scope="sys") != 1:
            pass
        tl.store(own_pad + pid * WS + p, 0)  # L:reset
    tl.debug_barrier()
    peer = tl.load(buffer_ptrs + (rank + 1) % WS).to(tl.pointer_type(tl.float32))
    tl.store(out + offs, tl.load(peer + offs))


LITMUS_LINT = {
    "two_slot_barrier_ok": {"signature": {"rank": 0, "WS": 2, "GRID": 4, "BLOCK": 128}},
    "one_slot_barrier_broken": {"signature": {"rank": 0, "WS": 2, "BLOCK": 128}},
}
