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
