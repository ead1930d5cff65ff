"""A launch `kernel[grid](...)` in the kernel's file gives the argument types: torch tensors
are pointers with their dtype, ints are i32, constexpr keywords their values."""

from __future__ import annotations

from pathlib import Path

from litmus.lint.callsite import call_site_hints
from litmus.lint.load import find_kernels
from litmus.lint.signature import kernel_signature

SOURCE = '''
import torch
import triton
import triton.language as tl

BLOCK_SIZE = 64


@triton.jit
def k(x, flag, addr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(x + offs, tl.load(x + offs) * 2, mask=offs < n)
    tl.atomic_xchg(flag, 1, sem="release")


def run(y: torch.Tensor):
    x = torch.empty(1024, dtype=torch.float16, device="cuda")
    flag = torch.zeros(1, dtype=torch.int64, device="cuda")
    k[(4,)](x, flag, y.data_ptr(), x.numel(), BLOCK=BLOCK_SIZE)
'''


def test_a_launch_gives_tensor_dtypes_ints_and_constexprs(tmp_path: Path) -> None:
    path = tmp_path / "launch.py"
    path.write_text(SOURCE)
    [found] = find_kernels(path)
    assert found.call_site["x"] == ("*fp16", "the launch at line 19: a tensor")
    sig = kernel_signature(found.fn, found.signature, found.call_site)
    # from the kernel's source alone: x=*fp32, flag=*i32, addr=i32, BLOCK=128
    assert sig.types == {"x": "*fp16", "flag": "*i64", "addr": "i64", "n": "i32"}
    assert sig.constexprs == {"BLOCK": 64}
    assert sig.inferred["BLOCK"] == "from the launch at line 19"
    given = kernel_signature(found.fn, {"x": "*fp32"}, found.call_site)  # what the user gives wins
    assert given.types["x"] == "*fp32" and "x" not in given.inferred


def test_no_launch_no_hints() -> None:
    assert call_site_hints("def f():\n    pass\n", "k", ["x"], set()) == {}
    assert call_site_hints("k[(1,)](*args)\n", "k", ["x"], set()) == {}
