"""benchmarks/peer/sbs_table.py puts the peer's RESULT lines and bench_weak's rows in one table."""

from __future__ import annotations

import json
from pathlib import Path

from tests.by_path import load_by_path

TABLE = Path(__file__).resolve().parents[2] / "benchmarks" / "peer" / "sbs_table.py"


def _module():
    return load_by_path("sbs_table", TABLE)


def test_peer_and_ours_rows_of_each_test_sit_together(tmp_path: Path, capsys) -> None:
    peer = tmp_path / "peer.txt"
    peer.write_text(
        "RESULT test=2+2w seed=7 instances=1000 weak=10 kernel_s=0.5 wall_s=1.0 iterations=3 threads_per_iter=9 "
        "phase=long cfg=c3 bin=timed-2+2w\n"
        "RESULT test=iriw seed=101 instances=500 weak=0 kernel_s=0.1 wall_s=0.5 phase=screen cfg=c1 bin=timed-iriw\n")
    ours = tmp_path / "sbs-ours-A.json"
    ours.write_text(json.dumps({"rows": [
        {"test": "2+2W", "side": "litmus/default", "variant": "2+2W[relaxed-sys]", "instances": 2000, "weak": 60,
         "kernel_seconds": 0.25, "seconds": 0.5, "instances_per_round": 1081344}]}))
    assert _module().main(["sbs_table.py", str(peer), str(ours)]) == 0
    out = capsys.readouterr().out
    side = out.split("SIDE BY SIDE")[1].splitlines()
    rows = [line for line in side if line.startswith("2+2W relaxed")]
    assert len(rows) == 2 and any("peer long" in r and "20" in r.split()[-3] for r in rows)  # 10 / 0.5 s
    assert any("ours default" in r and "240" in r for r in rows)  # 60 / 0.25 s
    assert "IRIW relaxed  peer screen" in out


def test_a_peer_instance_is_a_testing_thread_of_an_iteration(tmp_path: Path, capsys) -> None:
    # upstream's 3- and 4-thread tests file their non-weak outcomes under res0..res15, which the
    # runner's own instances= (weak + other + na) leaves out
    peer = tmp_path / "peer.txt"
    peer.write_text("RESULT test=wrc seed=7 iterations=4 threads_per_iter=100 instances=8 weak=8 other=0 na=0 "
                    "kernel_s=0.5 wall_s=1.0 phase=long cfg=c1 bin=timed-wrc\n")
    assert _module().main(["sbs_table.py", str(peer)]) == 0
    row = next(line for line in capsys.readouterr().out.split("SIDE BY SIDE")[1].splitlines()
               if line.startswith("WRC relaxed"))
    assert row.split()[-7] == "400" and row.split()[-2] == "0.02"  # 8 weak in 4 x 100 instances
