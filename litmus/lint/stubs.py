"""Import a user's kernel file on a machine that lacks the libraries it imports.

While the file is imported, the device helper libraries :data:`litmus.lint.libs.LIBRARIES`
names (iris, Triton-distributed, PyTorch's symm_mem NVSHMEM helpers) and those of a
``--helpers`` file are replaced by stand-ins with the real functions' ordering; a module that
is absent here (or lacks a name the file imports) becomes an empty stub; a file that belongs to
a package gets a package, so its relative imports load its real siblings; and a
``has_triton()`` guard reads true, so kernels defined under it exist.  Everything is put back
afterwards: ``sys.modules`` holds the stubs only during the import.
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib.abc
import importlib.machinery
import sys
import types
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterator, Mapping

from litmus.lint.libs import stand_ins
from litmus.lint.stub import Stub, StubModule


@dataclass
class Stubbed:
    """What an import replaced: stand-ins (the module name and what replaced it) and empty stubs."""

    standins: dict[str, str] = field(default_factory=dict)
    empty: list[str] = field(default_factory=list)
    guards: list[str] = field(default_factory=list)

    def note(self, file: str) -> str | None:
        """One line for the report, or None when nothing was replaced."""
        parts = []
        if self.standins:
            parts.append("stand-ins with the real ordering for " + ", ".join(sorted(self.standins)))
        if self.empty:
            parts.append("empty stubs (absent here; a kernel's call into one is taken as doing nothing to memory) "
                         "for " + ", ".join(sorted(self.empty)))
        if self.guards:
            parts.append(", ".join(self.guards))
        if not parts:
            return None
        return f"{file}: imported for linting with " + "; ".join(parts)


class _Loader(importlib.abc.Loader):
    def __init__(self, make: Callable[[str], types.ModuleType]):
        self.make = make

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> types.ModuleType:
        return self.make(spec.name)

    def exec_module(self, module: types.ModuleType) -> None:
        return None


class _Finder(importlib.abc.MetaPathFinder):
    """Serves stand-ins and empty stubs ahead of the ordinary finders."""

    def __init__(self, standins: Mapping[str, types.ModuleType], empty: set[str], stubbed: Stubbed):
        self.standins = dict(standins)
        self.empty = empty
        self.stubbed = stubbed
        # a stand-in package's other submodules (``triton_dist.utils``) are empty stubs
        self.roots = {name for name in self.standins if "." not in name}

    def find_spec(self, fullname: str, path: Any = None, target: Any = None) -> importlib.machinery.ModuleSpec | None:
        if fullname in self.standins:
            return importlib.machinery.ModuleSpec(fullname, _Loader(self._standin), is_package=True)
        root = fullname.split(".")[0]
        if fullname in self.empty or root in self.empty or (root in self.roots and fullname not in sys.modules):
            return importlib.machinery.ModuleSpec(fullname, _Loader(self._empty), is_package=True)
        return None

    def _standin(self, name: str) -> types.ModuleType:
        real = self.standins[name]
        module = types.ModuleType(name, real.__doc__)
        module.__file__ = real.__file__  # code that asks inspect where a module lives gets an answer
        module.__dict__.update({k: v for k, v in vars(real).items()
                                if k == "__getattr__" or not (k.startswith("__") and k.endswith("__"))})
        module.__path__ = []  # a package: its submodules come through this finder too
        self.stubbed.standins[name] = real.__name__
        return module

    def _empty(self, name: str) -> types.ModuleType:
        module = StubModule(name)
        module.__file__ = __file__
        module.__path__ = []
        if name not in self.stubbed.empty and name.split(".")[0] not in self.roots:
            self.stubbed.empty.append(name)
        return module


def package_for(path: Path, depth: int = 3) -> str:
    """A package for the directory of ``path`` (and ``depth - 1`` of its parents, for ``..``
    imports), registered in ``sys.modules``; the name ``path``'s module takes as ``__package__``."""
    here = path.resolve().parent
    dirs = [here, *list(here.parents)[:depth - 1]][::-1]  # outermost first
    name = "_litmus_lint_pkg_" + hashlib.sha1(str(here).encode()).hexdigest()[:12]
    for i, d in enumerate(dirs):
        if i:
            name += f".{d.name or 'root'}".replace("-", "_")
        if name not in sys.modules:
            pkg = types.ModuleType(name)
            pkg.__path__ = [str(d)]
            pkg.__package__ = name
            sys.modules[name] = pkg
    return name


