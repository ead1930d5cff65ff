"""`litmus lint` on the command line: text, --json, --emit-yaml, exit status, errors."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
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
    f.write_text("import triton\nimport triton.language as tl\n\n\n@triton.jit\ndef k(flag, n, F: tl.constexpr):\n"
                 "    tl.atomic_xchg(flag + n, F(1))\n")
    r = run(str(f))
    assert r.exit_code == 2
    assert f"error: {f}:5: kernel k: cannot compile without the type or constexpr value of F" in r.output
    r = run(str(f), "--signature", "flag=*i32,n=i32,F=1")
    assert r.exit_code == 2 and "could not compile kernel k" in r.output  # F is called: no value compiles
    g = tmp_path / "g.py"
    g.write_text("import triton\nimport triton.language as tl\n\n\n@triton.jit\ndef k(flag, n):\n"
                 "    tl.atomic_xchg(flag + n, 1)\n")
    r = run(str(g))
    assert r.exit_code == 0 and "kernel k: inferred flag=*i32 (atomic's pointer), n=i32 (integer)" in r.output
    r = run(str(g), "--signature", "flag=*i32,n=i32")
    assert r.exit_code == 0 and "inferred" not in r.output, r.output
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


HEADER = "import triton\nimport triton.language as tl\n\n\n@triton.jit\n"


def test_a_syntax_error_names_its_line_and_column(tmp_path: Path) -> None:
    f = tmp_path / "k.py"
    f.write_text(HEADER + "def k(x: '*fp32'):\n    tl.store(x, 1.0\n")
    r = run(str(f))
    assert r.exit_code == 2 and "Traceback" not in r.output
    assert f"error: {f}:7:13: SyntaxError: '(' was never closed; fix it there" in r.output


def test_an_import_error_names_the_import_line(tmp_path: Path) -> None:
    f = tmp_path / "k.py"
    f.write_text("import triton\nimport no_such_module_here\nfrom no_such_module_here import thing\n"
                 "thing.setup()\nraise RuntimeError('no GPU')\n")
    r = run(str(f))  # the absent module is stubbed; the file's own error is reported at its line
    assert r.exit_code == 2 and f"error: {f}:5: importing the file failed: RuntimeError: no GPU" in r.output


def test_a_compile_error_names_the_failing_statement(tmp_path: Path) -> None:
    f = tmp_path / "k.py"
    f.write_text(HEADER + "def k(x: '*fp32'):\n    offs = tl.arange(0, 3)\n    tl.store(x + offs, 1.0)\n")
    r = run(str(f))
    assert r.exit_code == 2 and "Traceback" not in r.output
    # the line of tl.arange (not the decorator's), and Triton's message (not its `at 2:11:` header)
    assert f"error: {f}:7: triton " in r.output and "arange's range must be a power of 2 (fix this line" in r.output


def test_no_kernels_and_an_unknown_kernel(tmp_path: Path) -> None:
    f = tmp_path / "k.py"
    f.write_text("def k(x):\n    return x\n")
    r = run(str(f))
    assert r.exit_code == 2 and "no @triton.jit kernels found" in r.output
    r = run(str(kernel_file("iris_ok")), "--kernel", "nope")
    assert r.exit_code == 2 and "no @triton.jit function called 'nope' here; found: get_consumer" in r.output


def test_a_target_the_backend_does_not_know_says_so_without_the_compilers_dump(
        capfd: pytest.CaptureFixture[str]) -> None:
    for target in ("hip:gfx000", "cuda:20"):
        r = run(str(kernel_file("tritonbench_lock")), "--kernel", "splitk_fixup_ok", "--target", target)
        assert r.exit_code == 2, r.output
        assert f"could not compile kernel splitk_fixup_ok for {target}" in r.output
        assert "has no" in r.output and "backend for this architecture: give a --target it supports" in r.output
        out, err = capfd.readouterr()  # what the compiler wrote to the file descriptors
        assert "MLIR" not in out + err and "reproducer" not in out + err and "ptxas" not in out + err, out + err


def test_a_misspelt_peer_is_refused(tmp_path: Path) -> None:
    r = run(str(kernel_file("iris_ok")), "--peer", "flags")
    assert r.exit_code == 2
    assert "--peer flags (peers=): no kernel linted here" in r.output and "flag, from_rank" in r.output
    f = tmp_path / "k.py"
    f.write_text("LITMUS_LINT = {'k': {'peer': ['flags']}}\n" + HEADER
                 + "def k(flag: '*i32'):\n    tl.atomic_xchg(flag, 1, sem='release', scope='gpu')\n")
    r = run(str(f))
    assert r.exit_code == 2 and f"{f}:6: LITMUS_LINT['k']['peer'] names flags, not a parameter of kernel k" in r.output


def test_kernel_alone_reads_its_file_mates_spins() -> None:
    r = run(str(kernel_file("rule_shapes")), "--kernel", "plain_signal")
    assert r.exit_code == 1 and "1 kernel(s) [plain_signal]" in r.output
    assert f"rule_shapes.py:{line_of('rule_shapes', 'plain-signal')}: relaxed-signal: " in r.output


def test_the_report_prints_every_limit() -> None:
    from litmus.lint.api import LIMITS

    r = run(str(kernel_file("iris_ok")))
    tail = r.output.split("not seen by the linter:\n", 1)[1]
    assert tail.splitlines() == [f"  - {limit}" for limit in LIMITS] and len(LIMITS) == 8


def test_a_backend_that_ends_the_process_is_an_error_not_exit_1(monkeypatch: pytest.MonkeyPatch,
                                                               capfd: pytest.CaptureFixture[str]) -> None:
    # triton 3.6's AMD backend ends the process on PTX inline asm (LLVM's fatal error: exit 1, the
    # status of an incorrect finding); the hip compile of a file with inline asm runs in a child
    import os

    import litmus.lint.compile as compile_mod

    def dies(*args: object) -> None:
        os.write(2, b"LLVM ERROR: unknown asm constraint ' '\n")
        os._exit(1)

    monkeypatch.setattr(compile_mod, "_compile", dies)
    r = run(str(kernel_file("symm_mem_barrier")), "--kernel", "pattern1_ok", "--target", "hip:gfx942")
    assert r.exit_code == 2, r.output
    assert "the hip backend ended the compiler process: LLVM ERROR: unknown asm constraint" in r.output
    assert "lint it with a --target it is written for" in r.output
    out, err = capfd.readouterr()
    assert "LLVM ERROR" not in out + err


def test_ptx_asm_that_a_hip_compile_lets_through_is_said_not_judged_silently() -> None:
    r = run(str(kernel_file("variants")), "--kernel", "volatile_store_signal", "--target", "hip:gfx942")
    if r.exit_code == 2:  # triton 3.6's AMD backend rejects the asm: an error that says why
        assert "lint it with a --target it is written for" in r.output
        return
    line = line_of("variants", "volatile-store")
    assert f"variants.py:{line}: inline asm `st.volatile.global.b32 [$1], 1` is read as PTX, but the target is " \
           "hip:gfx942" in r.output
    assert "lint it with the cuda target its asm is written for" in r.output
    assert "is read as PTX, but" not in run(str(kernel_file("variants")), "--kernel", "volatile_store_signal").output


def test_a_construct_triton_lacks_in_a_called_helper_is_named_with_its_message(tmp_path: Path) -> None:
    f = tmp_path / "k.py"
    f.write_text(HEADER + "def helper(p, n):\n    for i in range(n):\n        if i > 3:\n            break\n"
                 "        tl.store(p + i, i)\n\n\n@triton.jit\ndef k(flag: '*i32', n: 'i32'):\n"
                 "    helper(flag, n)\n    tl.atomic_xchg(flag, 1, sem='release', scope='sys')\n")
    r = run(str(f), "--kernel", "k")
    assert r.exit_code == 2, r.output
    assert "could not compile kernel k for cuda:90: unsupported AST node type: Break (fix this line" in r.output
