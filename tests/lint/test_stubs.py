"""Files that import what this machine lacks still load: library stand-ins, empty stubs for
absent modules, relative imports from the file's package, a `has_triton()` guard; and
`sys.modules` is as it was afterwards."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from litmus.errors import LitmusError
from litmus.lint.load import find_kernels, import_file
from tests.lint.conftest import kernel_file


def test_iris_and_triton_dist_files_load_with_stand_ins() -> None:
    iris = import_file(kernel_file("iris_import"))
    assert set(iris.__litmus_stubbed__.standins) == {"iris"}
    assert iris.iris.store.__module__ == "litmus.lint.libs.iris"
    dist = import_file(kernel_file("triton_dist_import"))
    assert {"triton_dist", "triton_dist.language", "triton_dist.language.extra"} <= set(
        dist.__litmus_stubbed__.standins)
    assert [k.name for k in find_kernels(kernel_file("triton_dist_import"))][:2] == ["notify_no_barrier",
                                                                                     "notify_ok"]
    assert "iris" not in sys.modules and "triton_dist" not in sys.modules  # put back


def test_an_absent_module_becomes_an_empty_stub_and_is_noted(tmp_path: Path) -> None:
    f = tmp_path / "k.py"
    f.write_text("import triton\nimport triton.language as tl\nimport my_absent_lib\n"
                 "from my_absent_lib.sub import decorate, CONFIG\n\n\n@decorate\n@triton.jit\n"
                 "def k(flag):\n    tl.atomic_xchg(flag, 1, sem='release', scope='sys')\n")
    module = import_file(f)
    assert module.__litmus_stubbed__.empty == ["my_absent_lib", "my_absent_lib.sub"]
    from litmus.lint import lint_file

    report = lint_file(f)
    assert report.notes[0] == (f"{f}: imported for linting with empty stubs (absent here; a kernel's call into "
                               "one is taken as doing nothing to memory) for my_absent_lib, my_absent_lib.sub")
    assert report.stubbed["empty"] == ["my_absent_lib", "my_absent_lib.sub"]
    assert "my_absent_lib" not in sys.modules


def test_a_kernel_calling_an_empty_stub_compiles_and_says_so(tmp_path: Path) -> None:
    f = tmp_path / "k.py"
    f.write_text("import triton\nimport triton.language as tl\nfrom my_absent_lib import signal, now\n\n\n"
                 "@triton.jit\ndef helper(t):\n    return now() + t\n\n\n"
                 "@triton.jit\ndef k(flag, ts):\n    signal(flag)\n    tl.store(ts, helper(1))\n")
    from litmus.lint import lint_file

    report = lint_file(f)
    assert (f"{f}:11: kernel k uses my_absent_lib.signal, my_absent_lib.now, from a module absent here: compiled as "
            "doing nothing to memory; if it signals or waits, describe it with --helpers FILE") in report.notes
    f.write_text("import triton\nimport triton.language as tl\nfrom my_absent_lib import thing\n\n\n"
                 "@triton.jit\ndef k(flag):\n    tl.store(flag, thing + 1)\n")
    with pytest.raises(LitmusError, match=r"the kernel uses thing, from a module absent here that "
                                          r"was stubbed empty: describe its ordering in a helpers file"):
        lint_file(f)


def test_relative_imports_load_the_real_siblings(tmp_path: Path) -> None:
    pkg = tmp_path / "mypkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "signals.py").write_text(
        "import triton\nimport triton.language as tl\nfrom .missing_dep import x\n\n\n@triton.jit\n"
        "def raise_flag(flag):\n    tl.atomic_xchg(flag, 1, sem='release', scope='gpu')\n")
    (pkg / "kern.py").write_text(
        "import triton\nimport triton.language as tl\nfrom .signals import raise_flag\n\n\n@triton.jit\n"
        "def k(data, flag, peer_bases):\n    offs = tl.arange(0, 128)\n"
        "    tl.store(data + offs, tl.load(data + offs) + 1)\n    tl.debug_barrier()\n    raise_flag(flag)\n")
    from litmus.lint import lint_file

    report = lint_file(pkg / "kern.py", peers=["flag"])
    # the sibling's real helper is inlined: its gpu scope on the marked peer flag is found
    assert {(r, k) for r, k, _ in report.rules()} == {("peer-scope", "k")}


def test_a_has_triton_guard_reads_true_for_torch_symm_mem_helpers(tmp_path: Path) -> None:
    pytest.importorskip("torch")
    from torch.utils._triton import has_triton

    before = has_triton()
    f = tmp_path / "nv.py"
    f.write_text(
        "import triton\nimport triton.language as tl\nfrom torch.utils._triton import has_triton\n\n"
        "if has_triton():\n"
        "    from torch.distributed._symmetric_memory._nvshmem_triton import requires_nvshmem, signal_wait_until\n"
        "    import torch.distributed._symmetric_memory._nvshmem_triton as nvshmem\n\n"
        "    @requires_nvshmem\n    @triton.jit\n    def put_signal(dst, src, sig, peer, BLOCK: tl.constexpr):\n"
        "        nvshmem.putmem_signal_block(dst, src, BLOCK * 4, sig, 1, 0, peer)\n\n"
        "    @requires_nvshmem\n    @triton.jit\n    def wait_read(data, sig, out, BLOCK: tl.constexpr):\n"
        "        offs = tl.arange(0, BLOCK)\n"
        "        signal_wait_until(sig, 0, 1)\n"
        "        tl.store(out + offs, tl.load(data + offs))\n")
    from litmus.lint import lint_file

    report = lint_file(f)
    assert report.stubbed["guards"] == ["has_triton() read as true"]
    assert "torch.distributed._symmetric_memory._nvshmem_triton" in report.stubbed["standins"]
    # NVSHMEM's signal_wait_until polls with volatile loads: no acquire before the payload loads
    assert {(r, k) for r, k, _ in report.rules()} == {("volatile-poll", "wait_read")}
    assert has_triton() is before  # put back


def test_a_renamed_triton_helper_is_read_under_its_old_name(tmp_path) -> None:
    import triton.language.core as core

    from litmus.lint.load import import_file

    f = tmp_path / "old_api.py"
    f.write_text("import triton\nimport triton.language as tl\n\n\n@triton.jit\ndef k(x, D: tl.constexpr):\n"
                 "    D = tl.core._constexpr_to_value(D)\n    tl.store(x, tl.full([], 1, D))\n")
    module = import_file(f)
    assert core._constexpr_to_value is core._unwrap_if_constexpr
    assert "triton.language.core._constexpr_to_value read as _unwrap_if_constexpr" in " ".join(
        module.__litmus_stubbed__.guards)