@contextlib.contextmanager
def _true_has_triton(source: str, stubbed: Stubbed) -> Iterator[None]:
    """``torch.utils._triton.has_triton()`` reads true meanwhile (no GPU here, and kernels
    defined under ``if has_triton():`` would not exist)."""
    if "has_triton" not in source:
        yield
        return
    try:
        import torch.utils._triton as mod
    except Exception:  # no torch: the file's own import of it fails, and is stubbed
        yield
        return
    saved = getattr(mod, "has_triton", None)
    mod.has_triton = lambda *a, **k: True
    stubbed.guards.append("has_triton() read as true")
    try:
        yield
    finally:
        mod.has_triton = saved


RENAMED_TRITON: dict[str, str] = {"_constexpr_to_value": "_unwrap_if_constexpr"}
"""Names of ``triton.language.core`` that real kernels use and later Triton renamed: old -> new."""


def old_triton_names(source: str, stubbed: Stubbed) -> None:
    """Give ``triton.language.core`` the old names ``source`` uses that this Triton renamed
    (``tl.core._constexpr_to_value``, now ``_unwrap_if_constexpr``), said in the import note.
    They stay: the kernel is compiled after the import, and an added alias changes nothing else."""
    import triton.language.core as core

    for old, new in RENAMED_TRITON.items():
        if old in source and not hasattr(core, old) and hasattr(core, new):
            setattr(core, old, getattr(core, new))
            stubbed.guards.append(f"triton.language.core.{old} read as {new} (its name in this Triton)")


@contextlib.contextmanager
def stubbed_imports(source: str, extra: Mapping[str, types.ModuleType] | None = None,
                    empty: set[str] | None = None) -> Iterator[tuple[Stubbed, set[str]]]:
    """Meanwhile, the stand-ins (:func:`litmus.lint.libs.stand_ins` and ``extra``: module name ->
    module that replaces it) and empty stubs for ``empty`` are what ``import`` finds.  Yields the record of
    what was replaced and the (mutable) set of names to stub empty."""
    standins = {**stand_ins(), **dict(extra or {})}
    names = set(standins) | set(empty or ())
    stubbed = Stubbed()
    wanted = set(empty or ())
    finder = _Finder(standins, wanted, stubbed)
    saved_modules = {n: m for n, m in sys.modules.items() if n in names or n.split(".")[0] in finder.roots
                     and n.split(".")[0] not in ("torch", "triton")}
    for n in saved_modules:
        del sys.modules[n]
    parents: dict[tuple[str, str], Any] = {}
    for n in standins:
        parent, _, child = n.rpartition(".")
        if parent and parent in sys.modules:
            parents[(parent, child)] = getattr(sys.modules[parent], child, _MISSING)
    before = set(sys.modules)
    sys.meta_path.insert(0, finder)
    old_triton_names(source, stubbed)
    try:
        with _true_has_triton(source, stubbed):
            yield stubbed, wanted
    finally:
        sys.meta_path.remove(finder)
        for n in set(sys.modules) - before:
            m = sys.modules[n]
            if isinstance(m, StubModule) or n in standins or n.split(".")[0] in finder.roots:
                del sys.modules[n]
        sys.modules.update(saved_modules)
        for (parent, child), value in parents.items():
            mod = sys.modules.get(parent)
            if mod is None:
                continue
            if value is _MISSING:
                with contextlib.suppress(AttributeError):
                    delattr(mod, child)
            else:
                setattr(mod, child, value)


_MISSING = object()


def missing_module(exc: BaseException) -> str | None:
    """The module an import error says is absent (or lacks a name), for an empty stub; None
    for any other error."""
    if isinstance(exc, ModuleNotFoundError) and exc.name:
        return exc.name
    if type(exc) is ImportError and exc.name and "cannot import name" in str(exc):
        return exc.name
    return None


def stub_uses(fn: Any, depth: int = 0, seen: set[int] | None = None) -> list[str]:
    """The names of empty stubs jitted ``fn`` (or a jitted helper it calls) uses: calls the
    kernel compiles as doing nothing, whose ordering the linter cannot see."""
    from litmus.lint.jitfn import is_jit, unwrap

    seen = set() if seen is None else seen
    raw = getattr(fn, "fn", fn)
    code = getattr(raw, "__code__", None)
    if code is None or id(raw) in seen or depth > 8:
        return []
    seen.add(id(raw))
    scope = getattr(raw, "__globals__", {})
    found: list[str] = []
    for name in code.co_names:
        value = scope.get(name)
        if isinstance(value, (Stub, StubModule)):
            found.append(repr(value)[len("<stub "):-1] if isinstance(value, Stub) else value.__name__)
        elif value is not None and is_jit(value):
            found += [n for n in stub_uses(unwrap(value), depth + 1, seen) if n not in found]
    return found
