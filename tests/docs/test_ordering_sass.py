"""docs/detection.md gives compiled code as the reason some mutants never show on sm_90; this
checks that reading with the ptxas triton ships (scripts/ordering_sass.sh), so a ptxas that
lowers the ordering differently fails here instead of leaving the doc wrong."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _functions() -> dict[str, list[str]]:
    out = subprocess.run(["bash", "scripts/ordering_sass.sh", sys.executable], cwd=ROOT, capture_output=True,
                         text=True, timeout=120, check=True).stdout
    funcs: dict[str, list[str]] = {}
    current = None
    for line in out.splitlines():
        if m := re.search(r"Function : (\w+)", line):
            current = funcs.setdefault(m[1], [])
        elif current is not None and line.strip():
            current.append(line.split()[0])
    return funcs


def test_the_fences_store_to_load_and_the_acquire_and_release_orders_are_what_the_doc_says() -> None:
    f = _functions()
    # a store, fence.acq_rel.sys, a load: the same drain as fence.sc.sys, an ERRBAR after the MEMBAR
    assert f["store_fence_acqrel_load"][:5] == ["STG.E.STRONG.SYS", "MEMBAR.ALL.SYS", "ERRBAR;", "CGAERRBAR",
                                                "CCTL.IVALL"]
    assert f["store_fence_sc_load"][:5] == ["STG.E.STRONG.SYS", "MEMBAR.SC.SYS", "ERRBAR;", "CGAERRBAR",
                                            "CCTL.IVALL"]
    assert f["store_load_relaxed"][:2] == ["STG.E.STRONG.SYS", "LDG.E.STRONG.SYS"]  # nothing between
    # an acquire load: CCTL.IVALL before the next store; relaxed: nothing
    assert f["acquire_load_store"][:3] == ["LDG.E.STRONG.SYS", "CCTL.IVALL", "STG.E.STRONG.SYS"]
    assert f["relaxed_load_store"][:2] == ["LDG.E.STRONG.SYS", "STG.E.STRONG.SYS"]
    # a release store: MEMBAR.ALL.SYS and ERRBAR, then the store
    assert f["store_release_store"] == ["STG.E.STRONG.SYS", "MEMBAR.ALL.SYS", "ERRBAR;", "CGAERRBAR",
                                        "STG.E.STRONG.SYS"]
