"""Code generation options, and the Triton features the generated source may rely on."""

from __future__ import annotations

from dataclasses import dataclass, field, replace

BACKENDS: tuple[str, ...] = ("cuda", "hip", "interpreter")
MODES: tuple[str, ...] = ("grid", "rank", "parallel")
ADDRESSINGS: tuple[str, ...] = ("loc_major", "interleaved")
SHARED_CTA_ORDERS: tuple[str, ...] = ("sequential", "round_robin")


@dataclass(frozen=True)
class Features:
    """Which optional ``triton.language`` APIs the generated source may call."""

    atomic_load: bool = False  # tl.atomic_load(ptr, mask, sem, scope)
    atomic_store: bool = False  # tl.atomic_store(ptr, val, mask, sem, scope)
    inline_asm: bool = True  # tl.inline_asm_elementwise (never under the interpreter)


def detect_features() -> Features:
    """The features of the installed triton (imports ``triton.language``)."""
    import triton.language as tl

    return Features(
        atomic_load=hasattr(tl, "atomic_load"),
        atomic_store=hasattr(tl, "atomic_store"),
        inline_asm=hasattr(tl, "inline_asm_elementwise"),
    )


@dataclass(frozen=True)
class CodegenOptions:
    """How to turn one litmus test into Triton source.

    ``backend``: ``cuda`` (NVIDIA inline PTX allowed), ``hip`` or ``interpreter`` (no inline asm).
    ``mode``: ``grid`` (one kernel, every thread, ranks played by program groups), ``rank``
    (one kernel per rank holding only that rank's threads) or ``parallel`` (one kernel whose
    every program plays every role, with striped instances and a loop over iterations; see
    "Parallel mode" in docs/codegen.md).
    ``block``: instances per program (vector lanes per litmus thread); a power of two.
    ``addressing``: ``loc_major`` (location ``l`` of instance ``i`` at word ``l*stride + i``) or
    ``interleaved`` (at ``i*n_slots + l``: the locations of one instance share cache lines).
    ``spin_bound``: overrides every ``Spin.bound`` when set (the interpreter needs small bounds).
    ``shared_cta_order``: the one program order in which the ops of threads that share a CTA
    are emitted: ``sequential`` (all of the first thread, then the next; when the threads use
    the same number of CTA barriers, thread after thread between barriers, each barrier once,
    so barrier k is where every thread's k-th barrier is) or ``round_robin``.
    ``features``: the triton APIs to use; ``None`` means those of the installed triton.
    ``harness``: emit the run harness's per-program pre-stress and start barrier before the
    test's ops (:mod:`litmus.codegen.harness`); the kernels then read a control block at
    ``heap_ptrs[n_ranks]``.
    ``quiesce``: in a test that declares ``may_hang``, spins need not run to their bound once
    the hang is certain (see "Quiescent hangs" in docs/codegen.md): a conformance variant's
    spins prove the hang (status ``HUNG_BIT``), a hunting variant's give up once every other
    thread of the instance has finished (their timeout bit); either gives up after
    ``QUIET_STALL`` checks that saw nothing of the instance change (a timeout).
    ``quick_hangs``: with ``quiesce``, end a certain hang in as few reads as possible: every
    variant proves its hangs (a proven hang is an ended instance) and a spin checks at every
    read (``litmus.codegen.ops.QUICK_QUIET``).  For the cpu backend, where one read of a spin is
    a pass of Python over every lane; on a GPU the fences of a proof change what a hunting
    variant shows, and a check every read slows every spin.
    ``role_rotation``: in parallel mode, program ``pid`` plays the roles starting from role
    ``(pid + it) % R`` in iteration ``it`` (``R`` roles, a cyclic rotation of their order)
    instead of all programs playing them in one order; tests with spins keep the one order (a
    rotation could put a spin ahead of the write it waits for).
    """

    backend: str = "cuda"
    mode: str = "grid"
    block: int = 128
    addressing: str = "loc_major"
    spin_bound: int | None = None
    shared_cta_order: str = "sequential"
    features: Features | None = field(default=None)
    harness: bool = False
    quiesce: bool = False
    quick_hangs: bool = False
    role_rotation: bool = False

    def __post_init__(self) -> None:
        for name, value, allowed in (
            ("backend", self.backend, BACKENDS),
            ("mode", self.mode, MODES),
            ("addressing", self.addressing, ADDRESSINGS),
            ("shared_cta_order", self.shared_cta_order, SHARED_CTA_ORDERS),
        ):
            if value not in allowed:
                raise ValueError(f"CodegenOptions.{name}={value!r}: use one of {', '.join(allowed)}")
        if self.block < 1 or self.block & (self.block - 1):
            raise ValueError(f"CodegenOptions.block={self.block}: use a power of two (tl.arange needs one)")
        if self.spin_bound is not None and self.spin_bound < 1:
            raise ValueError(f"CodegenOptions.spin_bound={self.spin_bound}: use a positive bound")

    def resolved_features(self) -> Features:
        """``features``, or the installed triton's; the interpreter never gets inline asm."""
        feats = self.features if self.features is not None else detect_features()
        if self.backend != "cuda":
            # Inline asm is PTX text: only NVIDIA takes it; the interpreter raises on it.
            feats = replace(feats, inline_asm=False)
        return feats

    def with_backend(self, backend: str) -> "CodegenOptions":
        """A copy for another backend."""
        return replace(self, backend=backend)


RUN_BLOCK = 256
"""Lanes per program of the kernels the ``cuda`` backend launches (its default ``block``)."""

AUDITED_KERNEL = CodegenOptions(mode="grid", block=RUN_BLOCK)
"""The kernel ``litmus audit`` checks on targets a backend runs on (CUDA): grid mode without the
run harness, at the run block size, so the run kernels differ from it only by the harness and the
launch mode.  Targets litmus only audits (HIP) keep codegen's default block: triton 3.6 cannot
compile some shared-CTA kernels for gfx942 at 512 lanes."""


def audited_kernel(backend: str) -> CodegenOptions:
    """The options of the kernel ``litmus audit`` checks for a ``cuda`` or ``hip`` target."""
    return AUDITED_KERNEL if backend == "cuda" else CodegenOptions()

RUN_KERNELS: dict[str, CodegenOptions] = {
    "grid": CodegenOptions(mode="grid", block=RUN_BLOCK, harness=True, quiesce=True),
    "parallel": CodegenOptions(mode="parallel", block=RUN_BLOCK, harness=True, quiesce=True),
    "parallel-rotated": CodegenOptions(mode="parallel", block=RUN_BLOCK, harness=True, quiesce=True,
                                       role_rotation=True),
}
"""The kernels the ``cuda`` backend launches, by launch (``Stress.launch``, and
``Stress.role_rotation`` in parallel launch): the backend takes these options and sets only the
block (when asked for another) and the spin bound, so ``litmus audit`` compiles and checks the
very kernels that run (``litmus.audit.run_kernels``).  A test with spins gets the same source
from both parallel entries (it never rotates), which the compile cache compiles once."""


def run_kernel(launch: str, role_rotation: bool = False) -> str:
    """The name in :data:`RUN_KERNELS` of the kernel an environment launches."""
    return "parallel-rotated" if launch == "parallel" and role_rotation else launch
