"""Time one variant's signalling on one backend: latency samples, two runs, throughput under load.

- ``cuda``: the loop kernel of :mod:`litmus.cost.kernel`, one program per party (two CTAs of
  one GPU for a message), per-round-trip timestamps from ``%globaltimer``; ``warmup`` launches
  are discarded and the first ``WARM_TRIPS`` trips of every launch too; a round trip's one-way
  latency is half of it (a barrier round is reported as it is). Under load: ``load_pairs``
  programs per party with ``load_block`` lanes each, timed by CUDA events.
- ``ranks``: the same loop kernel, each rank process launching the programs of its parties on
  flags in world rank 0's heap (symmetric memory on GPUs), timed by the GPU the same way
  (:class:`litmus.cost.launch.RanksLoopLaunch` through ``RanksBackend.run_task``); under load,
  the slowest rank's CUDA-event time.
- ``cpu``: the unrolled litmus test of :mod:`litmus.cost.unrolled` through the backend's own
  ``run_round`` (one process per role). A launch is timed by the backend (``kernel_seconds``,
  host clock), so a sample is the difference of a launch of ``n`` round trips and one of 1,
  over ``n - 1``.

Every measurement runs twice (run A, run B) and says whether their p50s agree within 5 %.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any, Callable

from litmus.cost.shape import Signalling
from litmus.cost.stats import Agreement, Summary, agreement, summarize
from litmus.errors import LitmusError

WARM_TRIPS = 2  # trips at the start of each cuda launch left out of the samples
BACKENDS: tuple[str, ...] = ("cuda", "ranks", "cpu")
INTERPRETER_SPIN_BOUND = 4096  # reads before a spin gives up under the Triton interpreter (each read is ~µs)


@dataclass(frozen=True)
class CostParams:
    """How to measure: round trips per launch, launches per run, warm-up launches, load shape,
    the spin bound, (ranks) the world size and instances per launch, and (cuda) the warps per
    CTA and how many of its threads execute the fences (None: all)."""

    round_trips: int = 1000
    repeat: int = 5
    warmup: int = 2
    load_pairs: int = 32
    load_block: int = 32
    spin_bound: int = 1_000_000
    world_size: int | None = None
    instances: int = 1
    warps: int = 1
    fence_threads: int | None = None

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready fields."""
        return dict(self.__dict__)


