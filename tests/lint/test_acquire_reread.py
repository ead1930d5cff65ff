"""The acquire-reread rule: a plain re-read, after an inline-asm acquire, of an address read
before it is found (and the forms the compiler keeps are not), and the installed Triton's
compiled code really has one load where the kernel has two (docs/compiler-bugs/ptxas-report.md)."""

from __future__ import annotations

import re

import pytest

from tests.lint.conftest import kernel_file, line_of, linted

NAME = "acquire_reread"
BROKEN = ("reread_ldacq", "reread_block", "reread_after_spin", "reread_asm_fence")
KEPT = ("reread_volatile", "reread_atomic_acquire", "reread_barrier", "reread_store_between", "read_other_address")


def test_each_reread_after_an_inline_asm_acquire_is_found() -> None:
    found = {(f.rule, f.kernel, f.site.line, f.pattern) for f in linted(NAME).findings}
    assert found == {
        ("acquire-reread", "reread_ldacq", line_of(NAME, "reread"), "MP-reread[plain-ldacq-plain]"),
        ("acquire-reread", "reread_block", line_of(NAME, "block-reread"), "MP-reread[plain-ldacq-plain]"),
        ("acquire-reread", "reread_after_spin", line_of(NAME, "spin-reread"), "MP-reread[plain-ldacq-plain]"),
        ("acquire-reread", "reread_asm_fence", line_of(NAME, "fence-reread"), "MP-reread[plain-fence-plain]"),
    }


def test_the_finding_names_ptxas_the_reads_and_the_safe_rewrite() -> None:
    f = next(f for f in linted(NAME).findings if f.kernel == "reread_ldacq")
    assert [s.line for s in f.related] == [line_of(NAME, "first"), line_of(NAME, "acquire")]
    assert "ptxas 11.8 to 13.5" in f.message and "`ld.acquire`" in f.message
    assert "tl.load(p, volatile=True)" in f.fix and "tl.debug_barrier()" in f.fix
    # the model calls the program correct: the compiled code is what is wrong, and the exit status
    # stays the model's (docs/lint.md)
    assert not f.incorrect and f.verdict.words == "bug outcome forbidden"
    spin = next(f for f in linted(NAME).findings if f.kernel == "reread_after_spin")
    assert "spin loop" in spin.message and "triton 3.8 and 3.9" in spin.message


def loads(kernel: str) -> tuple[int, int]:
    """Weak and strong global loads in the SASS the installed Triton makes of ``kernel`` (cuda:90)."""
    from litmus.codegen.compiler import compile_jit
    from litmus.codegen.targets import parse_target
    from litmus.lint.load import import_file, kernels_of
    from litmus.lint.signature import kernel_signature

    path = kernel_file(NAME)
    k = next(k for k in kernels_of(import_file(path), path) if k.name == kernel)
    sig = kernel_signature(k.fn, k.signature)
    sass = compile_jit(k.fn, sig.types, parse_target("cuda:90"), sig.constexprs, sass=True).get("sass")
    if sass is None:
        pytest.skip("no nvdisasm or cuobjdump runs here")
    ldg = [line for line in sass.splitlines() if re.search(r"\bLDG\b", line) and "CONSTANT" not in line]
    strong = len([line for line in ldg if "STRONG" in line])
    return len(ldg) - strong, strong


@pytest.mark.parametrize("kernel", BROKEN + KEPT)
def test_the_compiled_code_is_what_the_rule_says(kernel: str) -> None:
    import triton

    new = tuple(int(p) for p in triton.__version__.split(".")[:2]) >= (3, 8)
    # the kernel's weak reads of data (or of `other`): one stays where the compiler merged two
    written = {"reread_volatile": 1}.get(kernel, 2)
    merged = kernel in ("reread_ldacq", "reread_block") or (new and kernel in BROKEN)
    weak, strong = loads(kernel)
    assert weak == (written - 1 if merged else written)
    if kernel == "reread_volatile":  # its re-read is strong, next to the flag's ld.acquire
        assert strong == 2
