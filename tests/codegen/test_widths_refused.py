"""Codegen refuses access widths, views and vector accesses (not generated yet) with a located
``UnsupportedError``; the model checks such tests (docs/model.md, "Access widths")."""

from __future__ import annotations

import pytest

from litmus.codegen import generate
from litmus.errors import UnsupportedError
from litmus.spec import default_catalog_dir, load_paths

WIDE = [t for t in load_paths([default_catalog_dir() / "tearing.yaml"])]


@pytest.mark.parametrize("test", WIDE, ids=[t.id for t in WIDE])
def test_widths_are_refused_at_their_line(test) -> None:
    with pytest.raises(UnsupportedError) as err:
        generate(test)
    (problem,) = err.value.problems
    assert problem.file == test.source_file and problem.line is not None
    assert "widths other than 32 bits are not generated yet" in problem.message
