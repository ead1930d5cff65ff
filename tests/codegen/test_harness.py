"""The in-kernel run harness (pre-stress, start barrier): off unless asked, inert for the test."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from litmus.codegen import CodegenOptions, generate
from litmus.codegen import harness as h
from litmus.run.config import PRESETS
from litmus.run.stress import control_header, control_words
from tests.codegen import irs

ROOT = Path(__file__).resolve().parents[2]


def test_harness_is_off_by_default_and_reads_the_block_after_the_heaps() -> None:
    plain = generate(irs.mp_cas_release_acquire(), CodegenOptions(block=4)).text
    assert "ctl" not in plain
    text = generate(irs.mp_cas_release_acquire(), CodegenOptions(block=4, harness=True)).text
    layout = generate(irs.mp_cas_release_acquire(), CodegenOptions(block=4)).layout
    assert f"ctl = tl.load(heap_ptrs + {layout.n_ranks})" in text
    # before every role's first test op
    for role in text.split("if role == ")[1:]:
        assert role.index("hb_group") < role.index("# --- P")


def test_harness_leaves_the_outcomes_alone_and_every_program_arrives() -> None:
    cases = [[group, 5, 3, pattern] for group in (1, 3) for pattern in (0, 1, 2, 3)]
    env = dict(os.environ, TRITON_INTERPRET="1")
    proc = subprocess.run([sys.executable, "-m", "tests.codegen.harness_runner", json.dumps(cases)],
                          capture_output=True, text=True, env=env, timeout=600, cwd=ROOT)
    assert proc.returncode == 0, proc.stderr[-2000:]
    for (group, _, _, pattern), got in zip(cases, json.loads(proc.stdout.splitlines()[-1])):
        assert got["with"] == got["without"], (group, pattern)  # the harness is not part of the test
        header = got["header"]
        assert header[h.ARRIVALS] == 8  # one ticket per program (2 roles x 4 programs)
        assert got["scratch_touched"] == bool(pattern)  # some access of the pattern stores
        if pattern == 0:  # load-load over all-ones scratch: 2 loads x 3 passes x 4 lanes, summed
            assert header[h.SINK] == 24
        if pattern == 3:  # store-store: nothing loaded
            assert header[h.SINK] == 0


def test_control_header_follows_the_stress_preset() -> None:
    full = PRESETS["full"]
    words = control_header(full, seed=9, group=264, total_programs=1000)
    assert words[h.GROUP] == 264 and words[h.TOTAL] == 1000
    assert words[h.PRE_ITERS] == full.pre_stress == 16 and words[h.PRE_MASK] == full.scratch_words - 1
    assert words[h.PATTERN] == 1  # store-load: first access stores
    assert control_words(full) == h.HEADER_WORDS + full.scratch_words
    heavy = control_header(PRESETS["heavy"], seed=9, group=264, total_programs=1000)
    assert heavy[h.GROUP] == 0 and heavy[h.PRE_ITERS] == 0  # memory stress only
    none = control_header(PRESETS["none"], seed=9, group=264, total_programs=1000)
    assert none[h.GROUP] == 0 and none[h.PRE_ITERS] == 0  # both parts off
    assert control_words(PRESETS["none"]) == h.HEADER_WORDS


@pytest.mark.parametrize("target", ["cuda:90", "hip:gfx942"])
def test_harness_compiles_for_gpu_targets_on_the_cpu(target: str) -> None:
    from litmus.codegen import compile_variant

    c = compile_variant(irs.mp_cas_release_acquire(), target, CodegenOptions(harness=True))
    text = c.text("ptx" if target.startswith("cuda") else "amdgcn")
    assert ("atom.global.gpu.relaxed.add" in text or "atom.relaxed.gpu.global.add" in text
            or "global_atomic_add" in text)
