"""The real-bug family (catalog/bugs_*.yaml, docs/real-bugs.md): each file reproduces its bug.

For every bug file: some variant named ``buggy...`` reaches its failure under the PTX model
(the target outcome is allowed, or a spin may hang), every variant named ``fixed...`` reaches
neither, every pattern cites a repository and an issue or PR number and is tagged ``bug``, and
docs/real-bugs.md has a section for it. A pattern whose reduction breaks (a fix that stops
fixing, a bug that stops failing) fails here with the file and the variant.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from litmus.model import check, ptx_model_for
from litmus.spec import default_catalog_dir, load_paths

BUG_FILES = sorted(Path(default_catalog_dir()).glob("bugs_*.yaml"))
DOC = Path(__file__).resolve().parents[2] / "docs" / "real-bugs.md"
CITATION = re.compile(r"[\w.-]+/[\w.-]+#\d+")


def _fails(test) -> bool:
    result = check(test, ptx_model_for(test))
    return result.target_reachable or result.possible_hang


def test_the_family_has_at_least_twelve_bugs() -> None:
    assert len(BUG_FILES) >= 12, [p.name for p in BUG_FILES]


@pytest.mark.parametrize("path", BUG_FILES, ids=[p.stem for p in BUG_FILES])
def test_buggy_fails_and_fixed_does_not(path: Path) -> None:
    tests = load_paths([path])
    for name in sorted({t.name for t in tests}):
        variants = [t for t in tests if t.name == name]
        first = variants[0]
        assert "bug" in first.tags, f"{path.name}: {name} is not tagged 'bug'"
        assert CITATION.search(first.origin), f"{path.name}: {name} cites no owner/repo#number"
        buggy = [t for t in variants if t.variant.startswith("buggy")]
        fixed = [t for t in variants if t.variant.startswith("fixed")]
        assert fixed, f"{path.name}: {name} has no 'fixed...' variant"
        assert buggy, f"{path.name}: {name} has no 'buggy...' variant"
        for t in fixed:
            assert not _fails(t), f"{path.name}: {t.id} still reaches its failure under {ptx_model_for(t)}"
    # The file as a whole reproduces its bug: some buggy variant of some pattern fails.
    assert any(_fails(t) for t in tests if t.variant.startswith("buggy")), (
        f"{path.name}: no 'buggy...' variant reaches the failure")


@pytest.mark.parametrize("path", BUG_FILES, ids=[p.stem for p in BUG_FILES])
def test_results_page_covers_the_file(path: Path) -> None:
    text = DOC.read_text(encoding="utf-8")
    assert path.name in text, f"docs/real-bugs.md does not mention {path.name}"
    for name in {t.name for t in load_paths([path])}:
        assert name in text, f"docs/real-bugs.md does not mention pattern {name}"
