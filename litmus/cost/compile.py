"""Load the cost loop kernel (kernel cache) and compile it for a GPU target on this machine."""

from __future__ import annotations

import hashlib
from pathlib import Path
from types import ModuleType

from litmus.codegen.loader import cache_root, load_module
from litmus.cost.kernel import KERNEL, CostKernel

SIGNATURE = {"heap_ptr": "*i64", "roles": "*i32", "times": "*i64", "status": "*i32", "trips": "*i32", "n_trips": "i32",
             "progs": "i32", "BLOCK": "constexpr", "TRIPS": "constexpr"}


def kernel_file(ck: CostKernel) -> Path:
    """Where the module of ``ck`` is cached."""
    return cache_root() / "cost" / f"cost_{hashlib.sha256(ck.text.encode()).hexdigest()[:32]}.py"


def load_cost_kernel(ck: CostKernel, interpret: bool | None = None) -> ModuleType:
    """Import the module of ``ck`` (for the interpreter when ``interpret``)."""
    return load_module(kernel_file(ck), ck.text, interpret)


def compile_cost_kernel(ck: CostKernel, target: str = "cuda:90", block: int = 1, num_warps: int = 1,
                        trips: int = 1024) -> str:
    """The PTX of ``ck`` compiled for ``target`` with ``trips`` timestamp slots (no GPU needed)."""
    from litmus.codegen.compiler import compile_jit
    from litmus.codegen.targets import parse_target

    fn = getattr(load_cost_kernel(ck, interpret=False), KERNEL)
    return compile_jit(fn, SIGNATURE, parse_target(target), {"BLOCK": block, "TRIPS": trips}, num_warps,
                       sass=False).get("ptx", "")
