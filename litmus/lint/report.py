"""The text report of ``litmus lint``: one block per finding, then notes and limits."""

from __future__ import annotations

import os

from litmus.lint.api import LIMITS, LintReport


def _short(text: str) -> str:
    """``text`` with the current directory's absolute path made relative (report lines stay short)."""
    cwd = os.getcwd().rstrip("/") + "/"
    return text.replace(cwd, "")


def render_text(report: LintReport) -> str:
    """The human-readable report: per finding the user's file:line, the rule, the catalog
    variant it matches with the model's verdict, and the fix; then what the linter could not see."""
    lines: list[str] = []
    for k in report.kernels:
        for f in k.findings:
            lines.append(f"{f.site}: {f.rule}: {f.message}")
            if f.site.via:
                lines.append("    in: " + " <- ".join(f"{fr.file.rsplit('/', 1)[-1]}:{fr.line}" for fr in f.site.via))
            lines.append(f"    pattern: {f.pattern} ({f.verdict.source_file.rsplit('/', 1)[-1]}); "
                         f"model (ptx): {f.verdict.words}")
            if f.verdict.why:
                lines.append(f"    why: {f.verdict.why}")
            lines += [f"    missing: {note}" for note in f.verdict.missing]
            lines.append(f"    fix: {f.fix}")
            if f.compiled_barrier is not None:
                has = "has a" if f.compiled_barrier else "has no"
                why = (" (the compiler's own, not asked for by the program: another version or target need not "
                       "emit it)") if f.compiled_barrier else ""
                lines.append(f"    compiled: the {report.target} code of triton {report.triton_version} {has} CTA "
                             f"barrier between them{why}")
    n = len(report.findings)
    bad = len(report.incorrect)
    kernels = ", ".join(k.name for k in report.kernels)
    lines.append(f"{report.file}: {len(report.kernels)} kernel(s) [{kernels}] for {report.target} "
                 f"(triton {report.triton_version}): {n} finding(s), {bad} the model calls incorrect")
    notes = report.notes
    if notes:
        lines.append("notes:")
        lines += [f"  {n}" for n in notes]
    lines.append("not seen by the linter:")
    lines += [f"  - {limit}" for limit in LIMITS]
    return _short("\n".join(lines) + "\n")
