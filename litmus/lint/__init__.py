"""``litmus lint``: check a user's own ``@triton.jit`` kernels for signalling bugs on the CPU.

Pipeline (one module each): ``load`` (find the kernels of a file) -> ``signature`` (argument
types) -> ``compile`` (TTIR on the CPU) -> ``ttir`` (read the MLIR) -> ``events`` (flags,
spins, fences, barriers, pointer provenance) -> ``rules`` (findings, each the catalog variant
it matches, with ``verdicts`` from the model) -> ``report`` (text) / ``emit`` (litmus YAML);
``api`` ties them together and ``command`` is the CLI.  See docs/lint.md.
"""

from litmus.lint.api import LIMITS, KernelReport, LintReport, lint_file, lint_kernel
from litmus.lint.rules import RULES, Finding

__all__ = ["LIMITS", "RULES", "Finding", "KernelReport", "LintReport", "lint_file", "lint_kernel"]
