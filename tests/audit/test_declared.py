"""litmus.audit.declared: which runs execute a declared miscompile, and which forbidden outcomes it explains;
and the verdict of a run that shows one (litmus.session.declared_or_violation)."""

from __future__ import annotations

from pathlib import Path

import pytest

from litmus.audit.declared import (DECLARED_MISCOMPILE, INTERPRETER, Toolchain, declared_miscompile, merged_program,
                                   ptxas_version)
from litmus.classify import Bin, Verdict
from litmus.ir import Compute, Reg
from litmus.session import declared_or_violation
from litmus.spec import load_paths

CATALOG = Path(__file__).resolve().parents[2] / "catalog"

TRITON_36 = Toolchain("3.6.0", "12.8.93")  # inside the catalog's "<3.9" (ptxas merge, target sass)
TRITON_38 = Toolchain("3.8.0", "12.8.93")  # also inside ">=3.8,<3.9" (triton's own merge, target cuda)
TRITON_39 = Toolchain("3.9.0", "12.9.86")  # outside both

MERGED = {"P1:r0": 1, "P1:r1": 0, "P1:r2": 0, "flag": 1, "x": 1}
OTHER = {"P1:r0": 1, "P1:r1": 1, "P1:r2": 0, "flag": 1, "x": 1}


@pytest.fixture(scope="module")
def tests() -> dict[str, object]:
    return {t.id: t for t in load_paths([CATALOG / "mp_reread.yaml", CATALOG / "seqlock.yaml"])}


@pytest.mark.parametrize(("toolchain", "ops"), [(TRITON_36, "P1 #2 on sass"),
                                                (TRITON_38, "P1 #2 on ptx, P1 #2 on sass"), (TRITON_39, None)])
def test_a_declaration_applies_where_its_triton_range_covers_the_toolchain(tests, toolchain, ops) -> None:
    declared = declared_miscompile(tests["MP-reread[plain-ldacq-plain]"], "cuda", toolchain)
    assert (declared.ops() if declared else None) == ops


@pytest.mark.parametrize(("backend", "device"), [("cpu", ""), ("ranks", f"cpu ({INTERPRETER})"), ("model", "")])
def test_the_interpreter_compiles_nothing_so_no_declaration_applies(tests, backend, device) -> None:
    assert declared_miscompile(tests["MP-reread[plain-ldacq-plain]"], backend, TRITON_36, device) is None


def test_ranks_on_gpus_execute_the_compiled_code(tests) -> None:
    assert declared_miscompile(tests["MP-reread[plain-ldacq-plain]"], "ranks", TRITON_36, "NVIDIA H100") is not None


def test_the_model_says_which_forbidden_outcomes_the_merge_can_show(tests) -> None:
    shows = declared_miscompile(tests["SEQLOCK[plain-nofence-sys]"], "cuda", TRITON_36)
    hidden = declared_miscompile(tests["SEQLOCK[plain-nofence-gpu]"], "cuda", TRITON_36)
    assert shows is not None and shows.visible is True
    # gpu scope across GPUs already allows every stale read: the miscompile cannot show
    assert hidden is not None and hidden.visible is False
    reread = declared_miscompile(tests["MP-reread[plain-ldacq-plain]"], "cuda", TRITON_36)
    assert reread.explains(MERGED) and not reread.explains(OTHER)


def test_the_merged_program_copies_the_earlier_load(tests) -> None:
    merged = merged_program(tests["MP-reread[plain-ldacq-plain]"], "P1 #2")
    copy = merged.threads[1].instrs[2]
    assert isinstance(copy, Compute) and (copy.dst, copy.op, copy.a) == ("r2", "mov", Reg("r1"))
    assert merged_program(tests["MP-reread[plain-ldacq-plain]"], "P1 #1") is None  # the flag: no earlier load
    assert merged_program(tests["MP-reread[plain-ldacq-plain]"], "rmw cas release sys") is None


class _Backend:
    def __init__(self, name: str, device: str = "NVIDIA H100 80GB HBM3") -> None:
        self.name, self.device = name, device

    def describe(self) -> dict[str, str]:
        return {"device": self.device}


def _verdict(name: str, *forbidden: dict[str, int]) -> Verdict:
    bins = tuple(Bin(state=tuple(sorted(s.items())), count=1, label="forbidden", target=True) for s in forbidden)
    return Verdict(name, "Sometimes", 1000, len(forbidden), {"forbidden": len(forbidden)}, bins, 0.001, None,
                   notes=("a note",))


def _verdict_of(test, verdict: Verdict, backend: str, toolchain: Toolchain) -> str:
    return declared_or_violation(test, verdict, _Backend(backend), toolchain).verdict


def test_the_verdict_of_a_violation_the_declaration_explains(tests) -> None:
    test = tests["MP-reread[plain-ldacq-plain]"]
    seen = declared_or_violation(test, _verdict("VIOLATION", MERGED), _Backend("cuda"), TRITON_36)
    assert seen.verdict == DECLARED_MISCOMPILE
    assert seen.notes[0] == "a note" and seen.notes[1].startswith("declared miscompile (")
    assert _verdict_of(test, _verdict("VIOLATION", MERGED, OTHER), "cuda", TRITON_36) == "VIOLATION"
    assert _verdict_of(test, _verdict("VIOLATION", MERGED), "cuda", TRITON_39) == "VIOLATION"
    assert _verdict_of(test, _verdict("VIOLATION", MERGED), "cpu", TRITON_36) == "VIOLATION"
    assert _verdict_of(test, _verdict("correct"), "cuda", TRITON_36) == "correct"


def test_the_reason_names_the_bug_the_versions_and_the_doc(tests) -> None:
    reason = declared_miscompile(tests["MP-reread[plain-ldacq-plain]"], "cuda", TRITON_36).reason()
    assert reason.startswith("declared miscompile (") and "mp_reread.yaml:" in reason
    assert "P1 #2 on sass with triton 3.6.0, ptxas 12.8.93 (declared for triton <3.9)" in reason
    assert "docs/compiler-bugs.md" in reason


def test_ptxas_version_reads_the_release_line(tmp_path) -> None:
    fake = tmp_path / "ptxas"
    fake.write_text("#!/bin/sh\necho 'ptxas: NVIDIA (R) Ptx optimizing assembler'\n"
                    "echo 'Cuda compilation tools, release 12.8, V12.8.93'\n")
    fake.chmod(0o755)
    assert ptxas_version(fake) == "12.8.93"
    assert ptxas_version(tmp_path / "missing") is None
