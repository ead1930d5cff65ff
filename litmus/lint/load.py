"""Find the ``@triton.jit`` kernels of a user's Python file (importing it, as Triton does) and
the ``LITMUS_LINT`` settings it may carry.

A kernel is a jitted function defined in the file that no other jitted function of the file
calls (those are helpers, inlined into the kernels).  ``LITMUS_LINT`` is an optional dict,
``{"kernel_name": {"signature": {...}, "peer": [...]}}``, for what cannot be inferred.
"""

from __future__ import annotations

import ast
import hashlib
import re
import importlib.util
import sys
import textwrap
import traceback
import types
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping

from litmus.errors import LitmusError
from litmus.lint.jitfn import is_jit, unwrap


@dataclass(frozen=True)
class FoundKernel:
    """One jitted kernel of a file, with the settings ``LITMUS_LINT`` gives it."""

    name: str
    fn: Any
    file: str
    line: int
    signature: dict[str, Any] = field(default_factory=dict)
    peers: tuple[str, ...] = ()
    call_site: dict[str, tuple[Any, str]] = field(default_factory=dict)  # what a launch in the file says
    symmetric: dict[str, int] = field(default_factory=dict)  # parameters a launch gives symmetric-heap memory


def autotune_defaults(obj: Any) -> dict[str, Any]:
    """The constexprs of an ``@triton.autotune`` kernel's first config (the linter compiles that one)."""
    while obj is not None and obj.__class__.__name__ in ("Autotuner", "Heuristics"):
        configs = getattr(obj, "configs", None)
        if configs:
            return dict(getattr(configs[0], "kwargs", {}) or {})
        obj = getattr(obj, "fn", None)
    return {}


def import_file(path: Path, helpers: Mapping[str, types.ModuleType] | None = None) -> Any:
    """Import ``path`` as a fresh module (its directory first on ``sys.path`` meanwhile).

    The libraries of :mod:`litmus.lint.libs` and ``helpers`` (module name -> stand-in module)
    are replaced by stand-ins, and a module absent here by an empty stub (see
    :mod:`litmus.lint.stubs`); what was replaced is the module's ``__litmus_stubbed__``."""
    from litmus.lint.stubs import missing_module, stubbed_imports

    if not path.is_file():
        raise LitmusError.at(str(path), None, "no such file")
    source = path.read_text(errors="replace")
    empty: set[str] = set()
    for _ in range(32):  # each round stubs one more absent module
        try:
            with stubbed_imports(source, helpers, empty) as (stubbed, _wanted):
                module = _exec_file(path)
            stubbed.empty = sorted(set(stubbed.empty) | empty)
            module.__litmus_stubbed__ = stubbed
            return module
        except _ImportFailed as failed:
            missing = missing_module(failed.exc)
            if missing is None or missing in empty or missing.split(".")[0] in ("triton", "litmus"):
                raise failed.error from None
            empty.add(missing)
    raise LitmusError.at(str(path), None, "importing the file failed: it imports more than 32 modules absent here")


class _ImportFailed(Exception):
    """The file's import raised ``exc``; ``error`` is what to tell the user if it cannot be stubbed."""

    def __init__(self, exc: BaseException, error: LitmusError):
        super().__init__(str(error))
        self.exc = exc
        self.error = error


