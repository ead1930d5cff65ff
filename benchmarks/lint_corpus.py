"""`litmus lint` on the real-kernel corpus: each file's result against its expected verdict.

    python benchmarks/lint_corpus.py [--timeout 300] [--json OUT.json] [FILE ...]

Runs ``litmus lint FILE --json`` (no ``--signature``, the files unedited) on every file of
tests/lint/corpus/ listed in tests/lint/corpus/expected.yaml (or only the FILEs named), one
subprocess per file with a timeout, and prints a Markdown table: per file the expected verdict,
lint's outcome, the reason in one line, and the seconds it took; then the totals, precision and
recall. Outcomes:

  found (right reason)  expected bug; a finding the model calls incorrect, with one of the entry's
                        rules, in one of its kernels
  found (wrong reason)  expected bug; incorrect findings, none of them the expected rule in the
                        expected kernel
  missed                expected bug; lint exits 0
  correct passed        expected correct; lint exits 0
  false alarm           expected correct; lint exits 1
  could not load        lint exits 2 (bad input: import, signature, compile), times out, does not
                        lint the kernels the entry's verdict is about, or sees no flag in them
                        (a correct file, or signalling inside a module lint stubbed out)

precision = right / (right + wrong + false alarm); recall = right / bugs (and, second, over the
bugs lint could load). Exit status 0 (the table is the product, not a pass/fail).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parents[1]
CORPUS = ROOT / "tests" / "lint" / "corpus"
EXPECTED = CORPUS / "expected.yaml"

RIGHT = "found (right reason)"
WRONG = "found (wrong reason)"
MISSED = "missed"
PASSED = "correct passed"
FALSE_ALARM = "false alarm"
NO_LOAD = "could not load"
OUTCOMES = (RIGHT, WRONG, MISSED, PASSED, FALSE_ALARM, NO_LOAD)
# lint's notes for a kernel in which it found no flag, and for a call into a module it stubbed empty
NO_FLAG = "raises and waits for no flag"
ABSENT = "from a module absent here"


@dataclass
class Result:
    """Lint's outcome on one corpus entry."""

    file: str
    expected: str
    outcome: str
    detail: str
    seconds: float
    findings: list[tuple[str, str]] = field(default_factory=list)  # (kernel, rule) of incorrect findings


def load_expected(path: Path = EXPECTED) -> list[dict[str, Any]]:
    """The entries of expected.yaml, in file order."""
    return yaml.safe_load(path.read_text())["entries"]


def litmus_command() -> list[str]:
    """The ``litmus`` console script of this interpreter's environment (else the one on PATH)."""
    beside = Path(sys.executable).parent / "litmus"
    if beside.exists():
        return [str(beside)]
    found = shutil.which("litmus")
    if found:
        return [found]
    # no script installed: run the same entry point through this interpreter
    return [sys.executable, "-c", "import sys; from litmus.cli import main; sys.argv[0] = 'litmus'; main()"]


def one_line(text: str, limit: int = 200) -> str:
    """The first non-empty line of ``text``, paths relative to the repository, shortened to ``limit``."""
    line = next((s.strip() for s in text.splitlines() if s.strip()), "")
    line = line.replace(f"{ROOT}/", "").removeprefix("error: ")
    line = re.sub(r" at 0x[0-9a-f]+", "", line)  # object addresses differ from run to run
    return line if len(line) <= limit else line[: limit - 3] + "..."


def classify(entry: dict[str, Any], rc: int | None, report: dict[str, Any] | None,
             error: str) -> tuple[str, str, list[tuple[str, str]]]:
    """(outcome, one-line detail, incorrect findings) of one lint run against the entry.

    ``rc`` is lint's exit status (None for a timeout), ``report`` its parsed ``--json`` output
    (None when it gave none), ``error`` its stderr."""
    if rc is None:
        return NO_LOAD, f"timed out ({error})", []
    if rc not in (0, 1) or report is None:
        return NO_LOAD, one_line(error) or f"exit status {rc}, no JSON report", []
    findings = [(f["kernel"], f["rule"]) for k in report["kernels"] for f in k["findings"] if f.get("incorrect")]
    said = ", ".join(sorted({f"{rule} in {kernel}" for kernel, rule in findings})) or "no incorrect finding"
    kernels, rules = list(entry.get("kernels") or ()), set(entry.get("rules") or ())
    right = any(rule in rules and kernel in kernels for kernel, rule in findings)
    # a verdict is about named kernels: a run that never compiled them (an unrecognised decorator,
    # a kernel taken for a helper) says nothing about them, pass or not
    linted = {k["kernel"] for k in report["kernels"]}
    unseen = [k for k in kernels if k not in linted]
    if unseen and not right:
        return NO_LOAD, f"not linted: {', '.join(unseen)} (linted: {', '.join(sorted(linted)) or 'none'}); {said}", findings
    # every corpus kernel signals: lint seeing no flag in one is a pass that checks nothing, or,
    # when the signalling sits in a module lint stubbed out, no result at all
    notes = {k["kernel"]: " ".join(k.get("notes", ())) for k in report["kernels"]}
    blind = [k for k in kernels if NO_FLAG in notes.get(k, "")]
    stubbed = [k for k in blind if ABSENT in notes.get(k, "")]
    if not right and (stubbed or (blind and entry["verdict"] == "correct")):
        why = "its calls into a stubbed-out module do nothing" if stubbed else "a pass that checks nothing"
        return NO_LOAD, f"no flag seen in {', '.join(stubbed or blind)} ({why})", findings
    if entry["verdict"] == "correct":
        return (PASSED, said, findings) if not findings else (FALSE_ALARM, said, findings)
    if not findings:
        return MISSED, said, findings
    return (RIGHT if right else WRONG), said, findings


