"""Compilation targets: ``cuda:90``, ``hip:gfx942`` strings, or the current device."""

from __future__ import annotations

import re
from dataclasses import dataclass

from litmus.errors import LitmusError

DEFAULT_TARGETS: dict[str, str] = {"ptx": "cuda:90", "amdgcn": "hip:gfx942"}
"""The target each kind of compiled code is checked on when none is named (the audit, ``litmus
show``, the report's audit columns): the architectures the audit's rule tables are written
for, sm_90 (Hopper) and gfx942 (MI300)."""

AUDIT_TARGETS: tuple[str, ...] = tuple(DEFAULT_TARGETS.values())
"""The targets ``litmus audit`` checks by default, in table order."""


@dataclass(frozen=True)
class Target:
    """A GPU target: backend ``cuda`` (arch = compute capability as int) or ``hip`` (``gfxNNN``)."""

    backend: str
    arch: int | str
    warp_size: int

    def __str__(self) -> str:
        return f"{self.backend}:{self.arch}"

    @property
    def asm_key(self) -> str:
        """The name of the target's assembly artifact: ``ptx`` (cuda) or ``amdgcn`` (hip)."""
        return "ptx" if self.backend == "cuda" else "amdgcn"

    def gpu_target(self) -> object:
        """``triton.backends.compiler.GPUTarget`` for this target."""
        from triton.backends.compiler import GPUTarget

        return GPUTarget(self.backend, self.arch, self.warp_size)


def parse_target(text: str) -> Target:
    """``cuda:90`` / ``cuda:sm_90`` / ``hip:gfx942`` -> :class:`Target`."""
    m = re.fullmatch(r"\s*(cuda|hip):(?:sm_)?(\w+)\s*", text)
    if m is None:
        raise LitmusError(f"--target {text!r}: write cuda:<capability> (e.g. cuda:90) or hip:<gfx arch> "
                          "(e.g. hip:gfx942)")
    backend, arch = m.groups()
    if backend == "cuda":
        if not arch.isdigit():
            raise LitmusError(f"--target {text!r}: a CUDA target is a compute capability number, e.g. cuda:90")
        return Target("cuda", int(arch), 32)
    if not re.fullmatch(r"gfx[0-9a-f]+", arch):
        raise LitmusError(f"--target {text!r}: a HIP target is a gfx architecture, e.g. hip:gfx942")
    # gfx9 (CDNA) runs wave64; gfx10+ (RDNA) defaults to wave32.
    return Target("hip", arch, 64 if arch.startswith("gfx9") else 32)


def device_target(device: int = 0) -> Target:
    """The target of the current GPU, from triton's active driver (needs a GPU)."""
    from triton.runtime import driver

    t = driver.active.get_current_target()
    return Target(t.backend, t.arch, t.warp_size)
