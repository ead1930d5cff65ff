"""What `litmus lint` claims and what `litmus model` says of the pattern it emits agree, for every
kernel of tests/lint/kernels: linted alone (`--kernel NAME --emit-yaml OUT`, then `litmus model
OUT`: both exit 1, or both 0) and paired with its file-mates (each emitted pattern is incorrect
per the model exactly when one of the two kernels it pairs has an incorrect finding). A kernel
linted alone gets the findings it gets with its file."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from litmus.cli import main
from litmus.lint.emit import documents
from litmus.lint.load import find_kernels
from litmus.model import check
from litmus.spec import load_text
from tests.lint.conftest import KERNELS, linted

FILES = sorted(p.stem for p in KERNELS.glob("*.py"))
EVERY_KERNEL = [(name, k.name) for name in FILES for k in find_kernels(KERNELS / f"{name}.py")]
# kernels that raise and wait for no flag: nothing to emit (said, exit 2); acquire_reread's acquire
# without a spin is no wait
SILENT = {("rule_shapes", "reduction"), ("rule_shapes", "count_stores")} | {
    ("acquire_reread", k) for k in ("reread_ldacq", "reread_block", "reread_asm_fence", "reread_volatile",
                                    "reread_atomic_acquire", "reread_barrier", "reread_store_between",
                                    "read_other_address")}


def test_the_list_is_complete() -> None:
    assert len(EVERY_KERNEL) == 92 and SILENT < set(EVERY_KERNEL)


@pytest.mark.parametrize(("name", "kernel"), EVERY_KERNEL, ids=[f"{n}:{k}" for n, k in EVERY_KERNEL])
def test_alone_the_model_gives_the_verdict_lint_claimed(tmp_path: Path, name: str, kernel: str) -> None:
    out = tmp_path / "out.yaml"
    lint = CliRunner().invoke(main, ["lint", str(KERNELS / f"{name}.py"), "--kernel", kernel, "--emit-yaml", str(out)])
    mine = {(f.rule, f.site.line, f.pattern) for f in linted(name).findings if f.kernel == kernel}
    # a compiler finding (acquire-reread) is a program the model calls correct: it sets no exit status
    incorrect = any(f.incorrect for f in linted(name).findings if f.kernel == kernel)
    if (name, kernel) in SILENT:
        assert lint.exit_code == 2 and "no kernel here raises or waits for a flag" in lint.output
        assert not incorrect
        return
    assert lint.exit_code in (0, 1), lint.output
    # the same findings alone as with the file (the file-mates' spins make a plain store a flag)
    assert lint.exit_code == (1 if incorrect else 0), lint.output
    for rule, line, pattern in mine:
        assert f"{name}.py:{line}: {rule}: " in lint.output and f"pattern: {pattern} " in lint.output
    model = CliRunner().invoke(main, ["model", str(out)])
    assert model.exit_code == lint.exit_code, model.output


@pytest.mark.parametrize("name", FILES)
def test_with_the_file_each_pattern_is_incorrect_when_one_of_its_kernels_is(name: str) -> None:
    report = linted(name)
    docs = documents([k.events for k in report.kernels if k.events], report.kernel_peers(), name, "test",
                     report.flag_keys())
    tests = load_text(report.emit_yaml())
    assert [t.id for t in tests] == [d["name"] for _, d in docs] and tests
    bad = {f.kernel for f in report.incorrect}
    by_channel: dict[int, list[bool]] = {}
    for (ch, _), t in zip(docs, tests):
        m = check(t)
        by_channel.setdefault(id(ch), []).append(m.target_reachable or m.possible_hang)
        claimed = ch.producer.name in bad or ch.consumer.name in bad
        if not claimed:  # no finding: no pattern of the pair goes wrong
            assert not (m.target_reachable or m.possible_hang), t.id
    for ch, _ in docs:  # a finding: some pattern of the pair goes wrong
        if ch.producer.name in bad or ch.consumer.name in bad:
            assert any(by_channel[id(ch)]), (ch.producer.name, ch.consumer.name)


def test_a_plain_store_flag_is_found_with_kernel_alone() -> None:
    from litmus.lint import lint_file

    # plain_signal's tl.store(flag, 1) is a flag because other kernels of its file spin on `flag`
    alone = lint_file(KERNELS / "rule_shapes.py", "plain_signal")
    assert [(f.rule, f.pattern) for f in alone.findings] == [("relaxed-signal", "MP-iris[plain-signal-sys]")]
    assert [k.name for k in alone.kernels] == ["plain_signal"]
