"""generate(): the source is a valid module, every op maps as documented, layouts are consistent."""

from __future__ import annotations

import ast
import re

import pytest

from litmus.codegen import CodegenOptions, Features, build_layout, generate, load_kernel
from litmus.codegen.layout import KERNEL_ARGS
from litmus.errors import UnsupportedError
from litmus.ir import Barrier, Const, Fence, LitmusTest, Rmw, Thread
from tests.codegen import irs

NEW = Features(atomic_load=True, atomic_store=True, inline_asm=True)
OLD = Features(atomic_load=False, atomic_store=False, inline_asm=True)
NO_ASM = Features(atomic_load=False, atomic_store=False, inline_asm=False)
ALL_TESTS = [irs.mp_plain, irs.mp_cas_release_acquire, irs.mp_volatile, irs.mp_fences, irs.mp_barrier,
             irs.mp_cas_spin, irs.mp_load_spin, irs.mp_shared_cta, irs.every_op]


def _kernel_def(text: str, name: str) -> ast.FunctionDef:
    tree = ast.parse(text)
    return next(n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == name)


@pytest.mark.parametrize("make", ALL_TESTS, ids=lambda f: f.__name__)
@pytest.mark.parametrize("backend", ["cuda", "hip", "interpreter"])
@pytest.mark.parametrize("mode", ["grid", "rank"])
def test_source_is_python_with_the_documented_signature(make, backend, mode) -> None:
    src = generate(make(), CodegenOptions(backend=backend, mode=mode, features=NEW))
    compile(src.text, "<generated>", "exec")
    for k in src.layout.kernels:
        fn = _kernel_def(src.text, k.name)
        assert [a.arg for a in fn.args.args] == list(KERNEL_ARGS)
        assert len(re.findall(r"    if role == \d+:", src.text)) >= len(k.roles)


def test_every_op_maps_to_the_named_triton_call_on_cuda() -> None:
    text = generate(irs.every_op(), CodegenOptions(backend="cuda", features=NEW)).text
    assert "tl.store(a_T0_x, (zero + 1))" in text
    assert 'tl.atomic_store(a_T0_x, (zero + 2), sem="relaxed", scope="gpu")' in text
    assert 'tl.atomic_store(a_T0_x, (zero + 3), sem="release", scope="sys")' in text
    assert "st.volatile.global.b32 [$1], $2;" in text
    assert 'T0_r1 = tl.atomic_add(a_T0_y, (zero + 1), sem="relaxed", scope="gpu")' in text
    assert 'T0_r2 = tl.atomic_xchg(a_T0_y, (zero + 5), sem="acq_rel", scope="sys")' in text
    for call in ("atomic_and", "atomic_or", "atomic_xor", "atomic_min", "atomic_max"):
        assert f"tl.{call}(a_T0_y" in text
    assert 'T0_r4 = tl.atomic_cas(a_T0_y, (zero + 0), (zero + 9), sem="acquire", scope="sys")' in text
    assert '"fence.sc.sys; mov.u32 $0, 0;"' in text and '"fence.acq_rel.cta; mov.u32 $0, 0;"' in text
    assert "tl.debug_barrier()" in text
    assert "tl.store(a_T0_y, T0_r1)" in text  # a register operand
    assert "T1_r0 = tl.load(a_T1_x)" in text
    assert 'T1_r1 = tl.atomic_load(a_T1_x, sem="relaxed", scope="cta")' in text
    assert 'T1_r2 = tl.atomic_load(a_T1_x, sem="acquire", scope="gpu")' in text
    assert "T1_r3 = tl.load(a_T1_y, volatile=True)" in text
    assert "T0_r9 = zero + 3" in text  # reg_init


def test_without_atomic_load_store_cuda_emits_the_ptx_instructions_themselves() -> None:
    # triton 3.6 on NVIDIA: inline PTX ld/st with the asked sem and scope, no RMW stand-ins
    src = generate(irs.every_op(), CodegenOptions(backend="cuda", features=OLD))
    assert '"st.release.sys.global.b32 [$1], $2; mov.u32 $0, 0;"' in src.text
    assert 'T1_r2 = tl.inline_asm_elementwise("ld.acquire.gpu.global.b32 $0, [$1];", "=r,l", [a_T1_x]' in src.text
    assert '"ld.relaxed.cta.global.b32 $0, [$1];"' in src.text
    assert not any("ld." in f or "st." in f for f in src.fallbacks)


