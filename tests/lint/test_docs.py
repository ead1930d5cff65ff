"""docs/lint.md shows what `litmus lint` prints now: the worked example's commands are run and
their output compared with the page (a line ending in `...` is a prefix, a `...` line skips
lines), the pattern it shows is the one emitted, and the page lists what the report lists."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner

from litmus.cli import main
from litmus.lint.api import LIMITS
from litmus.lint.rules import CATALOG_VARIANTS, COMPILER_VARIANTS, RULES

REPO = Path(__file__).resolve().parents[2]
DOC = (REPO / "docs" / "lint.md").read_text()


def _blocks(language: str) -> list[str]:
    """The fenced blocks of the page in ``language`` ("" for a plain fence)."""
    blocks: list[str] = []
    current: list[str] | None = None
    lang = ""
    for line in DOC.splitlines():
        if line.startswith("```"):
            if current is None:
                current, lang = [], line[3:].strip()
            else:
                if lang == language:
                    blocks.append("\n".join(current) + "\n")
                current = None
        elif current is not None:
            current.append(line)
    return blocks


def _sessions() -> list[tuple[str, list[str]]]:
    """(command, the lines the page shows after it) of each `$ litmus lint` in a plain fenced block."""
    out: list[tuple[str, list[str]]] = []
    for block in _blocks(""):
        current: list[str] | None = None
        for line in block.splitlines():
            if line.startswith("$ "):
                current = []
                out.append((line[2:], current))
            elif current is not None:
                current.append(line)
    return [(c, lines) for c, lines in out if c.startswith(("litmus lint", "echo $?"))]


def _matches(expected: list[str], actual: list[str]) -> bool:
    """``expected`` (with ``...`` gaps and ``...``-ended prefixes) is ``actual``, or its start."""
    i = 0
    gap = False
    for want in expected:
        if want.strip() == "...":
            gap = True
            continue
        prefix = want.endswith("...")
        ok = (lambda got: got.startswith(want[:-3])) if prefix else (lambda got: got == want)
        if gap:
            while i < len(actual) and not ok(actual[i]):
                i += 1
        if i >= len(actual) or not ok(actual[i]):
            return False
        i += 1
        gap = False
    return True


def test_the_worked_example_prints_what_the_page_shows(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import triton

    if f"(triton {triton.__version__})" not in DOC:  # what the compiled code does is one version's
        pytest.skip(f"the page shows another Triton's output than {triton.__version__}'s")
    monkeypatch.chdir(REPO)
    sessions = _sessions()
    assert [c for c, _ in sessions] == [
        "litmus lint tests/lint/kernels/iris_broken.py", "echo $?",
        "litmus lint tests/lint/kernels/tritonbench_lock.py --kernel splitk_fixup_broken --emit-yaml lock.yaml",
        "litmus lint tests/lint/kernels/acquire_reread.py --kernel reread_ldacq"]
    code = None
    codes: dict[str, int] = {}
    for command, shown in sessions:
        if command == "echo $?":
            assert shown == [str(code)]
            continue
        args = shlex.split(command)[1:]
        out = tmp_path / "lock.yaml"
        args = [str(out) if a == "lock.yaml" else a for a in args]
        r = CliRunner().invoke(main, args)
        code = codes[command] = r.exit_code
        printed = r.output.replace(str(out), "lock.yaml").splitlines()
        assert _matches(shown, printed), "\n".join(printed)
    assert codes[sessions[2][0]] == 1
    assert codes[sessions[3][0]] == 0  # a compiler finding: the model calls the kernel correct


def test_the_pattern_the_page_shows_is_the_one_emitted(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(REPO)
    [shown] = [yaml.safe_load(b) for b in _blocks("yaml") if b.startswith("name: LINT-")]
    out = tmp_path / "lock.yaml"
    r = CliRunner().invoke(main, ["lint", "tests/lint/kernels/tritonbench_lock.py", "--kernel", "splitk_fixup_broken",
                                  "--emit-yaml", str(out)])
    assert r.exit_code == 1
    emitted = yaml.safe_load(out.read_text())
    assert set(emitted) - set(shown) == {"description", "source", "tags", "why"}
    assert {k: emitted[k] for k in shown} == shown
    # what the page says `litmus model lock.yaml` does
    model = CliRunner().invoke(main, ["model", str(out)])
    assert model.exit_code == 1 and "Expectation forbidden: DISAGREES with the model" in model.output
    assert "P1:r2=0" in model.output


def test_the_page_lists_every_limit_rule_and_variant() -> None:
    section = DOC.split("## What the linter cannot see", 1)[1].split("\n## ", 1)[0]
    assert len(re.findall(r"^- \*\*", section, re.M)) == len(LIMITS)
    for rule in RULES:
        assert f"| `{rule}` |" in DOC
    for variant in CATALOG_VARIANTS + COMPILER_VARIANTS:
        assert f"`{variant}`" in DOC, variant
