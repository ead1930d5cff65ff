"""The library stand-ins have the real functions' ordering, so the rules find what the real
semantics imply: iris' helpers pass sem/scope to one tl.atomic_* on a translated pointer;
Triton-distributed's notify is one thread's release on the peer, its wait a spin with the
given semantic; NVSHMEM's signal_wait_until polls with volatile loads."""

from __future__ import annotations

from click.testing import CliRunner

from litmus.cli import main
from tests.lint.conftest import kernel_file, line_of, linted


def test_iris_import_is_linted_for_hip_with_iris_semantics() -> None:
    report = linted("iris_import", None)
    assert report.target == "hip:gfx942"  # a file that imports iris runs on AMD GPUs
    assert report.rules() == {
        ("peer-scope", "put_gpu_scope", line_of("iris_import", "scope")),  # iris.atomic_xchg(..., scope="gpu")
        ("block-publish", "put_no_barrier", line_of("iris_import", "nobar")),
    }
    [publish] = [f for f in report.findings if f.rule == "block-publish"]
    assert publish.related[0].line == line_of("iris_import", "store")  # iris.store's tl.store
    assert report.notes[0].endswith("imported for linting with stand-ins with the real ordering for iris")


def test_iris_import_for_cuda_too() -> None:
    assert {r for r, _, _ in linted("iris_import", "cuda:90").rules()} == {"peer-scope", "block-publish"}


def test_triton_dist_import_with_its_lowering_semantics() -> None:
    report = linted("triton_dist_import")
    assert report.target == "cuda:90"
    assert report.rules() == {
        # dl.notify: thread 0's fence and store: the CTA's other stores need a barrier first
        ("block-publish", "notify_no_barrier", line_of("triton_dist_import", "notify")),
        # dl.wait(..., "sys", "relaxed"): no acquire before the payload loads
        ("volatile-poll", "wait_relaxed", line_of("triton_dist_import", "wait-relaxed")),
        # libshmem_device.signal_wait_until: NVSHMEM's volatile polling
        ("volatile-poll", "signal_wait", line_of("triton_dist_import", "signal-wait")),
    }
    [notify] = [f for f in report.findings if f.rule == "block-publish"]
    assert notify.related[0].line == line_of("triton_dist_import", "store")
    # the notify's pointer is the peer's (nvshmem_ptr), at sys scope: no peer-scope finding
    assert not [f for f in report.findings if f.rule == "peer-scope"]


def test_the_command_says_which_modules_were_stubbed() -> None:
    r = CliRunner().invoke(main, ["lint", str(kernel_file("triton_dist_import"))])
    assert r.exit_code == 1
    assert ("triton_dist_import.py: imported for linting with stand-ins with the real ordering for triton_dist, "
            "triton_dist.language, triton_dist.language.extra") in r.output


LANGUAGE_EXTRA = '''import triton
import triton.language as tl
import triton_dist
import triton_dist.language as dl
from triton_dist.language.extra.cuda.language_extra import ld, st, __syncthreads


@triton_dist.jit(do_not_specialize=["peer"])
def publish(data, flag, peer, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(dl.symm_at(data, peer) + offs, tl.full([BLOCK], 1.0, tl.float32))
    __syncthreads()
    st(dl.symm_at(flag, peer), 1, scope="sys", semantic="SEM_ST")


@triton_dist.jit
def consume(data, flag, out, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    while ld(flag, scope="sys", semantic="SEM_LD") != 1:
        pass
    __syncthreads()
    tl.store(out + offs, tl.load(data + offs))
'''


def test_language_extra_and_triton_dist_jit(tmp_path) -> None:
    from litmus.lint import lint_file

    f = tmp_path / "extra.py"
    f.write_text(LANGUAGE_EXTRA.replace("SEM_ST", "release").replace("SEM_LD", "acquire"))
    report = lint_file(f)
    assert [k.name for k in report.kernels] == ["publish", "consume"]  # @triton_dist.jit kernels are linted
    assert report.rules() == set()
    f.write_text(LANGUAGE_EXTRA.replace("SEM_ST", "release").replace("SEM_LD", "relaxed"))
    # ld.global.relaxed.sys is no acquire (the st's value is an asm operand, not a constant the events
    # read, so a relaxed st is not judged as a flag write: relaxed-signal needs that)
    assert {(r, k) for r, k, _ in lint_file(f).rules()} == {("volatile-poll", "consume")}


def test_the_2025_import_path_of_libshmem_device(tmp_path) -> None:
    from litmus.lint.load import import_file

    f = tmp_path / "old.py"
    f.write_text("import triton\nfrom triton.language.extra import libshmem_device\n")
    module = import_file(f)
    assert module.libshmem_device.signal_wait_until.__module__ == "litmus.lint.libs.nvshmem_device"
    import triton.language.extra as extra

    assert not hasattr(extra, "libshmem_device")  # put back


