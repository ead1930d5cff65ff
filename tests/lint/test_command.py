"""`litmus lint` on the command line: text, --json, --emit-yaml, exit status, errors."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from litmus.cli import main
from litmus.spec import load_paths
from tests.lint.conftest import kernel_file, line_of


def run(*args: str):
    return CliRunner().invoke(main, ["lint", *args])


def test_text_report_and_exit_1_on_incorrect_findings() -> None:
    r = run(str(kernel_file("tritonbench_lock")))
    assert r.exit_code == 1, r.output
    line = line_of("tritonbench_lock", "lock-xchg")
    assert f"tritonbench_lock.py:{line}: block-publish: scalar atomic after vector stores" in r.output
    assert "pattern: MP-block[nobar-release-sys] (mp_block_payload.yaml); model (ptx): bug outcome allowed" in r.output
    assert "fix: put `tl.debug_barrier()` between" in r.output
    assert "not seen by the linter:" in r.output


def test_a_clean_kernel_exits_0() -> None:
    r = run(str(kernel_file("tritonbench_lock")), "--kernel", "splitk_fixup_ok")
    assert r.exit_code == 0, r.output
    assert "1 kernel(s) [splitk_fixup_ok] for cuda:90" in r.output and "0 finding(s)" in r.output


def test_hip_target() -> None:
    r = run(str(kernel_file("tritonbench_lock")), "--target", "hip:gfx942")
    assert r.exit_code == 1 and "for hip:gfx942" in r.output and "block-publish" in r.output


def test_json() -> None:
    r = run(str(kernel_file("iris_broken")), "--json")
    assert r.exit_code == 1
    data = json.loads(r.output)
    findings = [f for k in data["kernels"] for f in k["findings"]]
    assert [(f["rule"], f["kernel"], f["pattern"], f["model"]["bug_allowed"]) for f in findings] == [
        ("peer-scope", "put_producer", "MP[relacq-xgpu-gpu]", True),
        ("volatile-poll", "get_consumer", "MP-iris-volatile[volatile-as-written]", True)]
    assert data["incorrect"] == 2 and data["limits"]


def test_emit_yaml_is_a_catalog_file(tmp_path: Path) -> None:
    out = tmp_path / "mine.yaml"
    r = run(str(kernel_file("iris_ok")), "--emit-yaml", str(out))
    assert r.exit_code == 0, r.output
    assert [t.id for t in load_paths([out])] == ["LINT-iris-ok-put-producer", "LINT-iris-ok-get-producer"]
    model = CliRunner().invoke(main, ["model", str(out)])
    assert model.exit_code == 0, model.output


def test_emit_yaml_to_stdout_prints_only_yaml() -> None:
    r = run(str(kernel_file("tritonbench_lock")), "--kernel", "splitk_fixup_broken", "--emit-yaml", "-")
    assert r.exit_code == 1 and r.output.startswith("name: LINT-tritonbench-lock-splitk-fixup-broken")


def test_bad_input_exits_2_with_file_and_line(tmp_path: Path) -> None:
    assert run(str(tmp_path / "missing.py")).exit_code == 2
    f = tmp_path / "k.py"
    f.write_text("import triton\nimport triton.language as tl\n\n\n@triton.jit\ndef k(flag, n):\n"
                 "    tl.atomic_xchg(flag + n, 1)\n")
    r = run(str(f))
    assert r.exit_code == 2
    assert f"error: {f}:5: kernel k: cannot compile without the type or constexpr value of flag, n" in r.output
    r = run(str(f), "--signature", "flag=*i32,n=i32")
    assert r.exit_code == 0, r.output
    assert run(str(f), "--target", "cuda:sm_x").exit_code == 2
    assert run(str(f), "--signature", "oops").exit_code == 2


def test_a_backend_failure_says_why(tmp_path: Path) -> None:
    r = run(str(kernel_file("symm_mem_barrier")), "--kernel", "pattern1_ok", "--target", "hip:gfx942")
    assert r.exit_code == 2
    assert "does not compile for the other: lint it with a --target it is written for" in r.output


def test_help_teaches_with_an_example() -> None:
    r = CliRunner().invoke(main, ["lint", "--help"])
    assert "litmus lint my_kernels.py" in r.output and "plain-reset" in r.output


def test_signature_applies_to_each_kernel_that_has_the_parameter(tmp_path: Path) -> None:
    f = tmp_path / "two.py"
    f.write_text("import triton\nimport triton.language as tl\n\n\n@triton.jit\ndef a(flag, n):\n"
                 "    tl.atomic_xchg(flag + n, 1)\n\n\n@triton.jit\ndef b(flag):\n    tl.atomic_xchg(flag, 1)\n")
    r = run(str(f), "--signature", "flag=*i32,n=i32")
    assert r.exit_code == 0, r.output
    assert "2 kernel(s) [a, b]" in r.output
    r = run(str(f), "--signature", "flag=*i32,n=i32,m=i32")
    assert r.exit_code == 2 and "names m, a parameter of no kernel linted here (a, b)" in r.output


def test_the_emitted_pattern_goes_through_audit(tmp_path: Path) -> None:
    out = tmp_path / "lock.yaml"
    assert run(str(kernel_file("tritonbench_lock")), "--kernel", "splitk_fixup_broken", "--emit-yaml",
               str(out)).exit_code == 1
    r = CliRunner().invoke(main, ["audit", str(out), "--target", "cuda:90", "--no-run-kernels", "--json"])
    assert r.exit_code == 0, r.output
    [record] = [json.loads(line) for line in r.output.splitlines() if line.startswith("{")]
    assert record["status"] == "pass"


def test_json_and_yaml_on_stdout_are_refused() -> None:
    r = run(str(kernel_file("iris_ok")), "--json", "--emit-yaml", "-")
    assert r.exit_code == 2 and "give --emit-yaml a file name" in r.output


def test_emit_yaml_errors(tmp_path: Path) -> None:
    r = run(str(kernel_file("iris_ok")), "--emit-yaml", str(tmp_path / "no" / "such" / "dir.yaml"))
    assert r.exit_code == 2 and "cannot write it" in r.output
    f = tmp_path / "quiet.py"
    f.write_text("import triton\nimport triton.language as tl\n\n\n@triton.jit\ndef k(x: '*fp32'):\n"
                 "    tl.store(x, 1.0)\n")
    r = run(str(f), "--emit-yaml", str(tmp_path / "q.yaml"))
    assert r.exit_code == 2 and "no kernel here raises or waits for a flag" in r.output
