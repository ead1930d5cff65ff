"""Run the cost loop kernel under the Triton interpreter (loopback); executed as a subprocess.

TRITON_INTERPRET must be set before triton is imported, so the tests start this file in a fresh
interpreter with the variable set and read its JSON from stdout. argv[1]: a JSON list of cases
``{"id": "NAME[variant]", "trips": n, "pairs": p, "block": b, "spin_bound": s}``.
"""

from __future__ import annotations

import json
import os
import sys

assert os.environ.get("TRITON_INTERPRET") == "1", "run with TRITON_INTERPRET=1"

from litmus.cost.compile import load_cost_kernel  # noqa: E402
from litmus.cost.kernel import cost_kernel  # noqa: E402
from litmus.cost.launch import launch_loop  # noqa: E402
from litmus.cost.shape import signalling  # noqa: E402
from litmus.spec import default_catalog_dir, load_paths  # noqa: E402


def main() -> None:
    tests = {t.id: t for t in load_paths([default_catalog_dir()])}
    out = {}
    for case in json.loads(sys.argv[1]):
        sig = signalling(tests[case["id"]])
        if case.get("wrong_value"):  # the signal writes 0, below every round number the spin waits for
            from dataclasses import replace

            from litmus.ir import Const

            sig = replace(sig, signal=tuple(replace(o, value=Const(0)) if getattr(o, "loc", None) == sig.flag
                                            else o for o in sig.signal))
        ck = cost_kernel(sig, backend="interpreter", spin_bound=case.get("spin_bound", 64), loopback=True)
        module = load_cost_kernel(ck, interpret=True)
        run = launch_loop(module, ck, case["trips"], case.get("pairs", 1), case.get("block", 1), device="cpu")
        out[case["id"]] = {"trips": run.trips, "status": run.status, "times": run.times,
                           "locations": list(ck.locations), "timer": ck.timer,
                           "heap": run.heap}
    print(json.dumps(out))


if __name__ == "__main__":
    main()
