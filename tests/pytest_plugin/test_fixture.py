"""The ``litmus`` fixture and ``@pytest.mark.litmus_pattern`` for users' own tests."""

from __future__ import annotations

import pytest
from plugin_patterns import BAD, handshake


def test_fixture_and_marker_skip_with_a_reason_on_the_model_backend(pytester: pytest.Pytester,
                                                                   flags: list[str]) -> None:
    (pytester.path / "handshake.yaml").write_text(handshake())
    pytester.makepyfile(test_mine="""
        import pytest

        def test_fixture(litmus):
            litmus.run("handshake.yaml", variant="volatile")

        @pytest.mark.litmus_pattern("handshake.yaml", variant="relacq-sys")
        def test_marker(litmus_result):
            litmus_result.never("P1:r0 == 1 /\\\\ P1:r1 == 0")
    """)
    result = pytester.runpytest(*flags, "--litmus-backend", "model", "-rs")
    result.assert_outcomes(skipped=2)
    result.stdout.fnmatch_lines(["*--litmus-backend model runs nothing; litmus.run needs cpu, cuda, ranks or auto*"])


def test_bad_inline_pattern_fails_the_test_with_file_line_and_no_traceback(pytester: pytest.Pytester,
                                                                           flags: list[str]) -> None:
    (pytester.path / "bad.txt").write_text(BAD)
    (pytester.path / "two.txt").write_text(handshake())
    pytester.makepyfile(test_mine="""
        from pathlib import Path

        def test_bad(litmus):
            litmus.run(Path("bad.txt").read_text())

        def test_ambiguous(litmus):
            litmus.run(Path("two.txt").read_text())
    """)
    result = pytester.runpytest(*flags, "--litmus-backend", "cpu")
    result.assert_outcomes(failed=2)
    out = result.stdout.str()
    assert "<inline pattern>:7:9: unknown op 'stor'" in out
    assert "has 2 variants (Handshake[relacq-sys], Handshake[volatile]); choose one with variant=" in out
    assert "litmus/pytest_plugin" not in out  # no plugin frames


def test_litmus_result_without_the_marker_says_how_to_add_it(pytester: pytest.Pytester, flags: list[str]) -> None:
    pytester.makepyfile(test_mine="def test_x(litmus_result):\n    pass\n")
    result = pytester.runpytest(*flags)
    result.assert_outcomes(errors=1)  # a fixture that cannot be set up is an error, not a failure
    result.stdout.fnmatch_lines(["*litmus_result fixture needs @pytest.mark.litmus_pattern(pattern, variant=...)*"])


def test_marked_tests_get_the_litmus_marker_when_enabled(pytester: pytest.Pytester, flags: list[str]) -> None:
    pytester.makepyfile(test_mine="""
        import pytest

        @pytest.mark.litmus_pattern("MP[relacq-xgpu-sys]")
        def test_marked(litmus_result):
            pass

        def test_plain():
            pass
    """)
    result = pytester.runpytest(*flags, "--litmus", "--litmus-backend", "cuda", "-m", "litmus and gpu",
                                "--collect-only", "-q")
    assert "test_mine.py::test_marked" in result.outlines
    assert "test_mine.py::test_plain" not in result.outlines
