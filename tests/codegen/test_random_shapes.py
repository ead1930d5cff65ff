"""Random 3–4-thread patterns that once failed to compile in the cuda backend's run kernels.

- three threads sharing one CTA: the role's lane vector was ``tl.arange(0, 3 * BLOCK)``, and
  triton takes power-of-two ranges only;
- a discarded atomic result assigned to ``_`` in roles of different lane widths (and inside a
  spin's stall check): triton types a name once per scope, so the second width failed.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from litmus.codegen.roles import lane_span
from litmus.spec import load_tests

pytest.importorskip("triton")

DATA = Path(__file__).parent / "data"


@pytest.mark.parametrize("width,span", [(1, 1), (2, 2), (3, 4), (4, 4), (5, 8), (8, 8)])
def test_lane_span_is_the_next_power_of_two(width: int, span: int) -> None:
    assert lane_span(width) == span


@pytest.mark.parametrize("name", ["three_threads_one_cta.yaml", "discard_shapes.yaml"])
@pytest.mark.parametrize("kernel", ["grid", "parallel"])
def test_run_kernels_compile_for_cuda(name: str, kernel: str) -> None:
    from litmus.codegen import compile_variant
    from litmus.codegen.options import RUN_KERNELS

    [test] = load_tests([str(DATA / name)])
    compiled = compile_variant(test, "cuda:90", replace(RUN_KERNELS[kernel], backend="cuda"))
    assert "atom" in compiled.text("ptx")


def test_generated_source_never_rebinds_a_discard_name() -> None:
    from litmus.codegen import CodegenOptions, generate

    [test] = load_tests([str(DATA / "discard_shapes.yaml")])
    src = generate(test, CodegenOptions(mode="parallel", harness=True, quiesce=True)).text
    assert not any(line.strip().startswith("_ = ") for line in src.splitlines())
