"""compile_variant(): every listed variant compiles for cuda:90 and hip:gfx942 on this CPU machine."""

from __future__ import annotations

import os
import re

import pytest

from litmus.codegen import compile_variant, parse_target
from litmus.errors import LitmusError
from tests.codegen import irs

VARIANTS = [irs.mp_cas_release_acquire, irs.mp_volatile, irs.mp_fences, irs.mp_barrier, irs.mp_cas_spin]


@pytest.mark.parametrize("make", VARIANTS, ids=lambda f: f.__name__)
@pytest.mark.parametrize("target", ["cuda:90", "hip:gfx942"])
def test_variant_compiles(make, target: str) -> None:
    c = compile_variant(make(), target)
    kind = "ptx" if target.startswith("cuda") else "amdgcn"
    assert c.target == target
    assert all(kind in k.asm and k.asm[kind].strip() for k in c.kernels)
    if kind == "ptx":
        assert ".target sm_90" in c.text("ptx")
    else:
        assert "gfx942" in c.text("amdgcn")


def test_release_cas_is_an_atom_release_sys_in_ptx() -> None:
    ptx = compile_variant(irs.mp_cas_release_acquire(), "cuda:90").text("ptx")
    atoms = [l for l in ptx.splitlines() if re.search(r"\batom\.", l)]
    assert any(".release" in l and ".sys" in l and ".cas" in l for l in atoms), atoms
    assert any(".acquire" in l and ".sys" in l and ".cas" in l for l in atoms), atoms


def test_volatile_and_fences_reach_the_ptx() -> None:
    assert "st.volatile.global.b32" in compile_variant(irs.mp_volatile(), "cuda:90").text("ptx")
    assert "fence.sc.sys" in compile_variant(irs.mp_fences("sc", "sys"), "cuda:90").text("ptx")


def test_rank_mode_compiles_each_kernel_and_caches() -> None:
    from litmus.codegen import CodegenOptions

    first = compile_variant(irs.mp_cas_release_acquire(), "cuda:90", CodegenOptions(mode="rank"))
    assert [k.name for k in first.kernels] == ["litmus_rank0", "litmus_rank1"]
    again = compile_variant(irs.mp_cas_release_acquire(), "cuda:90", CodegenOptions(mode="rank"))
    assert again.kernels == first.kernels


def test_sass_when_the_bundled_disassembler_works() -> None:
    asm = compile_variant(irs.mp_cas_release_acquire(), "cuda:90", sass=True).kernels[0].asm
    if "sass" in asm:  # present when triton ships cuobjdump (3.9 here does)
        assert "ATOM" in asm["sass"] or "ATOMG" in asm["sass"]


@pytest.mark.parametrize("text,backend,arch,warp", [("cuda:90", "cuda", 90, 32), ("cuda:sm_80", "cuda", 80, 32),
                                                    ("hip:gfx942", "hip", "gfx942", 64), ("hip:gfx1100", "hip", "gfx1100", 32)])
def test_parse_target(text, backend, arch, warp) -> None:
    t = parse_target(text)
    assert (t.backend, t.arch, t.warp_size) == (backend, arch, warp)


@pytest.mark.parametrize("bad", ["sm_90", "cuda:", "hip:942", "cuda:gfx942", "metal:1"])
def test_bad_target_says_how_to_write_one(bad: str) -> None:
    with pytest.raises(LitmusError, match="cuda:90|hip:gfx942"):
        parse_target(bad)


@pytest.mark.parametrize("target", ["cuda:90", "hip:gfx942"])
def test_text_only_compiles_skip_the_binary_and_keep_it_out_of_the_users_cache(
        target: str, tmp_path, monkeypatch: pytest.MonkeyPatch) -> None:
    import triton

    from litmus.codegen.compiler import compile_kernel
    from litmus.codegen.generate import generate
    from litmus.codegen.loader import load_kernel
    from litmus.codegen.options import CodegenOptions

    import litmus.codegen.compiler as compiler

    monkeypatch.setattr(compiler, "_BINARY_CHECKED", {target})  # its binary stage already ran once
    user_cache = tmp_path / "user-triton-cache"
    monkeypatch.setenv("TRITON_CACHE_DIR", str(user_cache))
    monkeypatch.setenv("LITMUS_CACHE", str(tmp_path / "litmus-cache"))
    source = generate(irs.mp_volatile(), CodegenOptions().with_backend(parse_target(target).backend))
    fn = getattr(load_kernel(source, interpret=False), source.kernel_names[0])
    text = compile_kernel(fn, parse_target(target), 256)
    binaries = [p for p in (tmp_path / "litmus-cache" / "triton-text-only").rglob("*") if p.suffix in (".cubin", ".hsaco")]
    assert binaries and all(p.stat().st_size == 0 for p in binaries)  # the stage ran as the empty stand-in
    assert not user_cache.exists() or not any(p.suffix in (".cubin", ".hsaco") for p in user_cache.rglob("*"))
    assert triton.knobs.runtime.add_stages_inspection_hook is None and os.environ["TRITON_CACHE_DIR"] == str(user_cache)
    if target.startswith("cuda"):
        full = compile_kernel(fn, parse_target(target), 256, sass=True)
        assert full["ptx"] == text["ptx"] and "sass" in full
        assert [p for p in user_cache.rglob("*.cubin") if p.stat().st_size > 0]  # the real compile went to the user's cache


def test_a_target_is_checked_by_its_binary_stage_once_so_an_unknown_one_still_fails(
        tmp_path, monkeypatch: pytest.MonkeyPatch) -> None:
    import litmus.codegen.compiler as compiler

    monkeypatch.setenv("LITMUS_CACHE", str(tmp_path))  # nothing compiled yet
    monkeypatch.setattr(compiler, "_BINARY_CHECKED", set())
    with pytest.raises(LitmusError, match="could not compile kernel .* for cuda:20"):
        compile_variant(irs.mp_volatile(), "cuda:20")
    compile_variant(irs.mp_volatile(), "cuda:90")
    assert compiler._BINARY_CHECKED == {"cuda:90"}
