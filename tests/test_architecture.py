"""The pipeline runs one way: no stage imports a later one (docs/architecture.md).

Imports are read from the source (top-level and the lazy ones inside functions alike), so a
lazy import of a later stage breaks this test as surely as a top-level one.
"""

from __future__ import annotations

import ast
from pathlib import Path

import litmus

PACKAGE = Path(litmus.__file__).resolve().parent

# Stages in pipeline order; a module may import its own stage and earlier ones only.
STAGES: tuple[tuple[str, ...], ...] = (
    ("__init__", "ir", "errors", "condition", "observables", "status", "limits", "textfile", "toolchain", "bound"),
    ("interop",),
    ("spec",),
    ("model",),
    ("explain",),
    ("diy",),
    ("codegen",),
    ("audit",),
    ("run",),
    ("classify",),
    ("report",),
    ("session",),
    ("tune",),
    ("lint",),
    ("cost",),
    ("cli", "pytest_plugin", "__main__"),
)
RANK = {name: k for k, names in enumerate(STAGES) for name in names}


def _stage(module: str) -> str | None:
    parts = module.split(".")
    if parts[0] != "litmus":
        return None
    return parts[1] if len(parts) > 1 else "__init__"


def imports() -> list[tuple[str, str, int, str]]:
    """``(importing stage, file, line, imported stage)`` for every import of a litmus module."""
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(PACKAGE)
        own = rel.parts[0].removesuffix(".py")
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names = [node.module]
            elif isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            else:
                continue
            for name in names:
                stage = _stage(name)
                if stage is not None:
                    found.append((own, str(rel), node.lineno, stage))
    return found


def test_every_module_belongs_to_a_stage() -> None:
    owners = {p.relative_to(PACKAGE).parts[0].removesuffix(".py") for p in PACKAGE.rglob("*.py")}
    assert owners <= set(RANK), f"add these to STAGES in pipeline order: {sorted(owners - set(RANK))}"


def test_no_stage_imports_a_later_one() -> None:
    bad = [f"{file}:{line} ({own}) imports litmus.{stage}"
           for own, file, line, stage in imports() if RANK[stage] > RANK[own]]
    assert not bad, "\n".join(bad)


def test_run_imports_neither_model_nor_report_nor_session() -> None:
    bad = [f"{file}:{line} imports litmus.{stage}"
           for own, file, line, stage in imports() if own == "run" and stage in ("model", "report", "session")]
    assert not bad, "\n".join(bad)


def test_the_check_sees_lazy_imports() -> None:
    # cli imports run lazily, inside its commands: the scan must still see it
    assert any(own == "cli" and stage == "run" for own, _, _, stage in imports())


def _calls(predicate) -> list[str]:  # type: ignore[no-untyped-def]
    """``file:line`` of every call in the package whose callee ``predicate`` accepts."""
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(PACKAGE)
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.Call) and predicate(node.func):
                found.append(f"{rel}:{node.lineno}")
    return found


def _dotted(func: ast.expr) -> str:
    parts = []
    while isinstance(func, ast.Attribute):
        parts.append(func.attr)
        func = func.value
    if isinstance(func, ast.Name):
        parts.append(func.id)
    return ".".join(reversed(parts))


def test_no_module_is_imported_by_a_string_name() -> None:
    """A string import hides a dependency from the stage check above."""
    bad = _calls(lambda f: _dotted(f).split(".")[-1] in ("import_module", "__import__"))
    assert not bad, "import these by name instead: " + ", ".join(bad)


def test_triton_compile_is_called_in_one_place() -> None:
    """codegen.compiler.compile_jit is the single compile entry (audit, lint, cost, run)."""
    sites = _calls(lambda f: _dotted(f) == "triton.compile")
    assert sites == [s for s in sites if s.startswith("codegen/compiler.py:")] and len(sites) == 1, sites


def _module_graph() -> dict[str, set[str]]:
    """Module -> the package modules it imports (lazily too).  A module's import of its own
    package (``litmus.codegen`` from ``litmus.codegen.run``) is left out: that is the package's
    public face, which imports its modules in turn."""
    mods = {}
    for path in PACKAGE.rglob("*.py"):
        name = ".".join(path.relative_to(PACKAGE.parent).with_suffix("").parts).removesuffix(".__init__")
        mods[name] = path
    graph: dict[str, set[str]] = {m: set() for m in mods}
    for m, path in mods.items():
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names = [node.module] + [f"{node.module}.{a.name}" for a in node.names]
            elif isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            else:
                continue
            graph[m] |= {n for n in names if n in mods and n != m and not m.startswith(n + ".")}
    return graph


def test_no_two_modules_import_each_other() -> None:
    """An import cycle between modules (codegen's generate and parallel once shared eight private
    names both ways) means one of them holds what both need: give it a module of its own."""
    graph = _module_graph()
    cycles = []
    for start in graph:  # a depth-first search from each module, back to it
        stack, seen = [(start, [start])], set()
        while stack:
            node, path = stack.pop()
            for nxt in graph[node]:
                if nxt == start:
                    cycles.append(" -> ".join(path + [start]))
                elif nxt not in seen:
                    seen.add(nxt)
                    stack.append((nxt, path + [nxt]))
    assert not cycles, "\n".join(sorted(set(cycles)))
