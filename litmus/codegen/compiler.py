"""Compile generated kernels for a GPU target on this machine (no GPU needed)."""

from __future__ import annotations

import contextlib
import inspect
import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterator, Mapping

from litmus.codegen.generate import generate
from litmus.codegen.layout import KERNEL_SIGNATURE
from litmus.codegen.loader import cache_root, kernel_path, load_kernel, write_atomic
from litmus.codegen.options import CodegenOptions
from litmus.codegen.sass import disassemble
from litmus.codegen.source import KernelSource
from litmus.codegen.targets import Target, parse_target
from litmus.errors import LitmusError
from litmus.ir import LitmusTest

TEXT_ARTIFACTS: tuple[str, ...] = ("ttir", "ttgir", "llir", "ptx", "amdgcn", "sass")

ARTIFACTS_VERSION = "a2"
"""Part of every cache file name: raised when the artifacts kept change form (a2: SASS with
its line table, :mod:`litmus.codegen.sass`)."""


@dataclass(frozen=True)
class CompiledKernel:
    """The text artifacts of one compiled kernel, keyed ``ttir``/``ttgir``/``llir``/``ptx``/``amdgcn``/``sass``."""

    name: str
    asm: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class Compiled:
    """Every kernel of one test compiled for one target."""

    test_id: str
    target: str
    triton_version: str
    source: KernelSource
    kernels: tuple[CompiledKernel, ...]

    def kernel(self, name: str) -> CompiledKernel:
        """The kernel called ``name``."""
        for k in self.kernels:
            if k.name == name:
                return k
        raise KeyError(name)

    def text(self, kind: str) -> str:
        """One artifact kind (e.g. ``ptx``) of every kernel, concatenated."""
        return "\n".join(k.asm.get(kind, "") for k in self.kernels)


def _first_error(exc: BaseException) -> str:
    lines = [l.strip() for l in str(exc).splitlines() if l.strip()]
    errors = [l for l in lines if "error" in l.lower()]
    return (errors or lines or [type(exc).__name__])[0]


def ast_source(fn: Any, signature: Mapping[str, str], constexprs: Mapping[str, Any]) -> Any:
    """A ``triton.compiler.ASTSource`` of ``fn`` across Triton versions (3.6 ... 3.9): every
    constexpr is in the signature, and the keyword for their values is the one this Triton takes."""
    from triton.compiler import ASTSource

    params = inspect.signature(ASTSource.__init__).parameters
    sig = dict(signature)
    for name in constexprs:
        sig.setdefault(name, "constexpr")
    if "constexprs" in params:
        return ASTSource(fn, sig, constexprs=dict(constexprs) or None)
    if "constants" in params:  # older spelling
        return ASTSource(fn, sig, constants=dict(constexprs) or None)
    return ASTSource(fn, sig)


BINARY_STAGES: tuple[str, ...] = ("cubin", "hsaco")
"""Triton's last stage per backend: the loadable binary (ptxas, or ld.lld), which no text artifact needs."""


class _TextOnly:
    """A Triton ``add_stages_inspection_hook`` that replaces the binary stage by an empty binary.

    Triton calls it with no arguments for its part of the cache key (3.7 on), and with
    ``(backend, stages, options, language, capability)`` when it builds the pipeline."""

    KEY = "litmus-text-only"

    def __call__(self, *args: Any) -> Any:
        if not args:
            return self.KEY, self.KEY
        stages = args[1]
        for ext in BINARY_STAGES:
            if ext in stages:
                stages[ext] = lambda _module, _metadata: b""
        return None


@contextlib.contextmanager
def _text_only() -> Iterator[None]:
    """Compile without the binary stage, into a Triton cache of litmus's own: an empty binary must
    never sit in the user's Triton cache, where a later launch of the same kernel would load it
    (triton 3.6 leaves the hook out of its cache key)."""
    from triton import knobs

    saved_hook = knobs.runtime.add_stages_inspection_hook
    saved_dir = os.environ.get("TRITON_CACHE_DIR")
    knobs.runtime.add_stages_inspection_hook = _TextOnly()
    os.environ["TRITON_CACHE_DIR"] = str(cache_root() / "triton-text-only")
    try:
        yield
    finally:
        knobs.runtime.add_stages_inspection_hook = saved_hook
        if saved_dir is None:
            os.environ.pop("TRITON_CACHE_DIR", None)
        else:
            os.environ["TRITON_CACHE_DIR"] = saved_dir


