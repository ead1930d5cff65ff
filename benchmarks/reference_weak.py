"""Hand-written relaxed MP, SB and LB Triton kernels in the style of cuda-litmus: the weak-outcome reference.

The method follows github.com/reeselevine/cuda-litmus (``kernels/mp.cu``, ``functions.cu``): launch
only as many programs (CTAs) as are resident at once, and let every thread play two roles of two
different instances, so both sides of each instance run at the same time in different programs.

Instance mapping (``G`` programs of ``BLOCK`` lanes, ``L = G * BLOCK`` instances per iteration,
``ITERS`` iterations per launch, ``N = L * ITERS`` instances per launch):

- Program ``pid`` plays the shuffled workgroup ``wg = perm[pid]`` (a seeded permutation of
  ``range(G)`` per round, like cuda-litmus's ``shuffled_workgroups``).
- Lane ``l`` of workgroup ``wg`` plays **role 0** of instance ``j0 = wg * BLOCK + l`` and **role 1**
  of instance ``j1 = wg1 * BLOCK + l1`` with ``wg1 = (wg + 1 + l % (G - 1)) % G`` (a stripe: never
  ``wg`` itself, so the partner lane sits in another program) and ``l1 = (l * lane_mult) % BLOCK``
  (``lane_mult`` odd and ``BLOCK`` a power of two, so a permutation of the lanes).  For each lane
  the map ``(wg, l) -> (wg1, l1)`` is a bijection, so every instance is played exactly once per
  role (``tests/benchmarks/test_reference_weak.py`` checks it under the interpreter).
- Iteration ``it`` plays instances ``it * L + j0`` and ``it * L + j1``.
- Locations: ``x`` of instance ``i`` at word ``i``, ``y`` at word
  ``N + it * L + (j * loc_mult) % L`` (``loc_mult`` co-prime to ``L``: cuda-litmus's
  ``permute_location``, which puts an instance's two locations on unrelated cache lines).

Per role (``1`` is the only value stored; registers are written to ``ra`` (role 0) and ``rb``
(role 1) by instance):

- MP: role 0 stores ``x = 1`` then ``y = 1`` (the flag); role 1 loads ``y`` then ``x`` and writes
  ``2 * flag + x``.  Weak: code 2 (flag 1, payload 0).
- SB: role 0 stores ``x = 1`` then loads ``y``; role 1 stores ``y = 1`` then loads ``x``.
  Weak: both loads 0 (code ``2 * ra + rb == 0``).
- LB: role 0 loads ``x`` then stores ``y = 1``; role 1 loads ``y`` then stores ``x = 1``.
  Weak: both loads 1 (code 3).

Outcome codes are counted on the device with one ``torch.bincount`` per round.

Accesses (``access``):

- ``relaxed`` (default on a GPU): inline PTX ``ld.relaxed.gpu.global.b32`` and
  ``st.relaxed.gpu.global.b32``: what cuda-litmus's ``cuda::atomic<uint, thread_scope_device>``
  relaxed loads and stores compile to.  ``tl.atomic_load``/``tl.atomic_store`` are not in
  triton 3.6, and ``tl.inline_asm_elementwise`` is in both 3.6 and 3.9, so this is the one form
  that gives the same instructions on both.  Not available under the interpreter.
- ``rmw``: ``tl.atomic_add(p, 0, sem="relaxed", scope="gpu")`` for loads and
  ``tl.atomic_xchg(p, 1, sem="relaxed", scope="gpu")`` for stores (cuda-litmus's ``RMW`` mode;
  also what litmus's codegen falls back to for relaxed gpu-scope accesses on triton 3.6).
- ``plain``: ``tl.load(p, volatile=True)`` (``ld.volatile`` = relaxed.sys) and a plain
  ``tl.store``.  The default under the interpreter (``device="cpu"``), where all three
  non-asm forms behave alike.

Seeded and reproducible: round ``k`` draws its workgroup permutation, ``lane_mult`` and
``loc_mult`` from ``torch.Generator().manual_seed(seed * 1_000_003 + k)``.

Run directly (GPU): ``python benchmarks/reference_weak.py --test MP --seconds 5``; on the CPU:
``python benchmarks/reference_weak.py --device cpu --programs 4 --block 8 --iterations 2``.
"""

