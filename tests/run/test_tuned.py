"""Which stress a run gets without --stress: the settings tuned for its GPU, else the default,
then the resident launch."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from litmus.run.config import PRESETS, load_stress
from litmus.run.tuned import AUTO, cache_file, choose_stress, device_key, save_for_device



@pytest.fixture(autouse=True)
def _own_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LITMUS_CACHE", str(tmp_path / "cache"))


def test_device_key_is_a_file_name() -> None:
    assert device_key("NVIDIA H100 80GB HBM3") == "nvidia-h100-80gb-hbm3"
    assert device_key("  ") == "unknown-device"


def test_a_named_stress_is_taken_as_given() -> None:
    choice = choose_stress("heavy", "cuda", "NVIDIA H200")
    assert choice.environments == (PRESETS["heavy"],) and choice.origin == "heavy"


@pytest.mark.parametrize("backend, device", [("cpu", "x86_64 CPU"), ("ranks", "NVIDIA H200"), ("cuda", None)])
def test_auto_off_the_cuda_backend_is_the_default_preset(backend: str, device: str | None) -> None:
    choice = choose_stress(AUTO, backend, device)
    assert choice.environments == (PRESETS["default"],) and choice.origin == "default preset"


def test_auto_on_a_gpu_without_tuned_settings_is_the_default_then_resident() -> None:
    choice = choose_stress(AUTO, "cuda", "NVIDIA A100-SXM4-40GB")
    assert choice.environments == (PRESETS["default"], PRESETS["resident"])
    assert "litmus tune" in choice.origin and "NVIDIA A100-SXM4-40GB" in choice.origin


def test_settings_kept_on_this_machine_come_first_then_resident() -> None:
    rotation = (PRESETS["heavy"], PRESETS["spread"])
    path = save_for_device("NVIDIA H200", rotation)
    assert path == cache_file("NVIDIA H200") and path.is_file()
    choice = choose_stress(AUTO, "cuda", "NVIDIA H200")
    assert [e.stride for e in choice.environments] == [e.stride for e in rotation] + [PRESETS["resident"].stride]
    assert choice.environments[-1] == PRESETS["resident"]
    assert str(path) in choice.origin
    assert choose_stress(AUTO, "cuda", "NVIDIA H100 80GB HBM3").environments[0] == PRESETS["default"]


def test_the_default_preset_is_one_program_per_sm_and_files_keep_their_launch(tmp_path: Path) -> None:
    assert PRESETS["default"].programs_per_sm == 1 and PRESETS["resident"].programs_per_sm == 0
    old = tmp_path / "old.json"  # a file written before programs_per_sm existed
    old.write_text(json.dumps({"launch": "parallel", "parallel_programs": 128}))
    assert load_stress(str(old)).programs_per_sm == 0


class _FakeCuda:
    """A backend named cuda on a measured GPU that sees nothing: the run's header is the test."""

    name = "cuda"

    def describe(self) -> dict[str, Any]:
        return {"backend": self.name, "device": "NVIDIA H200", "default_instances": 64}

    seen: list[Any] = []

    def skip_reason(self, test: Any) -> str | None:
        return None

    def run_round(self, test: Any, config: Any, round_index: int) -> Any:
        from litmus.run.backend import Round

        self.seen.append(config.stress)
        return Round(rows=[({"x": 1}, False, 64)], instances=64, seconds=0.0)

    def close(self) -> None:
        pass


def test_litmus_run_without_stress_says_which_it_used(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from click.testing import CliRunner

    import litmus.run.registry as registry
    from litmus.cli import main

    fake = _FakeCuda()
    monkeypatch.setattr(registry, "make_backend", lambda name, **opts: fake)
    p = tmp_path / "one.yaml"
    p.write_text("name: ONE\nlocations: {x: 0}\nthreads: {P0: {at: {rank: 0, cta: 0}, do: [{store: {loc: x, value: 1}}]}}\n"
                 "exists: \"x == 1\"\nexpect: allowed\nwhy: one store\n")
    res = CliRunner().invoke(main, ["run", str(p), "--iterations", "1", "--compile-workers", "0",
                                    "--out", str(tmp_path / "r.jsonl")])
    assert res.exit_code == 0, res.output
    assert "stress default preset (one program per SM), then the resident launch" in " ".join(res.output.split())
    assert fake.seen == [PRESETS["default"]]
