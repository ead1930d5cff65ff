"""Spins read from the kernel's source: a `while` on a plain tl.load, in both spellings."""

from __future__ import annotations

import textwrap
from pathlib import Path

from litmus.lint.source import plain_spins, spin_roots

SOURCE = '''
import triton
import triton.language as tl


@triton.jit
def k(flag, other, data):
    done = tl.load(flag + 1)
    while done == 0:
        done = tl.load(flag + 1)
    while tl.load(other) != 2:
        pass
    while tl.load(data, volatile=True) == 0:
        pass
    while tl.atomic_add(data, 0, sem="acquire") == 0:
        pass
'''


def test_plain_spins_in_both_spellings_and_not_the_strong_ones(tmp_path: Path) -> None:
    path = tmp_path / "k.py"
    path.write_text(textwrap.dedent(SOURCE))
    spins = plain_spins(str(path))
    assert [(s.function, s.line, s.end, s.address, s.root, s.load_line) for s in spins] == [
        ("k", 9, 10, "flag + 1", "flag", 10),
        ("k", 11, 12, "other", "other", 11),
    ]
    assert spin_roots(str(path)) == {"flag", "other"}


def test_a_file_that_does_not_parse_has_no_spins(tmp_path: Path) -> None:
    path = tmp_path / "bad.py"
    path.write_text("def (:\n")
    assert plain_spins(str(path)) == () and plain_spins(str(tmp_path / "missing.py")) == ()
