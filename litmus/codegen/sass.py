"""SASS text of a cubin, with the line table: which kernel-file line each instruction came from.

SASS is the machine code the GPU runs; ``ptxas`` may still weaken, reorder or drop what PTX
asked for (Alglave et al., ASPLOS 2015, found CUDA 5.5 reordering volatile loads only in SASS;
litmus found ptxas 12.8/12.9 merging a plain load after ``ld.acquire`` with one before it,
docs/compiler-bugs.md).  ``nvdisasm -g`` (shipped with Triton) prints ``//## File "F", line N``
before the instructions of each line, so the audit can tell which op an instruction belongs to
and which op compiled to nothing; Triton's ``cuobjdump`` form, without lines, is the fallback.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile

from litmus.toolchain import triton_bin


def _nvdisasm() -> str | None:
    """Triton's bundled ``nvdisasm``, else one on PATH, else None."""
    bundled = triton_bin()
    if bundled is not None and os.access(bundled / "nvdisasm", os.X_OK):
        return str(bundled / "nvdisasm")
    return shutil.which("nvdisasm")


def disassemble(cubin: bytes) -> str | None:
    """The SASS of ``cubin``, one instruction a line, with ``//## File "F", line N`` markers
    when ``nvdisasm`` is at hand (else without them, through ``cuobjdump``), or None when
    neither runs here."""
    nvdisasm = _nvdisasm()
    if nvdisasm is not None:
        with tempfile.NamedTemporaryFile(suffix=".cubin") as f:
            f.write(cubin)
            f.flush()
            res = subprocess.run([nvdisasm, "-g", "-c", f.name], capture_output=True, text=True)
        if res.returncode == 0 and res.stdout.strip():
            return res.stdout
    try:
        from triton.tools.disasm import get_sass

        return get_sass(cubin)
    except (ImportError, OSError, subprocess.CalledProcessError, RuntimeError):
        return None
