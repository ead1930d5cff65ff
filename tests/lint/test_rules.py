"""Every finding, and every absence of one, on real-shaped kernels: symm_mem's blockwise
barrier (patterns 0-2), iris put/get, a tritonbench lock, a vLLM two-slot counter barrier."""

from __future__ import annotations

import pytest

from tests.lint.conftest import line_of, linted


def found(name: str) -> set[tuple[str, str, int, str]]:
    return {(f.rule, f.kernel, f.site.line, f.pattern) for f in linted(name).findings}


def kernels_with_findings(name: str) -> set[str]:
    return {f.kernel for f in linted(name).findings}


def test_symm_mem_barrier_patterns() -> None:
    name = "symm_mem_barrier"
    p0 = line_of(name, "p0-barrier")
    p1 = line_of(name, "p1-barrier")
    p1n = line_of(name, "p1n-barrier")
    assert found(name) == {
        ("block-publish", "pattern0_broken", p0, "SYMM-barrier-p1[acqrel-nopre-sys]"),
        ("relaxed-signal", "pattern0_broken", p0, "SYMM-barrier-p0[inkernel-write]"),
        ("block-publish", "pattern1_nopre", p1, "SYMM-barrier-p1[acqrel-nopre-sys]"),
        ("consumer-block", "pattern1_nopost", p1n, "SYMM-barrier-p1[acqrel-nopost-sys]"),
        ("barrier-war", "pattern2_broken", line_of(name, "p2-store"), "SYMM-barrier-p2[p2-relaxed]"),
    }
    # the correct forms: no finding at all
    assert not kernels_with_findings(name) & {"pattern0_ok", "pattern1_ok", "pattern2_ok"}


def test_symm_mem_findings_point_into_the_helpers() -> None:
    f = next(f for f in linted("symm_mem_barrier").findings if f.rule == "consumer-block")
    inner = [fr.line for fr in f.site.via]
    assert line_of("symm_mem_barrier", "wait") in inner
    assert line_of("symm_mem_barrier", "wait-acquire") in inner
    assert f.related[0].line == line_of("symm_mem_barrier", "p1n-load")


def test_symm_mem_pattern0_is_noted_not_flagged() -> None:
    notes = [n for n in linted("symm_mem_barrier").notes if "pattern 0" in n]
    assert len(notes) == 1 and "earlier kernels" in notes[0]


def test_iris_put_get() -> None:
    assert found("iris_ok") == set()
    assert found("iris_broken") == {
        ("peer-scope", "put_producer", line_of("iris_broken", "put-scope"), "MP[relacq-xgpu-gpu]"),
        ("volatile-poll", "get_consumer", line_of("iris_broken", "get-poll"), "MP-iris-volatile[volatile-as-written]"),
    }
    poll = next(f for f in linted("iris_broken").findings if f.rule == "volatile-poll")
    assert poll.related[0].line == line_of("iris_broken", "get-load")
    assert "tl.load(volatile=True)" in poll.message and "sem='acquire'" in poll.fix


def test_iris_heap_translation_is_peer_memory() -> None:
    k = next(k for k in linted("iris_ok").kernels if k.name == "put_producer")
    flag = next(e for e in k.events.events if e.kind == "atomic")
    assert (flag.ptr.origin, flag.ptr.root) == ("translated", "flag")
    store = next(e for e in k.events.events if e.kind == "store")
    assert (store.ptr.origin, store.ptr.root) == ("translated", "data")


def test_tritonbench_lock() -> None:
    assert found("tritonbench_lock") == {
        ("block-publish", "splitk_fixup_broken", line_of("tritonbench_lock", "lock-xchg"),
         "MP-block[nobar-release-sys]"),
    }
    f = linted("tritonbench_lock").findings[0]
    assert f.related[0].line == line_of("tritonbench_lock", "lock-store")
    assert "tl.debug_barrier()" in f.fix
    # a lock on one GPU: gpu scope on a plain pointer argument is right, and is not flagged
    assert not any(f.rule == "peer-scope" for f in linted("tritonbench_lock").findings)


