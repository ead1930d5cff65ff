"""Collection: off by default; YAML variants become items; bad YAML is one failing item."""

from __future__ import annotations

import pytest
from plugin_patterns import BAD, handshake


def test_off_by_default_collects_no_yaml_and_imports_nothing_heavy(pytester: pytest.Pytester, flags: list[str],
                                                                    copy_catalog) -> None:
    copy_catalog("mp.yaml")
    pytester.makepyfile(test_plain="""
        import sys
        def test_nothing_heavy_imported():
            heavy = [m for m in sys.modules if m.split('.')[0] in ('torch', 'triton')
                     or m.startswith(('litmus.spec', 'litmus.model', 'litmus.pytest_plugin.collect'))]
            assert heavy == []
    """)
    result = pytester.runpytest_subprocess(*flags, "-p", "no:cacheprovider")
    result.assert_outcomes(passed=1)
    assert "mp.yaml" not in result.stdout.str()


def test_litmus_flag_collects_one_item_per_variant_with_readable_ids(pytester: pytest.Pytester, flags: list[str],
                                                                     copy_catalog) -> None:
    copy_catalog("mp.yaml", "sb.yaml")
    result = pytester.runpytest(*flags, "--litmus", "--litmus-backend", "model", "--collect-only", "-q")
    ids = [line for line in result.outlines if "::" in line]
    assert "catalog/mp.yaml::MP[relacq-xgpu-sys]" in ids
    assert "catalog/mp.yaml::MP-mixed[volatile-xgpu]" in ids
    assert any(i.startswith("catalog/sb.yaml::SB") for i in ids)
    files = [i.split("::")[0] for i in ids]
    assert files == sorted(files)  # files in sorted order, variants in file order
    from litmus.spec import load_paths

    assert len(ids) == len(load_paths([pytester.path / "catalog"]))


def test_ini_enables_and_litmus_paths_choose_the_folder(pytester: pytest.Pytester, flags: list[str]) -> None:
    (pytester.path / "patterns").mkdir()
    (pytester.path / "patterns" / "handshake.yaml").write_text(handshake())
    (pytester.path / "other.yaml").write_text("not: a pattern\n")  # outside litmus_paths: ignored
    pytester.makeini("[pytest]\nlitmus = true\nlitmus_paths = patterns\nlitmus_backend = model\n")
    result = pytester.runpytest(*flags, "-v")
    result.assert_outcomes(passed=2)
    result.stdout.fnmatch_lines(["patterns/handshake.yaml::Handshake?relacq-sys? PASSED*",
                                 "patterns/handshake.yaml::Handshake?volatile? PASSED*"])


def test_missing_litmus_paths_is_a_usage_error(pytester: pytest.Pytester, flags: list[str]) -> None:
    pytester.makeini("[pytest]\nlitmus_paths = nowhere\n")
    result = pytester.runpytest(*flags, "--litmus")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*litmus_paths names*nowhere*does not exist*"])


def test_yaml_file_named_on_the_command_line_is_collected(pytester: pytest.Pytester, flags: list[str]) -> None:
    (pytester.path / "mine").mkdir()
    (pytester.path / "mine" / "handshake.yaml").write_text(handshake())
    result = pytester.runpytest(*flags, "--litmus", "--litmus-backend", "model", "mine/handshake.yaml")
    result.assert_outcomes(passed=2)


def test_with_no_paths_given_catalog_is_added_to_testpaths(pytester: pytest.Pytester, flags: list[str],
                                                            copy_catalog) -> None:
    copy_catalog("sb.yaml")
    pytester.makeini("[pytest]\ntestpaths = tests\n")
    pytester.mkdir("tests")
    (pytester.path / "tests" / "test_one.py").write_text("def test_one():\n    pass\n")
    result = pytester.runpytest(*flags, "--litmus", "--litmus-backend", "model", "--collect-only", "-q")
    assert "tests/test_one.py::test_one" in result.outlines
    assert any(line.startswith("catalog/sb.yaml::SB") for line in result.outlines)


def test_bad_yaml_is_one_failing_item_with_file_and_line(pytester: pytest.Pytester, flags: list[str]) -> None:
    (pytester.path / "catalog").mkdir()
    (pytester.path / "catalog" / "broken.yaml").write_text(BAD)
    (pytester.path / "catalog" / "handshake.yaml").write_text(handshake())
    result = pytester.runpytest(*flags, "--litmus", "--litmus-backend", "model")
    result.assert_outcomes(passed=2, failed=1)
    out = result.stdout.str()
    assert "catalog/broken.yaml:7:9: unknown op 'stor'; did you mean 'store'?" in out
    assert "FAILED catalog/broken.yaml::load" in out
    assert "Traceback" not in out and "raise LitmusError" not in out


def test_mislabelled_variant_fails_against_the_model(pytester: pytest.Pytester, flags: list[str]) -> None:
    (pytester.path / "catalog").mkdir()
    (pytester.path / "catalog" / "handshake.yaml").write_text(handshake(expect_volatile="forbidden"))
    result = pytester.runpytest(*flags, "--litmus", "--litmus-backend", "model")
    result.assert_outcomes(passed=1, failed=1)
    out = result.stdout.str()
    assert "litmus Handshake[volatile] (catalog/handshake.yaml:" in out
    assert "expectation: declared forbidden" in out
    assert "the PTX model ALLOWS the target outcome of exists P1:r0 == 1 /\\ P1:r1 == 0" in out
    assert "FAILED catalog/handshake.yaml::Handshake[volatile]" in out
    assert "Traceback" not in out


@pytest.mark.parametrize(("args", "ini", "message"), [
    (["--litmus-iterations", "0"], "", "*--litmus-iterations 0: give a positive number*"),
    (["--litmus-time", "-1"], "", "*--litmus-time -1.0: give a positive number*"),
    (["--litmus-stress", "nope"], "", "*--litmus-stress: --stress 'nope': not a preset*"),
    ([], "litmus_instances = many\n", "*ini setting litmus_instances = 'many': give a whole number*"),
    ([], "litmus_backend = gpu\n", "*litmus_backend = 'gpu'; choose one of auto, cpu, cuda, ranks, model*"),
])
def test_bad_settings_are_usage_errors(pytester: pytest.Pytester, flags: list[str], args: list[str], ini: str,
                                       message: str) -> None:
    pytester.makeini("[pytest]\n" + ini)
    result = pytester.runpytest(*flags, "--litmus", *args)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([message])


def test_each_item_asks_the_ptx_model_once(pytester: pytest.Pytester, flags: list[str], copy_catalog) -> None:
    copy_catalog("mp.yaml")
    pytester.makeconftest("""
        import collections, litmus.model, litmus.session
        CALLS = collections.Counter()
        real = litmus.model.check
        def counting(test, model="ptx"):
            CALLS[(test.id, model)] += 1
            return real(test, model)
        litmus.model.check = counting
        litmus.session.check = counting
        def pytest_sessionfinish(session):
            print("PTX-CALLS", sorted(n for (t, m), n in CALLS.items() if m == "ptx"))
    """)
    result = pytester.runpytest_subprocess(*flags, "--litmus", "--litmus-backend", "cpu", "--litmus-instances", "128",
                                           "-k", "relacq-xgpu-sys and not mixed", "-s", "-p", "no:cacheprovider")
    result.assert_outcomes(passed=1)
    assert "PTX-CALLS [1]" in result.stdout.str()
