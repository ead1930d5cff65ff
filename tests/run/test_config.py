"""Stress files: every bad one is an error that names the file, never a traceback."""

from __future__ import annotations

from pathlib import Path

import pytest

from litmus.errors import LitmusError
from litmus.run.config import PRESETS, RunConfig, load_stress, load_stresses


@pytest.mark.parametrize("text, message", [
    ('{"kernel_barier": true}', "unknown stress parameter(s) ['kernel_barier']"),
    ('{"stride": 0}', "stride 0; use 1 or more words"),
    ('{"stress_pattern": "x"}', "stress_pattern 'x'"),
    ('{"pre_stress": 4, "scratch_words": 1000}', "scratch_words 1000; use a power of two >= 64"),
    ('{"mem_stress": true}', "mem_stress needs stress_programs >= 1"),
    ('{"pre_stress": 4,\n "stride": }', "bad JSON"),
    ('[1, 2]', "a stress file is a JSON object"),
    ('{"environments": []}', '"environments" is a non-empty list'),
    ('{"environments": [{"stride": 2}, {"strid": 4}]}', "environments[1]: unknown stress parameter(s) ['strid']"),
    ('{"environments": [{"stride": 2}, 7]}', "environments[1]: a stress environment is a JSON object"),
    ('{"environments": [{"stride": 2}, {"stride": 4}]}', "holds 2 environments (a rotation); one is needed here"),
    ('{"role_rotation": "yes"}', "stress parameter 'role_rotation' is \"yes\"; write true or false"),
    ('{"shuffle": 1}', "stress parameter 'shuffle' is 1; write true or false"),
    ('{"stride": true}', "stress parameter 'stride' is true; write an integer"),
    ('{"environments": [{"stride": 2}, {"stride": 4.0}]}', "environments[1]: stress parameter 'stride' is 4.0"),
    ('{"launch": 3}', "stress parameter 'launch' is 3; write a string"),
])
def test_bad_stress_files_name_the_file(tmp_path: Path, text: str, message: str) -> None:
    path = tmp_path / "mine.json"
    path.write_text(text)
    with pytest.raises(LitmusError) as err:
        load_stress(str(path))
    assert str(err.value).startswith(str(path)) and message in str(err.value)


def test_a_stress_file_starts_from_default_and_presets_load_by_name(tmp_path: Path) -> None:
    path = tmp_path / "barrier.json"
    path.write_text('{"kernel_barrier": true, "pre_stress": 2}')
    stress = load_stress(str(path))
    assert stress.name == "barrier" and stress.kernel_barrier and stress.pre_stress == 2
    assert stress.shuffle == PRESETS["default"].shuffle
    assert load_stress("full") is PRESETS["full"]
    with pytest.raises(LitmusError, match="not a preset"):
        load_stress("no-such-preset")


def test_a_rotation_file_loads_its_environments_in_order(tmp_path: Path) -> None:
    path = tmp_path / "rot.json"
    path.write_text('{"environments": [{"stride": 2}, {"stride": 4, "launch": "grid"}, {"stride": 8}]}')
    envs = load_stresses(str(path))
    assert [(e.name, e.stride, e.launch) for e in envs] == [("rot", 2, "parallel"), ("rot#2", 4, "grid"),
                                                           ("rot#3", 8, "parallel")]
    config = RunConfig(stress=envs[0], rotation=envs[1:], seed=7)
    assert [e.stride for e in config.environments] == [2, 4, 8]
    assert [r["stride"] for r in config.as_dict()["rotation"]] == [4, 8]
    assert load_stresses("heavy") == (PRESETS["heavy"],)