def _exec_file(path: Path) -> Any:
    """Run the file as a module; an exception becomes :class:`_ImportFailed` (or a LitmusError
    for a syntax error)."""
    from litmus.lint.stubs import package_for

    name = "_litmus_lint_" + hashlib.sha1(str(path.resolve()).encode()).hexdigest()[:16]
    spec = importlib.util.spec_from_file_location(name, path.resolve())
    if spec is None or spec.loader is None:
        raise LitmusError.at(str(path), None, "not a Python file litmus lint can import")
    module = importlib.util.module_from_spec(spec)
    module.__package__ = package_for(path)  # the file's relative imports load its real siblings
    sys.path.insert(0, str(path.resolve().parent))
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except SyntaxError as exc:  # the file itself does not parse: its line, not the import machinery's
        here = exc.filename is None or Path(exc.filename).resolve() == path.resolve()
        where = str(path) if here else str(exc.filename)
        by = "" if here else f", in a module {path} imports"
        raise LitmusError.at(where, exc.lineno, f"{type(exc).__name__}: {exc.msg}{by}; fix it there: litmus lint "
                             "imports the file to find its @triton.jit kernels", column=exc.offset) from None
    except Exception as exc:
        frames = [f for f in traceback.extract_tb(exc.__traceback__) if Path(f.filename).resolve() == path.resolve()]
        line = frames[-1].lineno if frames else None
        raise _ImportFailed(exc, LitmusError.at(
            str(path), line, f"importing the file failed: {type(exc).__name__}: {exc} "
            "(litmus lint imports the file to find its @triton.jit kernels; code under "
            "`if __name__ == \"__main__\":` is not run)")) from None
    finally:
        sys.path.remove(str(path.resolve().parent))
    return module


def _called_names(fn: Any) -> set[str]:
    try:
        tree = ast.parse(textwrap.dedent(fn.src))
    except (SyntaxError, AttributeError):
        return set()
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            f = node.func
            names.add(f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) else "")
    return names


def find_kernels(path: str | Path, only: str | None = None) -> list[FoundKernel]:
    """The kernels of the file at ``path`` (or the one called ``only``), in source order."""
    p = Path(path)
    return kernels_of(import_file(p), p, only)


def kernels_of(module: Any, p: Path, only: str | None = None) -> list[FoundKernel]:
    """The kernels defined in file ``p`` among the globals of ``module`` (or the one called ``only``)."""
    jitted = {}
    for attr, obj in vars(module).items():
        if attr.startswith("__") or not is_jit(obj):
            continue
        fn = unwrap(obj)
        code = fn.fn.__code__
        if Path(code.co_filename).resolve() != p.resolve():
            continue  # imported from elsewhere
        jitted[attr] = (fn, code.co_firstlineno)
    simt = sorted(attr for attr, (fn, _) in jitted.items() if bind_simt_region(fn))
    stubbed = getattr(module, "__litmus_stubbed__", None)
    if simt and stubbed is not None:
        stubbed.guards.append(f"dl.simt_exec_region() as (thread_idx, block_size) read as each thread's %tid.x, "
                              f"%ntid.x in {', '.join(simt)}")
    settings = getattr(module, "LITMUS_LINT", {}) or {}
    if not isinstance(settings, dict):
        raise LitmusError.at(str(p), None, "LITMUS_LINT must be a dict: "
                             "{'kernel': {'signature': {...}, 'peer': [...]}}")
    if only is not None:
        if only not in jitted:
            raise LitmusError.at(str(p), None, f"no @triton.jit function called {only!r} here; found: "
                                 f"{', '.join(sorted(jitted)) or 'none'}")
        names = [only]
    else:
        called = set().union(*(_called_names(fn) for fn, _ in jitted.values())) if jitted else set()
        names = [n for n in jitted if n not in called]
        if not names:
            raise LitmusError.at(str(p), None, "no @triton.jit kernels found (a kernel is a jitted function that no "
                                 "other jitted function of the file calls; name one with --kernel)")
    try:
        source = p.read_text(errors="replace")
    except OSError:
        source = ""
    out = []
    for n in sorted(names, key=lambda n: jitted[n][1]):
        fn, line = jitted[n]
        if drop_final_return(fn):
            stubbed = getattr(module, "__litmus_stubbed__", None)
            if stubbed is not None:
                stubbed.guards.append(f"{n} linted as a kernel with its returned value dropped (no jitted function "
                                      "of the file calls it, and a kernel returns nothing)")
        cfg = settings.get(n, {}) or {}
        signature = {**autotune_defaults(vars(module)[n]), **dict(cfg.get("signature", {}) or {})}
        symmetric = symmetric_args(fn, source)
        peers = tuple(dict.fromkeys([*(cfg.get("peer", ()) or ()), *symmetric]))
        out.append(FoundKernel(n, fn, str(p), line, signature, peers, launch_hints(fn, source), symmetric))
    return out


