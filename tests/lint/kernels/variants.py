"""The catalog variants the real-shaped kernels do not reach, each in a broken and a sound form:
scope too narrow on a marked peer argument (cta) and on a translated CAS spin, a volatile store
raising a flag (inline asm), a relaxed CAS raising one, a Triton-level barrier on symm_mem pads
at gpu scope, a relaxed barrier wait after an acq_rel send, a relaxed spin before vector loads,
an acquire wait by some threads (inline asm) before the CTA's loads, and a CAS signal in every
round of a loop. Lines the tests look for carry a ``# L:<tag>`` comment."""

import triton
import triton.language as tl


@triton.jit
def translate(ptr, cur_rank: tl.constexpr, to_rank: tl.constexpr, heap_bases):
    from_base = tl.load(heap_bases + cur_rank)
    to_base = tl.load(heap_bases + to_rank)
    offset = tl.cast(ptr, tl.uint64) - from_base
    return tl.cast(tl.cast(to_base, tl.pointer_type(tl.int8)) + offset, ptr.dtype)


# -- peer-scope: an argument marked as a peer's (LITMUS_LINT below), scope="cta" ----------------

@triton.jit
def marked_peer_cta(data: "*i32", flag: "*i32"):
    tl.store(data, 1)
    tl.atomic_xchg(flag, 1, sem="release", scope="cta")  # L:cta-scope


@triton.jit
def marked_peer_sys(data: "*i32", flag: "*i32"):
    tl.store(data, 1)
    tl.atomic_xchg(flag, 1, sem="release", scope="sys")


# -- peer-scope: an iris CAS wait on a translated flag at gpu scope ------------------------------

@triton.jit
def cas_wait_peer_gpu(data: "*i32", flag: "*i32", out: "*i32", heap_bases: "*u64", cur_rank: tl.constexpr,
                      from_rank: tl.constexpr):
    while tl.atomic_cas(translate(flag, cur_rank, from_rank, heap_bases), 1, 0, sem="acquire",  # L:cas-scope
                        scope="gpu") != 1:
        pass
    tl.store(out, tl.load(translate(data, cur_rank, from_rank, heap_bases)))


@triton.jit
def cas_wait_peer_sys(data: "*i32", flag: "*i32", out: "*i32", heap_bases: "*u64", cur_rank: tl.constexpr,
                      from_rank: tl.constexpr):
    while tl.atomic_cas(translate(flag, cur_rank, from_rank, heap_bases), 1, 0, sem="acquire",
                        scope="sys") != 1:
        pass
    tl.store(out, tl.load(translate(data, cur_rank, from_rank, heap_bases)))


# -- relaxed-signal: a volatile store (inline asm), a relaxed CAS --------------------------------

@triton.jit
def volatile_store_signal(data: "*i32", flag: "*i32"):
    tl.store(data, 1)
    tl.inline_asm_elementwise("st.volatile.global.b32 [$1], 1; mov.u32 $0, 0;", "=r,l", [flag],  # L:volatile-store
                              dtype=tl.int32, is_pure=False, pack=1)


@triton.jit
def release_store_signal(data: "*i32", flag: "*i32"):
    tl.store(data, 1)
    tl.inline_asm_elementwise("st.release.sys.global.b32 [$1], 1; mov.u32 $0, 0;", "=r,l", [flag],
                              dtype=tl.int32, is_pure=False, pack=1)


@triton.jit
def relaxed_cas_signal(data: "*i32", flag: "*i32"):
    tl.store(data, 1)
    tl.atomic_cas(flag, 0, 1, sem="relaxed", scope="sys")  # L:relaxed-cas


@triton.jit
def release_cas_signal(data: "*i32", flag: "*i32"):
    tl.store(data, 1)
    tl.atomic_cas(flag, 0, 1, sem="release", scope="sys")


# -- a barrier on symm_mem pads written with tl.atomic_cas: gpu scope; a relaxed wait -------------

@triton.jit
def pad_barrier_gpu(buffer_ptrs: "*i64", signal_pad_ptrs: "*i64", out: "*i32", rank: tl.constexpr,
                    peer: tl.constexpr):
    bufs = buffer_ptrs.to(tl.pointer_type(tl.uint64))
    tl.store(tl.load(bufs + rank).to(tl.pointer_type(tl.int32)), 1)
    pads = signal_pad_ptrs.to(tl.pointer_type(tl.uint64))
    send = tl.load(pads + peer).to(tl.pointer_type(tl.int32)) + rank
    wait = tl.load(pads + rank).to(tl.pointer_type(tl.int32)) + peer
    while tl.atomic_cas(send, 0, 1, sem="release", scope="gpu") != 0:  # L:pad-gpu
        pass
    while tl.atomic_cas(wait, 1, 0, sem="acquire", scope="sys") != 1:
        pass
    tl.store(out, tl.load(tl.load(bufs + peer).to(tl.pointer_type(tl.int32))))


@triton.jit
def pad_barrier_gpu_nodata(buffer_ptrs: "*i64", signal_pad_ptrs: "*i64", out: "*i32", rank: tl.constexpr,
                           peer: tl.constexpr):
    # symm_mem pattern 0 (no data of this kernel before the barrier), pads at gpu scope
    pads = signal_pad_ptrs.to(tl.pointer_type(tl.uint64))
    send = tl.load(pads + peer).to(tl.pointer_type(tl.int32)) + rank
    wait = tl.load(pads + rank).to(tl.pointer_type(tl.int32)) + peer
    while tl.atomic_cas(send, 0, 1, sem="relaxed", scope="gpu") != 0:  # L:p0-gpu-send
        pass
    while tl.atomic_cas(wait, 1, 0, sem="relaxed", scope="gpu") != 1:  # L:p0-gpu-wait
        pass
    tl.store(out, tl.load(tl.load(buffer_ptrs.to(tl.pointer_type(tl.uint64)) + peer).to(tl.pointer_type(tl.int32))))