def test_triton_tutorial_mutex() -> None:
    name = "triton_tutorial_lock"
    assert found(name) == {
        ("block-publish", "dw_accumulate_nobarrier", line_of(name, "nobar-unlock"), "MP-block[nobar-release-sys]"),
        ("relaxed-signal", "dw_accumulate_plain_unlock", line_of(name, "plain-unlock"), "MP-iris[plain-signal-sys]"),
    }
    # the tutorial's own form: the Count xchg inside the critical section is data the lock guards,
    # and the tl.store to DX before the lock is not what the release publishes
    assert "dw_accumulate_ok" not in kernels_with_findings(name)
    nobar = next(f for f in linted(name).findings if f.kernel == "dw_accumulate_nobarrier")
    assert nobar.related[0].line == line_of(name, "nobar-store")
    plain = next(f for f in linted(name).findings if f.kernel == "dw_accumulate_plain_unlock")
    assert plain.message.startswith("mutex released by a plain tl.store")


def test_vllm_two_slot_counter_barrier() -> None:
    assert found("vllm_barrier") == {
        ("plain-reset", "one_slot_barrier_broken", line_of("vllm_barrier", "reset"),
         "MP-reset-race[relacq-plain-reset]"),
    }
    f = linted("vllm_barrier").findings[0]
    assert f.verdict.may_hang and not f.verdict.bug_allowed
    # the counter's exit value is read at run time: said, not guessed
    assert any("exit value is not a constant" in n for n in linted("vllm_barrier").notes)


@pytest.mark.parametrize("name", ["symm_mem_barrier", "iris_broken", "tritonbench_lock", "vllm_barrier",
                                  "triton_tutorial_lock", "rule_shapes", "variants"])
def test_every_finding_is_one_the_model_calls_incorrect(name: str) -> None:
    report = linted(name)
    assert report.findings and report.incorrect == report.findings
    for f in report.findings:
        assert f.verdict.why and f.verdict.source_file.endswith(".yaml")


def test_rule_shapes() -> None:
    name = "rule_shapes"
    assert found(name) == {
        ("relaxed-signal", "relaxed_signal", line_of(name, "relaxed-signal"), "MP[relaxed-xgpu-sys]"),
        ("relaxed-signal", "plain_signal", line_of(name, "plain-signal"), "MP-iris[plain-signal-sys]"),
        ("volatile-poll", "relaxed_cas_wait", line_of(name, "relaxed-wait"), "MP-iris[relaxed-wait-sys]"),
        ("signal-reuse", "signal_every_round", line_of(name, "reuse"), "MP-reset-race[relacq-plain-reset]"),
        ("plain-reset", "relaxed_reset", line_of(name, "relaxed-reset"),
         "MP-iris-reset-war[relaxed-reset-after-read]"),
        ("relaxed-signal", "last_block_relaxed", line_of(name, "ticket"), "MP[relaxed-xgpu-sys]"),
    }
    # the sound forms: a release written as fence + relaxed, an acquire as relaxed + fence, a wait for
    # the reset before each round, a release reset, an atomic_add that is a reduction, and a flag per
    # element raised by the thread that stored the element
    assert not kernels_with_findings(name) & {"fence_then_relaxed_signal", "relaxed_wait_then_fence",
                                              "signal_after_reset", "release_reset", "reduction",
                                              "flag_per_element", "last_block_ok", "count_stores"}
    notes = "\n".join(linted(name).notes)
    assert "kernel reduction raises and waits for no flag" in notes
    assert "flag_per_element raises" not in notes


