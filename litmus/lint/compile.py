"""Compile a user's ``@triton.jit`` kernel on the CPU to TTIR/TTGIR, the way the audit does
(``triton.compile`` with a ``GPUTarget``; no GPU needed)."""

from __future__ import annotations

import contextlib
import inspect
import io
import os
import re
import sys
import tempfile
import warnings
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Iterator

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


def _front_end(exc: BaseException) -> bool:
    """Whether Triton's front end raised it (a CompilationError, or a subclass such as
    UnsupportedLanguageConstruct for ``break``): the kernel's Python or its types."""
    return any(c.__name__ == "CompilationError" for c in type(exc).__mro__)


def _first_line(exc: BaseException) -> str:
    """The error itself: a CompilationError's message (not its ``at 2:17:`` header), else the
    first line that says ``error``."""
    # an error inside a called @triton.jit function is the cause of the caller's, which has no
    # message of its own
    seen: BaseException | None = exc
    while seen is not None:
        msg = getattr(seen, "error_message", None)
        if _front_end(seen) and isinstance(msg, str) and msg.strip():
            return " ".join(msg.split())[:300]
        seen = seen.__cause__ or seen.__context__
    lines = [l.strip() for l in str(exc).splitlines() if l.strip()]
    errors = [l for l in lines if "error" in l.lower()]
    return (errors or lines or [type(exc).__name__])[0][:300]


def _diagnostic(output: str) -> str:
    """The first error line a backend (MLIR, LLVM, ptxas, the AMD assembler) wrote to stdout/stderr."""
    for line in output.splitlines():
        text = line.strip()
        if re.search(r"\b(error|fatal)\b", text, re.I) and "Failures have been detected" not in text \
                and "Internal Triton" not in text:
            return " ".join(text.split())[:300]
    return ""


def _def_line(fn: Any, fallback: int) -> int:
    """The line of ``def`` of jitted ``fn`` (its decorators come first; Triton counts from ``def``)."""
    raw = getattr(fn, "fn", fn)
    try:
        lines, start = inspect.getsourcelines(raw)
    except (OSError, TypeError):
        return fallback
    for i, text in enumerate(lines):
        if re.match(r"\s*(async\s+)?def\b", text):
            return start + i
    return fallback


def _where(exc: BaseException, file: str, line: int, def_line: int) -> tuple[str, int]:
    """file:line of a Triton CompilationError (it carries the line, counted from the kernel's
    ``def``, of the statement it failed on), else the kernel's line."""
    node = getattr(exc, "node", None)
    if node is not None and getattr(node, "lineno", None) is not None:
        src = getattr(exc, "src", None)
        offset = getattr(src, "starting_line_number", None) if src is not None else None
        base = getattr(getattr(exc, "fn", None), "starting_line_number", None)
        return file, (offset or base or def_line) + node.lineno - 1
    m = re.search(r'"([^"]+\.py)":(\d+)', str(exc))
    if m:
        return m.group(1), int(m.group(2))
    return file, line


def _file_text(file: str) -> str:
    try:
        return Path(file).read_text(errors="replace")
    except OSError:
        return ""


@contextlib.contextmanager
def _captured_output() -> Iterator[list[str]]:
    """Collect what the compiler writes to file descriptors 1 and 2 and to ``sys.stdout`` /
    ``sys.stderr`` (MLIR diagnostics and reproducers, ptxas' dump: pages of text that are no lint
    output) in one temporary file. Its text is in the yielded list afterwards; meanwhile
    :func:`_fd_text` reads it."""
    out: list[str] = []
    sys.stdout.flush()
    sys.stderr.flush()
    try:
        saved = [os.dup(1), os.dup(2)]
    except OSError:  # no real descriptors (an embedding host): leave them be
        yield out
        return
    with tempfile.TemporaryFile(mode="w+b") as tmp:
        _FD_FILE.append(tmp)
        stream = io.TextIOWrapper(os.fdopen(os.dup(tmp.fileno()), "wb"), encoding="utf-8", errors="replace",
                                  write_through=True)
        try:
            os.dup2(tmp.fileno(), 1)
            os.dup2(tmp.fileno(), 2)
            with contextlib.redirect_stdout(stream), contextlib.redirect_stderr(stream):
                yield out
        finally:
            stream.close()
            os.dup2(saved[0], 1)
            os.dup2(saved[1], 2)
            for fd in saved:
                os.close(fd)
            _FD_FILE.pop()
            tmp.seek(0)
            out.append(tmp.read().decode(errors="replace"))


def _hint(exc: BaseException, said: str, tgt: Any, sig: KernelSignature, version: str) -> str:
    if _front_end(exc):
        return f"fix this line, or check the argument types and constexprs: {sig.describe() or 'none'}"
    if re.search(r"unsupported target|not defined for option 'gpu-name'|is not a recognized processor|"
                 r"unknown target|Unsupported (arch|target)", said, re.I):
        return (f"triton {version} has no {tgt.backend} backend for this architecture: give a --target it supports, "
                "e.g. cuda:90, cuda:80 or hip:gfx942")
    if "inline_asm" in _file_text(sig.file):
        return (f"the {tgt.backend} backend rejected the generated code; inline asm written for one target (PTX for "
                "cuda, AMDGCN for hip) does not compile for the other: lint it with a --target it is written for")
    return f"the {tgt.backend} backend rejected the generated code; try another --target or Triton version"