def test_without_atomic_load_store_or_inline_asm_the_fallbacks_are_named() -> None:
    src = generate(irs.every_op(), CodegenOptions(backend="cuda", features=NO_ASM))
    assert 'tl.atomic_xchg(a_T0_x, (zero + 3), sem="release", scope="sys")' in src.text
    assert 'T1_r2 = tl.atomic_add(a_T1_x, zero, sem="acquire", scope="gpu")' in src.text
    assert any("ld.acquire.gpu" in f and "atomic_add" in f for f in src.fallbacks)
    assert any("st.release.sys" in f and "atomic_xchg" in f for f in src.fallbacks)
    assert src.text.count("# FALLBACK") == len(src.fallbacks)


@pytest.mark.parametrize("backend", ["hip", "interpreter"])
def test_volatile_store_and_fences_fall_back_off_nvidia(backend: str) -> None:
    src = generate(irs.mp_fences("sc", "sys"), CodegenOptions(backend=backend, features=NEW))
    assert "inline_asm" not in src.text
    assert 'tl.atomic_add(s_T0, zero, sem="acq_rel", scope="sys")' in src.text
    assert sum("fence.sc.sys" in f for f in src.fallbacks) == 2
    vol = generate(irs.mp_volatile(), CodegenOptions(backend=backend, features=NEW))
    assert 'tl.atomic_xchg(a_T0_flag, (zero + 1), sem="relaxed", scope="sys")' in vol.text
    assert [f for f in vol.fallbacks if "st.volatile" in f] and "relaxed.sys" in vol.fallbacks[0]


def test_cuda_emits_inline_ptx_without_fallbacks() -> None:
    src = generate(irs.mp_volatile(), CodegenOptions(backend="cuda", features=NEW))
    assert src.fallbacks == ()
    assert "tl.inline_asm_elementwise" in src.text


def test_spins_are_bounded_loops_that_record_timeouts() -> None:
    src = generate(irs.every_op(), CodegenOptions(backend="cuda", features=NEW, spin_bound=5))
    assert [(s.thread, s.index, s.bit) for s in src.layout.spins] == [("P1", 4, 0), ("P1", 5, 1)]
    assert src.text.count("< 5):") == 2
    assert "tl.where(spin_done" in src.text and "| tl.where(spin_done" in src.text
    # CAS spin, iris style: expected = until, value = reset; done lanes go to scratch
    assert re.search(r"tl\.atomic_cas\(tl\.where\(spin_done\d+, s_T1, a_T1_y\), zero \+ 1, zero \+ 0, "
                     r'sem="relaxed", scope="gpu"\)', src.text)
    assert "T1_r4 = spin_val" in src.text
    assert 'tl.atomic_or((out + 9) + o_T1, st_T1, mask=(st_T1 != 0), sem="relaxed", scope="gpu")' in src.text


def test_rank_mode_has_one_kernel_per_rank_with_only_its_threads() -> None:
    src = generate(irs.mp_cas_release_acquire(), CodegenOptions(mode="rank", features=NEW))
    assert [(k.name, k.rank, k.roles) for k in src.layout.kernels] == [
        ("litmus_rank0", 0, (("P0",),)), ("litmus_rank1", 1, (("P1",),))]
    r0 = ast.get_source_segment(src.text, _kernel_def(src.text, "litmus_rank0"))
    assert "T0_" in r0 and "T1_" not in r0
    assert src.layout.n_ranks == 2


def test_shared_cta_threads_split_lanes_and_mask_every_op() -> None:
    src = generate(irs.mp_shared_cta(), CodegenOptions(features=NEW))
    assert src.layout.kernels[0].roles == (("P0", "P1"),)
    assert "lane = tl.arange(0, 2 * BLOCK)" in src.text
    assert "m_T0 = (lane >= 0 * BLOCK) & (lane < 1 * BLOCK)" in src.text
    assert "tl.store(a_T0_x, (zero + 1), mask=m_T0)" in src.text
    assert "T1_r0 = tl.load(a_T1_flag, mask=m_T1)" in src.text
    cas = LitmusTest("C", "", irs.mp_shared_cta().locations,
                     (Thread("P0", 0, 0, (Rmw("cas", "r0", "x", Const(1), Const(0)),)),
                      Thread("P1", 0, 0, (Fence("sc", "cta"),))), irs.mp_condition())
    text = generate(cas, CodegenOptions(backend="hip", features=NEW)).text
    assert "tl.atomic_cas(tl.where(m_T0, a_T0_x, s_T0)" in text  # no mask on atomic_cas: redirect
    assert 'tl.atomic_add(s_T1, zero, mask=m_T1, sem="acq_rel", scope="cta")' in text


