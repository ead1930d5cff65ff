"""Stand-ins for the device helper libraries that real kernels import and this machine lacks
(iris, Triton-distributed, PyTorch's symm_mem NVSHMEM helpers), used only to lint.

Each module here is Triton code with the ordering of the real function (its ``tl.atomic_*``
sem/scope, its spin, its fences and CTA barriers) and, where the real function reaches another
GPU, the heap-base translation the linter proves peer memory from.  :data:`LIBRARIES` maps the
module name a user's file imports to the stand-in's module; :mod:`litmus.lint.stubs` installs
them while the file is imported.
"""

from __future__ import annotations

import types

LIBRARIES: dict[str, str] = {
    "iris": "litmus.lint.libs.iris",
    "triton_dist": "litmus.lint.libs.triton_dist",
    "triton_dist.language": "litmus.lint.libs.triton_dist_language",
    "triton_dist.language.extra": "litmus.lint.libs.triton_dist_extra",
    "triton_dist.language.extra.libshmem_device": "litmus.lint.libs.nvshmem_device",
    "triton_dist.language.extra.cuda": "litmus.lint.libs.triton_dist_extra",
    "triton_dist.language.extra.cuda.libnvshmem_device": "litmus.lint.libs.nvshmem_device",
    "triton_dist.language.extra.language_extra": "litmus.lint.libs.language_extra",
    "triton_dist.language.extra.cuda.language_extra": "litmus.lint.libs.language_extra",
    "triton_dist.kernels.nvidia.common_ops": "litmus.lint.libs.triton_dist_common_ops",
    # Triton-distributed's 2025 Triton fork put NVSHMEM's device functions under triton's own tree
    "triton.language.extra.libshmem_device": "litmus.lint.libs.nvshmem_device",
    "triton.language.extra.language_extra": "litmus.lint.libs.language_extra",
    "triton.language.extra.cuda.language_extra": "litmus.lint.libs.language_extra",
    "torch.distributed._symmetric_memory._nvshmem_triton": "litmus.lint.libs.torch_nvshmem_triton",
}
"""Imported module name -> the stand-in module that replaces it while a file is linted."""

HIP_LIBRARIES = ("iris",)
"""Libraries whose kernels run on AMD GPUs: a file importing one is compiled for hip by default."""


def stand_ins() -> dict[str, types.ModuleType]:
    """:data:`LIBRARIES` with each stand-in module imported (they import Triton)."""
    from litmus.lint.libs import (iris, language_extra, nvshmem_device, torch_nvshmem_triton, triton_dist,
                                  triton_dist_common_ops, triton_dist_extra, triton_dist_language)

    loaded = {m.__name__: m for m in (iris, language_extra, nvshmem_device, torch_nvshmem_triton, triton_dist,
                                      triton_dist_common_ops, triton_dist_extra, triton_dist_language)}
    return {name: loaded[path] for name, path in LIBRARIES.items()}