_SIMT = re.compile(r"\bwith\s+(?P<cm>[\w.]*simt_exec_region)\(\)\s+as\s+\(\s*(?P<a>\w+)\s*,\s*(?P<b>\w+)\s*\)\s*:")


def bind_simt_region(fn: Any) -> bool:
    """Triton-distributed's ``with dl.simt_exec_region() as (thread_idx, block_size):`` as upstream
    Triton can compile it: its ``with`` binds no tuple, so the names are bound by walrus
    expressions in the header, ``with dl.simt_exec_region((thread_idx :=
    dl.simt_exec_region.thread_index()), (block_size := dl.simt_exec_region.block_size())):``,
    on the same line (every other line and column stays).  Only where this Triton lowers ``:=``
    (3.9, not 3.6); True when ``fn``'s source was rewritten."""
    from triton.compiler.code_generator import CodeGenerator

    src = getattr(fn, "src", None)
    if src is None or not hasattr(fn, "_unsafe_update_src") or not hasattr(CodeGenerator, "visit_NamedExpr"):
        return False
    new = _SIMT.sub(lambda m: (f"with {m['cm']}(({m['a']} := {m['cm']}.thread_index()), "
                               f"({m['b']} := {m['cm']}.block_size())):"), src)
    if new == src:
        return False
    fn._unsafe_update_src(new)
    return True


def drop_final_return(fn: Any) -> bool:
    """A device helper linted as a kernel (``return value`` as its last statement, which a kernel
    cannot compile): that ``return`` becomes an assignment of the value, in place (``return`` and
    ``_ret =`` are as long, so every line and column stays); True when it was rewritten.  The value
    is still computed, so the helper's memory operations are all there; a function with any other
    ``return value`` (an early one) is left as it is."""
    src = getattr(fn, "src", None)
    if src is None or not hasattr(fn, "_unsafe_update_src"):
        return False
    lines = src.splitlines(keepends=True)
    try:
        tree = ast.parse(textwrap.dedent(src))
    except SyntaxError:
        return False
    node = next((n for n in tree.body if isinstance(n, ast.FunctionDef)), None)
    if node is None or not node.body:
        return False
    returns = [n for n in ast.walk(node) if isinstance(n, ast.Return) and n.value is not None]
    last = node.body[-1]
    if returns != [last] or not isinstance(last, ast.Return):
        return False
    indent = len(lines[0]) - len(lines[0].lstrip())  # what dedent took off each line
    row = lines[last.lineno - 1]
    col = last.col_offset + indent
    if row[col:col + 6] != "return":
        return False
    lines[last.lineno - 1] = row[:col] + "_ret =" + row[col + 6:]
    fn._unsafe_update_src("".join(lines))
    return True


def symmetric_args(fn: Any, source: str) -> dict[str, int]:
    """The parameters of ``fn`` a launch in its file's ``source`` gives a symmetric-heap buffer,
    with the line of its allocation (:mod:`litmus.lint.symmetric`)."""
    from litmus.lint.symmetric import symmetric_params

    return symmetric_params(source, fn.__name__, [q.name for q in getattr(fn, "params", [])])


def launch_hints(fn: Any, source: str) -> dict[str, tuple[Any, str]]:
    """What a launch ``kernel[grid](...)`` in its file's ``source`` says about ``fn``'s parameters."""
    from litmus.lint.callsite import call_site_hints

    params = [q.name for q in getattr(fn, "params", [])]
    constexprs = {q.name for q in getattr(fn, "params", []) if getattr(q, "is_constexpr", False)}
    return call_site_hints(source, fn.__name__, params, constexprs)