@triton.jit
def pad_barrier_relaxed_wait(buffer_ptrs: "*i64", signal_pad_ptrs: "*i64", out: "*i32", rank: tl.constexpr,
                             peer: tl.constexpr):
    bufs = buffer_ptrs.to(tl.pointer_type(tl.uint64))
    tl.store(tl.load(bufs + rank).to(tl.pointer_type(tl.int32)), 1)
    pads = signal_pad_ptrs.to(tl.pointer_type(tl.uint64))
    send = tl.load(pads + peer).to(tl.pointer_type(tl.int32)) + rank
    wait = tl.load(pads + rank).to(tl.pointer_type(tl.int32)) + peer
    while tl.atomic_cas(send, 0, 1, sem="release", scope="sys") != 0:
        pass
    while tl.atomic_cas(wait, 1, 0, sem="relaxed", scope="sys") != 1:  # L:pad-relaxed-wait
        pass
    tl.store(out, tl.load(tl.load(bufs + peer).to(tl.pointer_type(tl.int32))))


@triton.jit
def pad_barrier_acqrel(buffer_ptrs: "*i64", signal_pad_ptrs: "*i64", out: "*i32", rank: tl.constexpr,
                       peer: tl.constexpr):
    bufs = buffer_ptrs.to(tl.pointer_type(tl.uint64))
    tl.store(tl.load(bufs + rank).to(tl.pointer_type(tl.int32)), 1)
    pads = signal_pad_ptrs.to(tl.pointer_type(tl.uint64))
    send = tl.load(pads + peer).to(tl.pointer_type(tl.int32)) + rank
    wait = tl.load(pads + rank).to(tl.pointer_type(tl.int32)) + peer
    while tl.atomic_cas(send, 0, 1, sem="release", scope="sys") != 0:
        pass
    while tl.atomic_cas(wait, 1, 0, sem="acquire", scope="sys") != 1:
        pass
    tl.store(out, tl.load(tl.load(bufs + peer).to(tl.pointer_type(tl.int32))))


# -- a relaxed spin, then the CTA's vector loads (after a barrier) -------------------------------

@triton.jit
def relaxed_spin_block(data: "*fp32", flag: "*i32", out: "*fp32", BLOCK: tl.constexpr):
    while tl.atomic_add(flag, 0, sem="relaxed", scope="sys") != 1:  # L:relaxed-spin
        pass
    tl.debug_barrier()
    offs = tl.arange(0, BLOCK)
    tl.store(out + offs, tl.load(data + offs))


@triton.jit
def acquire_spin_block(data: "*fp32", flag: "*i32", out: "*fp32", BLOCK: tl.constexpr):
    while tl.atomic_add(flag, 0, sem="acquire", scope="sys") != 1:
        pass
    tl.debug_barrier()
    offs = tl.arange(0, BLOCK)
    tl.store(out + offs, tl.load(data + offs))


# -- an acquire wait by some threads (inline asm), then the CTA's vector loads -------------------

@triton.jit
def asm_wait(flag):
    tl.inline_asm_elementwise(
        """
        {
            .reg .u32   %tmp32_<1>;
            .reg .pred  %p<1>;
            wait_flag:
                atom.global.acquire.sys.cas.b32 %tmp32_0, [$1], 1, 0;
                setp.eq.u32 %p0, %tmp32_0, 1;
                @!%p0 bra wait_flag;
        }
        """,
        "=r, l", [flag], dtype=tl.int32, is_pure=False, pack=1)


@triton.jit
def asm_wait_nobar(data: "*fp32", flag: "*i32", out: "*fp32", BLOCK: tl.constexpr):
    asm_wait(flag)  # L:asm-wait
    offs = tl.arange(0, BLOCK)
    tl.store(out + offs, tl.load(data + offs))  # L:asm-wait-load


@triton.jit
def asm_wait_bar(data: "*fp32", flag: "*i32", out: "*fp32", BLOCK: tl.constexpr):
    asm_wait(flag)
    tl.debug_barrier()
    offs = tl.arange(0, BLOCK)
    tl.store(out + offs, tl.load(data + offs))


# -- a CAS signal in every round of a loop, with and without the wait for the reset ---------------

@triton.jit
def cas_signal_every_round(data: "*i32", flag: "*i32", n: "i32"):
    for i in range(n):
        tl.store(data, i)
        tl.atomic_cas(flag, 0, 1, sem="release", scope="gpu")  # L:cas-reuse


@triton.jit
def cas_signal_after_reset(data: "*i32", flag: "*i32", n: "i32"):
    for i in range(n):
        while tl.atomic_add(flag, 0, sem="acquire", scope="gpu") != 0:
            pass
        tl.store(data, i)
        tl.atomic_cas(flag, 0, 1, sem="release", scope="gpu")


LITMUS_LINT = {
    "marked_peer_cta": {"peer": ["flag"]},
    "marked_peer_sys": {"peer": ["flag"]},
    "cas_wait_peer_gpu": {"signature": {"cur_rank": 0, "from_rank": 1}},
    "cas_wait_peer_sys": {"signature": {"cur_rank": 0, "from_rank": 1}},
    **{k: {"signature": {"rank": 0, "peer": 1}} for k in ("pad_barrier_gpu", "pad_barrier_gpu_nodata",
                                                           "pad_barrier_relaxed_wait", "pad_barrier_acqrel")},
    **{k: {"signature": {"BLOCK": 128}} for k in ("relaxed_spin_block", "acquire_spin_block", "asm_wait_nobar",
                                                   "asm_wait_bar")},
}
