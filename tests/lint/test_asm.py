"""Inline PTX in tl.inline_asm_elementwise: which memory operations, which sem/scope, loops."""

from __future__ import annotations

from litmus.lint.asm import summarize

SEND = (r"\0A{\0A .reg .u32 %tmp32_<1>;\0A send_signal:\0A atom.global.release.sys.cas.b32 %tmp32_0, [$1], 0, 1;"
        r"\0A setp.eq.u32 %p0, %tmp32_0, 0;\0A @!%p0 bra send_signal;\0A}")


def test_cas_spin_in_asm() -> None:
    s = summarize(SEND)
    assert s.loops
    [a] = s.accesses
    assert (a.kind, a.op, a.sem, a.scope, a.expected, a.value) == ("atomic", "cas", "release", "sys", 0, 1)


def test_defaults_and_other_instructions() -> None:
    s = summarize("atom.global.sys.cas.b32 %r, [$1], 1, 0; ld.acquire.sys.global.u32 $0, [$1]; "
                  "st.volatile.global.u32 [$1], 1; fence.acq_rel.gpu; membar.sys; bar.sync 0; ld.global.u32 $0, [$1];")
    kinds = [(a.kind, a.op, a.sem, a.scope, a.volatile) for a in s.accesses]
    assert kinds == [
        ("atomic", "cas", "relaxed", "sys", False),  # atom without a sem is relaxed
        ("load", "", "acquire", "sys", False),
        ("store", "", "relaxed", "sys", True),  # volatile = relaxed.sys
        ("fence", "", "acq_rel", "gpu", False),
        ("fence", "", "sc", "sys", False),
        ("barrier", "", "relaxed", "gpu", False),
        ("load", "", "weak", "sys", False),  # a plain ld is weak
    ]
    assert not s.loops


def test_a_forward_branch_is_no_loop() -> None:
    assert not summarize("@p bra done; atom.global.add.u32 %r, [$1], 1; done:").loops


def test_each_access_names_the_operand_of_its_address() -> None:
    s = summarize(r"send:\0A atom.global.release.sys.cas.b32 %t, [$1], 0, 1;\0A @!%p bra send;\0A"
                  r"wait:\0A atom.global.sys.cas.b32 %t, [ $2 ], 1, 0;\0A @!%p bra wait;\0A bar.sync 0;")
    assert [(a.kind, a.operand) for a in s.accesses] == [("atomic", 1), ("atomic", 2), ("barrier", None)]
    [ld] = summarize("ld.acquire.sys.global.u32 $0, [$1];").accesses
    assert (ld.kind, ld.sem, ld.operand) == ("load", "acquire", 1)


def test_a_value_taken_from_an_operand_names_it() -> None:
    # Triton-distributed's builders pass the value as an operand: `st(ptr, 1)` is `[$1], $2`
    [st] = summarize("st.global.release.sys.b32 [$1], $2; mov.u32 $0, 0;").accesses
    assert (st.kind, st.value, st.value_operand) == ("store", None, 2)
    [add] = summarize("atom.release.gpu.global.add.s32 $0, [$1], $2;").accesses
    assert (add.op, add.value, add.value_operand) == ("add", None, 2)
    [cas] = summarize("atom.acquire.sys.global.cas.b32 $0, [$1], $2, $3;").accesses
    assert (cas.expected, cas.value, cas.expected_operand, cas.value_operand) == (None, None, 2, 3)
    [lit] = summarize("st.global.release.sys.b32 [$1], 1;").accesses
    assert (lit.value, lit.value_operand) == (1, None)


def test_a_load_loop_exits_at_the_value_its_setp_compares() -> None:
    s = summarize(r"wait:\0A ld.acquire.sys.global.u32 %r0, [$1];\0A setp.ne.u32 %p0, %r0, $2;\0A @%p0 bra wait;")
    [ld] = s.accesses
    assert s.loops and (ld.until, ld.until_operand) == (None, 2)
    [ld] = summarize(r"w:\0A ld.volatile.global.u32 %r, [$1];\0A setp.eq.u32 %p, 1, %r;\0A @!%p bra w;").accesses
    assert (ld.until, ld.until_operand) == (1, None)
    # a setp on another register says nothing of the load
    [ld] = summarize(r"w:\0A ld.volatile.global.u32 %r, [$1];\0A setp.eq.u32 %p, %q, 1;\0A @!%p bra w;").accesses
    assert (ld.until, ld.until_operand) == (None, None)
