"""docs/results/README.md indexes docs/results/: every file there (in subfolders too) is named in
it, and every file it names in backticks is there (or, for a path such as
`scripts/h200_detect.sh`, in the repository)."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
RESULTS = ROOT / "docs" / "results"
INDEX = RESULTS / "README.md"

# A backticked span that is one file name: no spaces, globs or variables, a known extension.
FILE_NAME = re.compile(r"[A-Za-z0-9][\w.+-]*(?:/[\w.+-]+)*\.(?:jsonl|json|md|txt|log|html|xml|yaml|yml|py|sh|csv|png|svg)")


def named_files(text: str) -> set[str]:
    spans = re.findall(r"`([^`\n]+)`", text)
    return {span for span in spans if FILE_NAME.fullmatch(span)}


def results_files() -> set[str]:
    return {p.relative_to(RESULTS).as_posix() for p in RESULTS.rglob("*") if p.is_file() and p != INDEX}


def test_the_name_parser_takes_whole_spans_only() -> None:
    text = ("| `h200-a.jsonl`, `h200-cost/main.json` | `litmus run x --out b.jsonl` | `OUT/*.jsonl` "
            "`$OUT/c.jsonl` `3.6` `litmus.run.schedule` `-mutation.txt` `scripts/x.sh` |")
    assert named_files(text) == {"h200-a.jsonl", "h200-cost/main.json", "scripts/x.sh"}


def test_every_results_file_is_indexed() -> None:
    missing = sorted(results_files() - named_files(INDEX.read_text()))
    assert not missing, (f"docs/results/README.md names no row for {missing}: add a row (what it backs, the "
                         "machine, the command), or git rm the file if a later run superseded it")


def test_every_indexed_file_exists() -> None:
    absent = sorted(name for name in named_files(INDEX.read_text())
                    if not (RESULTS / name).is_file() and not (ROOT / name).is_file())
    assert not absent, f"docs/results/README.md names files that are not there: {absent}"
