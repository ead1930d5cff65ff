"""Signalling events from compiled kernels: pointer provenance, spins, notes."""

from __future__ import annotations

import textwrap

import pytest

from litmus.lint import lint_file

SOURCE = '''
import triton
import triton.language as tl


@triton.jit
def k(flag: "*i32", table: "*i64", addr: "i64", data: "*fp32", n: "i32"):
    peer = tl.load(table + 1).to(tl.pointer_type(tl.int32))
    tl.atomic_xchg(peer, 1, sem="release", scope="sys")
    raw = addr.to(tl.pointer_type(tl.int32))
    tl.atomic_xchg(raw, 1, sem="release", scope="gpu")
    done = 0
    while done == 0:
        done = tl.atomic_cas(flag, 1, 0, sem="acquire", scope="gpu")
    while tl.load(flag + 1, volatile=True) < n:
        pass
    for i in range(tl.load(flag + 2)):
        tl.store(data + i, 1.0)
'''


@pytest.fixture(scope="module")
def report(tmp_path_factory: pytest.TempPathFactory):
    path = tmp_path_factory.mktemp("ev") / "k.py"
    path.write_text(textwrap.dedent(SOURCE))
    return lint_file(path)


def test_pointer_provenance(report) -> None:
    events = report.kernels[0].events.events
    atomics = [e for e in events if e.kind == "atomic"]
    assert [(e.site.line, e.ptr.origin, e.ptr.root) for e in atomics] == [
        (9, "table", "table"), (11, "address", "addr")]
    spins = [e for e in events if e.kind == "spin"]
    assert [(e.site.line, e.op, e.sem, e.ptr.origin, e.ptr.root) for e in spins] == [
        (13, "cas", "acquire", "arg", "flag"), (15, "load", "relaxed", "arg", "flag")]
    assert (spins[0].until, spins[0].reset) == (1, 0)  # the `done` form: the CAS result passes through the loop


def test_what_cannot_be_seen_is_said(report) -> None:
    notes = "\n".join(report.notes)
    assert "k.py:11: tl.atomic_xchg uses the integer argument `addr` cast to a pointer; the linter cannot prove" \
        in notes
    assert "k.py:15: the spin's exit value is not a constant" in notes
    assert "k.py:17: a for loop whose bounds are read from memory" in notes
    assert "signals through the plain pointer argument(s) flag, taken as this GPU's memory" in notes
    assert "--peer flag" in notes


def test_gpu_scope_on_a_plain_argument_needs_a_mark(report) -> None:
    # flag is a plain pointer argument: local unless the user says another GPU writes it
    assert not any(f.rule == "peer-scope" for f in report.findings)
    marked = lint_file(report.file, peers=["flag", "addr"])
    assert {(f.rule, f.site.line) for f in marked.findings if f.rule == "peer-scope"} == {
        ("peer-scope", 11), ("peer-scope", 13)}


def test_inline_asm_it_cannot_read_is_noted(tmp_path_factory: pytest.TempPathFactory) -> None:
    path = tmp_path_factory.mktemp("asm") / "a.py"
    path.write_text(
        "import triton\nimport triton.language as tl\n\n\n@triton.jit\ndef k(flag: '*i32'):\n"
        "    tl.inline_asm_elementwise('nanosleep.u32 100; mov.u32 $0, 0;', '=r', [], dtype=tl.int32,\n"
        "                              is_pure=False, pack=1)\n"
        "    tl.atomic_xchg(flag, 1, sem='release')\n")
    notes = lint_file(path).notes
    assert any("a.py:7: inline asm with side effects but no instruction the linter reads" in n for n in notes)


