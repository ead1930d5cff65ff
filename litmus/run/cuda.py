"""The ``cuda`` backend: one GPU, every role of a variant in one grid (codegen's grid mode).

Ranks are played by groups of programs (CTAs) of one launch; every rank's heap is a buffer on the
one device.  Parallel instances: ``BLOCK`` lanes per program, ``N / BLOCK`` programs per role; a
test that spins gets only the programs sure to be resident at once and plays the rest of its
``N`` instances in more iterations of the kernel's loop (:func:`resident_instances`).
Stress in the manner of GPUHarbor / MC Mutants comes from ``config.stress`` (see
:mod:`litmus.run.stress`): seeded instance shuffling (seed ``config.seed + round``), strided
heaps, and a memory-stress kernel launched on a second CUDA stream so it runs while the test
does.  Outcomes are counted on the device in one pass (``litmus.run.counting.OutcomeCounter``),
checksummed against N.

``Stress(launch="parallel")`` (the default preset) uses codegen's parallel mode instead
(cuda-litmus style): as many programs as are resident at once (sized from the compiled kernel,
:mod:`litmus.run.parallel`), each playing every role, instances striped over programs,
iterations inside the launch.  A variant whose spin the mode's phased order would starve (flag
reset and reuse: :func:`litmus.codegen.parallel.spin_hazards`) runs in grid mode instead, and
its rounds say so (``parallel_fallback``).

Importing this module needs neither a GPU nor triton; constructing :class:`CudaBackend` needs
both.  The arch is read from the device, never assumed.
"""

from __future__ import annotations

import importlib.metadata
import time
from dataclasses import dataclass
from typing import Any, Sequence

from litmus.codegen import CodegenOptions, Layout
from litmus.codegen.options import RUN_BLOCK
from litmus.errors import LitmusError
from litmus.ir import LitmusTest, Spin
from litmus.run.backend import Round, Row
from litmus.run.buffers import HeapPlan, heap_plan, init_strided
from litmus.run.config import RunConfig, Stress, validate_stress
from litmus.run.counting import OutcomeCounter
from litmus.codegen import harness
from litmus.codegen.warm import warmed
from litmus.run.stress import (
    control_header,
    control_words,
    instance_count,
    order_words,
    pattern_flags,
    round_permutations,
    round_seed,
)
from litmus.run.warm import warm_round

NOTE = (
    "cuda backend: one GPU. Every role (threads of one (rank, cta)) is a group of programs of one "
    "grid, so 'ranks' are groups of CTAs on the same GPU and all heaps live in its memory: "
    "cross-rank tests exercise sys-scoped code paths but not NVLink or peer memory. Instances are "
    "vector lanes, shuffled across programs with a seeded co-prime permutation per round. Stress "
    "'full' (or pre_stress / kernel_barrier in a stress file) makes each program run pre-stress "
    "passes and wait at an in-kernel start barrier for the programs that start with it (groups of "
    "2 per SM, bounded polls) before its test ops; memory stress runs as a separate kernel on a "
    "second stream, launched just before the test."
)

DEFAULT_BLOCK = RUN_BLOCK


@dataclass(frozen=True)
class LaunchSpec:
    """Everything one launch of a grid-mode kernel needs besides the buffers."""

    n_instances: int
    block: int
    progs_per_role: int
    grid: tuple[int]
    plan: HeapPlan

    def args(self, table: Any, out: Any, perm: Any) -> tuple[Any, ...]:
        """Positional kernel arguments (``layout.KERNEL_ARGS`` order, without ``BLOCK``)."""
        return (table, out, perm, self.n_instances, self.progs_per_role, self.plan.loc_stride,
                self.plan.inst_stride)


