"""``measure_cuda`` under the Triton interpreter (loopback); executed as a subprocess by the tests.

argv[1]: a JSON list of ``{"id": "NAME[variant]", "round_trips": n, "repeat": k, "warmup": w,
"load_pairs": p, "load_block": b}``; prints ``{id: Measurement.as_dict()}``.
"""

from __future__ import annotations

import json
import os
import sys

assert os.environ.get("TRITON_INTERPRET") == "1", "run with TRITON_INTERPRET=1"

from litmus.cost.measure import CostParams, measure_cuda  # noqa: E402
from litmus.cost.shape import signalling  # noqa: E402
from litmus.spec import default_catalog_dir, load_paths  # noqa: E402


def main() -> None:
    tests = {t.id: t for t in load_paths([default_catalog_dir()])}
    out = {}
    for case in json.loads(sys.argv[1]):
        tid = case.pop("id")
        ticks: list[int] = []
        params = CostParams(spin_bound=64, **case)
        m = measure_cuda(signalling(tests[tid]), params, tick=lambda: ticks.append(1), interpreter=True)
        out[tid] = {**m.as_dict(), "ticks": len(ticks)}
    print(json.dumps(out))


if __name__ == "__main__":
    main()
