"""Argument types for the CPU compile: annotations, what the user gives, and the error when
neither says."""

from __future__ import annotations

import textwrap

import pytest

from litmus.errors import LitmusError
from litmus.lint.load import import_file
from litmus.lint.signature import kernel_signature, parse_signature

SOURCE = '''
import triton
import triton.language as tl


@triton.jit
def k(flag: "*i32", n, data, BLOCK: tl.constexpr, MODE: tl.constexpr = "fast"):
    tl.store(flag + n, 1)
'''


@pytest.fixture(scope="module")
def kernel(tmp_path_factory: pytest.TempPathFactory):
    path = tmp_path_factory.mktemp("sig") / "k.py"
    path.write_text(textwrap.dedent(SOURCE))
    return import_file(path).k


def test_annotations_defaults_and_given_values(kernel) -> None:
    sig = kernel_signature(kernel, {"n": "i32", "data": "*fp32", "BLOCK": "128"})
    assert sig.types == {"flag": "*i32", "n": "i32", "data": "*fp32"}
    assert sig.constexprs == {"BLOCK": 128, "MODE": "fast"}


def test_missing_types_name_every_parameter_and_the_fix(kernel) -> None:
    with pytest.raises(LitmusError) as err:
        kernel_signature(kernel, {})
    problem = err.value.problems[0]
    assert problem.file.endswith("k.py") and problem.line == 6
    assert "n, data, BLOCK" in problem.message
    assert "--signature 'n=<type>,data=<type>,BLOCK=<value>'" in problem.message


def test_a_value_that_is_no_type_and_an_unknown_name(kernel) -> None:
    with pytest.raises(LitmusError, match="n='int' is not a Triton type"):
        kernel_signature(kernel, {"n": "int", "data": "*fp32", "BLOCK": 1})
    with pytest.raises(LitmusError, match="has no parameter"):
        kernel_signature(kernel, {"nope": "i32"})


def test_parse_signature() -> None:
    assert parse_signature(" a=*i32, BLOCK=128 ,") == {"a": "*i32", "BLOCK": "128"}
    with pytest.raises(LitmusError, match="NAME=TYPE"):
        parse_signature("a:*i32")
