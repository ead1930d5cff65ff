"""A user's own device helper library, described in YAML for ``litmus lint --helpers FILE``:

```yaml
my_lib.signal: {op: atomic_xchg, sem: release, scope: sys}
my_lib.wait:   {op: wait, sem: acquire, scope: sys}
my_lib.remote: {op: peer_ptr}
```

Each key is ``module.function`` as the kernel file imports it; each value says what the
function does to memory.  ``op``: ``atomic_<add|xchg|cas|or|and|xor|max|min>`` (a ``tl.atomic_*``
by one thread with ``sem``/``scope``, on the pointer, returning the old value), ``store``
(a plain ``tl.store``), ``load`` (``volatile: true`` for a volatile one), ``wait`` (spin until the
pointer holds ``value``, each read with ``sem``/``scope``; ``sem: volatile`` for volatile polling),
``fence`` (``fence.<sem>.<scope>``, PTX), ``barrier`` (``tl.debug_barrier()``), ``peer_ptr`` (returns
the pointer in another GPU's memory, like ``nvshmem_ptr``).  ``args`` lists the function's
parameters in order (defaults: ``[ptr, value]``, ``[ptr, cmp, value]`` for atomic_cas, ``[ptr]``
for load and peer_ptr, ``[]`` for fence and barrier); the pointer is the parameter named
``ptr`` and the value ``value`` (``cmp`` the CAS's expected value); other names are accepted
and unused.  ``peer: true`` moves the pointer into another GPU's memory first (the function
reaches a peer).  The functions are written as Triton into a module that replaces the named
module while the kernel file is imported.
"""

from __future__ import annotations

import hashlib
import importlib.util
import re
import sys
import tempfile
import types
from pathlib import Path
from typing import Any, Mapping

from litmus.errors import LitmusError

_ATOMICS = ("atomic_add", "atomic_xchg", "atomic_cas", "atomic_or", "atomic_and", "atomic_xor", "atomic_max",
            "atomic_min")
_OPS = (*_ATOMICS, "store", "load", "wait", "fence", "barrier", "peer_ptr")
_SEMS = ("relaxed", "acquire", "release", "acq_rel")
_SCOPES = ("cta", "gpu", "sys")
_KEYS = ("op", "sem", "scope", "args", "peer", "volatile", "value")
_NAME = re.compile(r"^[A-Za-z_]\w*$")


def _default_args(op: str) -> list[str]:
    if op == "atomic_cas":
        return ["ptr", "cmp", "value"]
    if op in ("load", "peer_ptr"):
        return ["ptr"]
    if op in ("fence", "barrier"):
        return []
    return ["ptr", "value"]


def _body(op: str, spec: dict[str, Any], where: str) -> list[str]:
    """The Triton statements of one helper (``ptr`` already moved to a peer when asked)."""
    sem = spec.get("sem", "acq_rel" if op.startswith("atomic") else "relaxed")
    scope = spec.get("scope", "gpu")
    if op.startswith("atomic") or op == "wait" or op == "fence":
        if scope not in _SCOPES:
            raise LitmusError(f"{where}: scope {scope!r}: write one of {', '.join(_SCOPES)}")
        allowed = _SEMS + (("volatile",) if op == "wait" else ()) + (("sc",) if op == "fence" else ())
        if sem not in allowed:
            raise LitmusError(f"{where}: sem {sem!r}: write one of {', '.join(allowed)}")
    if op == "atomic_cas":
        return [f"return tl.atomic_cas(ptr, cmp, value, sem={sem!r}, scope={scope!r})"]
    if op.startswith("atomic"):
        return [f"return tl.{op}(ptr, value, sem={sem!r}, scope={scope!r})"]
    if op == "store":
        return ["tl.store(ptr, value)"]
    if op == "load":
        return [f"return tl.load(ptr, volatile={bool(spec.get('volatile', False))})"]
    if op == "wait":
        if sem == "volatile":
            return ["return volatile_spin_until(ptr, value)"]
        return [f"return spin_until(ptr, value, {sem!r}, {scope!r})"]
    if op == "fence":
        return [f"tl.inline_asm_elementwise('fence.{sem}.{scope}; mov.u32 $0, 0;', '=r', [], dtype=tl.int32, "
                "is_pure=False, pack=1)"]
    if op == "barrier":
        return ["tl.debug_barrier()"]
    return ["return peer_ptr(ptr, 1)"]


