"""Launch grid-mode kernels with several iterations under the Triton interpreter; a subprocess of
test_grid_iterations.py.

argv[1]: JSON list of cases (``test_grid_iterations.CASES``; optional ``quiesce`` and
``spin_bound``); prints, per case, the rows of ``out``, every location's value per instance, the
perm rows, the emitted op order and (with a wait word) each instance's wait word.
"""

from __future__ import annotations

import json
import os
import sys

assert os.environ.get("TRITON_INTERPRET") == "1", "run with TRITON_INTERPRET=1"

from litmus.codegen import CodegenOptions, generate, load_kernel  # noqa: E402
from litmus.run.buffers import make_heaps, make_out, perm_tensor, permutations, pointer_table, unit_column  # noqa: E402
from tests.codegen.parallel_cases import SPIN_BOUND, load_case_test, runner_answer, with_coverage  # noqa: E402


SENTINEL = 0x5A5A5A5A


def run_case(case: dict) -> dict:
    """One launch of ``case``'s test (with coverage counters) in grid mode, ``iterations`` loops."""
    test = with_coverage(load_case_test(case["id"]))
    progs, block = case["programs"], case["block"]
    source = generate(test, CodegenOptions(backend="interpreter", mode="grid", block=block,
                                           spin_bound=case.get("spin_bound", SPIN_BOUND),
                                           quiesce=case.get("quiesce", False)))
    layout = source.layout
    kernel = getattr(load_kernel(source, interpret=None), "litmus_grid")
    per_iter = progs * block
    n = per_iter * case["iterations"]
    heaps = make_heaps(layout, n)
    out = make_out(layout, n)
    # a round's register columns must all be stored (the cuda backend does not zero them between
    # rounds): a sentinel left anywhere fails the mirror test
    out[:, :-1] = SENTINEL
    perms = permutations(layout, per_iter, case["seed"])
    loc_stride, inst_stride = layout.strides(n)
    kernel[layout.kernel(None).grid(progs)](pointer_table(heaps), out, perm_tensor(perms), n, progs, loc_stride,
                                            inst_stride, BLOCK=block)
    fin = None
    if layout.wait_slot is not None:
        fin = unit_column(heaps[layout.wait_home], layout, layout.wait_slot, n, (loc_stride, inst_stride)).tolist()
    return runner_answer(out, heaps, layout, n, perms, source.text, fin=fin)


def main() -> None:
    print(json.dumps({case["name"]: run_case(case) for case in json.loads(sys.argv[1])}))


if __name__ == "__main__":
    main()
