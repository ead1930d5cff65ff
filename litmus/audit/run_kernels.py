"""The audited code must be what runs: the kernels the run backends launch, checked against the
audited kernel, for the targets they launch on (CUDA: PTX).

``litmus audit`` audits each variant's plain kernel (codegen's defaults).  The ``cuda`` backend
launches other kernels built from the same ops: grid mode with the run harness (pre-stress and a
start barrier), and parallel mode (every program plays every role).  Each of those is compiled
for the same target and compared op by op through the line table: it *differs* when some op
compiled to other ordering-relevant instructions (say ``atom.release.sys`` in one and
``atom.relaxed.sys`` in the other), or when it misses a requirement the audited kernel meets.
A CTA barrier the compiler merged into an adjacent barrier op is not a difference, nor is a plain
access that one kernel kept and the other merged with a same-location access of its thread
(:func:`litmus.audit.op_code.compare_op_code`).

An environment with ``warm_reads`` launches the warmed test (:mod:`litmus.codegen.warm`: a plain load
of every location a thread reads plainly, ahead of that read). Its kernels (``grid+warm``, ...) are
compared with the warmed test's audited kernel, which must meet every requirement of the test's.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from litmus.audit.check import _kind_and_codegen_target, compiled_text, match_text, mergeable_plain_ops
from litmus.audit.op_code import compare_op_code, op_code, op_order
from litmus.audit.requirements import requirements
from litmus.codegen.compiler import Compiled
from litmus.codegen.options import AUDITED_KERNEL, RUN_KERNELS, CodegenOptions
from litmus.codegen.warm import original_index, warmed
from litmus.errors import LitmusError, UnsupportedError
from litmus.ir import LitmusTest


@dataclass(frozen=True)
class KernelComparison:
    """One run kernel against the audited kernel: ``same``, ``differs`` or ``unsupported``."""

    kernel: str  # a name of RUN_KERNELS; "+warm": that kernel of the warmed test (litmus.codegen.warm)
    status: str
    differences: tuple[str, ...] = field(default=())
    reason: str = ""


def compare_kernels(test: LitmusTest, kind: str, audited: Compiled, run: Compiled, kernel: str) -> KernelComparison:
    """Compare run kernel ``kernel`` with the audited kernel, both compiled for audit ``kind``.

    They differ when some op compiled to other ordering-relevant instructions
    (:mod:`litmus.audit.op_code`), or when the run kernel misses a requirement the audited
    kernel meets.
    """
    a_text, r_text = compiled_text(audited, kind), compiled_text(run, kind)
    diffs = compare_op_code(op_code(a_text, kind, audited.source.text), op_code(r_text, kind, run.source.text),
                            kernel, op_order(run.source.text), mergeable_plain_ops(test))
    had = {f.op for f in match_text(test, kind, a_text, audited.source.text)[1]}
    diffs += [f"{f.op}: the {kernel} kernel misses it (expected {f.expected}); the audited kernel has it"
              for f in match_text(test, kind, r_text, run.source.text)[1] if f.op not in had]
    return KernelComparison(kernel, "differs" if diffs else "same", tuple(diffs))


def compare_run_kernels(test: LitmusTest, target: str,
                        kernels: dict[str, CodegenOptions] | None = None) -> list[KernelComparison]:
    """Compile ``test``'s run kernels (default: every entry of :data:`RUN_KERNELS`) and the
    audited kernel for ``target`` and compare each run kernel with the audited one."""
    from litmus.codegen import compile_variant

    kind, codegen_target = _kind_and_codegen_target(target)
    kernels = kernels or RUN_KERNELS
    if kind != "ptx":  # the backends launch CUDA kernels only: elsewhere there is nothing to compare
        return []
    try:
        audited = compile_variant(test, codegen_target, AUDITED_KERNEL)
    except (UnsupportedError, LitmusError) as exc:
        return [KernelComparison(k, "unsupported", reason=str(exc)) for k in kernels]
    out = _compare_each(test, kind, codegen_target, audited, kernels, "")
    warm = warmed(test)
    if warm is not test:  # a warm_reads environment launches the warmed test (litmus.codegen.warm)
        try:
            warm_audited = compile_variant(warm, codegen_target, AUDITED_KERNEL)
        except (UnsupportedError, LitmusError) as exc:
            return out + [KernelComparison(f"{k}+warm", "differs", (f"the warmed test does not compile: {exc}",))
                          for k in kernels]
        had = {g.op for g in match_text(test, kind, compiled_text(audited, kind), audited.source.text)[1]}
        names = _names_in(test, warm)
        lost = [f"{op}: the warmed test's kernel misses it (expected {f.expected}); the audited kernel has it"
                for f in match_text(warm, kind, compiled_text(warm_audited, kind), warm_audited.source.text)[1]
                for op in [names.get(f.op, f.op)] if op is not None and op not in had]
        out += [replace(c, status="differs", differences=c.differences + tuple(lost)) if lost else c
                for c in _compare_each(warm, kind, codegen_target, warm_audited, kernels, "+warm")]
    return out


def _names_in(test: LitmusTest, warm: LitmusTest) -> dict[str, str | None]:
    """Each requirement of the warmed test, as the audit names it, to the same op's name in
    ``test`` (None: a warm load, which ``test`` does not have)."""
    names: dict[str, str | None] = {}
    for r in requirements(warm):
        k = original_index(warm.thread(r.thread), r.instr_index)
        names[r.describe()] = None if k is None else replace(r, instr_index=k).describe()
    return names


def _compare_each(test: LitmusTest, kind: str, codegen_target: str, audited: Compiled,
                  kernels: dict[str, CodegenOptions], suffix: str) -> list[KernelComparison]:
    """Each of ``kernels`` of ``test`` compiled and compared with ``audited`` (names + ``suffix``)."""
    from litmus.codegen import compile_variant

    out = []
    for name, options in kernels.items():
        label = name + suffix
        try:
            out.append(compare_kernels(test, kind, audited, compile_variant(test, codegen_target, options), label))
        except UnsupportedError as exc:
            out.append(KernelComparison(label, "unsupported", reason=str(exc)))
        except LitmusError as exc:
            # the audited kernel compiled and this one did not: the backend cannot run the variant
            first = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
            out.append(KernelComparison(label, "differs", (f"the {label} kernel does not compile: {first}",)))
    return out
