"""The linter reads every kernel litmus itself generates: one variant of each catalog pattern,
compiled through the same path as a user's file, without an error."""

from __future__ import annotations

from litmus.codegen import generate, load_kernel
from litmus.codegen.layout import KERNEL_SIGNATURE
from litmus.codegen.options import CodegenOptions
from litmus.errors import LitmusError
from litmus.ir import LitmusTest
from litmus.lint.api import LintReport, lint_kernels
from litmus.lint.load import FoundKernel
from litmus.spec import load_tests


def lint_generated(test: LitmusTest) -> LintReport:
    """Lint the kernels ``litmus.codegen`` generates for ``test`` (its calling convention as signature)."""
    options = CodegenOptions()
    source = generate(test, options)
    module = load_kernel(source, interpret=False)
    found = [FoundKernel(n, getattr(module, n), getattr(module, n).fn.__code__.co_filename, 1,
                         {**KERNEL_SIGNATURE, "BLOCK": options.block}) for n in source.kernel_names]
    return lint_kernels(found, found[0].file)


def test_one_generated_kernel_per_catalog_pattern_lints() -> None:
    by_pattern: dict[str, list[LitmusTest]] = {}
    for t in load_tests(["catalog"]):
        by_pattern.setdefault(t.name, []).append(t)
    spins = linted = wide = 0
    for variants in by_pattern.values():
        for t in variants:  # the first variant whose generated kernel Triton compiles
            try:
                report = lint_generated(t)
            except LitmusError as err:
                # a kernel Triton itself rejects is `unsupported` in the audit, not the linter's to read
                assert "could not compile kernel litmus_grid" in str(err), str(err)
                continue
            events = [e for k in report.kernels for e in k.events.events]
            assert any(e.kind in ("load", "store", "atomic", "spin") for e in events), t.id
            spins += any(e.kind == "spin" for e in events)
            wide += t.uses_widths()
            linted += 1
            break
    assert linted >= 20 and spins >= 5  # the spin patterns' generated loops are recognised
    assert wide >= 2  # TEAR and TEAR-bytes: kernels with 8-, 32- and 64-bit accesses lint too
