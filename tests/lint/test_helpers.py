"""A user's own helper library described in YAML (`litmus lint --helpers FILE`): the
functions get the ordering the file gives them, and bad descriptions are errors that say so."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from litmus.cli import main
from litmus.errors import LitmusError
from litmus.lint.helpers import helper_source, load_helpers

KERNELS = '''import triton
import triton.language as tl
import my_lib


@triton.jit
def producer(data, flag, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(data + offs, tl.full([BLOCK], 1.0, tl.float32))
    tl.debug_barrier()
    my_lib.signal(flag, 1)


@triton.jit
def consumer(data, flag, out, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    my_lib.wait(flag, 1)
    tl.store(out + offs, tl.load(data + offs))
'''

HELPERS = """
my_lib.signal: {op: atomic_xchg, sem: release, scope: SIGNAL_SCOPE, peer: true}
my_lib.wait: {op: wait, sem: WAIT_SEM, scope: sys}
"""


def lint(tmp_path: Path, signal_scope: str, wait_sem: str):
    (tmp_path / "kernels.py").write_text(KERNELS)
    helpers = tmp_path / "my_lib.yaml"
    helpers.write_text(HELPERS.replace("SIGNAL_SCOPE", signal_scope).replace("WAIT_SEM", wait_sem))
    return CliRunner().invoke(main, ["lint", str(tmp_path / "kernels.py"), "--helpers", str(helpers)])


def test_the_helpers_ordering_decides_the_findings(tmp_path: Path) -> None:
    good = lint(tmp_path, "sys", "acquire")
    assert good.exit_code == 0, good.output
    assert "2 kernel(s) [producer, consumer] for cuda:90" in good.output and "0 finding(s)" in good.output
    bad = lint(tmp_path, "gpu", "relaxed")
    assert bad.exit_code == 1, bad.output
    assert "kernels.py:11: peer-scope: `scope='gpu'` on a peer pointer" in bad.output
    assert "kernels.py:17: volatile-poll: relaxed CAS spin" in bad.output
    assert "stand-ins with the real ordering for my_lib" in bad.output
    without = CliRunner().invoke(main, ["lint", str(tmp_path / "kernels.py")])  # my_lib: an empty stub
    assert without.exit_code == 0 and "kernel consumer uses my_lib, from a module absent here" in without.output


def test_bad_descriptions_are_errors(tmp_path: Path) -> None:
    with pytest.raises(LitmusError, match=r"my_lib.signal: op 'atomic_swap': write one of atomic_add"):
        helper_source("my_lib", {"signal": {"op": "atomic_swap"}}, "h.yaml")
    with pytest.raises(LitmusError, match=r"scope 'device': write one of cta, gpu, sys"):
        helper_source("my_lib", {"signal": {"op": "atomic_xchg", "scope": "device"}}, "h.yaml")
    with pytest.raises(LitmusError, match=r"args \['p', 'value'\] lack ptr"):
        helper_source("my_lib", {"signal": {"op": "atomic_xchg", "args": ["p", "value"]}}, "h.yaml")
    f = tmp_path / "h.yaml"
    f.write_text("signal: {op: store}\n")
    with pytest.raises(LitmusError, match=r"h.yaml:1: --helpers: 'signal': write `module.function"):
        load_helpers(f)
    f.write_text("a: [\n")
    with pytest.raises(LitmusError, match=r"h.yaml:\d+(:\d+)?: --helpers: not YAML"):
        load_helpers(f)
    f.write_text("my_lib.signal: {op: atomic_xchg, sem: release, scope: sys}\nmy_lib.wait: {op: wait, scope: device}\n")
    with pytest.raises(LitmusError, match=r"h.yaml:2: my_lib.wait: scope 'device'"):  # each entry at its line
        load_helpers(f)


def test_extra_arguments_and_a_fixed_value(tmp_path: Path) -> None:
    source = helper_source("lib", {"notify": {"op": "atomic_add", "sem": "release", "scope": "sys",
                                              "args": ["ptr", "pe"], "value": 1}}, "h.yaml")
    assert "def notify(ptr, pe):\n    value = 1\n    return tl.atomic_add(ptr, value, sem='release', scope='sys')" \
        in source