def _compile(fn: Any, sig: KernelSignature, tgt: Any, num_warps: int) -> CompiledText | tuple:
    """The compiled texts, or ``(file, line, message)`` of the error (picklable: it may cross a fork)."""
    import triton

    from litmus.codegen.compiler import compile_jit

    try:
        with warnings.catch_warnings():  # triton 3.9's FP-fusion notice is no lint output
            warnings.simplefilter("ignore", UserWarning)
            asm = compile_jit(fn, sig.types, tgt, sig.constexprs, num_warps, sass=False)
    except Exception as exc:  # triton raises CompilationError / RuntimeError with MLIR dumps
        said = _fd_text() + "\n" + str(exc)
        file, line = _where(exc, sig.file, sig.line, _def_line(fn, sig.line))
        detail = _diagnostic(said)
        what = _first_line(exc)
        if detail and detail not in what:
            what = f"{what}: {detail}"
        hint = _hint(exc, said, tgt, sig, triton.__version__)
        return (file, line, f"triton {triton.__version__} could not compile kernel {sig.kernel} for {tgt}: {what} "
                            f"({hint})")
    return CompiledText(sig.kernel, str(tgt), triton.__version__, str(asm.get("ttir", "")), str(asm.get("ttgir", "")),
                        tgt.asm_key, str(asm.get(tgt.asm_key, "")))


_FD_FILE: list[Any] = []  # the file descriptors 1 and 2 point at while a compile's output is captured


def _fd_text() -> str:
    """What the compile wrote so far (inside :func:`_captured_output`)."""
    sys.stdout.flush()
    sys.stderr.flush()
    if not _FD_FILE:
        return ""
    f = _FD_FILE[-1]
    f.seek(0)
    return f.read().decode(errors="replace")


def _in_child(fn: Any, sig: KernelSignature, tgt: Any, num_warps: int) -> CompiledText | tuple:
    """:func:`_compile` in a forked child: some backends (triton 3.6's AMD one, on PTX inline asm)
    end the process on a fatal LLVM error instead of raising."""
    import pickle

    import triton

    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: compile, send the result, leave without running the parent's cleanup
        code = 0
        try:
            os.close(r)
            data = pickle.dumps(_compile(fn, sig, tgt, num_warps))
            with os.fdopen(w, "wb") as pipe:
                pipe.write(data)
        except BaseException:
            code = 3
        finally:
            os._exit(code)
    os.close(w)
    with os.fdopen(r, "rb") as pipe:
        data = pipe.read()
    _, status = os.waitpid(pid, 0)
    if data:
        return pickle.loads(data)
    said = _fd_text()
    last = said.strip().splitlines() or [f"exit status {os.waitstatus_to_exitcode(status)}"]
    detail = _diagnostic(said) or last[-1]
    hint = _hint(RuntimeError(), said, tgt, sig, triton.__version__)  # no exception crossed the fork
    return (sig.file, sig.line, f"triton {triton.__version__} could not compile kernel {sig.kernel} for {tgt}: the "
                                f"{tgt.backend} backend ended the compiler process: {' '.join(detail.split())[:300]} "
                                f"({hint})")


def compile_kernel(fn: Any, sig: KernelSignature, target: str, num_warps: int = 4) -> CompiledText:
    """TTIR and TTGIR of ``fn`` with argument types ``sig`` for ``target`` (``cuda:90``, ``hip:gfx942``).

    What the compiler writes to stdout/stderr (MLIR reproducers, ptxas' dump) is kept out of the
    report; a compile error becomes a :class:`LitmusError` at the kernel's ``file:line``."""
    tgt = parse_target(target)
    # a hip compile of a file with inline asm runs in a child process where fork() is available
    fork = tgt.backend == "hip" and "inline_asm" in _file_text(sig.file) and hasattr(os, "fork")
    with _captured_output() as output:
        result = (_in_child if fork else _compile)(fn, sig, tgt, num_warps)
    if isinstance(result, tuple):
        file, line, message = result
        raise LitmusError.at(file, line, message)
    text = "".join(output)
    if text.strip():  # what the kernel itself printed at compile time (tl.static_print) stays visible
        sys.stderr.write(text)
    return _relocated(result, sig.file)


_LOC_FILE = re.compile(r'loc\("([^"]+)"')


def _relocated(compiled: CompiledText, file: str) -> CompiledText:
    """``compiled`` with its line-table paths pointing at ``file``, where triton's cache served
    a compile of the same source from another place: triton keys its cache by the source, not
    the path, so the TTIR of a copy (another checkout, a moved file) names the first one's
    path. A path is taken for ``file`` only when its name is the same and its text is identical
    (or it no longer exists)."""
    if not file or not Path(file).is_file():
        return compiled
    here = str(Path(file).resolve())
    mine = _file_text(here)
    stale = {p for p in _LOC_FILE.findall(compiled.ttir + compiled.ttgir)
             if p != here and Path(p).name == Path(here).name
             and (not Path(p).exists() or _file_text(p) == mine)}
    if not stale:
        return compiled

    def fix(text: str) -> str:
        for p in stale:
            text = text.replace(f'"{p}"', f'"{here}"')
        return text

    return replace(compiled, ttir=fix(compiled.ttir), ttgir=fix(compiled.ttgir), asm=fix(compiled.asm))
