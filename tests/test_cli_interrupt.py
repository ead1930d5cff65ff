"""Ctrl-C anywhere in ``litmus run`` (issue 19): one line saying what finished and how to
resume, exit status 130, no traceback (from the parent or its worker processes), no torn
record, no process left behind.  SIGINT goes to the whole process group, as a terminal's
Ctrl-C does."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _run_and_interrupt(out: Path, when: str, whole_group: bool = True) -> tuple[int, str]:
    proc = subprocess.Popen(
        [sys.executable, "-m", "litmus", "run", str(ROOT / "catalog" / "mp.yaml"), "--backend", "cpu",
         "--iterations", "2", "--out", str(out)],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, start_new_session=True, text=True, cwd=ROOT,
    )
    deadline = time.monotonic() + 120
    try:
        if when == "start-up":
            time.sleep(0.3)
        elif when == "running":  # workers up, kernels compiling and spinning
            time.sleep(4.0)
        elif when == "after-a-record":  # some variants written
            while time.monotonic() < deadline and not (out.exists() and out.read_text().count("\n") >= 3):
                time.sleep(0.05)
        if whole_group:
            os.killpg(proc.pid, signal.SIGINT)
        else:
            proc.send_signal(signal.SIGINT)
        output, _ = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    left = True
    for _ in range(100):  # nothing of the group is left (a zombie takes a moment to be reaped)
        try:
            os.killpg(proc.pid, 0)
        except ProcessLookupError:
            left = False
            break
        time.sleep(0.1)
    assert not left, "a process of the run outlived it"
    return proc.returncode, output


@pytest.mark.parametrize("when, whole_group", [("start-up", False), ("start-up", True), ("running", True),
                                               ("after-a-record", True)])
def test_ctrl_c_prints_one_line_and_how_to_resume(tmp_path: Path, when: str, whole_group: bool) -> None:
    out = tmp_path / "r.jsonl"
    code, output = _run_and_interrupt(out, when, whole_group)
    if code == 0:
        pytest.skip("the run finished before the interrupt arrived")
    assert code == 130, output
    assert "Traceback" not in output and "KeyboardInterrupt" not in output, output
    last = output.strip().splitlines()[-1]
    assert last.startswith("interrupted"), output
    lines = out.read_text().splitlines() if out.exists() else []
    for line in lines:
        json.loads(line)  # no torn record
    if lines:
        assert "--resume" in last and str(out) in last, last
        assert f"{len(lines)} variant" in last, last
    elif when == "start-up":
        assert "nothing was run" in last or "nothing was recorded yet" in last, last
    else:  # the results file is named, but no variant finished: say so, and how to start again
        assert "nothing was recorded yet" in last and "--resume" not in last, last


def test_the_line_says_nothing_was_recorded_when_no_variant_finished(tmp_path: Path) -> None:
    from litmus.cli.run import _interrupted_run

    where = {"stage": "running", "out": tmp_path / "r.jsonl", "backend": "cpu", "total": 60}
    line = _interrupted_run(where, ["catalog/mp.yaml"], "cpu")
    assert line.startswith("interrupted while running: nothing was recorded yet") and "(60 variants" in line
    assert "--resume" not in line and "litmus run catalog/mp.yaml --backend cpu --out" in line
    assert _interrupted_run({"stage": "loading the tests"}, [], "cpu").endswith("nothing was run or written")


@pytest.mark.parametrize("error", [
    "LitmusError('--backend cpu: not available here: cannot load module more than once')",
    "RuntimeError(\"Error calling __set_name__ on 'Field' instance 'tests' in 'Pattern'\")",
])
def test_an_error_that_follows_a_ctrl_c_is_reported_as_the_interrupt(error: str) -> None:
    """Ctrl-C during a half-done import can surface later as an ordinary error (torch: "cannot
    load module more than once per process", then `--backend cpu: not available`), and Python
    wraps one that lands in a class body's __set_name__ (a dataclass being defined) in a
    RuntimeError: once Ctrl-C was seen, the command exits 130 saying it was interrupted, with
    neither that error nor a traceback."""
    code = ("from litmus.cli import app\n"
            "from litmus.errors import LitmusError\n"
            "@app.friendly\n"
            "def command():\n"
            "    app.Interrupt.seen = True\n"
            f"    raise {error}\n"
            "command()\n")
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert res.returncode == 130, res.stderr
    assert res.stderr.strip().splitlines()[-1] == "interrupted", res.stderr
    assert "not available" not in res.stderr and "Traceback" not in res.stderr, res.stderr


def test_an_error_without_a_ctrl_c_is_not_taken_for_one() -> None:
    """The rule above applies only after a Ctrl-C: a bug is still a bug (exit 1, its traceback)."""
    code = ("from litmus.cli import app\n"
            "@app.friendly\n"
            "def command():\n"
            "    raise RuntimeError('a real bug')\n"
            "command()\n")
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert res.returncode == 1 and "RuntimeError: a real bug" in res.stderr, res.stderr


@pytest.mark.parametrize("raise_in", ["import", "swallowed", "wrapped"])
def test_ctrl_c_while_litmus_run_starts_says_nothing_was_run(raise_in: str) -> None:
    """Ctrl-C in `litmus run`'s first steps (its imports, or an error that follows a Ctrl-C a
    half-done import swallowed) gets run's own line, not a bare 'interrupted'."""
    if raise_in == "import":  # the first import inside run raises KeyboardInterrupt
        patch = ("import builtins\nreal = builtins.__import__\n"
                 "def imp(name, *a, **k):\n"
                 "    if name == 'rich.console':\n"
                 "        raise KeyboardInterrupt\n"
                 "    return real(name, *a, **k)\n"
                 "builtins.__import__ = imp\n")
    else:  # loading the tests fails after a swallowed Ctrl-C, or one Python wrapped
        error = ("LitmusError('not available: cannot load module more than once')" if raise_in == "swallowed"
                 else "RuntimeError(\"Error calling __set_name__ on 'Field' instance 'tests' in 'Pattern'\")")
        patch = ("import litmus.spec\nfrom litmus.errors import LitmusError\n"
                 "def load(*a, **k):\n"
                 "    app.Interrupt.seen = True\n"
                 f"    raise {error}\n"
                 "litmus.spec.load_tests = load\n")
    code = ("import sys\nfrom litmus import cli\nfrom litmus.cli import app\n" + patch
            + "sys.argv = ['litmus', 'run', 'MP', '--backend', 'cpu']\ncli.main()\n")
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert res.returncode == 130, res.stderr
    last = res.stderr.strip().splitlines()[-1]
    assert last == "interrupted while loading the tests; nothing was run or written", res.stderr


