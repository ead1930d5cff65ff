"""Turn command-line arguments (files, folders, pattern names) into litmus tests."""

from __future__ import annotations

import fnmatch
from pathlib import Path
from typing import Iterable, Sequence

from litmus.errors import LitmusError, Problem
from litmus.ir import LitmusTest

YAML_SUFFIXES = (".yaml", ".yml")
LITMUS_SUFFIX = ".litmus"


def _files_under(folder: Path) -> list[Path]:
    return sorted(
        p
        for p in folder.rglob("*")
        if p.is_file() and (p.suffix in YAML_SUFFIXES or p.suffix == LITMUS_SUFFIX)
    )


def _load_one(path: Path) -> list[LitmusTest]:
    if path.suffix == LITMUS_SUFFIX:
        from litmus.interop import read_litmus

        return [read_litmus(path)]
    from litmus.spec import load_paths

    return load_paths([path])


def resolve(args: Sequence[str], variant: str | None = None) -> list[LitmusTest]:
    """Tests named by ``args``: YAML files, ``.litmus`` files, folders of either, or pattern names.

    With no ``args``, the default catalog.  ``variant`` keeps only variants whose name matches
    it (a shell-style pattern such as ``'*-sys'``).  All problems in all inputs are reported in
    one :class:`LitmusError`.
    """
    from litmus.spec import default_catalog_dir, find_pattern

    if not args:
        args = [str(default_catalog_dir())]
    tests: list[LitmusTest] = []
    problems: list[Problem] = []
    for arg in args:
        path = Path(arg)
        try:
            if path.is_dir():
                for f in _files_under(path):
                    try:
                        tests.extend(_load_one(f))
                    except LitmusError as e:
                        problems.extend(e.problems)
            elif path.is_file():
                tests.extend(_load_one(path))
            elif path.suffix in YAML_SUFFIXES + (LITMUS_SUFFIX,) or "/" in arg:
                problems.append(Problem(arg, None, None, "no such file or folder"))
            else:
                tests.extend(find_pattern(arg))
        except LitmusError as e:
            problems.extend(e.problems)
    if problems:
        raise LitmusError(problems)
    if variant is not None:
        tests = select_variants(tests, variant)
    return tests


def select_variants(tests: Iterable[LitmusTest], variant: str) -> list[LitmusTest]:
    """Tests whose variant name matches ``variant`` (exact, or a shell-style pattern)."""
    tests = list(tests)
    kept = [t for t in tests if t.variant == variant or fnmatch.fnmatchcase(t.variant, variant)]
    if not kept:
        names = sorted({t.variant for t in tests})
        raise LitmusError(
            f"no variant matches {variant!r}; variants here: {', '.join(names) or '(none)'}"
        )
    return kept
