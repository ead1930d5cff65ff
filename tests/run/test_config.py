"""Stress files: every bad one is an error that names the file, never a traceback."""

from __future__ import annotations

from pathlib import Path

import pytest

from litmus.errors import LitmusError
from litmus.run.config import PRESETS, load_stress


@pytest.mark.parametrize("text, message", [
    ('{"kernel_barier": true}', "unknown stress parameter(s) ['kernel_barier']"),
    ('{"stride": 0}', "stride 0; use 1 or more words"),
    ('{"stress_pattern": "x"}', "stress_pattern 'x'"),
    ('{"pre_stress": 4, "scratch_words": 1000}', "scratch_words 1000; use a power of two >= 64"),
    ('{"mem_stress": true}', "mem_stress needs stress_programs >= 1"),
    ('{"pre_stress": 4,\n "stride": }', "bad JSON"),
    ('[1, 2]', "a stress file is a JSON object"),
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
