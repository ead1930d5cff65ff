"""litmus cost: signalling extraction, unrolled round trips, the loop kernel on the interpreter,
statistics and the 5 % rule, ranking, and the command's JSON. No timing assertions."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from litmus.cost.command import cost_command
from litmus.cost.kernel import SEQ, cost_kernel
from litmus.cost.measure import Measurement, count_round_trips
from litmus.cost.ranking import CHEAPER_INCORRECT, CHEAPEST, Row, rank
from litmus.cost.shape import signalling
from litmus.cost.stats import agreement, percentile, summarize
from litmus.cost.unrolled import MAX_SPINS, max_trips, unrolled_test
from litmus.cost.verdicts import ModelVerdict
from litmus.errors import LitmusError
from litmus.spec import default_catalog_dir, load_paths

ROOT = Path(__file__).resolve().parents[2]
TESTS = {t.id: t for t in load_paths([default_catalog_dir()])}


def sig_of(test_id: str):
    return signalling(TESTS[test_id])


# --------------------------------------------------------------------------- shape


def test_message_signal_and_wait_keep_the_variants_ops() -> None:
    s = sig_of("COST-signal[fence-relaxed-sys-xgpu]")
    assert s.shape == "message" and s.flag == "flag"
    assert [type(o).__name__ for o in s.signal] == ["Fence", "Store"]
    assert [type(o).__name__ for o in s.wait] == ["Spin", "Fence"]  # the single read became a spin
    assert s.wait[0].read.sem == "relaxed" and s.wait[0].read.scope == "sys" and s.wait[0].until == 1


def test_cas_wait_is_a_self_resetting_spin() -> None:
    s = sig_of("COST-signal[cas-sys-xgpu]")
    assert s.resetting == ("flag",)
    assert s.wait[0].read.kind == "cas" and s.wait[0].read.reset == 0


def test_barriers_are_barrier_shaped_with_both_parties() -> None:
    for tid in ("SYMM-barrier[acqrel-sys]", "SYMM-barrier-p1[p1-acqrel-sys]", "SYMM-barrier-p2[acqrel]",
                "SYMM-barrier-p0[inkernel-write]", "XLA-block-barrier[relacq-sys]"):
        s = sig_of(tid)
        assert s.shape == "barrier" and len(s.parties) == 2, tid
    assert sig_of("SYMM-barrier[acqrel-sys]").resetting == ("pad0", "pad1")
    assert sig_of("XLA-block-barrier[relacq-sys]").resetting == ()


def test_same_cta_and_flagless_variants_are_refused_with_file_and_line() -> None:
    with pytest.raises(LitmusError, match=r"mp.yaml:\d+: MP\[relacq-samecta-sys\].*share a CTA"):
        sig_of("MP[relacq-samecta-sys]")
    with pytest.raises(LitmusError, match="no flag"):
        sig_of("2+2W[relaxed-sys]")


# --------------------------------------------------------------------------- unrolled


def test_pingpong_pairs_each_ping_with_its_pong() -> None:
    s = sig_of("COST-signal[relacq-sys-xgpu]")
    t = unrolled_test(s, 3)
    p0, p1 = t.threads
    assert [(type(o).__name__, o.loc) for o in p0.instrs] == [
        ("Store", "flag0"), ("Spin", "flag_back0"), ("Store", "flag1"), ("Spin", "flag_back1"),
        ("Store", "flag2"), ("Spin", "flag_back2")]
    assert [(type(o).__name__, o.loc) for o in p1.instrs] == [
        ("Spin", "flag0"), ("Store", "flag_back0"), ("Spin", "flag1"), ("Store", "flag_back1"),
        ("Spin", "flag2"), ("Store", "flag_back2")]
    assert (p0.rank, p1.rank) == (0, 1)
    assert [(p.rank, p.cta) for p in unrolled_test(s, 3, world_size=1).threads] == [(0, 0), (0, 1)]


def test_self_resetting_flags_are_reused() -> None:
    t = unrolled_test(sig_of("COST-signal[cas-sys-xcta]"), 4)
    assert {l.name for l in t.locations} == {"flag", "flag_back"}


def test_round_trips_per_launch_are_bounded_by_the_status_bits() -> None:
    s = sig_of("COST-signal[relacq-sys-xgpu]")
    assert max_trips(s) == MAX_SPINS // 2
    with pytest.raises(LitmusError, match="use 1 to 15"):
        unrolled_test(s, 16)


def test_round_trips_are_counted_from_the_spin_registers() -> None:
    s = sig_of("COST-signal[relacq-sys-xgpu]")
    t = unrolled_test(s, 3)
    full = {f"P0:t{j}": 1 for j in range(3)} | {f"P1:s{j}": 1 for j in range(3)}
    broken = dict(full, **{"P1:s1": 0})  # the second ping never arrived: trips 2 and 3 are lost
    rows = [(full, False, 5), (broken, True, 2)]
    assert count_round_trips(rows, s, t) == (5 * 3 + 2 * 1, 2)


# --------------------------------------------------------------------------- loop kernel


def test_kernel_counts_rounds_with_placeholders_replaced() -> None:
    ck = cost_kernel(sig_of("COST-signal[relacq-sys-xgpu]"))
    assert str(SEQ) not in ck.text and ">= seq)" in ck.text and "== seq)" not in ck.text  # waits are monotonic
    barrier = cost_kernel(sig_of("XLA-block-barrier[relacq-sys]"))
    assert ">= seq" in barrier.text  # a peer one round ahead never strands a barrier spin


def _interpret(cases: list[dict]) -> dict:
    env = dict(os.environ, TRITON_INTERPRET="1", PYTHONPATH=str(ROOT))
    res = subprocess.run([sys.executable, "-m", "tests.cost.loop_runner", json.dumps(cases)], cwd=ROOT, env=env,
                         capture_output=True, text=True, timeout=300)
    assert res.returncode == 0, res.stderr[-3000:]
    return json.loads(res.stdout.strip().splitlines()[-1])


def test_loop_kernel_on_the_interpreter_counts_and_pairs_round_trips() -> None:
    got = _interpret([
        {"id": "COST-signal[relacq-sys-xgpu]", "trips": 5, "pairs": 2, "block": 2},
        {"id": "COST-signal[cas-sys-xcta]", "trips": 4},
        {"id": "SYMM-barrier-p1[p1-acqrel-sys]", "trips": 3},
        {"id": "XLA-block-barrier[relacq-sys]", "trips": 3},
        {"id": "COST-signal[xchg-sys-xcta]", "trips": 3, "wrong_value": True, "spin_bound": 16},
    ])
    mp = got["COST-signal[relacq-sys-xgpu]"]
    assert mp["trips"] == [5, 5] and mp["status"] == [0, 0]
    n_inst = 2 * 2
    ping, pong = mp["heap"][:n_inst], mp["heap"][n_inst:2 * n_inst]
    assert ping == [5] * n_inst and pong == [5] * n_inst  # every instance's last ping and pong paired at 5
    cas = got["COST-signal[cas-sys-xcta]"]
    assert cas["trips"] == [4] and cas["status"] == [0] and cas["heap"][:2] == [0, 0]  # reset after each trip
    assert got["SYMM-barrier-p1[p1-acqrel-sys]"]["trips"] == [3]
    assert got["XLA-block-barrier[relacq-sys]"]["heap"][:2] == [3, 3]
    lost = got["COST-signal[xchg-sys-xcta]"]  # a flag that never arrives: bounded spins, no deadlock
    assert lost["trips"] == [0] and lost["status"] == [1]


# --------------------------------------------------------------------------- stats


def test_percentiles_and_summary() -> None:
    assert percentile([1, 2, 3, 4], 50) == 2.5
    s = summarize([5, 1, 3])
    assert (s.n, s.p50, s.low, s.high, s.mean) == (3, 3.0, 1.0, 5.0, 3.0)
    with pytest.raises(ValueError):
        summarize([])


def test_two_runs_must_agree_within_five_percent_at_p50() -> None:
    a = summarize([100.0])
    assert agreement(a, summarize([104.9])).ok
    bad = agreement(a, summarize([105.1]))
    assert not bad.ok and bad.words().startswith("DISAGREE")
    assert agreement(summarize([0.0]), summarize([0.0])).ok


# --------------------------------------------------------------------------- ranking


def _m(test_id: str, p50: float) -> Measurement:
    s = summarize([p50])
    return Measurement(test_id, "F", test_id, "cpu", "message", "x", [s, s], agreement(s, s), 4, 4, 0, None, "host")


def test_cheapest_correct_is_marked_and_cheaper_incorrect_ones_named() -> None:
    ok, bad = ModelVerdict("ptx", False, False), ModelVerdict("ptx", True, False)
    rows = [("F", Row("F[slow-ok]", "slow-ok", ok, _m("F[slow-ok]", 900))),
            ("F", Row("F[fast-bad]", "fast-bad", bad, _m("F[fast-bad]", 100))),
            ("F", Row("F[mid-ok]", "mid-ok", ok, _m("F[mid-ok]", 500))),
            ("F", Row("F[mid-ok-hw]", "mid-ok-hw", ok, _m("F[mid-ok-hw]", 300), hardware="VIOLATION (cuda)")),
            ("F", Row("F[skip]", "skip", ok, None, skipped="no flag"))]
    (fam,) = rank(rows)
    assert [r.variant for r in fam.rows] == ["fast-bad", "mid-ok-hw", "mid-ok", "slow-ok", "skip"]
    assert [r.mark for r in fam.rows] == [CHEAPER_INCORRECT, CHEAPER_INCORRECT, CHEAPEST, "", ""]
    assert fam.as_dict()["cheapest_correct"] == "F[mid-ok]"


def test_a_cost_whose_runs_disagree_or_lost_round_trips_is_not_ranked() -> None:
    ok = ModelVerdict("ptx", False, False)
    a, b = summarize([100.0]), summarize([200.0])
    noisy = Measurement("F[noisy]", "F", "noisy", "cpu", "message", "x", [a, b], agreement(a, b), 4, 4, 0, None, "host")
    s = summarize([150.0])
    short = Measurement("F[short]", "F", "short", "cpu", "message", "x", [s, s], agreement(s, s), 3, 4, 1, None, "host")
    rows = [("F", Row("F[noisy]", "noisy", ok, noisy)), ("F", Row("F[short]", "short", ok, short)),
            ("F", Row("F[slow]", "slow", ok, _m("F[slow]", 900)))]
    (fam,) = rank(rows)
    marks = {r.variant: r.mark for r in fam.rows}
    assert marks["noisy"].startswith("not ranked: the two runs DISAGREE")
    assert marks["short"] == "not ranked: 3 of 4 round trips completed"
    assert marks["slow"] == CHEAPEST and fam.as_dict()["cheapest_correct"] == "F[slow]"


# --------------------------------------------------------------------------- command


def test_command_json_on_the_cpu_backend(tmp_path: Path) -> None:
    res = CliRunner().invoke(cost_command, ["COST-signal", "--variant", "relacq-sys-xcta", "--backend", "cpu",
                                            "-n", "3", "-k", "2", "--warmup", "0", "--json",
                                            "--out", str(tmp_path / "c.json")])
    assert res.exit_code == 0, res.output
    rep = json.loads(res.output)
    assert rep["backend"] == "cpu" and rep["params"]["round_trips"] == 3
    (fam,) = rep["families"]
    (row,) = fam["rows"]
    assert row["id"] == "COST-signal[relacq-sys-xcta]" and row["correct"]
    # interpreter timings are noise: the variant is the cheapest correct one only if its runs agree
    assert (fam["cheapest_correct"] == row["id"]) == row["cost"]["agreement"]["ok"]
    cost = row["cost"]
    assert cost["round_trips"] == cost["asked"] == 2 * 2 * 3 and cost["timeouts"] == 0
    assert len(cost["runs"]) == 2 and set(cost["agreement"]) >= {"ok", "spread", "tolerance"}
    assert json.loads((tmp_path / "c.json").read_text())["families"] == rep["families"]


def test_ranks_backend_runs_the_loop_kernel_one_party_per_rank(tmp_path: Path) -> None:
    # gloo + the interpreter, one process per rank: each rank launches its own party's programs
    # on the flags in rank 0's heap; the round trips pair up across the two processes
    res = CliRunner().invoke(cost_command, ["COST-signal", "--variant", "relacq-sys-xgpu", "--backend", "ranks",
                                            "--world-size", "2", "-n", "5", "-k", "2", "--warmup", "1",
                                            "--load-pairs", "2", "--load-block", "4", "--json"])
    assert res.exit_code == 0, res.output
    (row,) = json.loads(res.output)["families"][0]["rows"]
    cost = row["cost"]
    assert cost["backend"] == "ranks" and cost["placement"] == "P0@rank0, P1@rank1"
    assert cost["round_trips"] == cost["asked"] == 2 * 2 * 5 and cost["timeouts"] == 0
    assert cost["timer"] == "none" and cost["runs"][0]["n"] == 2 * (5 - 2)  # warm trips left out
    assert not any("timed out" in n for n in cost["notes"])  # the load launch completed too


def test_ranks_backend_on_the_cpu_says_why_one_rank_cannot_ping_itself() -> None:
    res = CliRunner().invoke(cost_command, ["COST-signal", "--variant", "relacq-sys-xcta", "--backend", "ranks",
                                            "--world-size", "2", "-n", "3", "-k", "1", "--warmup", "0",
                                            "--spin-bound", "50", "--json"])
    assert res.exit_code == 0, res.output
    (row,) = json.loads(res.output)["families"][0]["rows"]
    assert row["cost"] is None and "-xgpu" in row["skipped"] and "interpreter" in row["skipped"]


def test_command_bad_input_is_one_error_line() -> None:
    res = CliRunner().invoke(cost_command, ["no-such-pattern-xyz", "--backend", "cpu"])
    assert res.exit_code == 2 and "error:" in res.output and "Traceback" not in res.output
    res = CliRunner().invoke(cost_command, ["COST-signal", "--load-block", "3"])
    assert res.exit_code == 2 and "power of two" in res.output


def test_help_teaches_with_examples() -> None:
    res = CliRunner().invoke(cost_command, ["--help"])
    assert res.exit_code == 0 and "Examples:" in res.output and "litmus cost catalog/signal_cost.yaml" in res.output


def test_fence_threads_predicate_the_fence_on_the_thread_index() -> None:
    sig = sig_of("COST-signal[fence-relaxed-sys-xcta]")
    text = cost_kernel(sig, fence_threads=8).text
    assert "setp.lt.u32 %pf, %tf, 8; @%pf fence.acq_rel.sys;" in text
    lines = text.splitlines()
    fences = [k for k, ln in enumerate(lines) if "@%pf fence." in ln]
    assert fences and all("tl.debug_barrier()" in lines[k + 1] for k in fences)  # the CTA waits for them
    plain = cost_kernel(sig).text
    assert "%tid.x" not in plain and "tl.debug_barrier()" not in plain
    with pytest.raises(LitmusError, match="cuda backend only"):
        cost_kernel(sig, backend="interpreter", loopback=True, fence_threads=1)


def test_hardware_violation_makes_a_variant_incorrect(tmp_path: Path) -> None:
    results = tmp_path / "run.jsonl"
    results.write_text(json.dumps({"id": "COST-signal[relacq-sys-xcta]", "verdict": "VIOLATION",
                                   "backend": "cuda"}) + "\n")
    res = CliRunner().invoke(cost_command, ["COST-signal", "--variant", "relacq-sys-xcta", "--backend", "cpu",
                                            "-n", "2", "-k", "1", "--warmup", "0", "--json",
                                            "--results", str(results)])
    assert res.exit_code == 0, res.output
    (row,) = json.loads(res.output)["families"][0]["rows"]
    assert row["hardware"] == "VIOLATION (cuda)" and row["model"] == "correct" and not row["correct"]
    assert row["mark"].startswith("incorrect")
    missing = CliRunner().invoke(cost_command, ["COST-signal", "--results", str(tmp_path / "nope.jsonl")])
    assert missing.exit_code == 2 and "no such file" in missing.output


def test_bench_cost_writes_json_and_markdown_and_prints_the_short_table(tmp_path: Path) -> None:
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    res = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "bench_cost.py"), str(tmp_path), "xla",
                          "--backend", "cpu", "--variant", "relacq-sys", "--round-trips", "3", "--repeat", "1",
                          "--warmup", "0"], cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    assert res.returncode == 0, res.stderr[-3000:]
    rep = json.loads((tmp_path / "cost.json").read_text())
    assert [f["family"] for f in rep["families"]] == ["XLA-block-barrier"]
    (row,) = rep["families"][0]["rows"]
    assert row["id"] == "XLA-block-barrier[relacq-sys]" and row["correct"]
    stands = row["cost"]["agreement"]["ok"]  # interpreter timings: the two runs may well disagree
    assert (rep["families"][0]["cheapest_correct"] == row["id"]) == stands
    name = "**relacq-sys**" if stands else "relacq-sys"
    assert f"| 1 | {name} | correct |" in (tmp_path / "cost.md").read_text()
    assert res.stdout.splitlines()[-1].startswith("XLA-block-barrier  " + ("relacq-sys" if stands else "-"))


def test_cuda_measurement_steps_on_the_interpreter_count_samples_and_trips() -> None:
    cases = [{"id": "COST-signal[relacq-sys-xgpu]", "round_trips": 6, "repeat": 2, "warmup": 1,
              "load_pairs": 2, "load_block": 4},
             {"id": "SYMM-barrier-p2[acqrel]", "round_trips": 5, "repeat": 1, "warmup": 0}]
    env = dict(os.environ, TRITON_INTERPRET="1", PYTHONPATH=str(ROOT))
    res = subprocess.run([sys.executable, "-m", "tests.cost.measure_runner", json.dumps(cases)], cwd=ROOT, env=env,
                         capture_output=True, text=True, timeout=300)
    assert res.returncode == 0, res.stderr[-3000:]
    got = json.loads(res.stdout.strip().splitlines()[-1])
    mp = got["COST-signal[relacq-sys-xgpu]"]
    assert [r["n"] for r in mp["runs"]] == [2 * (6 - 2)] * 2  # the 2 warm trips of each launch are not samples
    assert mp["round_trips"] == mp["asked"] == 2 * 2 * 6 and mp["timeouts"] == 0 and mp["ticks"] == 4
    assert mp["runs"][0]["p50"] == 0.5  # a trip-number step, halved: one-way of a message
    assert mp["agreement"]["ok"]
    bar = got["SYMM-barrier-p2[acqrel]"]
    assert bar["shape"] == "barrier" and [r["n"] for r in bar["runs"]] == [3, 3] and bar["runs"][0]["p50"] == 1.0


def test_round_trip_samples_leave_out_warm_and_unfinished_trips() -> None:
    from litmus.cost.launch import LoopRun

    run = LoopRun(times=[[0, 10, 30, 60, 100], [0, 0, 0, 0, 0]], trips=[3, 4], status=[1, 0], event_ms=None,
                  parties=2, pairs=1, block=1, heap=[])
    assert run.round_trips_ns(warmup=1) == [20.0, 30.0]  # trip 4 never finished on program 0


def test_cuda_backend_without_a_gpu_is_one_error_line() -> None:
    import torch

    if torch.cuda.is_available():
        pytest.skip("a GPU is visible")
    res = CliRunner().invoke(cost_command, ["COST-signal", "--variant", "relacq-sys-xcta"])
    assert res.exit_code == 2 and "no CUDA device" in res.output and "--backend cpu" in res.output


@pytest.mark.parametrize("test_id", ["COST-signal[relacq-sys-xgpu]", "COST-signal[cas-sys-xcta]",
                                     "SYMM-barrier-p1[p1-acqrel-sys]", "COST-vllm-barrier[threadfence-volatile]",
                                     "MP-iris-reset[relacq-sys]"])
def test_cuda_kernel_compiles_for_sm90_with_the_global_timer(test_id: str) -> None:
    from litmus.codegen.options import detect_features
    from litmus.cost.compile import compile_cost_kernel

    ck = cost_kernel(sig_of(test_id), features=detect_features(), spin_bound=1000, fence_threads=8)
    ptx = compile_cost_kernel(ck, "cuda:90", num_warps=4, trips=1024)
    assert "%globaltimer" in ptx and ".local" not in ptx  # the timestamps stay in registers
    if "threadfence" in test_id:
        assert "setp.lt.u32 %pf, %tf, 8; @%pf fence.sc.sys;" in ptx


def _fake_launches(monkeypatch: pytest.MonkeyPatch, load_status: int) -> list[tuple[int, int, float]]:
    """Replace the loop kernel's launch with one that records (pairs, block, event ms): the first
    launch of the load shape takes 500 ms (it compiles), later ones 1 ms."""
    from litmus.cost import compile as cost_compile
    from litmus.cost import launch
    from litmus.cost.launch import LoopRun

    calls: list[tuple[int, int, float]] = []

    def fake(module, ck, n_trips, pairs=1, block=1, device="cuda", num_warps=1):  # noqa: ANN001
        first_load = pairs > 1 and not any(p > 1 for p, _, _ in calls)
        ms = 500.0 if first_load else 1.0
        calls.append((pairs, block, ms))
        progs = ck.parties * pairs
        times = [[k * 100 for k in range(n_trips + 1)] for _ in range(progs)]
        status = [load_status if pairs > 1 else 0] * progs
        return LoopRun(times, [n_trips] * progs, status, ms, ck.parties, pairs, block, [])

    monkeypatch.setattr(launch, "launch_loop", fake)
    monkeypatch.setattr(cost_compile, "load_cost_kernel", lambda ck, interpret=None: None)
    return calls


@pytest.mark.parametrize("stalled", [False, True])
def test_signals_per_second_come_from_a_warm_load_launch_and_none_when_spins_stall(
        monkeypatch: pytest.MonkeyPatch, stalled: bool) -> None:
    from litmus.cost.measure import CostParams, measure_cuda

    calls = _fake_launches(monkeypatch, load_status=1 if stalled else 0)
    params = CostParams(round_trips=10, repeat=1, warmup=0, load_pairs=4, load_block=8)
    m = measure_cuda(sig_of("COST-signal[relacq-sys-xgpu]"), params, interpreter=True)
    assert [(p, b) for p, b, _ in calls if p > 1] == [(4, 8), (4, 8)]  # warm, then timed
    if stalled:
        assert m.signals_per_s is None and any("timed out" in n for n in m.notes)
    else:  # 2 signals a trip, 10 trips, 4 x 8 lanes, in the timed launch's 1 ms (not the compile's 500)
        assert m.signals_per_s == pytest.approx(2 * 10 * 4 * 8 / 1e-3)