_BINARY_CHECKED: set[str] = set()
"""Targets whose binary stage has run in this process (ptxas or the linker accepted the target)."""


def compile_jit(fn: Any, signature: Mapping[str, str], target: Target, constexprs: Mapping[str, Any] | None = None,
                num_warps: int = 4, sass: bool = True, binary: bool = True) -> dict[str, str]:
    """Text artifacts (:data:`TEXT_ARTIFACTS`) of one ``@triton.jit`` function compiled for
    ``target`` on this machine, no GPU needed; with ``sass`` (cuda), also the SASS disassembled
    from the cubin when Triton's tools run here (about 0.7 s a kernel on two cores).

    ``binary=False`` skips the binary stage (ptxas, the linker), which no text artifact needs,
    unless SASS is asked for or the target has not yet been through it in this process: that
    stage is where an unknown target (``cuda:20``) or another ISA's inline asm fails, so a user's
    kernel keeps it and generated kernels keep it once per target.  The one place litmus calls
    ``triton.compile``: codegen, the audit, lint and cost all compile here."""
    import triton

    src = ast_source(fn, signature, constexprs or {})
    full = binary or (sass and target.backend == "cuda") or str(target) not in _BINARY_CHECKED
    with contextlib.nullcontext() if full else _text_only():
        compiled = triton.compile(src, target=target.gpu_target(), options={"num_warps": num_warps})
    if full:
        _BINARY_CHECKED.add(str(target))
    asm = {k: v for k, v in compiled.asm.items() if k in TEXT_ARTIFACTS and isinstance(v, str)}
    if sass and "sass" not in asm and isinstance(compiled.asm.get("cubin"), bytes):
        text = disassemble(compiled.asm["cubin"])
        if text:
            asm["sass"] = text
    return asm


def compile_kernel(fn: object, target: Target, block: int, num_warps: int = 4, sass: bool = False) -> dict[str, str]:
    """Text artifacts of one generated kernel (:data:`KERNEL_SIGNATURE`) compiled for ``target``
    (with ``sass``, the SASS too: see :func:`compile_jit`)."""
    return compile_jit(fn, KERNEL_SIGNATURE, target, {"BLOCK": block}, num_warps, sass=sass, binary=False)


def _cache_file(source: KernelSource, target: Target, version: str, num_warps: int, sass: bool) -> Path:
    extra = "-sass" if sass else ""
    return cache_root() / "compiled" / f"{source.digest[:32]}-{target.backend}-{target.arch}-w{num_warps}{extra}-triton{version}-{ARTIFACTS_VERSION}.json"


def compile_variant(test: LitmusTest, target: str, options: CodegenOptions | None = None,
                    num_warps: int = 4, sass: bool = False) -> Compiled:
    """Generate ``test``'s kernels for ``target`` (``cuda:90``, ``hip:gfx942``) and compile them;
    with ``sass`` (cuda), the SASS too: a disassembly that costs about as much as the compile,
    so only what reads SASS asks for it.

    Results are cached by (source hash, target, triton version, SASS or not) under ``$LITMUS_CACHE``.
    """
    import triton

    tgt = parse_target(target)
    options = (options or CodegenOptions()).with_backend(tgt.backend)
    source = generate(test, options)
    path = _cache_file(source, tgt, triton.__version__, num_warps, sass)
    if path.exists():
        data = json.loads(path.read_text())
        kernels = tuple(CompiledKernel(k["name"], k["asm"]) for k in data["kernels"])
        return Compiled(test.id, str(tgt), triton.__version__, source, kernels)
    module = load_kernel(source, interpret=False)
    kernels = []
    for name in source.kernel_names:
        try:
            asm = compile_kernel(getattr(module, name), tgt, options.block, num_warps, sass=sass)
        except Exception as exc:  # triton raises CompilationError/RuntimeError with the MLIR dump
            raise LitmusError(f"{test.source_file or '<test>'}: {test.id}: triton {triton.__version__} could "
                              f"not compile kernel {name} for {tgt}: {_first_error(exc)} "
                              f"(generated source: {kernel_path(source)})") from exc
        kernels.append(CompiledKernel(name, asm))
    write_atomic(path, json.dumps({"kernels": [{"name": k.name, "asm": k.asm} for k in kernels]}))
    return Compiled(test.id, str(tgt), triton.__version__, source, tuple(kernels))