def launch_spec(layout: Layout, n_instances: int, stride: int, per_iter: int | None = None) -> LaunchSpec:
    """Grid and strides for ``n_instances`` (a power of two) of ``layout`` (grid mode), played
    ``per_iter`` instances per iteration of the kernel's loop (default: all in one)."""
    per_iter = per_iter or n_instances
    if per_iter % layout.block or n_instances % per_iter:
        raise ValueError(f"{layout.test_id}: {n_instances} instances in iterations of {per_iter} is not a "
                         f"whole number of iterations of BLOCK={layout.block} lanes per program")
    entry = layout.kernel(None)
    progs = per_iter // layout.block
    return LaunchSpec(n_instances, layout.block, progs, entry.grid(progs), heap_plan(layout, n_instances, stride))


KEPT_SETUPS = 24
"""Compiled kernels and buffers kept per test: one per environment of a rotation and round size
(litmus.run.schedule: five environments by three sizes of its ladder fit), so that rotating
does not allocate and specialise again each round."""

KEPT_MEMORY_FRACTION = 0.25
"""Kept setups of one test hold at most this fraction of the device's memory."""

RESIDENT_PROGRAMS_PER_SM = 2
"""Programs of a spinning test per SM that are sure to be resident at once (see resident_instances)."""


def resident_instances(test: LitmusTest, sm_count: int, block: int, requested: int) -> int:
    """Instances per iteration of the grid kernel's loop for ``test``: ``requested``, capped for
    tests that spin.

    A vector spin waits for every lane's partner instance, which lives in other programs; if
    those programs are not resident yet the spin can only time out. So a spinning test runs
    at most ``RESIDENT_PROGRAMS_PER_SM * sm_count`` programs in all (a power of two per
    role), and more iterations inside the launch instead (the partners of one instance play
    it in the same iteration, so a program waits only for programs that are resident too).
    """
    if not any(isinstance(i, Spin) for t in test.threads for i in t.instrs):
        return requested
    roles = len({(t.rank, t.cta) for t in test.threads})
    per_role = max(1, (RESIDENT_PROGRAMS_PER_SM * sm_count) // roles)
    per_role = 1 << (per_role.bit_length() - 1)
    return min(requested, per_role * block)


def block_for(n_instances: int, block: int) -> int:
    """Lanes per program: ``block`` (a power of two), or ``n_instances`` when that is smaller."""
    if block < 1 or block & (block - 1):
        raise LitmusError(f"cuda backend: block={block}; use a power of two")
    return min(block, n_instances)


def grid_shape(test: LitmusTest, config: RunConfig, sm_count: int, block: int) -> tuple[int, int, int]:
    """``(n_instances, per_iter, block)`` of a grid-mode round of ``test`` on a device of
    ``sm_count`` SMs: the requested instances as a power of two, played ``per_iter`` at a time
    (:func:`resident_instances`) by programs of ``block`` lanes."""
    n = instance_count(config.instances)
    per_iter = resident_instances(test, sm_count, block, n)
    return n, per_iter, block_for(per_iter, block)


def parallel_spec(layout: Layout, config: RunConfig, programs: int, block: int) -> LaunchSpec:
    """The launch of ``layout``'s parallel-mode kernel on ``programs`` resident programs of
    ``block`` lanes: the requested instances rounded up to whole iterations of the grid."""
    from litmus.run.parallel import parallel_instances
    from litmus.run.stress import MAX_INSTANCES

    n, _ = parallel_instances(config.instances, programs, block, MAX_INSTANCES)
    return LaunchSpec(n, block, programs, layout.kernel(None).grid(programs),
                      heap_plan(layout, n, config.stress.stride))


def parallel_header(stress: Stress, seed: int, programs: int) -> list[int]:
    """The control header of a parallel-mode launch of ``programs`` programs: pre-stress, and
    the start barrier over the seeded ``barrier_pct`` of the programs when ``kernel_barrier``,
    and the op order each program plays (``order_pick``)."""
    from litmus.run.parallel import join_words

    header = control_header(stress, seed, 0, programs)
    for word, value in order_words(stress).items():
        header[word] = value
    if stress.kernel_barrier:
        for word, value in join_words(programs, stress.barrier_pct, seed).items():
            header[word] = value
    return header


def round_buffers(layout: Layout, spec: LaunchSpec, stress: Stress, device: Any) -> tuple[list[Any], Any, Any, Any]:
    """``(heaps, control, heap_ptrs, out)`` of launches of ``layout``'s kernel under ``spec``:
    one zeroed heap per rank, the harness control block (:func:`control_words`), the pointer
    table (the heaps, then the control block) and ``out``, all on ``device``."""
    import torch

    from litmus.run.buffers import make_out, pointer_table

    heaps = [torch.zeros(spec.plan.words, dtype=torch.int32, device=device) for _ in range(layout.n_ranks)]
    control = torch.zeros(control_words(stress), dtype=torch.int32, device=device)
    return heaps, control, pointer_table(heaps + [control], device), make_out(layout, spec.n_instances, device)


def stress_buffers(launch: "StressLaunch", device: Any) -> tuple[Any, Any]:
    """``(scratch, sink)`` of the memory-stress kernel's ``launch``: the words it hammers and
    one word per lane that keeps its loads."""
    import torch

    return (torch.zeros(launch.scratch_words, dtype=torch.int32, device=device),
            torch.zeros(launch.programs * launch.lanes, dtype=torch.int32, device=device))


@dataclass(frozen=True)
class StressLaunch:
    """The memory-stress kernel's launch: ``programs`` programs of ``lanes`` lanes, ``iterations``
    iterations each, over a ``scratch_words`` buffer, with the pattern's access kinds."""

    programs: int
    lanes: int
    iterations: int
    scratch_words: int
    first_store: bool
    second_store: bool


def stress_launch(stress: Stress, lanes: int = 128) -> StressLaunch | None:
    """The memory-stress kernel launch ``stress`` asks for (``stress_iterations`` iterations
    per stress program), or None when memory stress is off.  Pre-stress is not part of it: the
    test kernel's own programs run it (:mod:`litmus.codegen.harness`)."""
    validate_stress(stress)
    if not stress.mem_stress:
        return None
    first, second = pattern_flags(stress.stress_pattern)
    return StressLaunch(stress.stress_programs, lanes, stress.stress_iterations,
                        stress.scratch_words, first, second)


@dataclass
class _Setup:
    key: tuple[Any, ...]
    test: LitmusTest
    layout: Layout
    kernel: Any
    spec: LaunchSpec
    heaps: list[Any]
    control: Any  # the harness control block (litmus.codegen.harness), heap_ptrs[n_ranks]
    table: Any
    out: Any
    fallbacks: tuple[str, ...]
    info: dict[str, Any] | None = None  # parallel launch: how the grid was sized
    status_set: bool = False  # some status word of ``out`` is not zero (a spin timed out)

    def clear_out(self) -> None:
        """Make ``out`` ready for a round.  Every instance's register columns are stored by the
        kernel in every round; only the status column is written when a spin times out, so
        ``out`` is zeroed only after a round in which one did."""
        if self.status_set:
            self.out.zero_()
            self.status_set = False

    @property
    def nbytes(self) -> int:
        """Device memory its buffers hold."""
        return sum(t.numel() * t.element_size() for t in (*self.heaps, self.control, self.out))


class CudaBackend:
    """Runs variants on one GPU in grid mode.

    Options: ``device`` (CUDA device index), ``block`` (lanes per program, a power of two),
    ``num_warps`` of the test kernel, ``spin_bound`` (caps every spin when
    ``RunConfig.spin_bound`` is not set; None keeps each spin's own bound).
    """

    name = "cuda"

    def __init__(self, device: int = 0, block: int = DEFAULT_BLOCK, num_warps: int = 4,
                 spin_bound: int | None = None) -> None:
        import torch

        if not torch.cuda.is_available():
            raise LitmusError("cuda backend: no CUDA device (torch.cuda.is_available() is False); use --backend cpu")
        block_for(block, block)
        self.device = torch.device("cuda", device)
        self.block = block
        self.num_warps = num_warps
        self.spin_bound = spin_bound
        self.capability = torch.cuda.get_device_capability(self.device)
        self._stream = torch.cuda.Stream(device=self.device)
        props = torch.cuda.get_device_properties(self.device)
        self.sm_count = props.multi_processor_count
        self.kept_bytes = int(KEPT_MEMORY_FRACTION * props.total_memory)
        self.barrier_group = RESIDENT_PROGRAMS_PER_SM * self.sm_count  # programs sure to be resident together
        self._stress_kernel: Any = None
        self._scratch: Any = None
        self._setup: _Setup | None = None  # the last round's
        self._setups: dict[tuple[Any, ...], _Setup] = {}  # of the current test, one per environment
        self._hazards: dict[LitmusTest, list[str]] = {}
        self._counter = OutcomeCounter()
        self._ahead: Any = None  # litmus.run.ahead.CompileAhead, when compile_ahead was called

    # ------------------------------------------------------------------ Backend protocol

    def describe(self) -> dict[str, Any]:
        """Backend, GPU name and arch (read from the device), versions and the note."""
        import torch

        major, minor = self.capability
        return {
            "backend": self.name,
            "device": torch.cuda.get_device_name(self.device),
            "arch": f"sm_{major}{minor}",
            "world_size": 1,
            "placement": "ranks = groups of CTAs of one grid on one GPU",
            "default_instances": 1 << 20,
            "torch": torch.__version__,
            "triton": importlib.metadata.version("triton"),
            "note": NOTE,
        }

    def skip_reason(self, test: LitmusTest) -> str | None:
        """Why ``test`` cannot run here (a construct codegen cannot emit), or None."""
        from litmus.codegen import generate

        try:
            generate(test, self._options(1, None))
        except LitmusError as e:
            return f"no Triton form: {e}"
        return None

    def run_round(self, test: LitmusTest, config: RunConfig, round_index: int) -> Round:
        """Run ``config.instances`` (rounded up to a power of two; parallel launch: to a multiple
        of programs x BLOCK) instances of ``test`` once."""
        warm = warm_round(self.run_round, test, config, round_index)
        if warm is not None:
            return warm
        starves = self.parallel_hazards(test) if config.stress.launch == "parallel" else []
        if config.stress.launch == "parallel" and not starves:
            return self._run_parallel(test, config, round_index)
        from litmus.run.buffers import perm_tensor

        t0 = time.perf_counter()
        setup = self._prepare(test, config)
        spec = setup.spec
        init_strided(setup.layout, setup.heaps, spec.plan)
        setup.clear_out()
        # instances are shuffled within an iteration (its partners play an instance in the same one)
        perms = round_permutations(setup.layout, spec.progs_per_role * spec.block, config, round_index)
        header = control_header(config.stress, round_seed(config, round_index), self.barrier_group, spec.grid[0])
        stress = stress_launch(config.stress)
        phases, rows = self._launch(setup, perm_tensor(perms, self.device), header, stress,
                                    round_seed(config, round_index))
        return Round(rows=rows, instances=spec.n_instances, seconds=time.perf_counter() - t0,
                     extra={**phases, "seed": round_seed(config, round_index),
                            "perms": perms, "fallbacks": list(setup.fallbacks),
                            "mem_stress": stress is not None, "launch": "grid",
                            "programs": spec.grid[0],
                            "iterations": spec.n_instances // (spec.progs_per_role * spec.block),
                            **({"parallel_fallback": starves} if starves else {}),
                            "barrier_group": header[harness.GROUP], "pre_stress": header[harness.PRE_ITERS]})

    def _launch(self, setup: _Setup, perm: Any, header: list[int], stress: StressLaunch | None,
                seed: int) -> tuple[dict[str, float], list[Row]]:
        """Write the control header, launch the memory stress (if any) and the test kernel, wait,
        and count the round: ``(phase seconds, rows)``; the phases are ``kernel_seconds`` (launch
        to completion) and ``count_seconds`` (counting the outcomes, host round trips included)."""
        import torch

        setup.control[: len(header)].copy_(torch.tensor(header, dtype=torch.int32))
        spec = setup.spec
        if stress is not None:  # the round waits for the stress kernel too: host-timed phases
            torch.cuda.synchronize(self.device)
            k0 = time.perf_counter()
            self._launch_stress(stress, seed)
            setup.kernel[spec.grid](*spec.args(setup.table, setup.out, perm), BLOCK=spec.block,
                                    num_warps=self.num_warps)
            torch.cuda.synchronize(self.device)
            c0 = time.perf_counter()
            rows = self._count(setup)
            return {"kernel_seconds": c0 - k0, "count_seconds": time.perf_counter() - c0}, rows
        # Without memory stress the count is queued right behind the test kernel on the same
        # stream and the round's only host wait is the count's result: the GPU does not idle
        # while the host wakes up between the two.  The kernel is timed by events around it.
        begin, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        k0 = time.perf_counter()
        begin.record()
        setup.kernel[spec.grid](*spec.args(setup.table, setup.out, perm), BLOCK=spec.block,
                                num_warps=self.num_warps)
        end.record()
        rows = self._count(setup)
        kernel = begin.elapsed_time(end) / 1000.0
        return {"kernel_seconds": kernel, "count_seconds": max(0.0, time.perf_counter() - k0 - kernel)}, rows

    def parallel_hazards(self, test: LitmusTest) -> list[str]:
        """Why parallel mode would starve ``test``'s spins (then the round runs in grid mode),
        or an empty list (:func:`litmus.codegen.parallel.spin_hazards`, cached per test)."""
        from litmus.codegen.parallel import spin_hazards

        if test not in self._hazards:
            self._hazards[test] = spin_hazards(test)
        return self._hazards[test]

    def compile_ahead(self, tests: Sequence[LitmusTest], config: RunConfig, workers: int) -> int:
        """Start compiling the run kernels ``tests`` will use under ``config`` (every launch mode
        of its environments) in ``workers`` processes, in order (:mod:`litmus.run.ahead`); the
        number of kernels submitted."""
        from litmus.run.ahead import CompileAhead, KernelJob

        spin_bound = config.spin_bound if config.spin_bound is not None else self.spin_bound
        launches = sorted({(env.launch, env.role_rotation, env.warm_reads) for env in config.environments})
        jobs: dict[KernelJob, None] = {}  # in run order; a starved variant's parallel rounds load its grid kernel
        for test in tests:
            if self.skip_reason(test) is not None:
                continue
            for launch, rotation, warm in launches:
                ran = warmed(test) if warm else test  # what run_round launches (litmus.codegen.warm)
                grid_block = block_for(resident_instances(ran, self.sm_count, self.block,
                                                          instance_count(config.instances)), self.block)
                if launch == "parallel" and not self.parallel_hazards(ran):
                    options = self._options(self.block, spin_bound, "parallel", rotation)
                else:
                    options = self._options(grid_block, spin_bound)
                jobs[KernelJob(ran, options, self.num_warps, self.device.index or 0)] = None
        if self._ahead is not None:
            self._ahead.close()
        self._ahead = CompileAhead(list(jobs), workers) if jobs and workers > 0 else None
        return len(self._ahead) if self._ahead is not None else 0

    def _await_ahead(self, test: LitmusTest, options: CodegenOptions) -> None:
        """Wait for a compile worker that has ``test``'s kernel with ``options`` in hand."""
        if self._ahead is not None:
            self._ahead.wait(test, options)

    def recover(self) -> None:
        """After a variant failed: drop its buffers and check the device. A device fault (an
        illegal address, a launch failure) poisons this process's CUDA context for good: then
        this raises, and the session goes on in a fresh process."""
        import torch

        self._setup = None
        self._setups.clear()
        self._scratch = None
        torch.cuda.synchronize(self.device)
        torch.zeros(1, device=self.device).add_(1).item()

    def close(self) -> None:
        """Free the device buffers and stop the compile workers."""
        if self._ahead is not None:
            self._ahead.close()
            self._ahead = None
        self._setup = None
        self._setups.clear()
        self._scratch = None

    def __enter__(self) -> "CudaBackend":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ------------------------------------------------------------------ internals

    def _options(self, block: int, spin_bound: int | None, mode: str = "grid",
                 role_rotation: bool = False) -> CodegenOptions:
        """The run kernel ``litmus audit`` checks (``codegen.options.RUN_KERNELS``, the one of
        ``mode`` and, in parallel mode, ``role_rotation``), with this launch's block and spin bound."""
        from dataclasses import replace

        from litmus.codegen.options import RUN_KERNELS, run_kernel

        return replace(RUN_KERNELS[run_kernel(mode, role_rotation)], backend="cuda", block=block, spin_bound=spin_bound)

    def _prepare(self, test: LitmusTest, config: RunConfig) -> _Setup:
        from litmus.codegen import generate, load_kernel

        validate_stress(config.stress)
        n, per_iter, block = grid_shape(test, config, self.sm_count, self.block)
        spin_bound = config.spin_bound if config.spin_bound is not None else self.spin_bound
        key = (test, n, per_iter, block, config.stress.stride, spin_bound, control_words(config.stress))
        if (kept := self._cached(key, test)) is not None:
            return kept
        options = self._options(block, spin_bound)
        self._await_ahead(test, options)
        source = generate(test, options)
        module = load_kernel(source, interpret=False)
        layout = source.layout
        spec = launch_spec(layout, n, config.stress.stride, per_iter)
        heaps, control, table, out = round_buffers(layout, spec, config.stress, self.device)
        return self._keep(_Setup(key, test, layout, getattr(module, layout.kernel(None).name), spec, heaps, control,
                                 table, out, source.fallbacks))

    def _cached(self, key: tuple[Any, ...], test: LitmusTest) -> _Setup | None:
        """The kept setup for ``key`` (made current), or None after freeing what a new one
        replaces: setups are kept for one test only (one per environment and round size), at most
        :data:`KEPT_SETUPS` holding at most :data:`KEPT_MEMORY_FRACTION` of the device's memory,
        so their buffers go before a new test allocates its own."""
        setup = self._setups.get(key)
        if setup is not None:
            self._setup = setup
            return setup
        # a test's warmed form (litmus.run.warm) shares its id and its rounds: keep both
        if (any(k.test.id != test.id for k in self._setups.values()) or len(self._setups) >= KEPT_SETUPS
                or sum(k.nbytes for k in self._setups.values()) >= self.kept_bytes):
            self._setups.clear()
            self._setup = None
        return None

    def _keep(self, setup: _Setup) -> _Setup:
        """Keep ``setup`` (see :meth:`_cached`) and make it current."""
        self._setups[setup.key] = setup
        self._setup = setup
        return setup

    def _launch_stress(self, stress: StressLaunch, seed: int) -> None:
        import torch

        from litmus.run.stress import load_stress_kernel

        if self._stress_kernel is None:
            self._stress_kernel = load_stress_kernel()
        if (self._scratch is None or self._scratch.numel() != stress.scratch_words
                or self._sink.numel() < stress.programs * stress.lanes):
            self._scratch, self._sink = stress_buffers(stress, self.device)
        self._stream.wait_stream(torch.cuda.current_stream(self.device))
        with torch.cuda.stream(self._stream):
            self._stress_kernel[(stress.programs,)](
                self._scratch, self._sink, stress.iterations, seed, SCRATCH=stress.scratch_words,
                LANES=stress.lanes, FIRST_STORE=stress.first_store, SECOND_STORE=stress.second_store)

    def _count(self, setup: _Setup) -> list[Row]:
        plan = setup.spec.plan
        rows = self._counter.count(setup.out, setup.heaps, setup.layout, (plan.loc_stride, plan.inst_stride))
        setup.status_set = any(late for _, late, _ in rows)
        return rows

    # ------------------------------------------------------------------ parallel launch

    def _run_parallel(self, test: LitmusTest, config: RunConfig, round_index: int) -> Round:
        """One round in codegen's parallel mode: G resident programs, each playing every role
        (:mod:`litmus.codegen.parallel`), seeded rows and barrier choice (seed ``config.seed + round``)."""
        from litmus.run.buffers import perm_tensor
        from litmus.run.parallel import home_role, parallel_permutations, parallel_roles

        t0 = time.perf_counter()
        setup = self._prepare_parallel(test, config)
        spec = setup.spec
        seed = round_seed(config, round_index)
        init_strided(setup.layout, setup.heaps, spec.plan)
        setup.clear_out()
        home = home_role(config.stress.role_map, seed, len(parallel_roles(setup.layout)))
        perms = parallel_permutations(setup.layout, spec.progs_per_role, spec.block,
                                      seed if config.stress.shuffle else None, home)
        header = parallel_header(config.stress, seed, spec.progs_per_role)
        stress = stress_launch(config.stress)
        phases, rows = self._launch(setup, perm_tensor(perms, self.device), header, stress, seed)
        return Round(rows=rows, instances=spec.n_instances, seconds=time.perf_counter() - t0,
                     extra={**phases, "seed": seed, "perms": perms, "home_role": home,
                            "fallbacks": list(setup.fallbacks), "mem_stress": stress is not None,
                            "launch": "parallel", "programs": spec.progs_per_role,
                            "iterations": spec.n_instances // (spec.progs_per_role * spec.block),
                            "barrier_group": header[harness.GROUP], "pre_stress": header[harness.PRE_ITERS],
                            **(setup.info or {})})

    def _prepare_parallel(self, test: LitmusTest, config: RunConfig) -> _Setup:
        """Generate and compile the parallel kernel, size its grid from occupancy, allocate buffers."""
        from litmus.codegen import generate, load_kernel

        validate_stress(config.stress)
        stress = config.stress
        spin_bound = config.spin_bound if config.spin_bound is not None else self.spin_bound
        key = ("parallel", test, config.instances, self.block, stress.stride, spin_bound, control_words(stress),
               stress.stress_programs if stress.mem_stress else 0, stress.parallel_programs, stress.programs_per_sm,
               stress.role_rotation)
        if (kept := self._cached(key, test)) is not None:
            return kept
        options = self._options(self.block, spin_bound, "parallel", stress.role_rotation)
        self._await_ahead(test, options)
        source = generate(test, options)
        layout = source.layout
        kernel = getattr(load_kernel(source, interpret=False), layout.kernel(None).name)
        programs, info = self._parallel_programs(kernel, layout, stress)
        spec = parallel_spec(layout, config, programs, self.block)
        heaps, control, table, out = round_buffers(layout, spec, stress, self.device)
        return self._keep(_Setup(key, test, layout, kernel, spec, heaps, control, table, out, source.fallbacks, info))

    def _parallel_programs(self, kernel: Any, layout: Layout, stress: Stress) -> tuple[int, dict[str, Any]]:
        """Programs that are resident at once for ``kernel`` (from its compiled registers, warps
        and shared memory and the device's limits), less the memory-stress kernel's programs."""
        import torch

        from litmus.run.parallel import device_limits, parallel_programs

        per_iter = 1024 * self.block  # a representative launch, so that the specialisation matches
        plan = heap_plan(layout, per_iter, stress.stride)
        ptrs = torch.zeros(layout.n_ranks + 1, dtype=torch.int64, device=self.device)
        out = torch.zeros(1, dtype=torch.int32, device=self.device)
        compiled = kernel.warmup(ptrs, out, ptrs, per_iter, 1024, plan.loc_stride, plan.inst_stride,
                                 BLOCK=self.block, num_warps=self.num_warps, grid=(1,))
        if hasattr(compiled, "_init_handles"):
            compiled._init_handles()  # loads the binary: fills n_regs
        n_regs, warps, shared = compiled.n_regs, compiled.metadata.num_warps, compiled.metadata.shared
        stress_programs = stress.stress_programs if stress.mem_stress else 0
        limits = device_limits(self.device)
        programs = parallel_programs(limits, n_regs, warps, shared, stress_programs, stress.parallel_programs,
                                     stress.programs_per_sm)
        return programs, {"n_regs": n_regs, "num_warps": warps, "shared": shared, "sm_count": limits.sm_count,
                          "stress_programs": stress_programs}
