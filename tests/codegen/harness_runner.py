"""Run MP with and without the in-kernel harness under the interpreter; a subprocess of the tests.

argv[1]: JSON list of ``[group, polls, pre_iters, pattern]``; prints, per case, the histograms
with and without the harness and the control block's header and scratch after the launch.
"""

from __future__ import annotations

import json
import os
import sys

assert os.environ.get("TRITON_INTERPRET") == "1", "run with TRITON_INTERPRET=1"

import torch  # noqa: E402

from litmus.codegen import CodegenOptions  # noqa: E402
from litmus.codegen import harness as h  # noqa: E402
from tests.codegen import irs  # noqa: E402
from tests.codegen.reference_driver import run_once  # noqa: E402

PROGS_PER_ROLE = 4


def main() -> None:
    test = irs.mp_cas_release_acquire()
    opts = CodegenOptions(backend="interpreter", mode="grid", block=4, harness=True)
    identity = [(1, 0), (1, 0)]
    out = []
    for group, polls, pre, pattern in json.loads(sys.argv[1]):
        ctl = torch.zeros(h.HEADER_WORDS + 64, dtype=torch.int32)
        ctl[h.SCRATCH:] = 1  # so that loads of untouched scratch add up to something
        ctl[h.GROUP], ctl[h.POLLS], ctl[h.PRE_ITERS], ctl[h.PATTERN] = group, polls, pre, pattern
        ctl[h.PRE_MASK], ctl[h.SEED], ctl[h.TOTAL] = 63, 5, 2 * PROGS_PER_ROLE
        off = run_once(test, opts, progs_per_role=PROGS_PER_ROLE, perms=identity, interpret=None)
        on = run_once(test, opts, progs_per_role=PROGS_PER_ROLE, perms=identity, interpret=None, control=ctl)
        out.append({"without": sorted([list(k), v] for k, v in off.histogram.items()),
                    "with": sorted([list(k), v] for k, v in on.histogram.items()),
                    "header": ctl[: h.HEADER_WORDS].tolist(), "scratch_touched": bool((ctl[h.SCRATCH:] != 1).any())})
    print(json.dumps(out))


if __name__ == "__main__":
    main()
