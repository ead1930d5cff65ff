"""``litmus doctor``: the report's facts and its rendering."""

from __future__ import annotations

import importlib.metadata
import json

import pytest
import torch
from hypothesis import given
from hypothesis import strategies as st

from litmus import toolchain
from litmus.run.doctor import _max_peer_clique, doctor_main, doctor_report, render_doctor
from litmus.run.registry import available_backends


def test_the_report_says_which_backends_run_and_why() -> None:
    report = doctor_report()
    assert report["torch"] == importlib.metadata.version("torch")
    assert list(report["backends"]) == list(available_backends())
    assert {"cpu", "cuda", "ranks"} <= set(report["backends"])
    assert report["backends"]["cpu"]["ok"] is True
    assert report["symm_mem"]["available"] is True and report["symm_mem"]["rendezvous_tried"] is False
    if not torch.cuda.is_available():
        assert report["gpus"] == [] and report["peer_access"] == []
        assert report["backends"]["cuda"] == {"ok": False, "reason": available_backends()["cuda"]}
        assert report["backends"]["ranks"]["ok"] and report["backends"]["ranks"]["device"] == "cpu"


def test_rendering_names_every_backend_and_the_versions() -> None:
    report = doctor_report()
    text = render_doctor(report)
    assert f"triton {report['triton']}" in text
    for name, b in report["backends"].items():
        assert any(line.split()[:2] == [name, "ok" if b["ok"] else "no"] for line in text.splitlines())


def test_the_range_line_says_whether_the_installed_triton_is_supported() -> None:
    report = doctor_report()
    ok, detail = toolchain.support_message()
    tr = report["triton_range"]
    assert tr["ok"] is ok and tr["detail"] == detail and tr["range"], tr
    assert f"triton range: {'yes' if ok else 'NO'} ({detail})" in render_doctor(report).splitlines()
    if ok:
        assert detail == f"triton {report['triton']} is inside the supported range {tr['range']}"


def test_a_triton_outside_the_range_gets_a_line_with_the_range_and_the_fix(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(toolchain, "installed_triton", lambda: "3.5.0")
    monkeypatch.setattr(toolchain, "declared_requirements", lambda: ["triton<3.10,>=3.6"])
    report = doctor_report()
    assert report["triton_range"]["ok"] is False and report["triton_range"]["range"] == ">=3.6,<3.10"
    assert ("triton range: NO (triton 3.5.0 is outside the supported range >=3.6,<3.10: the audit's verdicts "
            "were not validated on it (fix: pip install 'triton>=3.6,<3.10'))") in render_doctor(report).splitlines()


def test_without_package_metadata_or_pyproject_the_range_line_says_it_is_unknown(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(toolchain, "declared_requirements", lambda: None)
    monkeypatch.setattr(toolchain, "checkout_requirements", lambda: None)
    report = doctor_report()
    assert report["triton_range"]["range"] is None
    line = next(ln for ln in render_doctor(report).splitlines() if ln.startswith("triton range:"))
    assert "range is unknown" in line and "pip install -e ." in line


def test_doctor_main_prints_json_and_succeeds(capsys: pytest.CaptureFixture[str]) -> None:
    assert doctor_main(json=True) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["backends"]["cpu"]["ok"] is True


@given(st.integers(1, 6).flatmap(lambda n: st.lists(st.lists(st.booleans(), min_size=n, max_size=n), min_size=n, max_size=n)))
def test_max_world_size_is_the_largest_prefix_of_mutually_reachable_gpus(peer: list[list[bool]]) -> None:
    for i in range(len(peer)):
        peer[i][i] = True
    n = _max_peer_clique(peer)
    assert all(peer[i][j] for i in range(n) for j in range(n))
    if n < len(peer):
        assert not all(peer[i][n] and peer[n][i] for i in range(n + 1))


@pytest.mark.gpu
def test_gpu_report_lists_devices_and_a_square_peer_matrix() -> None:
    if not torch.cuda.is_available():
        pytest.skip("no CUDA device")
    report = doctor_report()
    n = torch.cuda.device_count()
    assert len(report["gpus"]) == n and all(len(row) == n for row in report["peer_access"])
    assert all(report["peer_access"][i][i] for i in range(n))
    assert report["backends"]["cuda"]["ok"] is True