from __future__ import annotations

import argparse
import importlib.util
import math
import os
import sys
import tempfile
import time
from dataclasses import dataclass, field
from types import ModuleType
from typing import Any

from litmus.codegen.loader import interpret_env

TESTS: tuple[str, ...] = ("MP", "SB", "LB")
"""Tests the reference kernel plays (``TEST`` constexpr = index in this tuple)."""

WEAK_CODE: dict[str, int] = {"MP": 2, "SB": 0, "LB": 3}
"""Outcome code of each test's weak outcome (MP: ``2 * flag + x``; SB/LB: ``2 * ra + rb``)."""

ACCESSES: tuple[str, ...] = ("relaxed", "rmw", "plain")
"""Access forms (``ACCESS`` constexpr = index in this tuple); see the module docstring."""

SOURCE = '''
import triton
import triton.language as tl


@triton.jit
def _ld(p, ACCESS: tl.constexpr):
    if ACCESS == 0:
        r = tl.inline_asm_elementwise("ld.relaxed.gpu.global.b32 $0, [$1];", "=r,l", [p],
                                      dtype=tl.int32, is_pure=False, pack=1)
    elif ACCESS == 1:
        r = tl.atomic_add(p, 0, sem="relaxed", scope="gpu")
    else:
        r = tl.load(p, volatile=True)
    return r


@triton.jit
def _st(p, v, ACCESS: tl.constexpr):
    if ACCESS == 0:
        _ = tl.inline_asm_elementwise("st.relaxed.gpu.global.b32 [$1], $2; mov.u32 $0, 0;", "=r,l,r", [p, v],
                                      dtype=tl.int32, is_pure=False, pack=1)
    elif ACCESS == 1:
        _ = tl.atomic_xchg(p, v, sem="relaxed", scope="gpu")
    else:
        tl.store(p, v)


@triton.jit
def weak_kernel(loc, ra, rb, wg_perm, mark, G, L, ITERS, lane_mult, loc_mult,
                TEST: tl.constexpr, ACCESS: tl.constexpr, MARK: tl.constexpr, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    wg = tl.load(wg_perm + pid)
    lane = tl.arange(0, BLOCK)
    wg1 = (wg + 1 + lane % (G - 1)) % G
    lane1 = (lane * lane_mult) % BLOCK
    j0 = wg * BLOCK + lane
    j1 = wg1 * BLOCK + lane1
    yj0 = ((j0.to(tl.int64) * loc_mult) % L).to(tl.int32)
    yj1 = ((j1.to(tl.int64) * loc_mult) % L).to(tl.int32)
    n = L * ITERS
    one = lane * 0 + 1
    for it in range(ITERS):
        base = it * L
        i0 = base + j0
        i1 = base + j1
        x0 = loc + i0
        y0 = loc + n + base + yj0
        x1 = loc + i1
        y1 = loc + n + base + yj1
        if TEST == 0:  # MP: role 0 writes x then the flag y; role 1 reads y then x
            _st(x0, one, ACCESS)
            _st(y0, one, ACCESS)
            r0 = _ld(y1, ACCESS)
            r1 = _ld(x1, ACCESS)
            tl.store(rb + i1, 2 * r0 + r1)
        elif TEST == 1:  # SB: each role writes its location then reads the other
            _st(x0, one, ACCESS)
            a = _ld(y0, ACCESS)
            _st(y1, one, ACCESS)
            b = _ld(x1, ACCESS)
            tl.store(ra + i0, a)
            tl.store(rb + i1, b)
        else:  # LB: each role reads a location then writes the other
            a = _ld(x0, ACCESS)
            _st(y0, one, ACCESS)
            b = _ld(y1, ACCESS)
            _st(x1, one, ACCESS)
            tl.store(ra + i0, a)
            tl.store(rb + i1, b)
        if MARK:  # for the interpreter test: how often, and by which program, each role was played
            tl.atomic_add(mark + i0, one)
            tl.atomic_add(mark + n + i1, one)
            tl.store(mark + 2 * n + i0, lane * 0 + pid)
            tl.store(mark + 3 * n + i1, lane * 0 + pid)
'''