def test_variants() -> None:
    name = "variants"
    assert found(name) == {
        ("peer-scope", "marked_peer_cta", line_of(name, "cta-scope"), "MP[relacq-xgpu-cta]"),
        ("peer-scope", "cas_wait_peer_gpu", line_of(name, "cas-scope"), "MP-iris[relacq-gpu-xgpu]"),
        ("relaxed-signal", "volatile_store_signal", line_of(name, "volatile-store"), "MP-mixed[volatile-xgpu]"),
        ("relaxed-signal", "relaxed_cas_signal", line_of(name, "relaxed-cas"), "MP-iris[relaxed-signal-sys]"),
        ("peer-scope", "pad_barrier_gpu", line_of(name, "pad-gpu"), "SYMM-barrier[relaxed-gpu-xgpu]"),
        ("peer-scope", "pad_barrier_gpu_nodata", line_of(name, "p0-gpu-send"), "SYMM-barrier[relaxed-gpu-xgpu]"),
        ("peer-scope", "pad_barrier_gpu_nodata", line_of(name, "p0-gpu-wait"), "SYMM-barrier[relaxed-gpu-xgpu]"),
        ("volatile-poll", "pad_barrier_relaxed_wait", line_of(name, "pad-relaxed-wait"),
         "SYMM-barrier-p1[recipes-nobar-acq-sys]"),
        ("volatile-poll", "relaxed_spin_block", line_of(name, "relaxed-spin"), "MP-block-consumer[bar-relaxed-sys]"),
        ("consumer-block", "asm_wait_nobar", line_of(name, "asm-wait"), "MP-block-consumer[nobar-acquire-sys]"),
        ("signal-reuse", "cas_signal_every_round", line_of(name, "cas-reuse"),
         "MP-reset-race[iris-cas-signal-cas-reset]"),
    }
    # the sound forms: sys scope, a release store or CAS, the acq_rel barrier, an acquire spin, a
    # barrier after the asm wait, a wait for the reset before each CAS signal
    assert not kernels_with_findings(name) & {
        "marked_peer_sys", "cas_wait_peer_sys", "release_store_signal", "release_cas_signal", "pad_barrier_acqrel",
        "acquire_spin_block", "asm_wait_bar", "cas_signal_after_reset"}
    f = next(f for f in linted(name).findings if f.rule == "consumer-block")
    assert f.related[0].line == line_of(name, "asm-wait-load")
    # the LITMUS_LINT mark on one kernel is not another's: flag is a plain argument elsewhere
    assert {k.name: sorted(k.peers) for k in linted(name).kernels}["relaxed_cas_signal"] == []


def test_every_catalog_variant_a_rule_names_is_found_in_some_test_kernel() -> None:
    from litmus.lint.rules import CATALOG_VARIANTS, COMPILER_VARIANTS
    from tests.lint.conftest import KERNELS

    seen = {f.pattern for p in KERNELS.glob("*.py") for f in linted(p.stem).findings}
    assert seen == set(CATALOG_VARIANTS + COMPILER_VARIANTS)


KEPT = '''
import triton
import triton.language as tl


@triton.jit
def kept(flag: "*i32", count: "*i32", data: "*fp32", out: "*fp32"):
    while tl.load(flag) == 0:
        tl.atomic_add(count, 1, sem="relaxed")
    tl.store(out, tl.load(data))
'''


def test_a_plain_spin_the_compiler_keeps_is_no_removed_spin(tmp_path) -> None:
    import textwrap

    from litmus.lint import lint_file

    path = tmp_path / "kept.py"
    path.write_text(textwrap.dedent(KEPT))
    report = lint_file(path)
    # the atomic in the body keeps the load in the loop: a spin on a weak read, judged as such
    assert [e.kind for e in report.kernels[0].events.events if e.kind == "spin"] == ["spin"]
    assert {f.rule for f in report.findings} == {"volatile-poll"}


def test_a_strong_inline_asm_access_is_no_payload() -> None:
    from litmus.lint.events import Event, Pointer, Site
    from litmus.lint.rules import Shape, is_payload

    ptr = Pointer("table", "pads", "ptr([pads])+r", False)
    acquire = Event("load", Site("k.py", 3), "inline asm `ld.acquire.sys.global.u32 $0, [$1]`", sem="acquire",
                    ptr=ptr)
    plain = Event("load", Site("k.py", 4), "tl.load", ptr=ptr)
    assert not is_payload(acquire, Shape()) and is_payload(plain, Shape())


