"""SASS text for a cubin, through the ``cuobjdump`` that Triton ships (``triton.tools.disasm``).

SASS is the machine code the GPU runs; ``ptxas`` may still weaken or reorder what PTX asked
for (Alglave et al., ASPLOS 2015, found CUDA 5.5 reordering volatile loads only in SASS).
"""

from __future__ import annotations

import subprocess


def disassemble(cubin: bytes) -> str | None:
    """The SASS of ``cubin``, one instruction a line, or None when cuobjdump is unavailable."""
    try:
        from triton.tools.disasm import get_sass
    except ImportError:
        return None
    try:
        return get_sass(cubin)
    except (OSError, subprocess.CalledProcessError, RuntimeError):
        return None