def helper_source(module: str, functions: dict[str, dict[str, Any]], file: str,
                  entry_lines: Mapping[str, int | None] | None = None) -> str:
    """The Triton module that stands in for ``module`` (``functions``: name -> its YAML spec,
    ``entry_lines``: name -> the line of its entry, for the errors)."""
    lines = [f'"""Stand-in for {module}, written by litmus lint from {file}."""', "", "import triton",
             "import triton.language as tl", "",
             "from litmus.lint.libs._common import peer_ptr, spin_until, volatile_spin_until", ""]
    for name, spec in functions.items():
        line = (entry_lines or {}).get(name)
        where = f"{file}:{line}: {module}.{name}" if line else f"{file}: {module}.{name}"
        op = spec.get("op")
        if op not in _OPS:
            raise LitmusError(f"{where}: op {op!r}: write one of {', '.join(_OPS)}")
        extra = sorted(set(spec) - set(_KEYS))
        if extra:
            raise LitmusError(f"{where}: unknown key(s) {', '.join(extra)}; the keys are {', '.join(_KEYS)}")
        args = spec.get("args", _default_args(op))
        if not isinstance(args, list) or not all(isinstance(a, str) and _NAME.match(a) for a in args):
            raise LitmusError(f"{where}: args must be a list of parameter names, e.g. [ptr, value, pe]")
        needed = {"ptr"} if op not in ("fence", "barrier") else set()
        needed |= {"value"} if op in ("store", "wait") or op.startswith("atomic") else set()
        needed |= {"cmp"} if op == "atomic_cas" else set()
        lacking = sorted(needed - set(args))
        value = spec.get("value")
        if value is not None and "value" in lacking:
            lacking.remove("value")
        if lacking:
            raise LitmusError(f"{where}: args {args} lack {', '.join(lacking)} (the pointer is `ptr`, the value "
                              "`value`, a CAS's expected value `cmp`)")
        body = _body(op, spec, where)
        pre = []
        if value is not None and "value" not in args:
            pre.append(f"value = {int(value)}")
        if spec.get("peer") and op not in ("fence", "barrier", "peer_ptr"):
            pre.append("ptr = peer_ptr(ptr, 1)")
        lines += ["@triton.jit", f"def {name}({', '.join(args)}):", *(f"    {s}" for s in pre + body), "", ""]
    return "\n".join(lines)


def load_helpers(path: Path) -> dict[str, types.ModuleType]:
    """Write the stand-ins ``path`` describes and import them: module name the kernel file
    imports -> the name of the stand-in module (for :func:`litmus.lint.load.import_file`)."""
    from litmus.errors import Problem
    from litmus.spec.yamlpos import LDict, load_documents, plain

    try:
        text = path.read_text()
    except OSError as exc:
        raise LitmusError.at(str(path), None, f"--helpers: cannot read it ({exc.strerror})") from None
    docs, problems = load_documents(text, str(path))
    if problems:
        raise LitmusError([Problem(q.file, q.line, q.column, f"--helpers: not YAML: {q.message}") for q in problems])
    data = docs[0] if docs else None
    if not isinstance(data, dict) or not data:
        raise LitmusError.at(str(path), None, "--helpers: write a mapping of module.function to its ordering, "
                             "e.g. `my_lib.signal: {op: atomic_xchg, sem: release, scope: sys}`")
    lines = data.key_pos if isinstance(data, LDict) else {}
    modules: dict[str, dict[str, dict[str, Any]]] = {}
    where: dict[str, int | None] = {}
    for key, spec in data.items():
        line = lines[key].line if key in lines else None
        module, _, name = str(key).rpartition(".")
        if not module or not _NAME.match(name) or not isinstance(spec, dict):
            raise LitmusError.at(str(path), line, f"--helpers: {key!r}: write `module.function: {{op: ..., sem: ..., "
                                 "scope: ...}`, e.g. `my_lib.signal: {op: atomic_xchg, sem: release, scope: sys}`")
        where[str(key)] = line
        modules.setdefault(module, {})[name] = plain(spec)
    out_dir = Path(tempfile.gettempdir()) / "litmus-lint-helpers"
    out_dir.mkdir(parents=True, exist_ok=True)
    standins: dict[str, types.ModuleType] = {}
    for module, functions in modules.items():
        source = helper_source(module, functions, str(path), {n: where[f"{module}.{n}"] for n in functions})
        digest = hashlib.sha1(source.encode()).hexdigest()[:16]
        name = f"_litmus_helpers_{digest}"
        file = out_dir / f"{name}.py"
        if not file.exists() or file.read_text() != source:  # Triton reads the source from the file
            file.write_text(source)
        if name not in sys.modules:
            spec = importlib.util.spec_from_file_location(name, file)
            assert spec is not None and spec.loader is not None
            mod = importlib.util.module_from_spec(spec)
            sys.modules[name] = mod
            spec.loader.exec_module(mod)
        standins[module] = sys.modules[name]
    return standins
