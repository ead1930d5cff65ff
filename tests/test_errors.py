"""litmus.errors: problems name the file and line; scripts turn bad input into one line."""

from __future__ import annotations

import pytest

from litmus.errors import LitmusError, Problem, run_script


def test_a_script_exits_with_its_mains_status() -> None:
    with pytest.raises(SystemExit) as e:
        run_script(lambda: 3, "probe.py")
    assert e.value.code == 3


@pytest.mark.parametrize("error", [LitmusError.at("a.yaml", 7, "no such pattern"), FileNotFoundError("x.jsonl")])
def test_bad_input_in_a_script_is_one_line_naming_the_script(error: Exception) -> None:
    def main() -> int:
        raise error

    with pytest.raises(SystemExit) as e:
        run_script(main, "probe.py")
    assert e.value.code == f"probe.py: {error}" and "\n" not in str(e.value.code)
    assert e.value.__suppress_context__  # no traceback of the error behind it


def test_a_problem_names_file_line_and_column() -> None:
    assert str(Problem("a.yaml", 3, 5, "bad")) == "a.yaml:3:5: bad"
