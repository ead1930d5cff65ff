"""Host buffers of tests with access widths: heaps of 8-byte units initialised byte-exact, raw
int32 columns decoded into the model's values, and the one-pass device count agreeing."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import torch

from litmus.codegen import CodegenOptions, generate
from litmus.run.buffers import count_rows, heap_plan, init_strided, make_heaps, make_out, outcome_matrix, raw_columns
from litmus.spec import load_paths

ROOT = Path(__file__).resolve().parents[2]
[ROUNDTRIP] = load_paths([Path(__file__).parent / "data" / "widths_roundtrip.yaml"])


def _layout():
    return generate(ROUNDTRIP, CodegenOptions(backend="interpreter", block=8)).layout


def test_initial_heaps_read_back_as_every_location_and_views_initial_value() -> None:
    layout = _layout()
    plan = heap_plan(layout, 8, 3)
    heaps = [torch.full((plan.words,), -1, dtype=torch.int32) for _ in range(layout.n_ranks)]
    init_strided(layout, heaps, plan)
    [(state, late, count)] = count_rows([make_out(layout, 8)], heaps, layout, (plan.loc_stride, plan.inst_stride))
    assert not late and count == 8
    assert {k: v for k, v in state.items() if ":" not in k} == {
        l.name: l.init for l in ROUNDTRIP.locations if not l.is_element}
    assert state["word"] == 0x123456789ABCDEF0 and state["b7"] == 0x12 and state["x"] == -5
    assert state["swap"] == 0xFEDCBA9876543210  # above 2**63: an unsigned value, not a negative int64


def test_a_64_bit_register_is_two_out_columns_read_back_as_one_unsigned_value() -> None:
    layout = _layout()
    lo, hi = layout.out_columns.index("P0:r1"), layout.out_columns.index("P0:r1#hi")
    heaps = make_heaps(layout, 4)
    out = make_out(layout, 4)
    value = torch.tensor([0xFEDCBA9876543210 - (1 << 64), 5, (1 << 32) + 7, -1], dtype=torch.int64)
    out[:, lo] = (value & 0xFFFFFFFF).to(torch.int32)  # the low word (wraps into int32)
    out[:, hi] = (value >> 32).to(torch.int32)
    rows = count_rows([out], heaps, layout, layout.strides(4))
    assert sorted(s["P0:r1"] for s, _, _ in rows) == [5, (1 << 32) + 7, 0xFEDCBA9876543210, (1 << 64) - 1]
    assert len(raw_columns(out, heaps, layout)) == len(layout.raw_keys) == layout.n_cols - 1 + 9
    matrix = outcome_matrix(out, heaps, layout)
    assert matrix.shape == (4, len(layout.observables))
    assert matrix[:, layout.observables.index("P0:r1")].tolist() == value.tolist()  # int64 wraps past 2**63


def test_the_device_count_agrees_with_count_rows_on_wide_layouts() -> None:
    cases = [{"test": "TEAR[halves-flag-buggy]", "seed": 4, "n": 1000, "stride": 2, "ranges": [[0, 1], [0, 2]]},
             {"test": "TEAR-bytes[fixed-acquire-each-byte]", "seed": 5, "n": 600, "stride": 1, "ranges": [[-1, 0]]}]
    env = dict(os.environ, TRITON_INTERPRET="1", PYTHONPATH=os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]))
    proc = subprocess.run([sys.executable, str(ROOT / "tests" / "run" / "counting_runner.py"), json.dumps(cases)],
                          capture_output=True, text=True, env=env, cwd=ROOT, timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    results = json.loads(proc.stdout.strip().splitlines()[-1])
    assert [r["agree"] for r in results] == [[True, True], [True]]
