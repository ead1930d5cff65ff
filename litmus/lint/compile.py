"""Compile a user's ``@triton.jit`` kernel on the CPU to TTIR/TTGIR, the way the audit does
(``triton.compile`` with a ``GPUTarget``; no GPU needed)."""

from __future__ import annotations

import re
import warnings
from dataclasses import dataclass
from typing import Any

from litmus.audit.compile import _ast_source
from litmus.codegen.targets import parse_target
from litmus.errors import LitmusError
from litmus.lint.signature import KernelSignature


@dataclass(frozen=True)
class CompiledText:
    """The TTIR and TTGIR of one kernel compiled for ``target`` with ``triton_version``."""

    kernel: str
    target: str
    triton_version: str
    ttir: str
    ttgir: str
    asm_kind: str = ""  # ``ptx`` or ``amdgcn``
    asm: str = ""


def _first_line(exc: BaseException) -> str:
    lines = [l.strip() for l in str(exc).splitlines() if l.strip()]
    errors = [l for l in lines if "error" in l.lower()]
    return (errors or lines or [type(exc).__name__])[0][:300]


def _where(exc: BaseException, file: str, line: int) -> tuple[str, int]:
    """file:line of a Triton CompilationError (it carries the source line), else the kernel's def."""
    src = getattr(exc, "src", None)
    node = getattr(exc, "node", None)
    if node is not None and getattr(node, "lineno", None) is not None:
        offset = getattr(src, "starting_line_number", None) if src is not None else None
        base = getattr(getattr(exc, "fn", None), "starting_line_number", None)
        start = offset or base or line
        return file, start + node.lineno - 1
    m = re.search(r'"([^"]+\.py)":(\d+)', str(exc))
    if m:
        return m.group(1), int(m.group(2))
    return file, line


def compile_kernel(fn: Any, sig: KernelSignature, target: str, num_warps: int = 4) -> CompiledText:
    """TTIR and TTGIR of ``fn`` with argument types ``sig`` for ``target`` (``cuda:90``, ``hip:gfx942``)."""
    import triton

    tgt = parse_target(target)
    src = _ast_source(fn, sig.types, sig.constexprs)
    try:
        with warnings.catch_warnings():  # triton 3.9's FP-fusion default notice is no lint output
            warnings.simplefilter("ignore", UserWarning)
            compiled = triton.compile(src, target=tgt.gpu_target(), options={"num_warps": num_warps})
    except Exception as exc:  # triton raises CompilationError / RuntimeError with MLIR dumps
        file, line = _where(exc, sig.file, sig.line)
        if type(exc).__name__ == "CompilationError":  # the front end: the Python of the kernel, or its types
            hint = f"check the argument types and constexprs: {sig.describe()}"
        else:  # a backend (LLVM, the assembler) rejected the code
            hint = (f"the {tgt.backend} backend rejected the generated code; inline asm written for one target "
                    "(PTX for cuda, AMDGCN for hip) does not compile for the other: lint it with a --target it is "
                    "written for")
        raise LitmusError.at(file, line, f"triton {triton.__version__} could not compile kernel {sig.kernel} for "
                             f"{tgt}: {_first_line(exc)} ({hint})") from None
    asm = compiled.asm
    return CompiledText(sig.kernel, str(tgt), triton.__version__, str(asm.get("ttir", "")), str(asm.get("ttgir", "")),
                        tgt.asm_key, str(asm.get(tgt.asm_key, "")))