def run_one(entry: dict[str, Any], timeout: float = 300.0) -> Result:
    """Lint one corpus file in a subprocess and classify the result."""
    path = CORPUS / entry["file"]
    start = time.perf_counter()
    try:
        proc = subprocess.run([*litmus_command(), "lint", str(path), "--json"], capture_output=True, text=True,
                              timeout=timeout, cwd=ROOT, env={**os.environ, "PYTHONWARNINGS": "ignore"})
        rc, out, err = proc.returncode, proc.stdout, proc.stderr
    except subprocess.TimeoutExpired:
        rc, out, err = None, "", f"{timeout:g} s"
    seconds = time.perf_counter() - start
    report = None
    if rc in (0, 1):
        try:
            report = json.loads(out)
        except json.JSONDecodeError:
            err = err or "output is not JSON"
    outcome, detail, findings = classify(entry, rc, report, err)
    return Result(entry["file"], entry["verdict"], outcome, detail, round(seconds, 2), findings)


def table(results: list[Result]) -> str:
    """The per-file Markdown table."""
    rows = ["| file | expected | lint | detail | s |", "|---|---|---|---|---|"]
    for r in results:
        detail = r.detail.replace("|", "\\|")
        rows.append(f"| `{r.file}` | {r.expected} | {r.outcome} | {detail} | {r.seconds:.1f} |")
    return "\n".join(rows)


def summary(results: list[Result]) -> dict[str, Any]:
    """Counts per outcome, precision and recall."""
    counts = {o: sum(r.outcome == o for r in results) for o in OUTCOMES}
    bugs = sum(r.expected == "bug" for r in results)
    loaded_bugs = sum(r.expected == "bug" and r.outcome != NO_LOAD for r in results)
    flagged = counts[RIGHT] + counts[WRONG] + counts[FALSE_ALARM]
    return {
        "files": len(results), "bugs": bugs, "correct": len(results) - bugs, "counts": counts,
        "precision": counts[RIGHT] / flagged if flagged else None,
        "recall": counts[RIGHT] / bugs if bugs else None,
        "recall_loaded": counts[RIGHT] / loaded_bugs if loaded_bugs else None,
        "seconds": round(sum(r.seconds for r in results), 1),
    }


def _ratio(x: float | None, none: str) -> str:
    return f"n/a ({none})" if x is None else f"{x:.2f}"


def totals(s: dict[str, Any]) -> str:
    """The totals as Markdown lines."""
    c = s["counts"]
    return "\n".join([
        f"{s['files']} files ({s['bugs']} bug, {s['correct']} correct), {s['seconds']} s of lint in all.",
        "",
        "| outcome | files |",
        "|---|---|",
        *(f"| {o} | {c[o]} |" for o in OUTCOMES),
        "",
        f"precision {_ratio(s['precision'], 'nothing flagged')} (right / (right + wrong reason + false alarm)); "
        f"recall {_ratio(s['recall'], 'no bugs')} (right / {s['bugs']} bugs); "
        f"recall over the bugs lint could load {_ratio(s['recall_loaded'], 'none loaded')}.",
    ])


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("files", nargs="*", help="corpus files to run (default: every entry of expected.yaml)")
    ap.add_argument("--timeout", type=float, default=300.0, help="seconds per file (default 300)")
    ap.add_argument("--json", type=Path, help="also write the results and totals as JSON here")
    args = ap.parse_args()
    entries = load_expected()
    if args.files:
        names = {Path(f).name for f in args.files}
        unknown = names - {e["file"] for e in entries}
        if unknown:
            ap.error(f"not in expected.yaml: {', '.join(sorted(unknown))}")
        entries = [e for e in entries if e["file"] in names]
    results = []
    for entry in entries:
        results.append(run_one(entry, args.timeout))
        print(f"{entry['file']}: {results[-1].outcome} ({results[-1].seconds:.1f} s)", file=sys.stderr, flush=True)
    s = summary(results)
    print(table(results))
    print()
    print(totals(s))
    if args.json:
        args.json.write_text(json.dumps({"results": [asdict(r) for r in results], "summary": s}, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
