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
        kernel_signature(kernel, {}, infer=False)
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


def test_inference_fills_in_what_nothing_gives(kernel) -> None:
    sig = kernel_signature(kernel, {})
    # n reaches tl.store only as the offset of the declared pointer; data and BLOCK are unused
    assert sig.types == {"flag": "*i32", "n": "i32", "data": "i32"}
    assert sig.constexprs == {"BLOCK": 1, "MODE": "fast"}
    assert set(sig.inferred) == {"n", "data", "BLOCK"} and sig.inferred["BLOCK"] == "unused"
    note = sig.inferred_note()
    assert note is not None and note.startswith(f"{sig.file}:6: kernel k: inferred n=i32 (integer)")
    assert "--signature 'n=i32,data=i32,BLOCK=1'" in note


def test_given_values_and_annotations_override_inference(kernel) -> None:
    sig = kernel_signature(kernel, {"n": "i64", "BLOCK": "64"})
    assert sig.types["n"] == "i64" and sig.constexprs["BLOCK"] == 64 and "n" not in sig.inferred
    assert sig.types["flag"] == "*i32" and "flag" not in sig.inferred  # its annotation


UNDECIDABLE = '''
import triton
import triton.language as tl


@triton.jit
def k(flag, x, ACT: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(x + offs, ACT(tl.load(x + offs)))
    tl.atomic_xchg(flag, 1, sem="release")
'''


def test_an_undecidable_parameter_keeps_the_located_error(tmp_path) -> None:
    path = tmp_path / "act.py"
    path.write_text(UNDECIDABLE)
    fn = import_file(path).k
    with pytest.raises(LitmusError) as err:
        kernel_signature(fn, {})
    problem = err.value.problems[0]
    assert (problem.file, problem.line) == (str(path), 6)
    assert "cannot compile without the type or constexpr value of ACT (ACT: called as a function" in problem.message
    assert "--signature 'ACT=<value>'" in problem.message
    assert "(inferred meanwhile: flag=*i32, x=*fp32, BLOCK=128)" in problem.message
    from litmus.lint import lint_file

    with pytest.raises(LitmusError, match=r"act.py:6: kernel k: cannot compile without"):
        lint_file(path)
