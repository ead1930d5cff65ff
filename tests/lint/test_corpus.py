"""`litmus lint` on real kernels: every corpus file's result against its expected verdict.

tests/lint/corpus/ holds Triton kernels from public repositories (iris, symm-mem-recipes, kraken,
PyTorch, Triton-distributed, Triton's tutorial, tritonbench, ROCm/triton), each copied verbatim,
excerpted or minimally rewritten (the file's first lines say which), and expected.yaml the
verdict decided for each by reading it against the PTX model. One test per entry runs ``litmus
lint FILE --json`` as benchmarks/lint_corpus.py does and asserts the outcome is "found (right
reason)" for a bug and "correct passed" for a correct file. An entry with ``known_gap:`` is an
xfail(strict=True): when lint closes the gap the test XPASSes, fails, and the field must go.
"""

from __future__ import annotations

import re
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from tests.by_path import load_by_path

ROOT = Path(__file__).resolve().parents[2]
CORPUS = ROOT / "tests" / "lint" / "corpus"


def _harness() -> ModuleType:
    """benchmarks/lint_corpus.py, loaded by path (benchmarks/ is scripts, not an installed package)."""
    return load_by_path("_lint_corpus", ROOT / "benchmarks" / "lint_corpus.py")


lint_corpus = _harness()
ENTRIES: list[dict[str, Any]] = lint_corpus.load_expected()


def _gap_applies(entry: dict[str, Any]) -> bool:
    """Whether the entry's known gap holds for the installed triton (``known_gap_triton``: a
    version specifier; absent, every version)."""
    import triton
    from packaging.specifiers import SpecifierSet

    spec = entry.get("known_gap_triton")
    return bool(entry.get("known_gap")) and (spec is None or SpecifierSet(spec).contains(triton.__version__))


def _param(entry: dict[str, Any]) -> Any:
    marks = [pytest.mark.xfail(strict=True, reason=entry["known_gap"])] if _gap_applies(entry) else []
    return pytest.param(entry, id=entry["file"].removesuffix(".py"), marks=marks)


@pytest.mark.parametrize("entry", [_param(e) for e in ENTRIES])
def test_corpus_entry(entry: dict[str, Any]) -> None:
    """Lint finds the expected bug for the expected reason, or passes the correct file."""
    result = lint_corpus.run_one(entry)
    want = lint_corpus.RIGHT if entry["verdict"] == "bug" else lint_corpus.PASSED
    assert result.outcome == want, f"{entry['file']}: lint: {result.outcome}: {result.detail}"


def test_every_file_has_one_entry() -> None:
    """Each corpus .py file has exactly one entry, and each entry's file exists."""
    files = sorted(p.name for p in CORPUS.glob("*.py"))
    listed = [e["file"] for e in ENTRIES]
    assert sorted(listed) == files, "expected.yaml and tests/lint/corpus/*.py disagree"
    assert len(set(listed)) == len(listed)


@pytest.mark.parametrize("entry", ENTRIES, ids=[e["file"].removesuffix(".py") for e in ENTRIES])
def test_entry_is_complete(entry: dict[str, Any]) -> None:
    """An entry names its source as the file's header does, and a bug names where and which rule."""
    from litmus.lint.rules import RULES

    src = entry["source"]
    assert src["form"] in ("verbatim", "excerpt", "rewrite")
    assert re.fullmatch(r"[0-9a-f]{40}", src["commit"])
    header = (CORPUS / entry["file"]).read_text().splitlines()[0]
    assert header == f"# corpus: {src['repo']} {src['path']} @ {src['commit']}" or \
        header.startswith(f"# corpus: {src['repo']} {src['path']} @ {src['commit']} ("), header
    assert entry["verdict"] in ("bug", "correct")
    for key in ("shape", "reason", "evidence"):
        assert entry.get(key), f"{entry['file']}: no {key}"
    assert entry.get("kernels"), f"{entry['file']}: no kernels (the ones the verdict is about)"
    text = (CORPUS / entry["file"]).read_text()
    for kernel in entry["kernels"]:
        assert re.search(rf"^\s*def {re.escape(kernel)}\(", text, re.M), f"{entry['file']}: no def {kernel}"
    if entry["verdict"] == "bug":
        assert entry.get("rules"), f"{entry['file']}: a bug names the rules that describe it"
        assert set(entry["rules"]) <= set(RULES), f"{entry['file']}: unknown rule in {entry['rules']}"
    else:
        assert not entry.get("rules")
    if "known_gap" in entry:
        gap = entry["known_gap"]
        assert isinstance(gap, str) and gap.strip() and "\n" not in gap.strip(), "known_gap is one line"


def test_classify() -> None:
    """The harness's outcome for each kind of lint result."""
    bug = {"file": "x.py", "verdict": "bug", "kernels": ["k"], "rules": ["block-publish"]}
    ok = {"file": "y.py", "verdict": "correct", "kernels": ["k"]}

    def report(*findings: tuple[str, str, bool], linted: tuple[str, ...] = ("k", "other"),
               notes: tuple[str, ...] = ()) -> dict[str, Any]:
        return {"kernels": [{"kernel": name, "notes": list(notes),
                             "findings": [{"kernel": k, "rule": r, "incorrect": i} for k, r, i in findings if k == name]}
                            for name in linted]}

    classify = lint_corpus.classify
    assert classify(bug, 1, report(("k", "block-publish", True)), "")[0] == lint_corpus.RIGHT
    assert classify(bug, 1, report(("other", "block-publish", True)), "")[0] == lint_corpus.WRONG
    assert classify(bug, 1, report(("k", "peer-scope", True)), "")[0] == lint_corpus.WRONG
    assert classify(bug, 0, report(("k", "acquire-reread", False)), "")[0] == lint_corpus.MISSED
    assert classify(ok, 0, report(), "")[0] == lint_corpus.PASSED
    assert classify(ok, 1, report(("k", "peer-scope", True)), "")[0] == lint_corpus.FALSE_ALARM
    outcome, detail, _ = classify(ok, 2, None, "error: f.py:3: importing the file failed\nmore")
    assert (outcome, detail) == (lint_corpus.NO_LOAD, "f.py:3: importing the file failed")
    assert classify(bug, None, None, "300 s")[0] == lint_corpus.NO_LOAD
    # a pass or a miss on kernels other than the verdict's is no result
    assert classify(ok, 0, report(linted=("helper",)), "")[0] == lint_corpus.NO_LOAD
    assert classify(bug, 1, report(("helper", "block-publish", True), linted=("helper",)), "")[0] == lint_corpus.NO_LOAD
    # seeing no flag: a correct file's pass checks nothing; a bug's signalling may sit in a stubbed module
    blind = f"kernel k {lint_corpus.NO_FLAG}; nothing to check"
    stub = f"kernel k uses m.barrier, {lint_corpus.ABSENT}: compiled as doing nothing to memory"
    assert classify(ok, 0, report(notes=(blind,)), "")[0] == lint_corpus.NO_LOAD
    assert classify(bug, 0, report(notes=(blind,)), "")[0] == lint_corpus.MISSED
    assert classify(bug, 0, report(notes=(blind, stub)), "")[0] == lint_corpus.NO_LOAD