@dataclass
class Measurement:
    """One variant on one backend. Latencies in ns: ``one_way`` of a message (round trip / 2) or
    one barrier round; ``runs`` are the two runs' summaries; ``round_trips`` done of ``asked``."""

    test_id: str
    family: str
    variant: str
    backend: str
    shape: str
    placement: str
    runs: list[Summary]
    agreement: Agreement
    round_trips: int
    asked: int
    timeouts: int
    signals_per_s: float | None
    timer: str
    fallbacks: tuple[str, ...] = ()
    notes: list[str] = field(default_factory=list)
    event_trip_ns: float | None = None  # cuda: median over launches of CUDA-event launch time / round trips

    @property
    def p50(self) -> float:
        """The mean of the runs' p50s (the ranking key)."""
        return sum(r.p50 for r in self.runs) / len(self.runs)

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready fields."""
        return {"id": self.test_id, "family": self.family, "variant": self.variant, "backend": self.backend,
                "shape": self.shape, "placement": self.placement, "p50_ns": round(self.p50, 3),
                "runs": [r.as_dict() for r in self.runs], "agreement": self.agreement.as_dict(),
                "round_trips": self.round_trips, "asked": self.asked, "timeouts": self.timeouts,
                "signals_per_s": self.signals_per_s, "timer": self.timer, "fallbacks": list(self.fallbacks),
                "event_trip_ns": None if self.event_trip_ns is None else round(self.event_trip_ns, 3),
                "notes": list(self.notes)}


def _signals_per_trip(sig: Signalling) -> int:
    return 2 if sig.shape == "message" else len(sig.parties)


def _halve(sig: Signalling, xs: list[float]) -> list[float]:
    return [x / 2 for x in xs] if sig.shape == "message" else xs


def measure_cuda(sig: Signalling, params: CostParams, tick: Callable[[], None] | None = None,
                 interpreter: bool = False) -> Measurement:
    """Time ``sig`` with the loop kernel on the current GPU.

    ``interpreter=True`` runs the same steps under the Triton interpreter (``TRITON_INTERPRET=1``
    set before triton was imported) with every party in one program (loopback): the samples are
    then trip counts, not times; it exercises the harness on a CPU."""
    from litmus.codegen.options import detect_features
    from litmus.cost.compile import load_cost_kernel
    from litmus.cost.kernel import cost_kernel
    from litmus.cost.launch import launch_loop

    _check_trips(params)
    if interpreter:
        ck = cost_kernel(sig, backend="interpreter", spin_bound=params.spin_bound, loopback=True)
    else:
        ck = cost_kernel(sig, backend="cuda", features=detect_features(), spin_bound=params.spin_bound,
                         fence_threads=params.fence_threads)
    module = load_cost_kernel(ck, interpret=interpreter)
    warps, device = params.warps, "cpu" if interpreter else "cuda"

    def launch(pairs: int, block: int) -> Any:
        return launch_loop(module, ck, params.round_trips, pairs, block, num_warps=warps, device=device)

    fencing = "every thread" if params.fence_threads is None else f"threads %tid.x < {params.fence_threads}"
    notes = [f"{len(sig.parties)} CTAs of one GPU play the parties (ranks as CTAs), {32 * warps} threads each; "
             f"fences run by {fencing}"]
    if interpreter:
        notes = ["Triton interpreter, every party in one program (loopback): samples are trips, not time"]
    return _measure_loop(sig, params, ck, launch, "interpreter" if interpreter else "cuda",
                         "one program (loopback)" if interpreter else "one GPU, one CTA per party", notes, tick)


def measure_ranks(sig: Signalling, backend: Any, params: CostParams,
                  tick: Callable[[], None] | None = None) -> Measurement:
    """Time ``sig`` with the loop kernel through the ``ranks`` backend: each rank process launches
    the programs of its parties (:func:`litmus.cost.unrolled.places`) on the flags in world rank
    0's heap (symmetric memory on GPUs), timed by the GPU as on ``cuda``."""
    from litmus.codegen.options import detect_features
    from litmus.cost.kernel import cost_kernel
    from litmus.cost.launch import RanksLoopLaunch
    from litmus.cost.unrolled import places

    _check_trips(params)
    gpu = backend.kind == "cuda"
    world = int(backend.world_size)
    at = places(sig, world)
    if gpu:
        ck = cost_kernel(sig, backend="cuda", features=detect_features(), spin_bound=params.spin_bound,
                         fence_threads=params.fence_threads)
    else:
        ck = cost_kernel(sig, backend="interpreter", spin_bound=min(params.spin_bound, INTERPRETER_SPIN_BOUND))
    party_ranks = tuple(r for r, _ in at)

    def launch(pairs: int, block: int) -> Any:
        task = RanksLoopLaunch(ck, party_ranks, params.round_trips, pairs, block, params.warps)
        return backend.run_task(task, f"{sig.test.id}: a cost loop launch of {params.round_trips} round trips")

    where = ", ".join(f"P{k}@rank{r}" for k, (r, _) in enumerate(at))
    notes = [f"ranks backend, world size {world}: each rank launches its parties' programs; the flags live in "
             "world rank 0's heap" + (" (symmetric memory)" if gpu else " (shared memory)")]
    hint = ""
    if len(set(party_ranks)) == 1 and not gpu:
        hint = ("; every party sits on rank 0 and the Triton interpreter runs the programs of one launch one "
                "after another, so a spin between them cannot complete: on the CPU time a variant whose "
                "parties are on different ranks (an -xgpu one) with --world-size 2")
    return _measure_loop(sig, params, ck, launch, "ranks", where, notes, tick, hint)


def _check_trips(params: CostParams) -> None:
    if params.round_trips <= WARM_TRIPS:
        raise LitmusError(f"--round-trips {params.round_trips}: use more than {WARM_TRIPS} (the first "
                          f"{WARM_TRIPS} of each launch are warm-up)")


