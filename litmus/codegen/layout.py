"""The calling convention of generated kernels: where each location, register and status bit lives.

Pure Python (no torch, no triton): the run package and the host helpers read it.
"""

from __future__ import annotations

from dataclasses import dataclass


# The kernel arguments, in order.  ``BLOCK`` is a ``tl.constexpr``.
KERNEL_ARGS: tuple[str, ...] = (
    "heap_ptrs",  # *i64 [n_ranks]: address of each rank's int32 heap (index = rank number)
    "out",  # *i32 [n_instances, n_cols], row-major: registers, then the status column
    "perm",  # *i64 [n_threads, 2]: (k_t, c_t) per thread in test order; instance = (j*k+c) % N
    "n_instances",  # i32 N = progs_per_role * BLOCK
    "progs_per_role",  # i32 P: programs playing each role (grid = n_roles * P)
    "loc_stride",  # i32: words between consecutive location slots of one instance
    "inst_stride",  # i32: words between the same slot of consecutive instances
    "BLOCK",  # constexpr: instances per program
)
KERNEL_SIGNATURE: dict[str, str] = {
    "heap_ptrs": "*i64",
    "out": "*i32",
    "perm": "*i64",
    "n_instances": "i32",
    "progs_per_role": "i32",
    "loc_stride": "i32",
    "inst_stride": "i32",
    "BLOCK": "constexpr",
}
JIT_DECORATOR = ("@triton.jit(do_not_specialize=["
                 + ", ".join(repr(a) for a in KERNEL_ARGS if a != "BLOCK") + "])")
"""The decorator of every generated kernel.  No argument is specialised on its value (``== 1``,
divisible by 16), so one compiled kernel serves every round size, stride and buffer of a
variant, and it is the kernel the audit compiles from ``KERNEL_SIGNATURE`` (no attributes)."""


@dataclass(frozen=True)
class LocationSlot:
    """Location ``name`` occupies slot ``slot`` of the heap of rank ``home``."""

    name: str
    slot: int
    home: int
    init: int


@dataclass(frozen=True)
class SpinSlot:
    """Spin number ``bit`` (status bit ``1 << bit``): instruction ``index`` of ``thread``."""

    thread: str
    index: int
    bit: int
    loc: str


@dataclass(frozen=True)
class KernelEntry:
    """One ``@triton.jit`` function of the module.

    ``roles[g]`` are the threads played by programs ``[g*P, (g+1)*P)``; a role with several
    threads is a shared CTA (lanes ``[s*BLOCK, (s+1)*BLOCK)`` play its ``s``-th thread).
    ``rank`` is the rank whose process launches it (``None``: grid mode, one launch for all).
    ``parallel``: parallel mode, where every one of the ``P`` programs plays every role.
    """

    name: str
    rank: int | None
    roles: tuple[tuple[str, ...], ...]
    parallel: bool = False

    def grid(self, progs_per_role: int) -> tuple[int]:
        """The launch grid for ``progs_per_role`` programs per role (parallel mode: ``P`` in all)."""
        return (progs_per_role,) if self.parallel else (len(self.roles) * progs_per_role,)


@dataclass(frozen=True)
class Layout:
    """Everything a host needs to launch the kernels and read the results back."""

    test_id: str
    mode: str
    block: int
    addressing: str
    n_ranks: int  # length of the heap pointer table (max rank + 1)
    locations: tuple[LocationSlot, ...]
    scratch_slot: int  # per-instance scratch word (fence fallback, masked-off CAS lanes)
    threads: tuple[str, ...]  # rows of ``perm``
    out_columns: tuple[str, ...]  # "P1:r0" ... then "status"
    observables: tuple[str, ...]  # outcome tuple keys: registers, then location names
    spins: tuple[SpinSlot, ...]
    kernels: tuple[KernelEntry, ...]

    @property
    def n_slots(self) -> int:
        """Words per instance in each heap (locations + scratch)."""
        return self.scratch_slot + 1

    @property
    def n_cols(self) -> int:
        """Columns of ``out``."""
        return len(self.out_columns)

    @property
    def status_column(self) -> int:
        """The column of ``out`` holding the spin-timeout bits."""
        return len(self.out_columns) - 1

    def n_instances(self, progs_per_role: int) -> int:
        """Instances run by one launch with ``progs_per_role`` programs per role."""
        return progs_per_role * self.block

    def strides(self, n_instances: int) -> tuple[int, int]:
        """``(loc_stride, inst_stride)`` kernel arguments for ``n_instances``."""
        if self.addressing == "interleaved":
            return 1, self.n_slots
        return n_instances, 1

    def heap_words(self, n_instances: int) -> int:
        """int32 words each rank's heap must hold."""
        return self.n_slots * n_instances

    def word(self, slot: int, instance: int, n_instances: int) -> int:
        """Heap word index of ``slot`` for ``instance``."""
        loc_stride, inst_stride = self.strides(n_instances)
        return slot * loc_stride + instance * inst_stride

    def location(self, name: str) -> LocationSlot:
        """The slot of location ``name``."""
        for loc in self.locations:
            if loc.name == name:
                return loc
        raise KeyError(name)

    def kernel(self, rank: int | None = None) -> KernelEntry:
        """The kernel for ``rank`` (rank mode) or the single grid kernel (``rank=None``)."""
        for k in self.kernels:
            if k.rank == rank:
                return k
        raise KeyError(f"{self.test_id}: no kernel for rank {rank} in {self.mode} mode")
