"""Launch parallel-mode kernels under the Triton interpreter; a subprocess of test_parallel.py.

argv[1]: JSON list of cases (``parallel_cases.CASES``); prints, per case, the rows rows of
``out``, every location's value per instance, the perm rows, the emitted op order and, with the
harness, the control block's header after the launch.
"""

from __future__ import annotations

import json
import os
import sys

assert os.environ.get("TRITON_INTERPRET") == "1", "run with TRITON_INTERPRET=1"

import torch  # noqa: E402

from litmus.codegen import CodegenOptions, generate, load_kernel  # noqa: E402
from litmus.codegen import harness as h  # noqa: E402
from litmus.run.buffers import make_heaps, make_out, perm_tensor, pointer_table  # noqa: E402
from litmus.run.parallel import join_words, parallel_permutations  # noqa: E402
from tests.codegen.parallel_cases import SPIN_BOUND, load_case_test, runner_answer, with_coverage  # noqa: E402


SENTINEL = 0x5A5A5A5A


def run_case(case: dict) -> dict:
    """One launch of ``case``'s test (with coverage counters) in parallel mode."""
    test = with_coverage(load_case_test(case["id"]))
    g, block = case["programs"], case["block"]
    opts = CodegenOptions(backend="interpreter", mode="parallel", block=block, spin_bound=SPIN_BOUND,
                          harness=case.get("harness", False), role_rotation=case.get("rotation", False))
    source = generate(test, opts)
    layout = source.layout
    kernel = getattr(load_kernel(source, interpret=None), "litmus_parallel")
    n = g * block * case["iterations"]
    heaps = make_heaps(layout, n)
    out = make_out(layout, n)
    # a round's register columns must all be stored (the cuda backend does not zero them between
    # rounds): a sentinel left anywhere fails the mirror test
    out[:, :-1] = SENTINEL
    perms = parallel_permutations(layout, g, block, case["seed"], case.get("home", 0))
    buffers = list(heaps)
    header = None
    if opts.harness:
        ctl = torch.zeros(h.HEADER_WORDS, dtype=torch.int32)
        for word, value in join_words(g, 50, case["seed"]).items():
            ctl[word] = value
        ctl[h.POLLS] = 3
        buffers.append(ctl)
    loc_stride, inst_stride = layout.strides(n)
    kernel[layout.kernel(None).grid(g)](pointer_table(buffers), out, perm_tensor(perms), n, g, loc_stride,
                                        inst_stride, BLOCK=block)
    if opts.harness:
        header = ctl.tolist()
    return runner_answer(out, heaps, layout, n, perms, source.text, header=header)


def main() -> None:
    print(json.dumps({case["name"]: run_case(case) for case in json.loads(sys.argv[1])}))


if __name__ == "__main__":
    main()