def _measure_loop(sig: Signalling, params: CostParams, ck: Any, launch: Callable[[int, int], Any], backend: str,
                  placement: str, notes: list[str], tick: Callable[[], None] | None, hint: str = "") -> Measurement:
    """Warm-up, two runs of ``repeat`` launches of one pair each (``launch(pairs, block)`` gives a
    ``LoopRun``), then the load shape: the measurement of one loop kernel."""
    for _ in range(params.warmup):
        launch(1, 1)
    runs, done, asked, timeouts, per_launch = [], 0, 0, 0, []
    for _ in range(2):
        samples: list[float] = []
        for _ in range(params.repeat):
            run = launch(1, 1)
            if run.event_ms is not None:
                per_launch.append(run.event_ms * 1e6 / params.round_trips)
            samples += _halve(sig, run.round_trips_ns(WARM_TRIPS))
            done += min(run.trips)
            asked += params.round_trips
            timeouts += sum(1 for s in run.status if s)
            if tick:
                tick()
        if not samples:
            raise LitmusError(f"{sig.test.id}: no round trip completed on {backend} (spins timed out after "
                              f"{params.spin_bound} reads); the variant's flag never arrives here{hint}")
        runs.append(summarize(samples))
    # The load shape has its own BLOCK, so its first launch compiles; the events around a launch
    # would count that compile (H200: 100x fewer signals/s for variants whose kernel was new).
    launch(params.load_pairs, params.load_block)
    load = launch(params.load_pairs, params.load_block)
    per_s = None
    stalled = sum(1 for s in load.status if s)
    if load.event_ms and not stalled:
        per_s = _signals_per_trip(sig) * min(load.trips) * params.load_pairs * params.load_block / (load.event_ms / 1e3)
    notes = list(notes)
    if stalled:
        notes.append(f"under load ({params.load_pairs} pairs x {params.load_block} lanes) the spins of {stalled} of "
                     f"{len(load.status)} programs timed out: no signals/s figure")
    if ck.timer == "none":
        notes.append("no GPU timer: samples are trip numbers, not time")
    return Measurement(sig.test.id, sig.test.name, sig.test.variant, backend, sig.shape, placement, runs,
                       agreement(runs[0], runs[1]), done, asked, timeouts, per_s, ck.timer, ck.fallbacks, notes,
                       sorted(per_launch)[len(per_launch) // 2] if per_launch else None)


def _backend_config(params: CostParams, instances: int) -> Any:
    from litmus.run.config import PRESETS, RunConfig

    return RunConfig(iterations=1, instances=instances, stress=replace(PRESETS["none"], barrier=True),
                     spin_bound=params.spin_bound)


def count_round_trips(rows: list[Any], sig: Signalling, test: Any) -> tuple[int, int]:
    """``(round trips completed, instances with a timed-out spin)`` of one round's rows."""
    from litmus.cost.unrolled import completed_trips

    done = sum(completed_trips(dict(state), sig, test) * n for state, _late, n in rows)
    late = sum(n for _state, late, n in rows if late)
    return done, late


def measure_backend(sig: Signalling, backend: Any, params: CostParams,
                    tick: Callable[[], None] | None = None) -> Measurement:
    """Time ``sig`` through a run backend (``cpu`` or ``ranks``): unrolled launches of n and 1 round trips."""
    from litmus.cost.unrolled import max_trips, places, unrolled_test

    world = params.world_size if backend.name == "ranks" else None
    if "cpu" in str(backend.describe().get("device", "")).lower():
        params = replace(params, spin_bound=min(params.spin_bound, INTERPRETER_SPIN_BOUND))
    n = min(params.round_trips, max_trips(sig))
    if n < 2:
        raise LitmusError(f"{sig.test.id}: one launch holds {max_trips(sig)} round trip(s) here; the "
                          "two-launch difference needs 2 or more")
    long_t = unrolled_test(sig, n, world, params.spin_bound)
    short_t = unrolled_test(sig, 1, world, params.spin_bound)
    config = _backend_config(params, params.instances)
    index = 0
    for _ in range(params.warmup):
        backend.run_round(long_t, config, index)
        backend.run_round(short_t, config, index + 1)
        index += 2
    runs, done, asked, timeouts, per_s = [], 0, 0, 0, []
    for _ in range(2):
        samples: list[float] = []
        for _ in range(params.repeat):
            a = backend.run_round(long_t, config, index)
            b = backend.run_round(short_t, config, index + 1)
            index += 2
            got, late = count_round_trips(a.rows, sig, long_t)
            done += got
            asked += n * a.instances
            timeouts += late
            ka, kb = float(a.extra.get("kernel_seconds", a.seconds)), float(b.extra.get("kernel_seconds", b.seconds))
            if got == n * a.instances:
                samples.append((ka - kb) * 1e9 / (n - 1))
                per_s.append(_signals_per_trip(sig) * got / ka)
            if tick:
                tick()
        if not samples:
            hint = ""
            if len({r for r, _ in places(sig, world)}) == 1 and "cpu" in str(backend.describe().get("device", "")).lower():
                hint = ("; every party sits on one rank, and the interpreter runs the CTAs of one launch one "
                        "after another, so a spin between them cannot complete: use --world-size 2 on the CPU")
            raise LitmusError(f"{sig.test.id}: no launch on {backend.name} completed all its round trips "
                              f"(spins timed out after {params.spin_bound} reads){hint}")
        runs.append(summarize(_halve(sig, samples)))
    at = places(sig, world)
    where = ", ".join(f"P{k}@rank{r}/cta{c}" for k, (r, c) in enumerate(at))
    notes = [f"host-timed launches of {n} and 1 round trips ({backend.name} backend)"]
    if backend.name == "cpu":
        notes.append("Triton interpreter on the CPU: figures say nothing about a GPU")
    return Measurement(sig.test.id, sig.test.name, sig.test.variant, backend.name, sig.shape, where, runs,
                       agreement(runs[0], runs[1]), done, asked, timeouts,
                       sorted(per_s)[len(per_s) // 2] if per_s else None, "host", (), notes)
