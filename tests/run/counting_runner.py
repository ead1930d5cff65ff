"""Compare ``OutcomeCounter`` (the one-pass Triton count, under the interpreter) with
``count_rows`` on seeded random rounds; run as a subprocess with TRITON_INTERPRET=1.

Prints one JSON object: per case the two row lists' agreement, the counter's recounts and
whether the case's key space was over ``MAX_BINS`` (then the counter hands over to count_rows).
"""

from __future__ import annotations

import json
import os
import random
import sys

assert os.environ.get("TRITON_INTERPRET") == "1", "run with TRITON_INTERPRET=1"

import torch  # noqa: E402

from litmus.codegen import CodegenOptions, generate  # noqa: E402
from litmus.codegen.warm import warmed  # noqa: E402
from litmus.codegen.layout import HUNG_BIT  # noqa: E402
from litmus.run.buffers import count_rows, heap_plan, make_out  # noqa: E402
from litmus.run.counting import MAX_BINS, OutcomeCounter  # noqa: E402
from litmus.spec import load_tests  # noqa: E402


def _round(layout, n: int, stride: int, lo: int, hi: int, rng: random.Random):
    """Random heaps and out for ``n`` instances, values in ``[lo, hi]``, some timed out, some hung."""
    g = torch.Generator().manual_seed(rng.randrange(1 << 30))
    plan = heap_plan(layout, n, stride)
    heaps = [torch.randint(lo, hi + 1, (plan.words,), dtype=torch.int32, generator=g) for _ in range(layout.n_ranks)]
    out = make_out(layout, n)
    out[:, :-1] = torch.randint(lo, hi + 1, out[:, :-1].shape, dtype=torch.int32, generator=g)
    # status words: completed, timed out (spin bits), hung (HUNG_BIT alone), hung and timed out
    words = torch.tensor([0, 0, rng.choice([1, 4, 6]), HUNG_BIT, HUNG_BIT | 2], dtype=torch.int32)
    out[:, -1] = words[torch.randint(0, len(words), (n,), generator=g)]
    return heaps, out, (plan.loc_stride, plan.inst_stride)


def _rows(rows):
    return sorted((sorted(state.items()), late, count) for state, late, count in rows)


def main() -> None:
    cases = json.loads(sys.argv[1])
    tests = {t.id: t for t in load_tests(["catalog"])}
    results = []
    for case in cases:
        rng = random.Random(case["seed"])
        test = tests[case["test"]]
        layouts = [generate(t, CodegenOptions(backend="interpreter", block=8)).layout
                   for t in ([test, warmed(test)] if case.get("warm") else [test])]
        counter = OutcomeCounter(interpret=True)
        agree = []
        spaces = []
        statuses: set[int] = set()
        for k, (lo, hi) in enumerate(case["ranges"]):  # in order: a later, wider range forces a recount
            layout = layouts[k % len(layouts)]  # "warm": the test and its warmed form take turns
            heaps, out, strides = _round(layout, case["n"], case["stride"], lo, hi, rng)
            rows = counter.count(out, heaps, layout, strides)
            agree.append(_rows(rows) == _rows(count_rows([out], heaps, layout, strides)))
            statuses |= {status for _, status, _ in rows}
            spaces.append((hi - lo + 1) ** len(layout.observables) * 3)  # x the three statuses
        results.append({"agree": agree, "recounts": counter.recounts, "over": [s > MAX_BINS for s in spaces],
                        "statuses": sorted(statuses)})
    print(json.dumps(results))


if __name__ == "__main__":
    main()
