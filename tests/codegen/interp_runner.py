"""Run generated kernels under the Triton CPU interpreter; executed as a subprocess by the tests.

TRITON_INTERPRET must be set before triton is imported, so the test starts this file in a fresh
interpreter with the variable set and reads its JSON from stdout.
"""

from __future__ import annotations

import json
import os
import sys

assert os.environ.get("TRITON_INTERPRET") == "1", "run with TRITON_INTERPRET=1"

from litmus.codegen import CodegenOptions  # noqa: E402
from tests.codegen import irs  # noqa: E402
from tests.codegen.reference_driver import run_once  # noqa: E402


def main() -> None:
    results = {}
    cases = json.loads(sys.argv[1])
    for case in cases:
        test = getattr(irs, case["test"])()
        opts = CodegenOptions(backend="interpreter", block=case.get("block", 4),
                              spin_bound=case.get("spin_bound"), addressing=case.get("addressing", "loc_major"),
                              shared_cta_order=case.get("order", "sequential"),
                              mode=case.get("mode", "grid"))
        perms = [tuple(p) for p in case["perms"]] if "perms" in case else None
        r = run_once(test, opts, progs_per_role=case.get("progs", 2), perms=perms, interpret=None)
        results[case["name"]] = {"keys": list(r.keys), "n": r.n_instances, "timeouts": r.timeouts,
                                 "hist": [[list(k), v] for k, v in sorted(r.histogram.items())]}
    print(json.dumps(results))


if __name__ == "__main__":
    main()
