"""Property: every mutated (invalid) catalog file yields a LitmusError with located problems,
and no other exception escapes."""

from __future__ import annotations

import re
import tempfile
from pathlib import Path
from typing import Callable

from hypothesis import given, settings
from hypothesis import strategies as st

from litmus.errors import LitmusError
from litmus.spec import load_file
from tests.by_path import load_by_path

def _validation_texts() -> tuple[str, str]:
    """BASE and PRODUCT of test_validation.py, imported by path (works in any pytest import mode)."""
    mod = load_by_path("_spec_validation_texts", Path(__file__).with_name("test_validation.py"))
    return mod.BASE, mod.PRODUCT


BASE, PRODUCT = _validation_texts()

DATA = Path(__file__).parent / "data"
TEXTS = [BASE, PRODUCT, (DATA / "all_ops.yaml").read_text(), (DATA / "product.yaml").read_text()]
OPS = ["load", "store", "volatile_load", "volatile_store", "atomic_load", "atomic_store", "cas", "exch", "add", "fence", "spin"]

Mutation = Callable[[str, st.DataObject], str]


def _replace_nth(text: str, pattern: str, new: str, data: st.DataObject) -> str:
    matches = list(re.finditer(pattern, text, re.M))
    m = data.draw(st.sampled_from(matches))
    return text[: m.start()] + m.expand(new) + text[m.end() :]


def delete_required_line(text: str, data: st.DataObject) -> str:
    return _replace_nth(text, r"^\s*(name|why|outcome|locations|threads): .*\n", "", data)


def typo_op(text: str, data: st.DataObject) -> str:
    op = data.draw(st.sampled_from([o for o in OPS if re.search(rf"[{{ ]{o}:", text)]))
    i = data.draw(st.integers(0, len(op) - 1))
    bad = data.draw(st.sampled_from([op[:i] + op[i + 1 :], op[:i] + "x" + op[i:], op + "s", op.upper()]))
    return _replace_nth(text, rf"(?<=[{{ ]){op}(?=: )", bad, data)


def bad_scope(text: str, data: st.DataObject) -> str:
    bad = data.draw(st.sampled_from(["gpuu", "syss", "GPU", "device", "1", "[gpuu]", "null"]))
    return _replace_nth(text, r"scope: (sys|gpu|cta)\b", f"scope: {bad}", data)


def broken_yaml(text: str, data: st.DataObject) -> str:
    lines = text.splitlines(keepends=True)
    i = data.draw(st.integers(0, len(lines)))
    junk = data.draw(st.sampled_from(['key: "unterminated\n', "x: [1, 2\n", "- ]\n", "a: b: c\n", "\t- tab\n"]))
    return "".join(lines[:i] + [junk] + lines[i:])


def unknown_register(text: str, data: st.DataObject) -> str:
    return _replace_nth(text, r"value: 1\b", "value: r99", data)


def unknown_location(text: str, data: st.DataObject) -> str:
    return _replace_nth(text, r"loc: (x|y|flag)\b", "loc: nowhere", data)


def zero_bound(text: str, data: st.DataObject) -> str:
    bound = data.draw(st.sampled_from(["0", "-1", ".inf", "null", "1.5"]))
    return _replace_nth(text, r"until: 1\b", f"until: 1, bound: {bound}", data)


def drop_placeholder_value(text: str, data: st.DataObject) -> str:
    return _replace_nth(text, r"^      (scope|signal): .*\n", "", data)


def undeclared_placeholder(text: str, data: st.DataObject) -> str:
    return _replace_nth(text, r"value: 1\b", 'value: "{nobody}"', data)


def bad_sem(text: str, data: st.DataObject) -> str:
    return _replace_nth(text, r"sem: (acquire|release|sc|acq_rel)\b", "sem: seq", data)


def negative_rank(text: str, data: st.DataObject) -> str:
    return _replace_nth(text, r"(rank|cta): [0-9]\b", r"\1: -3", data)


def unknown_condition_register(text: str, data: st.DataObject) -> str:
    return _replace_nth(text, r"P1:r0\b", "P1:r77", data)


MUTATIONS: list[tuple[Mutation, str]] = [
    (delete_required_line, r"^\s*(name|why|outcome|locations|threads): "),
    (typo_op, r"[{ ](load|store|fence|spin|cas|exch|add|atomic_load|atomic_store): "),
    (bad_scope, r"scope: (sys|gpu|cta)\b"),
    (broken_yaml, r""),
    (unknown_register, r"value: 1\b"),
    (unknown_location, r"loc: (x|y|flag)\b"),
    (zero_bound, r"until: 1\b"),
    (drop_placeholder_value, r"^      (scope|signal): "),
    (undeclared_placeholder, r"value: 1\b"),
    (bad_sem, r"sem: (acquire|release|sc|acq_rel)\b"),
    (negative_rank, r"(rank|cta): [0-9]\b"),
    (unknown_condition_register, r"P1:r0\b"),
]


@settings(max_examples=200, deadline=None)
@given(st.data())
def test_mutated_files_fail_with_located_problems(data: st.DataObject) -> None:
    text = data.draw(st.sampled_from(TEXTS))
    usable = [m for m, where in MUTATIONS if re.search(where, text, re.M)]
    mutation = data.draw(st.sampled_from(usable))
    bad = mutation(text, data)
    with tempfile.TemporaryDirectory() as d:
        f = Path(d) / "mutant.yaml"
        f.write_text(bad)
        try:
            load_file(f)
        except LitmusError as e:
            assert e.problems
            for p in e.problems:
                assert p.file == str(f)
                assert p.line is not None and 1 <= p.line <= bad.count("\n") + 2, p
                assert p.message.strip()
        else:
            raise AssertionError(f"{mutation.__name__} produced a file that loads:\n{bad}")
