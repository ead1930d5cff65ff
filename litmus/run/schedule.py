"""Which environment, and how many instances, each round of one variant runs, and when a
variant under a budget may run past it.

A run gives every variant a rotation of stress environments and, with ``--time-budget``, a
number of seconds.  Three things decide how much evidence those seconds buy:

* **The environment of each round.**  Every environment of the rotation runs twice first, in
  order (the second round of each is free of compile time, so its rate is a fair one).  After
  that a variant that is *filling* (a conformance variant run to a bound: the model forbids its
  target, so only the number of ended instances, completed or proven hung, matters for 3/N)
  runs the environment that ended instances fastest; every other variant keeps rotating, since any environment may be
  the one that shows its target, except through environments that left most of their
  instances timed out while another ended most of its own: their rounds add no evidence of
  absence, and their timeouts could leave the variant inconclusive (on an H100, one program
  per SM leaves most spinning instances of the reset and counter-reuse bugs timed out, and
  the resident launch ends them; docs/detection.md).
* **The size of each round.**  A round is one launch, and the budget is checked between
  rounds, so one slow round (spins that run to their bound in many instances) overruns the
  budget by its whole length.  Under a budget, a variant that spins starts each environment
  with a probe round of at most :data:`PROBE_INSTANCES`; an environment whose round took longer
  than :func:`round_cap` then runs rounds scaled to fit it.  A *hunting* variant (its target
  allowed, or no bound to fill) under a budget also cycles each environment's rounds through
  :data:`SIZE_LADDER`: the size of a round is an environment of its own.  A round is one launch
  whose programs loop over the round's instances, so its size sets how many iterations a
  program plays back to back and how much memory the round's instances span.  On the H200
  (docs/results/h200-detect.md §9) rare targets showed in rounds of 2^15-2^20 instances and not
  in rounds of 2^24: ``MP-iris[plain-signal-sys]`` 16-64 times in 1.7e7-9.4e7 instances of the
  smaller rounds, none in 3e9 instances of the larger.
* **Running past the budget** (with ``--until-bound``).  A filling variant runs on, up to
  :data:`FILL_STRETCH` budgets, while its warm rounds are not done or its fastest environment
  reaches the bound by then (:func:`keeps_filling`); a hunting variant with too few ended
  instances for a verdict of absence runs on, up to :data:`HUNT_STRETCH` budgets
  (:func:`keeps_hunting`).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from litmus.bound import trials_for
from litmus.ir import Barrier, Branch, LitmusTest, Spin
from litmus.run.backend import Round
from litmus.run.config import RunConfig
from litmus.status import ended

PROBE_INSTANCES = 1 << 20
"""The first round of each environment of a variant that spins, under a time budget."""

MIN_ROUND_INSTANCES = 1 << 12
"""Rounds are never scaled below this many instances."""

WARM_ROUNDS = 2
"""Rounds every environment runs, in rotation order, before a filling variant picks the fastest."""

SIZE_LADDER = (0, 4, 7)
"""A hunting variant's rounds of one environment, under a budget, take the requested size
shifted right by these in turn (2^24, 2^20, 2^17 for the default 2^24; never under
:data:`MIN_ROUND_INSTANCES`, nor over what fits the round cap)."""


FILL_STRETCH = 16.0
"""A filling variant whose time budget is spent runs on, up to this many budgets in all, when
its rate of ended instances says that it reaches its bound by then (:func:`keeps_filling`)."""


def keeps_filling(spent: float, budget: float, n_ended: int, instances: int, bound: float,
                  rate: float | None = None, warmed: bool = True) -> bool:
    """Whether a filling variant (a conformance variant run to a bound) that has spent ``spent``
    seconds of its ``budget``, with ``n_ended`` of ``instances`` instances ended, should run on:
    its bound 3/N <= ``bound`` is not met yet, at least half its instances end (so more time
    can meet it), it has run less than :data:`FILL_STRETCH` budgets, and either its warm rounds
    are not done (``warmed`` false: an environment's first round, which loads its kernels, says
    little of its rate) or it meets the bound within the stretch at ``rate`` ended instances
    per second (that of the environment it runs next, :meth:`RoundPlan.fill_rate`), or else at
    its rate so far."""
    if spent <= 0 or n_ended <= 0 or spent >= FILL_STRETCH * budget or 2 * n_ended < instances:
        return False
    need = trials_for(bound)
    if n_ended >= need:
        return False
    if not warmed:
        return True
    per_second = rate if rate is not None and rate > 0 else n_ended / spent
    return spent + (need - n_ended) / per_second <= FILL_STRETCH * budget


HUNT_STRETCH = 8.0
"""A hunting variant whose budget is spent while too few of its instances ended for a verdict of
absence runs on, up to this many budgets in all, while it ends some (:func:`keeps_hunting`)."""


def keeps_hunting(spent: float, budget: float, n_ended: int, absence_backed: bool) -> bool:
    """Whether a hunting variant (its target allowed) that has spent ``spent`` seconds of its
    ``budget`` should run on: its target is unseen, its ``n_ended`` ended instances are too few
    for a verdict of absence (``absence_backed`` false: it would be ``inconclusive``), it ends
    some, and it has run less than :data:`HUNT_STRETCH` budgets.  Only a witness can give such
    a variant a verdict, and a witness needs ended instances: on the H200,
    ``MP-reset-race[relaxed-plain-reset]`` completes about one instance in 10^6 and shows its
    target in about one completion in 10^3 (docs/results/h200-detect.md §11)."""
    return 0 < spent < HUNT_STRETCH * budget and n_ended > 0 and not absence_backed


def round_cap(time_budget: float) -> float:
    """The longest a round should take under ``time_budget`` seconds per variant: a quarter of
    it, but never under a second (a first round also compiles, which must not count as slow)."""
    return max(time_budget / 4.0, 1.0)


def may_wait(test: LitmusTest) -> bool:
    """Whether an instance of ``test`` can wait on another thread: a spin, a barrier, or a
    branch (a retry loop), any of which can make a round run long."""
    return any(isinstance(i, (Spin, Barrier, Branch)) for t in test.threads for i in t.instrs)


def _pow2_floor(n: float) -> int:
    """The largest power of two at most ``n`` (1 for ``n < 2``)."""
    k = 1
    while k * 2 <= n:
        k *= 2
    return k


@dataclass
class _EnvRecord:
    """What one environment of the rotation has done for the variant so far."""

    instances: int  # the size its next round may take at most (the probe, then what fits the cap)
    rounds: int = 0
    ended: int = 0  # ended instances (completed, or provably hung) in rounds after its first
    seconds: float = 0.0  # seconds of rounds after its first
    first_rate: float = 0.0  # ended instances per second of its first round (compile included)
    ran_all: int = 0  # instances of all its rounds
    ended_all: int = 0  # ended instances of all its rounds

    @property
    def ends_most(self) -> bool:
        """Whether at least half the instances of its rounds ended."""
        return 2 * self.ended_all >= self.ran_all

    @property
    def rate(self) -> float:
        """Completed instances per second, from the rounds after its first when there are any."""
        return self.ended / self.seconds if self.seconds > 0 else self.first_rate


@dataclass
class RoundPlan:
    """The rounds of one variant under ``config``: call :meth:`next` for the configuration of
    the next round, run it, and hand the round to :meth:`record`.

    ``fill``: the variant runs to a bound and its target is forbidden, so after the warm rounds
    only the fastest environment runs.  ``spins``: the variant can take long rounds (a spin or a
    barrier wait), so under a time budget each environment starts with a probe round.
    """

    config: RunConfig
    fill: bool = False
    spins: bool = False
    _envs: list[_EnvRecord] = field(init=False)
    _round: int = field(init=False, default=0)
    _last: int = field(init=False, default=0)

    def __post_init__(self) -> None:
        first = self.config.instances
        if self.spins and self.config.time_budget is not None:
            first = min(first, PROBE_INSTANCES)
        self._envs = [_EnvRecord(first) for _ in self.config.environments]

    def environment(self) -> int:
        """The index (in ``config.environments``) of the environment the next round runs."""
        n = len(self._envs)
        if not self.warmed:
            return self._round % n
        if self.fill:
            return self._fastest()
        ending = [k for k in range(n) if self._envs[k].ends_most]
        if ending and len(ending) < n:
            return ending[self._round % len(ending)]
        return self._round % n

    def _fastest(self) -> int:
        """The environment that has ended instances fastest."""
        return max(range(len(self._envs)), key=lambda k: (self._envs[k].rate, -k))

    @property
    def warmed(self) -> bool:
        """Whether the warm rounds are over: every environment has run :data:`WARM_ROUNDS` rounds."""
        return all(rec.rounds >= WARM_ROUNDS for rec in self._envs)

    def fill_rate(self) -> float:
        """Ended instances per second of the environment a filling variant runs once warmed
        (the fastest so far)."""
        return self._envs[self._fastest()].rate

    def next(self) -> RunConfig:
        """The configuration of the next round: its environment as ``stress``, its size as
        ``instances``, no rotation."""
        self._last = self.environment()
        env = self.config.environments[self._last]
        return replace(self.config, stress=env, rotation=(), instances=self._size(self._envs[self._last]))

    def _size(self, rec: _EnvRecord) -> int:
        """The size of ``rec``'s next round: at most ``rec.instances``; a hunting variant under a
        budget takes the next rung of :data:`SIZE_LADDER`."""
        if self.fill or self.config.time_budget is None:
            return rec.instances
        rung = self.config.instances >> SIZE_LADDER[rec.rounds % len(SIZE_LADDER)]
        return min(rec.instances, max(rung, min(MIN_ROUND_INSTANCES, self.config.instances)))

    def record(self, r: Round) -> None:
        """Account for the round just run (the one :meth:`next` last described)."""
        rec = self._envs[self._last]
        n_ended = sum(n for _, status, n in r.rows if ended(status))
        rec.ran_all += sum(n for _, _, n in r.rows)
        rec.ended_all += n_ended
        if rec.rounds == 0:
            rec.first_rate = n_ended / r.seconds if r.seconds > 0 else 0.0
        else:
            rec.ended += n_ended
            rec.seconds += r.seconds
        rec.rounds += 1
        self._round += 1
        if self.config.time_budget is None or r.seconds <= 0:
            return
        cap = round_cap(self.config.time_budget)
        per_instance = r.seconds / max(1, r.instances)
        fits = _pow2_floor(cap / per_instance)
        rec.instances = max(MIN_ROUND_INSTANCES, min(self.config.instances, fits))