def test_from_the_call_until_the_command_runs_ctrl_c_gives_the_start_up_line() -> None:
    # click parses the arguments between the modules' load and a command's own handler: a Ctrl-C
    # there gave click's "Aborted!" and status 1 (a clean-clone CI run, start-up-False above)
    import click
    from click.testing import CliRunner

    from litmus.cli import startup
    from litmus.cli.app import _Group

    seen = []

    @click.group(cls=_Group)
    def group() -> None:
        seen.append(signal.getsignal(signal.SIGINT))

    @group.command()
    def probe() -> None:
        pass

    before = signal.getsignal(signal.SIGINT)
    result = CliRunner().invoke(group, ["probe"])
    assert result.exit_code == 0, result.output
    assert seen == [startup._interrupted_at_startup]
    assert signal.getsignal(signal.SIGINT) is before


def test_ctrl_c_in_a_finalizer_is_delivered_again_not_printed(monkeypatch: pytest.MonkeyPatch) -> None:
    # Python prints an exception raised in __del__ ("Exception ignored in ...", with its
    # traceback) and drops it; torch's StorageWeakRef.__del__ once took a Ctrl-C that way.
    from litmus.cli import app

    again: list[int] = []
    printed: list[object] = []
    monkeypatch.setattr(app, "_redeliver_soon", lambda: again.append(1))
    monkeypatch.setattr(app.Interrupt, "seen", False)
    monkeypatch.setattr(sys, "unraisablehook", printed.append)

    def interrupted_here() -> None:
        app._on_sigint(signal.SIGINT, sys._getframe())

    class Held:
        def __del__(self) -> None:
            interrupted_here()

    Held()
    assert not printed and again == [1] and app.Interrupt.seen
    with pytest.raises(KeyboardInterrupt):
        interrupted_here()