COPY_ENGINE = '''
import triton
import triton.language as tl

import iris


@triton.jit
def producer(src, dst, flag, n, heap_bases, ctx, BLOCK: tl.constexpr, USE_COPY_ENGINE: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    iris.put(src + offs, dst + offs, 0, 1, heap_bases, ctx, mask=offs < n, USE_COPY_ENGINE=USE_COPY_ENGINE)
    iris.atomic_cas(flag, 0, 1, 0, 1, heap_bases, sem="release", scope="sys", USE_COPY_ENGINE=USE_COPY_ENGINE,
                    copy_engine_ctx=ctx)
'''


def test_iris_copy_engine_api_compiles_its_shader_path(tmp_path) -> None:
    from litmus.lint import lint_file

    f = tmp_path / "ce.py"
    f.write_text(COPY_ENGINE)
    report = lint_file(f)
    [k] = report.kernels
    assert "USE_COPY_ENGINE=False (a condition: its False branch)" in " ".join(report.notes)
    assert ("block-publish", "producer") in {(r, k) for r, k, _ in report.rules()}


def test_iris_copy_engine_path_is_refused_not_misread(tmp_path) -> None:
    import pytest

    from litmus.errors import LitmusError
    from litmus.lint import lint_file

    f = tmp_path / "ce.py"
    f.write_text(COPY_ENGINE)
    with pytest.raises(LitmusError, match="USE_COPY_ENGINE=True"):
        lint_file(f, signature={"USE_COPY_ENGINE": True})


GRID_BARRIER = '''
import triton
import triton.language as tl
from triton_dist.kernels.nvidia.common_ops import barrier_on_this_grid


@triton.jit
def k(x, grid_barrier_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(x + offs, offs)
    barrier_on_this_grid(grid_barrier_ptr)
    barrier_on_this_grid(grid_barrier_ptr, False)
'''


def test_triton_dist_grid_barrier_has_its_real_ordering(tmp_path) -> None:
    from litmus.lint import lint_file
    from litmus.lint.compile import compile_kernel
    from litmus.lint.load import find_kernels
    from litmus.lint.signature import kernel_signature

    f = tmp_path / "grid.py"
    f.write_text(GRID_BARRIER)
    [k] = find_kernels(f)
    ttir = compile_kernel(k.fn, kernel_signature(k.fn, {}), "cuda:90").ttir
    # a release add on the counter by the CTA's master thread, then an acquire spin on it
    assert ttir.count("atom.release.gpu.global.add") == 2 and "ld.global.acquire.gpu" in ttir
    assert "triton_dist.kernels.nvidia.common_ops" in lint_file(f).stubbed["standins"]


RANK_BARRIER = '''
import triton
import triton.language as tl
import triton_dist
from triton_dist.kernels.nvidia.common_ops import barrier_all_intra_node_non_atomic, next_power_of_2
from triton_dist.language.extra import libshmem_device


@triton_dist.jit
def k(local_rank, rank, num_ranks, symm_sync_ptr, flag_value, NUM_RANKS: tl.constexpr):
    offs = tl.arange(0, next_power_of_2(NUM_RANKS))
    tl.store(symm_sync_ptr + offs, offs)
    barrier_all_intra_node_non_atomic(local_rank, rank, num_ranks, symm_sync_ptr, flag_value, False)
    libshmem_device.barrier_all_block()
'''


def test_triton_dist_rank_barrier_has_its_real_ordering(tmp_path) -> None:
    from litmus.lint import lint_file
    from litmus.lint.compile import compile_kernel
    from litmus.lint.load import find_kernels
    from litmus.lint.signature import kernel_signature

    f = tmp_path / "rank.py"
    f.write_text(RANK_BARRIER.replace("NUM_RANKS: tl.constexpr", "NUM_RANKS: tl.constexpr = 3"))
    [k] = find_kernels(f)
    ttir = compile_kernel(k.fn, kernel_signature(k.fn, {}), "cuda:90").ttir
    # each round: st.release.sys on the peer's flag, an ld.acquire.sys spin on ours; then the grid barrier
    assert ttir.count("st.global.release.sys") == 2 and ttir.count("ld.global.acquire.sys") == 2
    assert ttir.count("atom.release.gpu.global.add") == 2
    assert "tensor<4xi32" in ttir  # next_power_of_2(3) is a constexpr 4
    assert "fence.sc.sys" in ttir  # barrier_all_block: a fence, then a CTA barrier
    assert "empty stubs" not in " ".join(lint_file(f).notes)


BARRIER_ALL = '''import triton
import triton.language as tl
from triton_dist.language.extra import libshmem_device


@triton.jit
def copy_then_barrier(src: "*fp32", dst: "*fp32", BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    tl.store(dst + offs, tl.load(src + offs))
    if pid == 0:
        libshmem_device.barrier_all_block()
'''


def test_nvshmem_barrier_all_signals_the_other_pes(tmp_path) -> None:
    """barrier_all_block signals every other PE and waits: entered by program 0 alone after
    every CTA's stores, it publishes the other CTAs' stores to the peers without ordering them
    (the Triton-distributed all-gather copy); the stores must be a peer's to count (--peer)."""
    f = tmp_path / "barrier_all.py"
    f.write_text(BARRIER_ALL)
    r = CliRunner().invoke(main, ["lint", str(f), "--peer", "dst"])
    assert r.exit_code == 1, r.output
    assert f"{f}:12: cross-cta-publish: flag raised by one CTA" in r.output
