"""Finding a file's kernels: jitted functions no other jitted function calls; LITMUS_LINT."""

from __future__ import annotations

from pathlib import Path

import pytest

from litmus.errors import LitmusError
from litmus.lint.load import find_kernels
from tests.lint.conftest import kernel_file


def test_helpers_are_not_kernels() -> None:
    names = [k.name for k in find_kernels(kernel_file("symm_mem_barrier"))]
    assert names == ["pattern0_ok", "pattern0_broken", "pattern1_ok", "pattern1_nopre", "pattern1_nopost",
                     "pattern2_ok", "pattern2_broken"]


def test_litmus_lint_settings_and_kernel_choice() -> None:
    [k] = find_kernels(kernel_file("iris_ok"), "get_consumer")
    assert k.signature == {"cur_rank": 1, "from_rank": 0, "BLOCK": 128} and k.line > 1
    with pytest.raises(LitmusError, match="no @triton.jit function called 'nope'.*get_consumer"):
        find_kernels(kernel_file("iris_ok"), "nope")


def test_an_import_error_names_the_line(tmp_path: Path) -> None:
    f = tmp_path / "bad.py"
    f.write_text("import triton\n\nx = 1 / 0\n")
    with pytest.raises(LitmusError) as err:
        find_kernels(f)
    assert (err.value.problems[0].line, "ZeroDivisionError" in str(err.value)) == (3, True)


def test_a_file_without_kernels(tmp_path: Path) -> None:
    f = tmp_path / "none.py"
    f.write_text("X = 1\n")
    with pytest.raises(LitmusError, match="no @triton.jit kernels found"):
        find_kernels(f)
    with pytest.raises(LitmusError, match="no such file"):
        find_kernels(tmp_path / "missing.py")


def test_an_autotuned_kernel_compiles_with_its_first_config(tmp_path: Path) -> None:
    f = tmp_path / "tuned.py"
    f.write_text(
        "import triton\nimport triton.language as tl\n\n\n"
        "@triton.autotune(configs=[triton.Config({'BLOCK': 64}), triton.Config({'BLOCK': 128})], key=[])\n"
        "@triton.jit\ndef k(data: '*fp32', flag: '*i32', BLOCK: tl.constexpr):\n"
        "    tl.store(data + tl.arange(0, BLOCK), tl.full([BLOCK], 1.0, tl.float32))\n"
        "    tl.atomic_xchg(flag, 1, sem='release')\n")
    [k] = find_kernels(f)
    assert k.signature == {"BLOCK": 64}
    from litmus.lint import lint_file

    assert lint_file(f).rules() == {("block-publish", "k", 9)}


HELPER_AS_KERNEL = '''
import triton
import triton.language as tl


@triton.jit
def publish_and_read(flags, value, index):
    tl.atomic_xchg(flags + index, value.to(tl.uint64, bitcast=True), sem="release")
    seen = tl.atomic_add(flags + index - 1, 0, sem="acquire")
    return seen


@triton.jit
def early(x, n):
    if n > 0:
        return tl.load(x)
    return tl.load(x + 1)
'''


def test_a_helper_linted_as_a_kernel_drops_its_final_return_in_place(tmp_path: Path) -> None:
    from litmus.lint import lint_file
    from litmus.lint.load import drop_final_return, import_file
    from litmus.lint.signature import kernel_signature

    path = tmp_path / "helper.py"
    path.write_text(HELPER_AS_KERNEL)
    module = import_file(path)
    before = module.publish_and_read.src
    assert drop_final_return(module.publish_and_read)
    after = module.publish_and_read.src
    assert after.splitlines()[-1] == "    _ret = seen" and len(after) == len(before)  # every line and column kept
    assert not drop_final_return(module.early)  # an early return is left as it is
    assert kernel_signature(module.publish_and_read, {}).types["value"] == "i64"  # bitcast to a 64-bit type
    report = lint_file(path, kernel="publish_and_read")
    assert "publish_and_read linted as a kernel with its returned value dropped" in " ".join(report.notes)


SIMT = '''
import triton
import triton.language as tl
import triton_dist
import triton_dist.language as dl
from triton_dist.language.extra.cuda.language_extra import atomic_cas, __syncthreads


@triton_dist.jit
def k(n, symm_flag_ptr):
    with dl.simt_exec_region() as (thread_idx, block_size):
        if thread_idx < n:
            while atomic_cas(dl.symm_at(symm_flag_ptr, thread_idx), 0, 1, "sys", "release") != 0:
                pass
        __syncthreads()
'''


def test_a_simt_region_binds_each_threads_index_in_place(tmp_path: Path) -> None:
    from triton.compiler.code_generator import CodeGenerator

    from litmus.lint import lint_file
    from litmus.lint.load import bind_simt_region

    path = tmp_path / "simt.py"
    path.write_text(SIMT)
    if not hasattr(CodeGenerator, "visit_NamedExpr"):  # triton 3.6 lowers no `:=`: the header is left as it is
        [k] = find_kernels(path)
        assert not bind_simt_region(k.fn) and "as (thread_idx, block_size)" in k.fn.src
        return
    report = lint_file(path)
    [k] = report.kernels
    assert "dl.simt_exec_region() as (thread_idx, block_size) read as each thread's %tid.x, %ntid.x in k" in " ".join(
        report.notes)
    [found] = find_kernels(path)
    header = found.fn.src.splitlines()[1]
    assert header.strip() == ("with dl.simt_exec_region((thread_idx := dl.simt_exec_region.thread_index()), "
                              "(block_size := dl.simt_exec_region.block_size())):")
    original = SIMT[SIMT.index("def k"):].splitlines()
    assert len(found.fn.src.splitlines()) == len(original)  # no line added: findings keep their lines