def test_a_call_that_was_not_inlined_is_followed(tmp_path_factory: pytest.TempPathFactory) -> None:
    path = tmp_path_factory.mktemp("call") / "c.py"
    path.write_text(
        "import triton\nimport triton.language as tl\n\n\n@triton.jit(noinline=True)\ndef signal(flag):\n"
        "    tl.atomic_xchg(flag, 1, sem='relaxed', scope='gpu')\n\n\n@triton.jit\ndef k(data: '*i32', flag: '*i32'):\n"
        "    tl.store(data, 1)\n    signal(flag)\n")
    report = lint_file(path)
    [f] = report.findings
    assert (f.rule, f.site.line, [fr.line for fr in f.site.via]) == ("relaxed-signal", 13, [7])
    atomic = next(e for e in report.kernels[0].events.events if e.kind == "atomic")
    assert (atomic.ptr.origin, atomic.ptr.root) == ("arg", "flag")  # the callee's argument is the caller's


def test_a_function_called_twice_reaches_each_callers_pointer(tmp_path_factory: pytest.TempPathFactory) -> None:
    path = tmp_path_factory.mktemp("twice") / "t.py"
    path.write_text(
        "import triton\nimport triton.language as tl\n\n\n@triton.jit(noinline=True)\ndef wait_then_reset(flag):\n"
        "    while tl.atomic_add(flag, 0, sem='acquire', scope='gpu') != 1:\n        pass\n    tl.store(flag, 0)\n\n\n"
        "@triton.jit\ndef k(a: '*i32', b: '*i32'):\n    wait_then_reset(a)\n    wait_then_reset(b)\n")
    report = lint_file(path)
    assert {(f.rule, f.site.line) for f in report.findings} == {("plain-reset", 14), ("plain-reset", 15)}
    spins = [e for e in report.kernels[0].events.events if e.kind == "spin"]
    assert [e.ptr.key for e in spins] == ["a", "b"]


def test_a_pointer_base_is_the_object_without_its_offsets() -> None:
    from litmus.lint.events import Pointer

    def base(key: str) -> str:
        return Pointer("table", "pads", key, False).base

    assert base("ptr([pads])+(pid.x*2)+range(0,2)") == base("ptr([pads])+(pid.x*2)+loop:r") == "ptr([pads])"
    assert base("ptr([pads+range(0,2)])+(pid.x*2)") == "ptr([pads+range(0,2)])"
    assert base("flag") == "flag"


GUARDED = '''
import triton
import triton.language as tl


@triton.jit
def g(flag: "*i32", data: "*fp32", n: "i32"):
    pid = tl.program_id(0)
    tl.store(data + pid, 1.0)
    if pid == 0 and n > 1:
        tl.atomic_xchg(flag, 1, sem="release", scope="sys")
    if pid < 2:
        tl.atomic_xchg(flag + 1, 1, sem="release", scope="sys")
'''


def test_an_if_on_one_program_id_runs_in_one_cta(tmp_path) -> None:
    path = tmp_path / "g.py"
    path.write_text(textwrap.dedent(GUARDED))
    events = lint_file(path).kernels[0].events.events
    assert [(e.kind, e.one_cta) for e in events] == [("store", False), ("atomic", True), ("atomic", False)]


ASM_VALUES = '''
import triton
import triton.language as tl


@triton.jit
def asm_values(flag: "*i32", counter: "*i32", out: "*i32"):
    tl.inline_asm_elementwise("st.global.release.sys.b32 [$1], $2; mov.u32 $0, 0;", "=r,l,r", [flag, 1],
                              dtype=tl.int32, is_pure=False, pack=1)
    ticket = tl.inline_asm_elementwise("atom.release.gpu.global.add.s32 $0, [$1], $2;", "=r,l,r", [counter, 1],
                                       dtype=tl.int32, is_pure=False, pack=1)
    tl.inline_asm_elementwise("atom.relaxed.gpu.global.add.s32 $0, [$1], $2;", "=r,l,r", [counter, 2],
                              dtype=tl.int32, is_pure=False, pack=1)
    tl.inline_asm_elementwise("atom.relaxed.sys.global.cas.b32 $0, [$1], $2, $3;", "=r,l,r,r", [flag, 0, 5],
                              dtype=tl.int32, is_pure=False, pack=1)
    tl.store(out, ticket)
    tl.inline_asm_elementwise(
        "{ .reg .u32 %r; .reg .pred %p; wait: ld.global.acquire.sys.b32 %r, [$1]; setp.ne.u32 %p, %r, $2; "
        "@%p bra wait; mov.u32 $0, %r; }", "=r,l,r", [flag, 7], dtype=tl.int32, is_pure=False, pack=1)
'''


