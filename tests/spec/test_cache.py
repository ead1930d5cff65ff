"""The spec disk cache returns exactly what a fresh read gives, and misses on any change."""

from __future__ import annotations

from pathlib import Path

import pytest

from litmus.spec import load_paths
from litmus.spec import cache as spec_cache

YAML = """\
name: CACHE-T
locations: {x: 0}
threads:
  P0:
    at: {rank: 0, cta: 0}
    do:
      - store: {loc: x, value: %d}
exists: "x == 1"
expect: allowed
why: one store
"""


@pytest.fixture(autouse=True)
def fresh_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("LITMUS_CACHE", str(tmp_path / "cache"))
    monkeypatch.delenv("LITMUS_NO_SPEC_CACHE", raising=False)
    return tmp_path / "cache" / "spec"


def test_second_read_comes_from_the_cache_and_is_equal(tmp_path: Path, fresh_cache: Path) -> None:
    p = tmp_path / "t.yaml"
    p.write_text(YAML % 1)
    first = load_paths([p])
    assert len(list(fresh_cache.glob("*.pkl"))) == 1
    assert load_paths([p]) == first


def test_a_changed_file_misses_the_cache(tmp_path: Path, fresh_cache: Path) -> None:
    p = tmp_path / "t.yaml"
    p.write_text(YAML % 1)
    load_paths([p])
    p.write_text(YAML % 2)
    (test,) = load_paths([p])
    assert test.threads[0].instrs[0].value.value == 2
    assert len(list(fresh_cache.glob("*.pkl"))) == 2


def test_a_corrupt_entry_is_ignored(tmp_path: Path, fresh_cache: Path) -> None:
    p = tmp_path / "t.yaml"
    p.write_text(YAML % 1)
    first = load_paths([p])
    for entry in fresh_cache.glob("*.pkl"):
        entry.write_bytes(b"not a pickle")
    assert load_paths([p]) == first


def test_files_with_problems_are_not_cached(tmp_path: Path, fresh_cache: Path) -> None:
    p = tmp_path / "t.yaml"
    p.write_text((YAML % 1).replace("store:", "stor:"))
    with pytest.raises(Exception):
        load_paths([p])
    assert not fresh_cache.exists() or not list(fresh_cache.glob("*.pkl"))
    assert spec_cache.get(spec_cache.key(str(p), p.read_bytes())) is None
