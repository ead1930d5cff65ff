"""Installed through the pytest11 entry point, the plugin loads without -p (and stays off unless asked)."""

from __future__ import annotations

import pytest
from plugin_patterns import handshake

ENTRY_POINTS = "[pytest11]\nlitmus = litmus.pytest_plugin\n"
METADATA = "Metadata-Version: 2.1\nName: litmus-entry-point-probe\nVersion: 0\n"


def test_pytest11_entry_point_loads_the_plugin(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    site = pytester.mkdir("site")
    info = site / "litmus_entry_point_probe-0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(METADATA)
    (info / "entry_points.txt").write_text(ENTRY_POINTS)
    (pytester.path / "catalog").mkdir()
    (pytester.path / "catalog" / "handshake.yaml").write_text(handshake())
    monkeypatch.setenv("PYTHONPATH", str(site))
    on = pytester.runpytest_subprocess("--litmus", "--litmus-backend", "model", "-p", "no:cacheprovider")
    on.assert_outcomes(passed=2)
    off = pytester.runpytest_subprocess("-p", "no:cacheprovider", "--collect-only", "-q")
    assert not any("handshake.yaml" in line for line in off.outlines)
