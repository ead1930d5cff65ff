"""Reading the compiled code's .loc markers: is there a CTA barrier between a store and an atomic?"""

from __future__ import annotations

from litmus.lint.compiled import barrier_between
from tests.lint.conftest import line_of, linted

PTX = """
\t.loc\t1 38 9
\tst.global.b32 [ %rd4 + 0 ], { %r11 };
\t.loc\t1 39 9
\t{bar}
\t.loc\t1 41 9, function_name $L__info_string0, inlined_at 1 39 9
\t@%p3 atom.global.gpu.acq_rel.exch.b32 %r12, [ %rd5 + 0 ], %r13;
"""


def test_barrier_between_store_and_atomic() -> None:
    assert barrier_between(PTX.replace("{bar}", "bar.sync \t0;"), "ptx", {38}, {39}) is True
    assert barrier_between(PTX.replace("{bar}", ""), "ptx", {38}, {39}) is False  # found through inlined_at
    assert barrier_between(PTX.replace("{bar}", ""), "ptx", {37}, {39}) is None  # no such store


def test_amdgcn() -> None:
    text = ("\t.loc\t1 5 1\n\tglobal_store_dword v[0:1], v2, off\n\ts_barrier\n"
            "\t.loc\t1 6 1\n\tglobal_atomic_swap v0, v1, s[2:3]\n")
    assert barrier_between(text, "amdgcn", {5}, {6}) is True


def test_findings_say_what_the_compiled_code_does() -> None:
    # symm_mem's barrier signals from inline asm: no barrier in the code, the bug is live on cuda:90
    nopre = next(f for f in linted("symm_mem_barrier").findings if f.kernel == "pattern1_nopre")
    assert nopre.compiled_barrier is False
    # a scalar tl.atomic_xchg: the finding locates both lines in the PTX and says what it found
    lock = linted("tritonbench_lock").findings[0]
    assert lock.site.line == line_of("tritonbench_lock", "lock-xchg") and lock.compiled_barrier is not None
