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
    "loc_stride",  # i32: units (Layout.unit_bytes) between consecutive location slots of one instance
    "inst_stride",  # i32: units between the same slot of consecutive instances
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
    """Location ``name`` occupies slot ``slot`` of the heap of rank ``home``.

    ``bits`` is its width; a view (or a vector element view) has ``view_of`` set and lies
    ``offset`` bytes into the slot of the location it views (its ``slot`` is that location's).
    ``unsigned``: its values are read back as unsigned integers (sized memory, docs/format.md);
    otherwise as signed 32-bit values (a location without ``bits:``).
    """

    name: str
    slot: int
    home: int
    init: int
    bits: int = 32
    offset: int = 0
    view_of: str | None = None
    unsigned: bool = False

    @property
    def physical(self) -> bool:
        """Whether the location has memory of its own (it is no view)."""
        return self.view_of is None


@dataclass(frozen=True)
class Field:
    """How one observable is read from the *raw columns* of a round (``Layout.raw_columns``:
    the register columns of ``out``, then every memory word): the little-endian composite of
    the int32 columns ``cols`` (lowest word first), bits ``[shift, shift + bits)`` of it,
    unsigned, or as a signed 32-bit value when ``signed``."""

    key: str
    cols: tuple[int, ...]
    shift: int = 0
    bits: int = 32
    signed: bool = True

    def value(self, raw: tuple[int, ...] | list[int]) -> int:
        """The observable's value in the raw row ``raw``."""
        if len(self.cols) == 1 and self.shift == 0 and self.bits == 32:
            v = raw[self.cols[0]] & 0xFFFFFFFF
        else:
            v = 0
            for k, c in enumerate(self.cols):
                v |= (raw[c] & 0xFFFFFFFF) << (32 * k)
            v = (v >> self.shift) & ((1 << self.bits) - 1)
        if self.signed and self.bits == 32 and v >= 1 << 31:
            v -= 1 << 32
        return v


@dataclass(frozen=True)
class MemoryWord:
    """Raw memory column: int32 word ``word`` (0 or 1) of location ``name``'s unit."""

    name: str
    home: int
    slot: int
    word: int


HUNG_BIT = 1 << 30
"""Status bit of an instance that provably hung (a quiescent spin's proof, litmus.status.HUNG);
the spin bits below it are timeouts."""

QUIET_COUNT_MASK = 0xFF
"""The low bits of an instance's wait word: its threads now finished or waiting in a spin."""

QUIET_VERSION_SHIFT = 8
"""Every change of the wait count adds ``1 << QUIET_VERSION_SHIFT``: the bits above the count
are a version that tells one all-waiting state from the next."""

QUIET_VERSION_MASK = (1 << 22) - 1
"""The version bits (after shifting), below :data:`HUNG_BIT`, which also marks the wait word of
an instance proven hung."""

QUIET_FINISHED = -1
"""A thread's confirm word once it has finished (versions are never negative)."""

HI = "#hi"
"""Suffix of the ``out`` column holding the high 32 bits of a 64-bit register (``P2:r1#hi``)."""


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
    locations: tuple[LocationSlot, ...]  # every location name: physical ones, views, element views
    scratch_slot: int  # per-instance scratch unit (fence fallback, masked-off CAS lanes)
    threads: tuple[str, ...]  # rows of ``perm``
    out_columns: tuple[str, ...]  # "P1:r0" ... then "status"
    observables: tuple[str, ...]  # outcome tuple keys: registers, then location names
    spins: tuple[SpinSlot, ...]
    kernels: tuple[KernelEntry, ...]
    unit_bytes: int = 4  # bytes of one slot of one instance: 8 when some location has 64 bits
    fields: tuple[Field, ...] = ()  # one per observable; empty: the raw columns are the observables
    wait_slot: int | None = None  # quiescence: per-instance wait word (QUIET_COUNT_MASK etc.), then one confirm word per thread
    wait_home: int = 0  # the rank whose heap holds the wait word and the confirm words
    quiet_proof: bool = True  # quiescing spins prove hangs (status HUNG_BIT); else they give up (a timeout)

    @property
    def n_slots(self) -> int:
        """Slots per instance in each heap (physical locations + scratch, + the wait word and one
        confirm word per thread when the kernels quiesce)."""
        return self.scratch_slot + 1 + (1 + len(self.threads) if self.wait_slot is not None else 0)

    def confirm_slot(self, thread: str) -> int:
        """The heap slot (on ``wait_home``) of ``thread``'s confirm word (quiescing kernels only)."""
        if self.wait_slot is None:
            raise ValueError(f"{self.test_id}: kernels without quiescence have no confirm words")
        return self.wait_slot + 1 + self.threads.index(thread)

    @property
    def unit_words(self) -> int:
        """int32 words of one slot of one instance (``unit_bytes // 4``)."""
        return self.unit_bytes // 4

    @property
    def plain(self) -> bool:
        """No access widths: every observable is one raw int32 column, read as it is."""
        return not self.fields

    @property
    def memory_words(self) -> tuple[MemoryWord, ...]:
        """The int32 words of memory that hold data, per physical location (two for 64 bits)."""
        return tuple(MemoryWord(l.name, l.home, l.slot, w) for l in self.locations if l.physical
                     for w in range(2 if l.bits == 64 else 1))

    @property
    def raw_keys(self) -> tuple[str, ...]:
        """Names of the raw columns: the register columns of ``out``, then the memory words
        (``word`` and ``word#hi`` for a 64-bit location)."""
        return self.out_columns[:-1] + tuple(w.name + (HI if w.word else "") for w in self.memory_words)

    def decode(self, raw: tuple[int, ...] | list[int]) -> tuple[int, ...]:
        """The observables' values (``observables`` order) of one raw row."""
        if self.plain:
            return tuple(raw)
        return tuple(f.value(raw) for f in self.fields)

    @property
    def n_cols(self) -> int:
        """Columns of ``out``."""
        return len(self.out_columns)

    @property
    def status_column(self) -> int:
        """The column of ``out`` holding the spin-timeout bits (and :data:`HUNG_BIT`)."""
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
        return self.n_slots * n_instances * self.unit_words

    def word(self, slot: int, instance: int, n_instances: int) -> int:
        """Heap word index of the first word of ``slot`` for ``instance`` (strides count units
        of ``unit_bytes``)."""
        loc_stride, inst_stride = self.strides(n_instances)
        return (slot * loc_stride + instance * inst_stride) * self.unit_words

    def physical_locations(self) -> tuple[LocationSlot, ...]:
        """The locations that have memory of their own (no views), in slot order."""
        return tuple(l for l in self.locations if l.physical)

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
