"""Read catalog files and folders into patterns and litmus tests; find a pattern by name."""

from __future__ import annotations

import difflib
from pathlib import Path
from typing import Sequence

import litmus
from litmus import ir
from litmus.errors import LitmusError, Problem
from litmus.spec import cache as spec_cache
from litmus.spec.pattern import Pattern
from litmus.textfile import decode_text, read_bounded

SUFFIXES = (".yaml", ".yml")


def default_catalog_dir() -> Path:
    """The repository's ``catalog/`` folder (``./catalog`` when litmus is installed elsewhere)."""
    repo = Path(litmus.__file__).resolve().parent.parent / "catalog"
    return repo if repo.is_dir() else Path("catalog")


def _read_file(path: str | Path) -> tuple[list[Pattern], list[Problem]]:
    file = str(path)
    data, problem = read_bounded(path, "YAML")
    if problem is not None:
        return [], [problem]
    text, problem = decode_text(data, file, "YAML")
    if problem is not None:
        return [], [problem]
    k = spec_cache.key(file, data)
    cached = spec_cache.get(k)
    if cached is not None:
        return cached, []
    patterns, problems = compile_text(text, file)
    if not problems:
        spec_cache.put(k, patterns)
    return patterns, problems


def compile_text(text: str, file: str) -> tuple[list[Pattern], list[Problem]]:
    """The patterns of YAML ``text`` (problems name ``file``), with every problem found."""
    # imported here: a cache hit needs neither YAML nor pydantic (a third of a warm start-up)
    from litmus.spec.compile import compile_pattern
    from litmus.spec.yamlpos import load_documents

    docs, problems = load_documents(text, file)
    if problems:
        return [], problems
    if not docs:
        return [], [Problem(file, 1, 1, "the file holds no pattern; a pattern needs at least name:, locations:, threads: and a condition")]
    patterns: list[Pattern] = []
    for doc in docs:
        pattern, more = compile_pattern(doc, file)
        problems += more
        if pattern is not None:
            patterns.append(pattern)
    return patterns, problems


def load_file(path: str | Path) -> list[Pattern]:
    """The patterns of one YAML file (one per YAML document); raises :class:`LitmusError`."""
    patterns, problems = _read_file(path)
    if problems:
        raise LitmusError(problems)
    return patterns


def catalog_files(paths: Sequence[str | Path]) -> list[Path]:
    """The YAML files named by ``paths``: files as given, folders searched recursively, sorted."""
    out: list[Path] = []
    for p in paths:
        path = Path(p)
        if path.is_dir():
            out += sorted(f for f in path.rglob("*") if f.suffix in SUFFIXES and f.is_file())
        else:
            out.append(path)
    return out


def load_patterns(paths: Sequence[str | Path]) -> list[Pattern]:
    """Every pattern in ``paths``; raises one :class:`LitmusError` with all problems of all files."""
    patterns: list[Pattern] = []
    problems: list[Problem] = []
    for p in paths:
        if not Path(p).exists():
            problems.append(Problem(str(p), None, None, "no such file or folder"))
    seen: dict[str, Pattern] = {}
    for f in catalog_files([p for p in paths if Path(p).exists()]):
        more_patterns, more = _read_file(f)
        problems += more
        for pat in more_patterns:
            other = seen.get(pat.name.lower())
            if other is not None:
                problems.append(
                    Problem(pat.source_file, pat.source_line, None,
                            f"pattern name '{pat.name}' is already used at {other.source_file}:{other.source_line}; pattern names must be unique")
                )
                continue
            seen[pat.name.lower()] = pat
            patterns.append(pat)
    if problems:
        raise LitmusError(problems)
    return patterns


def load_paths(paths: Sequence[str | Path]) -> list[ir.LitmusTest]:
    """Every variant of every pattern in the files/folders ``paths``, as litmus tests."""
    return [t for p in load_patterns(paths) for t in p.expand()]


def _roots(roots: Sequence[str | Path]) -> list[Path]:
    out = []
    for r in roots:
        path = Path(r)
        if not path.exists() and str(r) == "catalog":
            path = default_catalog_dir()
        out.append(path)
    return out


def find_pattern(name: str, roots: Sequence[str | Path] = ("catalog",)) -> list[ir.LitmusTest]:
    """The tests of the pattern called ``name`` (any case); ``NAME[variant]`` picks one variant."""
    want, variant = name, None
    if name.endswith("]") and "[" in name:
        want, variant = name[:-1].split("[", 1)
    patterns = load_patterns(_roots(roots))
    for p in patterns:
        if p.name.lower() == want.lower():
            tests = p.expand()
            if variant is None:
                return tests
            picked = [t for t in tests if t.variant.lower() == variant.lower()]
            if picked:
                return picked
            names = [t.variant for t in tests]
            close = difflib.get_close_matches(variant, names, n=3, cutoff=0.5)
            hint = f"did you mean {', '.join(close)}? " if close else ""
            raise LitmusError(f"pattern {p.name} has no variant '{variant}'; {hint}variants: {', '.join(names)}")
    names = [p.name for p in patterns]
    lowered = {n.lower(): n for n in names}
    close = [lowered[c] for c in difflib.get_close_matches(want.lower(), list(lowered), n=5, cutoff=0.5)]
    hint = f"did you mean {', '.join(close)}? " if close else ""
    where = ", ".join(str(r) for r in _roots(roots))
    raise LitmusError(f"no pattern named '{want}' in {where}; {hint}run `litmus list` to see all {len(names)} patterns")
