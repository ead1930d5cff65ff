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
