"""The kernels the backends run are checked against the audited kernel, op by op."""

from __future__ import annotations

import pytest

from litmus.audit.batch import audit_cell
from litmus.audit.run_kernels import compare_kernels, compare_run_kernels
from litmus.codegen import compile_variant
from litmus.codegen.options import RUN_KERNELS
from litmus.spec import find_pattern


def _mp(variant: str):
    [test] = find_pattern(f"MP[{variant}]")
    return test


def test_the_run_kernels_compile_every_op_as_the_audited_kernel_does() -> None:
    comparisons = compare_run_kernels(_mp("relaxed-xcta-gpu"), "cuda:90")  # x plainly, after a relaxed read
    assert [c.kernel for c in comparisons] == list(RUN_KERNELS) + [f"{k}+warm" for k in RUN_KERNELS]
    assert [c.status for c in comparisons] == ["same"] * 2 * len(RUN_KERNELS), comparisons


def test_a_test_without_plain_loads_has_no_warm_kernels() -> None:
    [sb] = find_pattern("SB[relaxed-sys]")  # relaxed loads only
    assert [c.kernel for c in compare_run_kernels(sb, "cuda:90")] == list(RUN_KERNELS)


def test_a_warm_load_merged_into_a_later_load_is_a_difference(monkeypatch) -> None:
    # as a default plain load (not ld.global.ca), LLVM merges the load after the fence into it;
    # a warm load ahead of a fence is what a thread with branches gets (litmus.codegen.warm)
    import litmus.codegen.ops as ops
    import litmus.codegen.warm as warm_mod

    real = ops.Emitter.emit

    def plain_warm(self, ctx, index, ins):
        from dataclasses import replace

        from litmus.ir import Load
        return real(self, ctx, index, replace(ins, warm=False) if isinstance(ins, Load) else ins)

    monkeypatch.setattr(ops.Emitter, "emit", plain_warm)
    monkeypatch.setattr(warm_mod, "_warm_slot", lambda thread, read_index: 0)
    warm_mod.warmed.cache_clear()
    try:
        [test] = find_pattern("MP-iris-volatile[volatile-fence]")
        warm = [c for c in compare_run_kernels(test, "cuda:90") if c.kernel.endswith("+warm")]
    finally:
        warm_mod.warmed.cache_clear()
    assert warm and any(c.status == "differs" for c in warm), warm


def test_targets_no_backend_launches_on_have_no_run_kernels_to_compare() -> None:
    assert compare_run_kernels(_mp("relcas-xgpu-sys"), "hip:gfx942") == []


def test_a_weakened_release_in_the_run_kernel_is_a_difference() -> None:
    from dataclasses import replace

    from litmus.codegen.compiler import CompiledKernel

    test = _mp("relcas-xgpu-sys")
    audited = compile_variant(test, "cuda:90")
    run = compile_variant(test, "cuda:90", RUN_KERNELS["parallel"])
    weak = replace(run, kernels=tuple(
        CompiledKernel(k.name, {**k.asm, "ptx": k.asm["ptx"].replace("release.sys.cas", "relaxed.sys.cas")})
        for k in run.kernels))
    got = compare_kernels(test, "ptx", audited, weak, "parallel")
    assert got.status == "differs"
    assert any(d.startswith("P0[1]: only in the audited kernel: atom.b32.cas.global.release.sys; "
                            "only in the parallel kernel: atom.b32.cas.global.relaxed.sys") for d in got.differences), got
    assert any("rmw cas release sys" in d and "the parallel kernel misses it" in d for d in got.differences), got
    assert compare_kernels(test, "ptx", audited, run, "parallel").status == "same"


def test_a_difference_makes_the_audit_cell_fail(monkeypatch: pytest.MonkeyPatch) -> None:
    import litmus.audit.batch as batch
    from litmus.audit.run_kernels import KernelComparison

    monkeypatch.setattr(batch, "compare_run_kernels",
                        lambda test, target: [KernelComparison("parallel", "differs", ("op: a vs b",))])
    cell = audit_cell(_mp("relacq-xgpu-sys"), "cuda:90")
    assert cell.result.status == "pass" and cell.status == "differs"
    assert audit_cell(_mp("relacq-xgpu-sys"), "cuda:90", run_kernels=False).status == "pass"


def test_a_run_kernel_that_does_not_compile_fails_the_audit(monkeypatch: pytest.MonkeyPatch) -> None:
    import litmus.codegen as codegen
    from litmus.errors import LitmusError

    real = codegen.compile_variant

    def broken(test, target, options=None, *args, **kwargs):
        if options is not None and options.mode == "parallel":
            raise LitmusError("triton could not compile kernel litmus_parallel: at 47:14")
        return real(test, target, options, *args, **kwargs)

    monkeypatch.setattr(codegen, "compile_variant", broken)
    got = {c.kernel: c for c in compare_run_kernels(_mp("relcas-xgpu-sys"), "cuda:90")}
    assert got["grid"].status == "same"
    assert got["parallel"].status == "differs"
    assert got["parallel"].differences == (
        "the parallel kernel does not compile: triton could not compile kernel litmus_parallel: at 47:14",)


def test_a_warmed_tests_requirements_are_named_as_the_tests_own() -> None:
    from litmus.audit.requirements import requirements
    from litmus.audit.run_kernels import _names_in
    from litmus.codegen.warm import warmed

    test = _mp("relaxed-xcta-gpu")  # the reader P1 loads x plainly after its relaxed flag read: one warm load
    names = _names_in(test, warmed(test))
    assert sorted(n for n in names.values() if n is not None) == sorted(r.describe() for r in requirements(test))
    assert list(names.values()).count(None) == 1
