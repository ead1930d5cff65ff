"""litmus.cost.kernel: the loop kernel lays out flags of any width as litmus.codegen.widths does
(64-bit slots, views and vector elements at their offsets) and counts rounds in them."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from litmus.codegen.options import Features
from litmus.cost.kernel import CostKernel, cost_kernel
from litmus.cost.shape import signalling
from litmus.errors import LitmusError
from litmus.spec import default_catalog_dir, load_paths

ROOT = Path(__file__).resolve().parents[2]
CATALOG = ("bugs_mscclpp_497.yaml", "bugs_cub_591.yaml", "tearing.yaml", "signal_cost.yaml")
TESTS = {t.id: t for t in load_paths([default_catalog_dir() / f for f in CATALOG])}
PTX = Features(atomic_load=False, atomic_store=False, inline_asm=True)  # triton 3.6: the PTX instructions inline


def kernel(test_id: str, features: Features = PTX) -> CostKernel:
    return cost_kernel(signalling(TESTS[test_id]), features=features, spin_bound=64)


def pointers(ck: CostKernel) -> dict[str, set[str]]:
    """Location name -> the pointer expressions the parties compute for it."""
    out: dict[str, set[str]] = {}
    for m in re.finditer(r"^\s*a_T\d+_\w+ = (.+?)  # (\S+)$", ck.text, re.M):
        out.setdefault(m.group(2), set()).add(m.group(1))
    return out


def test_a_64_bit_flag_has_a_64_bit_slot_and_carries_the_round_counter() -> None:
    ck = kernel("BUG-cub-591[fixed-packed-scalar-b64]")
    assert ck.unit_bytes == 8 and ck.locations == ("desc~ping", "desc~pong")
    assert ck.heap_words(4) == 3 * 4 * 2  # two flags and the scratch slot, 8 bytes each
    assert "heap_uint64 = tl.load(heap_ptr).to(tl.pointer_type(tl.uint64))" in ck.text
    assert pointers(ck)["desc~pong"] == {"heap_uint64 + 1 * n_inst + inst"}
    assert '"st.relaxed.gpu.global.b64 [$1], $2; mov.u32 $0, 0;", "=r,l,l", [a_T0_desc_ping, (zero64 + seq)]' in ck.text
    assert "ld.relaxed.gpu.global.b64" in ck.text and "30064771073" not in ck.text


def test_views_and_vector_elements_lie_in_their_words_bytes() -> None:
    ck = kernel("BUG-mscclpp-497[pr-499-release-vector]")
    at = pointers(ck)
    assert at["fst~ping"] == at["trig~ping.v2[0]"] == {"heap_uint32 + 2 * (0 * n_inst + inst)"}
    assert at["snd~ping"] == at["trig~ping.v2[1]"] == {"heap_uint32 + 2 * (0 * n_inst + inst) + 1"}
    assert at["fst~pong"] == at["trig~pong.v2[0]"] == {"heap_uint32 + 2 * (1 * n_inst + inst)"}
    assert "[a_T0_trig_ping_v2_0_, (seq)]" in ck.text  # the flag's element counts rounds, the other keeps 2
    assert "[a_T0_trig_ping_v2_1_, (zero + 2)]" in ck.text


def test_a_kernel_without_widths_keeps_its_int32_heap() -> None:
    ck = kernel("COST-signal[relacq-sys-xgpu]")
    assert ck.unit_bytes == 4 and ck.heap_words(4) == 3 * 4 and "heap_uint" not in ck.text
    assert pointers(ck)["flag~ping"] == {"heap + 0 * n_inst + inst"}


def test_a_write_of_other_bytes_than_the_flag_cannot_count_rounds() -> None:
    with pytest.raises(LitmusError, match=r"word and the flag word\.v2\[0\] are not the same bytes"):
        kernel("TEAR[vector-reader]")  # a 64-bit store raises a 32-bit element


def test_wide_and_viewed_flags_run_on_the_interpreter() -> None:
    cases = [{"id": "BUG-cub-591[fixed-packed-scalar-b64]", "trips": 3, "block": 2},
             {"id": "BUG-mscclpp-497[pr-499-release-vector]", "trips": 3}]
    env = dict(os.environ, TRITON_INTERPRET="1", PYTHONPATH=str(ROOT))
    res = subprocess.run([sys.executable, "-m", "tests.cost.loop_runner", json.dumps(cases)], cwd=ROOT, env=env,
                         capture_output=True, text=True, timeout=300)
    assert res.returncode == 0, res.stderr[-3000:]
    got = json.loads(res.stdout.strip().splitlines()[-1])
    b64 = got["BUG-cub-591[fixed-packed-scalar-b64]"]
    assert b64["trips"] == [3] and b64["status"] == [0]
    assert b64["heap"][:8] == [3, 0] * 4  # ping and pong of both lanes: the last round, 64 bits each
    vec = got["BUG-mscclpp-497[pr-499-release-vector]"]
    assert vec["trips"] == [3] and vec["heap"][:4] == [3, 2, 3, 2]  # fst counted, snd the vector's 2


@pytest.mark.parametrize("test_id", ["BUG-cub-591[fixed-packed-scalar-b64]", "BUG-mscclpp-497[pr-499-release-vector]"])
def test_wide_and_viewed_flags_compile_for_sm90(test_id: str) -> None:
    from litmus.cost.compile import compile_cost_kernel

    ptx = compile_cost_kernel(kernel(test_id), "cuda:90", num_warps=4, trips=1024)
    wide = "b64" in test_id
    assert ("st.relaxed.gpu.global.b64" if wide else "st.release.sys.global.b32") in ptx
    assert ("ld.relaxed.gpu.global.b64" if wide else "ld.acquire.sys.global.b32") in ptx