PAIRED = '''
import triton
import triton.language as tl


@triton.jit
def translate(ptr, from_rank, to_rank, heap_bases):
    from_base = tl.load(heap_bases + from_rank)
    to_base = tl.load(heap_bases + to_rank)
    offset = tl.cast(ptr, tl.uint64) - from_base
    return tl.cast(tl.cast(to_base, tl.pointer_type(tl.int8)) + offset, ptr.dtype)


@triton.jit
def publish(C: "*fp32", flags: "*i32", heap_bases: "*u64", BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(C + offs, tl.full([BLOCK], 1.0, tl.float32))
    tl.atomic_add(translate(flags, 0, 1, heap_bases), 1, sem="release", scope="sys")
    while tl.atomic_add(translate(flags, 0, 0, heap_bases), 0, sem="acquire", scope="sys") < 1:
        pass


@triton.jit
def gather(C: "*fp32", out: "*fp32", heap_bases: "*u64", BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(out + offs, tl.load(translate(C + offs, 0, 1, heap_bases)))
'''


def test_a_store_the_paired_kernel_reads_through_a_peer_pointer_is_payload(tmp_path) -> None:
    import textwrap

    from litmus.lint import lint_file

    path = tmp_path / "paired.py"
    path.write_text(textwrap.dedent(PAIRED).replace("BLOCK: tl.constexpr", "BLOCK: tl.constexpr = 128"))
    # publish alone reads no peer memory of C: its tile store is local, so the barrier publishes nothing
    assert lint_file(path, "publish").findings == []
    # with gather in the file, C is read translated: the tile is payload, and the scalar add needs a barrier
    assert {(f.rule, f.kernel, f.pattern) for f in lint_file(path).findings} == {
        ("block-publish", "publish", "SYMM-barrier-p1[acqrel-nopre-sys]")}


TICKET_SEND = '''
import triton
import triton.language as tl


@triton.jit
def send_signal(addr):
    tl.inline_asm_elementwise(
        "{ .reg .u32 %t<1>; .reg .pred %p<1>; send: atom.global.release.sys.cas.b32 %t0, [$1], 0, 1; "
        "setp.eq.u32 %p0, %t0, 0; @!%p0 bra send; }", "=r, l", [addr], dtype=tl.int32, is_pure=False, pack=1)


@triton.jit
def tile_ticket(c: "*fp32", progress: "*i32", signal_pad: "*i32", n_tiles: "i32", BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    tl.store(c + offs, tl.full([BLOCK], 1.0, tl.float32))
    tl.debug_barrier()
    val = tl.atomic_add(progress, 1, sem="SEM", scope="gpu")
    if val == n_tiles - 1:
        send_signal(signal_pad)


LITMUS_LINT = {"tile_ticket": {"signature": {"BLOCK": 128}}}
'''


@pytest.mark.parametrize("sem", ["release", "relaxed", "acq_rel"])
def test_a_send_by_the_last_tickets_cta(tmp_path, sem: str) -> None:
    # kraken's GEMM + reduce-scatter: the CTA whose ticket completes the rank's tiles sends the
    # signal (a release set-spin) for every CTA's tiles; the ticket must acquire the others' adds
    from litmus.lint import lint_file
    from litmus.model import check
    from litmus.spec import load_text

    path = tmp_path / "ticket_send.py"
    path.write_text(TICKET_SEND.replace("SEM", sem))
    report = lint_file(path)
    found = [(f.rule, f.site.line, f.pattern) for f in report.findings]
    [pattern] = load_text(report.emit_yaml(), "ticket_send.yaml")
    if sem == "acq_rel":
        assert found == [] and not check(pattern).target_reachable
        return
    # a relaxed ticket is also no release of this CTA's tile
    assert found == [("relaxed-signal", 19, "MP[relaxed-xgpu-sys]")] * (sem == "relaxed") + [
        ("cross-cta-publish", 21, "MP-grid[ticket-release-sys]")]
    assert report.findings[-1].incorrect and f"sem='{sem}'" in report.findings[-1].message
    assert check(pattern).target_reachable
