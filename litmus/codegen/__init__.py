"""IR test -> Triton kernel source; load it; compile it for a GPU target on the CPU.

Public API (triton and torch are imported lazily, only by the calls that need them)::

    generate(test, options=None) -> KernelSource          # source text + Layout + fallbacks
    load_kernel(source, interpret=None) -> ModuleType     # cached .py file, imported
    compile_variant(test, target, options=None, num_warps=4) -> Compiled   # "cuda:90", "hip:gfx942"
    observables(test) -> tuple[str, ...]                  # outcome keys (same rule as litmus.model)

Kernel arguments, in order (``litmus.codegen.layout.KERNEL_ARGS``)::

    heap_ptrs *i64, out *i32, perm *i64, n_instances i32, progs_per_role i32,
    loc_stride i32, inst_stride i32, BLOCK constexpr

The host-side buffers for these arguments (heaps, pointer table, permutations, outcome counts)
are in ``litmus.run.buffers``.  See docs/codegen.md for the layout and the op mapping.
"""

from litmus.codegen.compiler import Compiled, CompiledKernel, compile_variant
from litmus.codegen.generate import build_layout, generate
from litmus.codegen.layout import KERNEL_ARGS, KERNEL_SIGNATURE, KernelEntry, Layout, LocationSlot, SpinSlot
from litmus.observables import observables
from litmus.codegen.loader import load_kernel
from litmus.codegen.options import CodegenOptions, Features, detect_features
from litmus.codegen.source import KernelSource
from litmus.codegen.targets import Target, device_target, parse_target

__all__ = [
    "KERNEL_ARGS",
    "KERNEL_SIGNATURE",
    "CodegenOptions",
    "Compiled",
    "CompiledKernel",
    "Features",
    "KernelEntry",
    "KernelSource",
    "Layout",
    "LocationSlot",
    "SpinSlot",
    "Target",
    "build_layout",
    "compile_variant",
    "detect_features",
    "device_target",
    "generate",
    "load_kernel",
    "observables",
    "parse_target",
]
