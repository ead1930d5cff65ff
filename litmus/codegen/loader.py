"""Write a generated module to the kernel cache and import it (``@triton.jit`` needs a file)."""

from __future__ import annotations

import importlib.util
import os
import sys
import tempfile
from contextlib import contextmanager
from pathlib import Path
from types import ModuleType
from typing import Iterator

from litmus.codegen.source import KernelSource


def cache_root() -> Path:
    """``$LITMUS_CACHE`` or ``~/.cache/litmus``."""
    env = os.environ.get("LITMUS_CACHE")
    return Path(env) if env else Path.home() / ".cache" / "litmus"


def write_atomic(path: Path, data: str) -> None:
    """Write ``data`` to ``path`` through a temporary file and a rename."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=path.name, suffix=".tmp")
    try:
        with os.fdopen(fd, "w") as f:
            f.write(data)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def kernel_path(source: KernelSource) -> Path:
    """Where the module of ``source`` is cached."""
    return cache_root() / "kernels" / f"litmus_{source.digest[:32]}.py"


@contextmanager
def interpret_env(interpret: bool | None) -> Iterator[None]:
    """Set ``TRITON_INTERPRET`` to ``1``/``0`` for the block (``None``: leave it), then restore it.

    triton reads it when ``@triton.jit`` decorates (at import of a module), and the
    interpreter's launch path reads it again, so both belong inside the block.
    """
    if interpret is None:
        yield
        return
    old = os.environ.get("TRITON_INTERPRET")
    os.environ["TRITON_INTERPRET"] = "1" if interpret else "0"
    try:
        yield
    finally:
        if old is None:
            del os.environ["TRITON_INTERPRET"]
        else:
            os.environ["TRITON_INTERPRET"] = old


def load_kernel(source: KernelSource, interpret: bool | None = None) -> ModuleType:
    """Import the module of ``source`` from the kernel cache (written there first if needed).

    ``interpret=True`` decorates its kernels for the Triton CPU interpreter, ``False`` for a
    GPU, ``None`` as ``TRITON_INTERPRET`` says.  Loaded modules are reused.
    """
    return load_module(kernel_path(source), source.text, interpret)


def load_module(path: Path, text: str, interpret: bool | None = None) -> ModuleType:
    """Import the Triton module ``text``, kept in the file ``path`` (written there first if it
    differs), with its kernels decorated as ``interpret`` says (see :func:`load_kernel`).
    One module per (file, interpreter or GPU) is loaded and then reused."""
    if not path.exists() or path.read_text() != text:
        write_atomic(path, text)
    flavour = {None: "env", True: "interp", False: "gpu"}[interpret]
    if interpret is None:
        flavour += "1" if os.environ.get("TRITON_INTERPRET", "0") not in ("", "0") else "0"
    name = f"{path.stem}_{flavour}"
    cached = sys.modules.get(name)
    if cached is not None:
        return cached
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    with interpret_env(interpret):
        spec.loader.exec_module(module)
    sys.modules[name] = module
    return module


def load_text_kernel(stem: str, text: str, name: str, interpret: bool | None = None) -> object:
    """Kernel ``name`` of the Triton module ``text`` (the run harness's own kernels: memory
    stress, counting), kept in the kernel cache as ``<stem>_<hash>.py`` (see :func:`load_module`)."""
    import hashlib

    path = cache_root() / "kernels" / f"{stem}_{hashlib.sha256(text.encode()).hexdigest()[:16]}.py"
    return getattr(load_module(path, text, interpret), name)