def test_round_robin_interleaves_shared_cta_ops() -> None:
    text = generate(irs.mp_shared_cta(), CodegenOptions(features=NEW, shared_cta_order="round_robin")).text
    order = re.findall(r"# --- (P\d)\[(\d)\]", text)
    assert order == [("P0", "0"), ("P1", "0"), ("P0", "1"), ("P1", "1")]
    seq = generate(irs.mp_shared_cta(), CodegenOptions(features=NEW)).text
    assert re.findall(r"# --- (P\d)\[(\d)\]", seq) == [("P0", "0"), ("P0", "1"), ("P1", "0"), ("P1", "1")]


def test_a_backward_branch_names_the_test_file_and_line() -> None:
    with pytest.raises(UnsupportedError) as err:
        generate(irs.with_branch())
    assert err.value.problems[0].file == "corpus/LB.litmus"
    assert err.value.problems[0].line == 9  # the branch that goes back
    assert "LB[branch]" in str(err.value) and "goes back (a loop)" in str(err.value)


def test_a_forward_branch_masks_the_skipped_ops_and_keeps_registers() -> None:
    text = generate(irs.forward_branch(), CodegenOptions(features=NEW)).text
    assert "act_T1 = zero == 0" in text and "j_T1_SKIP = zero != 0" in text
    assert "j_T1_SKIP = j_T1_SKIP | (act_T1 & (T1_r0 == (zero + 0)))" in text
    assert "act_T1 = act_T1 & (T1_r0 != (zero + 0))" in text
    assert "T1_r1 = tl.where(act_T1, tl.load(a_T1_x, mask=act_T1), T1_r1)" in text
    assert "act_T1 = act_T1 | j_T1_SKIP" in text


@pytest.mark.parametrize("ins", [Barrier(arrive=True), Barrier(count=Const(64)), Rmw("inc", "r0", "x", Const(1))])
def test_unsupported_barrier_forms_and_wrapping_rmws(ins) -> None:
    t = LitmusTest("U", "", irs.mp_plain().locations, (Thread("P0", 0, 0, (ins,)),), irs.mp_condition())
    with pytest.raises(UnsupportedError):
        generate(t)


def test_options_are_validated() -> None:
    with pytest.raises(ValueError, match="power of two"):
        CodegenOptions(block=3)
    with pytest.raises(ValueError, match="backend"):
        CodegenOptions(backend="metal")


def test_layout_addresses_are_distinct_per_instance_and_slot() -> None:
    for addressing in ("loc_major", "interleaved"):
        lay = build_layout(irs.every_op(), CodegenOptions(addressing=addressing, block=4))
        n = 8
        words = {lay.word(s, i, n) for s in range(lay.n_slots) for i in range(n)}
        assert len(words) == lay.n_slots * n and max(words) < lay.heap_words(n)
    assert lay.out_columns[-1] == "status" and lay.status_column == lay.n_cols - 1


def test_loaded_module_defines_the_kernels() -> None:
    src = generate(irs.mp_shared_cta(), CodegenOptions(mode="rank", features=NEW))
    mod = load_kernel(src, interpret=False)
    assert hasattr(mod, "litmus_rank0")
    assert load_kernel(src, interpret=False) is mod


def test_detected_features_follow_the_installed_triton() -> None:
    import triton.language as tl

    from litmus.codegen import detect_features

    f = detect_features()
    assert f.atomic_load == hasattr(tl, "atomic_load") and f.atomic_store == hasattr(tl, "atomic_store")
    # the interpreter and hip never get inline asm, whatever triton has
    assert CodegenOptions(backend="interpreter").resolved_features().inline_asm is False
    assert CodegenOptions(backend="hip", features=NEW).resolved_features().inline_asm is False


def test_each_module_is_generated_once_per_test_and_options() -> None:
    """The backend's skip check, the compile-ahead workers, the launch and the audit all ask for
    the same module: it is made once."""
    from litmus.spec import find_pattern

    [test] = find_pattern("MP[relacq-xgpu-sys]")
    assert generate(test) is generate(test, CodegenOptions())
    assert generate(test, CodegenOptions(mode="parallel")) is not generate(test)