def test_an_inline_asm_value_operand_is_the_constant_it_is_given(tmp_path) -> None:
    path = tmp_path / "asm_values.py"
    path.write_text(textwrap.dedent(ASM_VALUES))
    events = lint_file(path).kernels[0].events.events
    st, ticket, stat, cas = [e for e in events if e.kind in ("store", "atomic") and "inline asm" in e.via]
    assert (st.kind, st.sem, st.scope, st.value) == ("store", "release", "sys", 1)
    # the ticket's result is read (stored to out), the second add's is not
    assert (ticket.op, ticket.value, ticket.used) == ("add", 1, True) and (stat.value, stat.used) == (2, False)
    assert (cas.op, cas.expected, cas.value) == ("cas", 0, 5)
    [spin] = [e for e in events if e.kind == "spin"]
    assert (spin.op, spin.sem, spin.until) == ("load", "acquire", 7)
    # a scalar pointer argument of the asm is one address
    assert not st.ptr.vector


def test_an_event_under_an_if_inside_its_loop_runs_in_some_rounds(tmp_path) -> None:
    path = tmp_path / "rounds.py"
    path.write_text(textwrap.dedent('''
        import triton
        import triton.language as tl


        @triton.jit
        def rounds(flag: "*i32", n: "i32"):
            pid = tl.program_id(0)
            if n > 4:
                for i in range(n):
                    tl.store(flag, 1)
                    if i != pid:
                        tl.store(flag + 1, 1)
                    if pid == 0:
                        tl.store(flag + 2, 1)
    '''))
    events = lint_file(path).kernels[0].events.events
    # the if around the loop is not the loop's; one on program_id runs in every round of its CTA
    assert [(e.ptr.key, e.some_rounds) for e in events] == [("flag", False), ("flag+1", True), ("flag+2", False)]


TMA = '''
import triton
import triton.language as tl


@triton.jit
def tma_ticket(c: "*fp32", counter: "*i32", out: "*i32", M: "i32", BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    desc = tl.make_tensor_descriptor(c, shape=[M, BLOCK], strides=[BLOCK, 1], block_shape=[BLOCK, BLOCK])
    tile = desc.load([pid * BLOCK, 0])
    desc.store([pid * BLOCK, 0], tile + 1.0)
    ticket = tl.atomic_add(counter, 1, sem="release", scope="gpu")
    tl.store(out + pid, ticket)


LITMUS_LINT = {"tma_ticket": {"signature": {"BLOCK": 64}}}
'''


def test_a_tensor_descriptor_tile_is_the_ctas_data(tmp_path) -> None:
    # kraken's GEMM + reduce-scatter: `c_desc.store(...)` (TMA), then a scalar release ticket
    path = tmp_path / "tma.py"
    path.write_text(textwrap.dedent(TMA))
    report = lint_file(path)
    load, store = [e for e in report.kernels[0].events.events if e.via.startswith("tensor descriptor")]
    assert (load.kind, store.kind, store.ptr.root, store.ptr.key, store.ptr.vector) == (
        "load", "store", "c", "desc(c)", True)
    [f] = report.findings
    assert (f.rule, f.site.line, f.pattern) == ("block-publish", 12, "MP-block[nobar-release-sys]")
    assert "the tensor descriptor store at line 11" in f.message and "asynchronous" in f.fix