_MODULES: dict[bool, ModuleType] = {}


def kernel_module(interpret: bool) -> ModuleType:
    """The kernels, decorated under ``TRITON_INTERPRET=1`` when ``interpret`` (cached per mode;
    the source is written to a file first, since ``triton.jit`` needs one)."""
    if interpret in _MODULES:
        return _MODULES[interpret]
    name = f"litmus_reference_weak_{'interp' if interpret else 'jit'}"
    path = os.path.join(tempfile.gettempdir(), f"{name}_{os.getpid()}.py")
    with open(path, "w") as f:
        f.write(SOURCE)
    with interpret_env(interpret):
        spec = importlib.util.spec_from_file_location(name, path)
        assert spec is not None and spec.loader is not None
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
    _MODULES[interpret] = mod
    return mod


def coprime_multiplier(gen: Any, modulus: int) -> int:
    """A seeded multiplier in ``[1, modulus)`` co-prime to ``modulus`` (1 when ``modulus`` <= 2)."""
    import torch

    if modulus <= 2:
        return 1
    while True:
        m = int(torch.randint(1, modulus, (1,), generator=gen))
        if math.gcd(m, modulus) == 1:
            return m


def occupancy(n_regs: int, num_warps: int, shared: int, props: Any) -> int:
    """Programs per SM resident at once for a kernel of ``num_warps`` warps using ``n_regs``
    registers per thread and ``shared`` bytes of shared memory, on a device with CUDA
    properties ``props`` (``torch.cuda.get_device_properties``).

    An estimate in the manner of the CUDA occupancy calculator: the least of the thread limit,
    the register limit (registers allocated per warp in units of 256) and the shared-memory
    limit, and at most 32 programs per SM.
    """
    threads = getattr(props, "max_threads_per_multi_processor", 2048)
    regs = getattr(props, "regs_per_multiprocessor", 65536)
    smem = getattr(props, "shared_memory_per_multiprocessor", 0) or 228 * 1024
    by_threads = threads // (32 * num_warps)
    per_warp = max(256, -(-max(n_regs, 1) * 32 // 256) * 256)
    by_regs = regs // (per_warp * num_warps)
    by_smem = smem // shared if shared else 32
    return max(1, min(by_threads, by_regs, by_smem, 32))


@dataclass(frozen=True)
class RefRound:
    """One launch: ``instances`` instances, outcome ``counts`` by code, and its seconds
    (``seconds``: reset, launch and count; ``kernel_seconds``: the launch alone)."""

    instances: int
    counts: list[int]
    weak: int
    seconds: float
    kernel_seconds: float


@dataclass
class WeakReference:
    """The reference kernel for one test, with its buffers, ready to run rounds.

    ``test``: ``MP``, ``SB`` or ``LB``; ``programs``: programs per launch (``G``, at least 2;
    on a GPU the caller passes the resident count, see :func:`resident_programs`);
    ``block``: lanes per program (a power of two); ``iterations``: instances per lane and role
    per launch; ``access``: see the module docstring (``None``: ``relaxed`` on cuda, ``plain``
    on cpu); ``device``: ``cuda`` or ``cpu`` (the Triton interpreter); ``mark``: record how often
    each instance is played in each role and by which program (``buffers["mark"]``, ``4 * N``
    words: plays of role 0, plays of role 1, program of role 0, program of role 1).
    """

    test: str
    programs: int
    block: int = 256
    iterations: int = 16
    access: str | None = None
    device: str = "cuda"
    seed: int = 0
    num_warps: int | None = None
    mark: bool = False
    buffers: dict[str, Any] = field(default_factory=dict, repr=False)

    def __post_init__(self) -> None:
        import torch

        if self.test not in TESTS:
            raise ValueError(f"test {self.test!r}: use one of {', '.join(TESTS)}")
        if self.programs < 2:
            raise ValueError(f"programs={self.programs}: the stripe needs at least 2 programs")
        if self.block < 1 or self.block & (self.block - 1):
            raise ValueError(f"block={self.block}: use a power of two")
        if self.iterations < 1:
            raise ValueError(f"iterations={self.iterations}: use 1 or more")
        self.interpret = self.device == "cpu"
        if self.access is None:
            self.access = "plain" if self.interpret else "relaxed"
        if self.access not in ACCESSES:
            raise ValueError(f"access {self.access!r}: use one of {', '.join(ACCESSES)}")
        if self.interpret and self.access == "relaxed":
            raise ValueError("access 'relaxed' is inline PTX: not available under the interpreter (device cpu)")
        if self.num_warps is None:
            self.num_warps = max(1, min(self.block // 32, 32))  # one lane per thread, like cuda-litmus
        self.mod = kernel_module(self.interpret)
        dev = torch.device(self.device)
        n = self.instances
        self.buffers = {
            "loc": torch.zeros(2 * n, dtype=torch.int32, device=dev),
            "ra": torch.zeros(n, dtype=torch.int32, device=dev),
            "rb": torch.zeros(n, dtype=torch.int32, device=dev),
            "mark": torch.zeros(4 * n if self.mark else 1, dtype=torch.int32, device=dev),
        }
        self.compiled: Any = None

    @property
    def instances(self) -> int:
        """Instances per launch: ``programs * block * iterations``."""
        return self.programs * self.block * self.iterations

    def round_params(self, round_index: int) -> tuple[Any, int, int]:
        """The round's seeded workgroup permutation (a CPU tensor), lane and location multipliers."""
        import torch

        gen = torch.Generator().manual_seed(self.seed * 1_000_003 + round_index)
        perm = torch.randperm(self.programs, generator=gen).to(torch.int32)
        lane_mult = 2 * int(torch.randint(0, max(1, self.block // 2), (1,), generator=gen)) + 1
        loc_mult = coprime_multiplier(gen, self.programs * self.block)
        return perm, lane_mult, loc_mult

    def launch(self, round_index: int) -> Any:
        """Reset the buffers and launch round ``round_index`` (no synchronisation); returns the
        compiled kernel (or None under the interpreter)."""
        b = self.buffers
        b["loc"].zero_()
        if self.mark:
            b["mark"].zero_()
        perm, lane_mult, loc_mult = self.round_params(round_index)
        perm = perm.to(b["loc"].device)
        L = self.programs * self.block
        with interpret_env(self.interpret):
            ck = self.mod.weak_kernel[(self.programs,)](
                b["loc"], b["ra"], b["rb"], perm, b["mark"], self.programs, L, self.iterations, lane_mult, loc_mult,
                TEST=TESTS.index(self.test), ACCESS=ACCESSES.index(self.access), MARK=self.mark, BLOCK=self.block,
                num_warps=self.num_warps)
        if not self.interpret and self.compiled is None:
            self.compiled = ck
        return ck

    def codes(self) -> Any:
        """Each instance's outcome code (see :data:`WEAK_CODE`) after a round."""
        b = self.buffers
        return b["rb"] if self.test == "MP" else 2 * b["ra"] + b["rb"]

    def run_round(self, round_index: int) -> RefRound:
        """Reset, launch and count one round; every count is on the device, then one copy back."""
        import torch

        sync = (lambda: torch.cuda.synchronize()) if not self.interpret else (lambda: None)
        sync()
        t0 = time.perf_counter()
        self.launch(round_index)
        sync()
        t1 = time.perf_counter()
        counts = torch.bincount(self.codes(), minlength=4)[:4].tolist()
        t2 = time.perf_counter()
        if sum(counts) != self.instances:
            raise RuntimeError(f"reference {self.test}: counted {sum(counts)} outcomes of {self.instances} "
                               "instances (a load read a value other than 0 or 1)")
        return RefRound(self.instances, counts, counts[WEAK_CODE[self.test]], t2 - t0, t1 - t0)

    def kernel_info(self) -> dict[str, Any]:
        """Registers, warps and shared memory of the compiled kernel (empty under the interpreter
        or before the first launch)."""
        ck = self.compiled
        if ck is None:
            return {}
        meta = getattr(ck, "metadata", None)
        return {"n_regs": getattr(ck, "n_regs", None), "n_spills": getattr(ck, "n_spills", None),
                "num_warps": getattr(meta, "num_warps", self.num_warps), "shared": getattr(meta, "shared", 0)}


def resident_programs(test: str, block: int = 256, iterations: int = 16, access: str = "relaxed",
                      programs_per_sm: int | None = None, device: int = 0) -> tuple[int, dict[str, Any]]:
    """Programs of the reference kernel that fit on the GPU at once: SM count times per-SM
    occupancy (``programs_per_sm`` when given, else :func:`occupancy` of the kernel compiled by a
    small first launch, one program per SM).  Returns the count and how it was found."""
    import torch

    props = torch.cuda.get_device_properties(device)
    sms = props.multi_processor_count
    info: dict[str, Any] = {"sm_count": sms}
    if programs_per_sm is None:
        probe = WeakReference(test, max(2, sms), block, iterations, access, "cuda")
        probe.launch(0)
        torch.cuda.synchronize()
        k = probe.kernel_info()
        info.update(k)
        if k.get("n_regs") is None:
            raise RuntimeError("compiled kernel has no n_regs: pass programs_per_sm (--programs-per-sm)")
        programs_per_sm = occupancy(int(k["n_regs"]), int(k["num_warps"]), int(k.get("shared") or 0), props)
        info["programs_per_sm_from"] = "occupancy estimate"
    else:
        info["programs_per_sm_from"] = "given"
    info["programs_per_sm"] = programs_per_sm
    return sms * programs_per_sm, info


def run_for(ref: WeakReference, seconds: float, first_round: int = 1, max_rounds: int | None = None) -> dict[str, Any]:
    """Run rounds of ``ref`` for ``seconds`` of round time (after an untimed round 0 that
    compiles), or ``max_rounds`` rounds; totals of instances, weak outcomes, seconds and counts."""
    ref.run_round(0)
    total = {"rounds": 0, "instances": 0, "weak": 0, "seconds": 0.0, "kernel_seconds": 0.0, "counts": [0] * 4}
    k = first_round
    while total["seconds"] < seconds and (max_rounds is None or total["rounds"] < max_rounds):
        r = ref.run_round(k)
        total["rounds"] += 1
        total["instances"] += r.instances
        total["weak"] += r.weak
        total["seconds"] += r.seconds
        total["kernel_seconds"] += r.kernel_seconds
        total["counts"] = [a + b for a, b in zip(total["counts"], r.counts)]
        k += 1
    return total


def main(argv: list[str] | None = None) -> None:
    """Print the reference's weak outcomes and instances per second for one test."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--test", choices=TESTS, default="MP")
    ap.add_argument("--device", choices=["cuda", "cpu"], default="cuda")
    ap.add_argument("--seconds", type=float, default=5.0)
    ap.add_argument("--programs", type=int, default=None, help="programs per launch (default: resident count; cpu: 4)")
    ap.add_argument("--programs-per-sm", type=int, default=None)
    ap.add_argument("--block", type=int, default=None, help="lanes per program (default 256; cpu 8)")
    ap.add_argument("--iterations", type=int, default=None, help="iterations per launch (default 16; cpu 2)")
    ap.add_argument("--access", choices=ACCESSES, default=None)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)
    cpu = args.device == "cpu"
    block = args.block or (8 if cpu else 256)
    iterations = args.iterations or (2 if cpu else 16)
    access = args.access or ("plain" if cpu else "relaxed")
    programs = args.programs
    if programs is None:
        programs = 4 if cpu else resident_programs(args.test, block, iterations, access, args.programs_per_sm)[0]
    ref = WeakReference(args.test, programs, block, iterations, access, args.device, args.seed)
    t = run_for(ref, args.seconds)
    print(f"reference {args.test} ({args.device}, {access}, {programs} programs x {block} lanes x {iterations} "
          f"iterations): {t['instances']} instances, {t['weak']} weak, {t['weak'] / t['seconds']:.3g} weak/s, "
          f"{t['instances'] / t['seconds']:.3g} instances/s, outcomes by code {t['counts']}")


if __name__ == "__main__":
    sys.exit(main())
