"""The plugin checks a variant's declared ``may_hang`` against the model, like its expectation."""

from __future__ import annotations

import pytest

from tests.patterns import MP_YAML

# MP_YAML without the producer's flag CAS: the consumer's spin may never exit
HANGS_YAML = MP_YAML.replace("      - cas: {loc: flag, expected: 0, value: 1, sem: release, scope: sys}\n", "")


def test_undeclared_hang_fails_the_item_naming_file_and_line(pytester: pytest.Pytester, flags: list[str]) -> None:
    (pytester.path / "hang.yaml").write_text(HANGS_YAML)
    (pytester.path / "declared.yaml").write_text(
        HANGS_YAML.replace("expect: forbidden\n", "expect: forbidden\nmay_hang: true\n"))
    result = pytester.runpytest(*flags, "--litmus", "--litmus-backend", "model", "hang.yaml", "declared.yaml")
    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines(["*may_hang disagrees with the model*hang.yaml:1: MP-audit: the ptx model finds*"])
