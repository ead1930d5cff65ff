"""The one front door for loading tests: files, folders, pattern names and YAML text -> IR.

YAML files are this package's own; PTX ``.litmus`` files are read by :mod:`litmus.interop`,
the stage before this one, which knows nothing of YAML.
"""

from __future__ import annotations

import fnmatch
from pathlib import Path
from typing import Callable, Iterable, Sequence

from litmus.errors import LitmusError, Problem
from litmus.ir import LitmusTest

YAML_SUFFIXES = (".yaml", ".yml")
LITMUS_SUFFIX = ".litmus"
INLINE_FILE = "<inline pattern>"

Reader = Callable[[Path], list[LitmusTest]]
"""Reads one file into litmus tests; raises :class:`LitmusError` naming the file and line."""


def _reader(suffix: str) -> Reader | None:
    if suffix in YAML_SUFFIXES:
        from litmus.spec.loader import load_paths

        return lambda path: load_paths([path])
    if suffix == LITMUS_SUFFIX:
        from litmus.interop.reader import read_litmus

        return lambda path: [read_litmus(path)]
    return None


def known_suffixes() -> tuple[str, ...]:
    """Every file suffix ``load_tests`` reads."""
    return YAML_SUFFIXES + (LITMUS_SUFFIX,)


def _files_under(folder: Path) -> list[Path]:
    suffixes = known_suffixes()
    return sorted(p for p in folder.rglob("*") if p.is_file() and p.suffix in suffixes)


def _load_file(path: Path) -> list[LitmusTest]:
    reader = _reader(path.suffix)
    if reader is None:
        raise LitmusError.at(str(path), None, f"unknown file type {path.suffix!r}; litmus reads "
                                              f"{', '.join(known_suffixes())}")
    return reader(path)


def load_tests(args: Sequence[str], variant: str | None = None) -> list[LitmusTest]:
    """Tests named by ``args``: YAML files, ``.litmus`` files, folders of either, or pattern names.

    With no ``args``, the default catalog.  ``variant`` keeps only variants whose name matches
    it (see :func:`filter_variants`).  All problems in all inputs are reported in one
    :class:`LitmusError`.
    """
    from litmus.spec.loader import default_catalog_dir, find_pattern

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
                        tests.extend(_load_file(f))
                    except LitmusError as e:
                        problems.extend(e.problems)
            elif path.is_file():
                tests.extend(_load_file(path))
            elif path.suffix in known_suffixes() or "/" in arg:
                problems.append(Problem(arg, None, None, "no such file or folder"))
            else:
                tests.extend(find_pattern(arg))
        except LitmusError as e:
            problems.extend(e.problems)
    if problems:
        raise LitmusError(problems)
    if variant is not None:
        tests = filter_variants(tests, variant)
    return tests


def load_text(text: str, file: str = INLINE_FILE) -> list[LitmusTest]:
    """The variants of the pattern(s) written in YAML ``text``; problems name ``file:line``."""
    from litmus.spec.loader import compile_text

    patterns, problems = compile_text(text, file)
    if problems:
        raise LitmusError(problems)
    return [t for p in patterns for t in p.expand()]


def filter_variants(tests: Iterable[LitmusTest], variant: str | None, *, one: bool = False,
                    what: str = "") -> list[LitmusTest]:
    """Tests whose variant name is ``variant`` or matches it as a shell pattern (``'*-sys'``).

    ``variant=None`` keeps every test.  With ``one``, exactly one test must remain.  Raises
    :class:`LitmusError` naming ``what`` (the pattern asked for) and the variants there are.
    """
    tests = list(tests)
    kept = tests if variant is None else [
        t for t in tests if t.variant == variant or fnmatch.fnmatchcase(t.variant, variant)]
    where = f"{what!r} has" if what else "there is"
    if not kept:
        names = sorted({t.variant for t in tests})
        raise LitmusError(f"{where} no variant matching {variant!r}; variants: {', '.join(names) or '(none)'}")
    if one and len(kept) != 1:
        names = ", ".join(t.id for t in kept)
        raise LitmusError(f"{where} {len(kept)} variants ({names}); choose one with variant=...")
    return kept
