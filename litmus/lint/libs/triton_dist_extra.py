"""Stand-in for ``triton_dist.language.extra`` (``from triton_dist.language.extra import
libshmem_device``): the NVSHMEM device functions of :mod:`litmus.lint.libs.nvshmem_device`."""

from typing import Any

from litmus.lint.libs import nvshmem_device as libshmem_device
from litmus.lint.libs import nvshmem_device as libnvshmem_device
from litmus.lint.stub import Stub

__all__ = ["libshmem_device", "libnvshmem_device"]


def __getattr__(name: str) -> Any:
    return Stub(f"triton_dist.language.extra.{name}")
