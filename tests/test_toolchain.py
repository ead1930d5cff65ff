"""The supported triton range: read from the package metadata, checked, and warned about."""

from __future__ import annotations

import importlib.metadata
from pathlib import Path

import pytest
from click.testing import CliRunner
from packaging.specifiers import SpecifierSet

from litmus import toolchain
from litmus.cli import main

REQUIRES = ["torch>=2.6", "triton<3.10,>=3.6", "PyYAML>=6.0", 'triton==9.9; extra == "dev"',
            'pytest>=8; extra == "dev"']


def use(monkeypatch: pytest.MonkeyPatch, version: str | None, requires: list[str] | None = REQUIRES,
        checkout: list[str] | None = None) -> None:
    """Pretend triton ``version`` is installed, litmus-gpu's metadata lists ``requires`` and the
    checkout's pyproject.toml ``checkout`` (None: not there)."""
    monkeypatch.setattr(toolchain, "installed_triton", lambda: version)
    monkeypatch.setattr(toolchain, "declared_requirements", lambda: requires)
    monkeypatch.setattr(toolchain, "checkout_requirements", lambda: checkout)


@pytest.mark.parametrize("version", ["3.6.0", "3.7.1", "3.9.0", "3.6.0+git1234abc", "3.8.0rc1"])
def test_a_version_inside_the_range_is_supported(monkeypatch: pytest.MonkeyPatch, version: str) -> None:
    use(monkeypatch, version)
    assert toolchain.triton_support() == (version, SpecifierSet(">=3.6,<3.10"), True)
    ok, line = toolchain.support_message()
    assert ok and line == f"triton {version} is inside the supported range >=3.6,<3.10"


@pytest.mark.parametrize("version", ["3.5.1", "3.10.0", "4.0.0", "3.10.0.dev20261201", "not-a-version"])
def test_a_version_outside_the_range_gets_the_range_and_the_fix(monkeypatch: pytest.MonkeyPatch,
                                                                version: str) -> None:
    use(monkeypatch, version)
    assert toolchain.triton_support()[2] is False
    ok, line = toolchain.support_message()
    assert not ok
    assert f"triton {version} is outside the supported range >=3.6,<3.10" in line
    assert "pip install 'triton>=3.6,<3.10'" in line


def test_an_excluded_version_is_outside(monkeypatch: pytest.MonkeyPatch) -> None:
    use(monkeypatch, "3.7.0", ["triton!=3.7.0,>=3.6,<3.10"])
    assert toolchain.triton_support()[2] is False
    assert "pip install 'triton>=3.6,<3.10,!=3.7.0'" in toolchain.support_message()[1]


def test_missing_metadata_is_said_and_does_not_fail(monkeypatch: pytest.MonkeyPatch) -> None:
    def not_installed(name: str) -> list[str]:
        raise importlib.metadata.PackageNotFoundError(name)

    monkeypatch.setattr(importlib.metadata, "requires", not_installed)
    monkeypatch.setattr(toolchain, "installed_triton", lambda: "3.9.0")
    monkeypatch.setattr(toolchain, "checkout_requirements", lambda: None)
    assert toolchain.declared_requirements() is None
    assert toolchain.triton_support() == ("3.9.0", None, True)
    ok, line = toolchain.support_message()
    assert ok and "range is unknown" in line and "no installed metadata" in line and "pip install -e ." in line


def test_without_metadata_a_checkout_reads_its_own_pyproject(monkeypatch: pytest.MonkeyPatch) -> None:
    use(monkeypatch, "3.5.0", None, checkout=["torch>=2.6", "triton>=3.6,<3.10"])
    assert toolchain.supported_range() == (SpecifierSet(">=3.6,<3.10"), "pyproject.toml")
    ok, line = toolchain.support_message()
    assert not ok and "read from pyproject.toml" in line and "pip install 'triton>=3.6,<3.10'" in line


def test_the_checkout_s_pyproject_is_read_as_written() -> None:
    tomllib = pytest.importorskip("tomllib")
    deps = tomllib.loads(toolchain.PYPROJECT.read_text())["project"]["dependencies"]
    assert toolchain.checkout_requirements() == deps


def test_metadata_without_a_triton_requirement_is_an_unknown_range(monkeypatch: pytest.MonkeyPatch) -> None:
    use(monkeypatch, "3.9.0", ["torch>=2.6", 'triton>=3.6; extra == "dev"'], checkout=["triton>=3.6"])
    assert toolchain.supported_range() == (None, "")
    assert toolchain.triton_support() == ("3.9.0", None, True)


def test_no_triton_is_unsupported(monkeypatch: pytest.MonkeyPatch) -> None:
    use(monkeypatch, None)
    assert toolchain.triton_support() == (None, SpecifierSet(">=3.6,<3.10"), False)
    ok, line = toolchain.support_message()
    assert not ok and "triton is not installed" in line and "pip install 'triton>=3.6,<3.10'" in line


def test_the_installed_metadata_holds_pyproject_s_range() -> None:
    pytest.importorskip("tomllib")
    declared = next(d for d in toolchain.checkout_requirements() or [] if d.startswith("triton"))
    spec, origin = toolchain.supported_range()
    assert spec == SpecifierSet(declared.removeprefix("triton")), (
        f"{toolchain.PYPROJECT}: says {declared}, the installed metadata ({origin}) says triton{spec}: "
        "reinstall with pip install -e .")


def audit_without_compiling(monkeypatch: pytest.MonkeyPatch, sb_file: Path) -> tuple[int, str]:
    """``litmus audit sb_file``'s exit status and stderr, with no kernel compiled."""
    import litmus.audit.batch

    monkeypatch.setattr(litmus.audit.batch, "audit_many", lambda *args, **kwargs: [])
    res = CliRunner().invoke(main, ["audit", str(sb_file), "--target", "cuda:90"])
    return res.exit_code, res.stderr


def test_audit_warns_once_on_a_triton_outside_the_range_and_still_runs(monkeypatch: pytest.MonkeyPatch,
                                                                      sb_file: Path) -> None:
    use(monkeypatch, "3.5.0")
    code, err = audit_without_compiling(monkeypatch, sb_file)
    assert code == 0, err
    warnings = [line for line in err.splitlines() if line.startswith("warning:")]
    assert warnings == ["warning: triton 3.5.0 is outside the supported range >=3.6,<3.10: the audit's "
                        "verdicts were not validated on it (fix: pip install 'triton>=3.6,<3.10')"]


def test_audit_says_nothing_about_a_supported_triton(monkeypatch: pytest.MonkeyPatch, sb_file: Path) -> None:
    use(monkeypatch, "3.9.0")
    code, err = audit_without_compiling(monkeypatch, sb_file)
    assert code == 0 and "warning" not in err, err



def test_triton_bin_is_the_directory_of_the_tools_the_installed_triton_ships() -> None:
    import triton

    found = toolchain.triton_bin()
    assert found == Path(triton.__file__).parent / "backends" / "nvidia" / "bin"
    assert (found / "ptxas").is_file()


def test_triton_bin_is_none_without_triton(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(toolchain.importlib.util, "find_spec", lambda name: None)
    assert toolchain.triton_bin() is None
