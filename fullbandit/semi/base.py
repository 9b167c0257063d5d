"""The round-based layer of the per-arm (semi-bandit) top-k algorithms.

The algorithms of the semi-bandit papers (OptMAI, AdaptiveTopK, SAR, Uniform, LUCB, ...)
sample single arms and decide between *rounds*: a round asks for ``m_i`` samples of each
arm ``i``, and only once all of them are told does the algorithm look at the data and
plan the next one (until then ``ask`` refuses with
:class:`fullbandit.core.algorithm.WaitingForRewards`, changing nothing; an abandoned sample goes
back into the round). :class:`PerArmRounds` hands a round out in batches (one
:class:`fullbandit.core.algorithm.Pull` for all the arms that need the same number of samples, told
with each member's summed reward, so a simulated round costs one vectorised draw), keeps
the samples and reward sums per arm. Every unit of the
budget is one single-arm sample (:meth:`fullbandit.core.algorithm.Algorithm.cost`).

A round the budget left cannot complete is *cut* when it is planned (:func:`cut_round`): each
arm gets its planned samples up to a common level, the level as high as the budget allows,
and the samples that remain go one each to arms drawn at random by the algorithm's seeded
generator. The papers stop "once the budget is exhausted" without saying which samples of
the last round are taken; handing them out in index order (as this layer did before) gave
the whole round to the lowest-index arms and none to the rest, so an arm's index decided
the answer. A cut round is flagged (:attr:`PerArmRounds.round_cut`): its data are fewer than
the round's rule assumes, and an algorithm whose decisions assume a full round skips them.

A subclass provides :meth:`PerArmRounds._plan_round` (samples per arm for the next round,
from the data so far) and :meth:`PerArmRounds._evaluate` (the answer).
:class:`PerArmConfidenceRounds` adds what every fixed-confidence one shares (``epsilon``,
``delta``, the sub-Gaussian scale in use, prior observations, reports): a new
fixed-confidence per-arm algorithm subclasses it and writes those two methods only
(``examples/extending/`` holds one in a single module).
"""

from __future__ import annotations

import math
from abc import abstractmethod
from typing import ClassVar

import numpy as np

from fullbandit.core.algorithm import Algorithm, StoppingCheck, WaitingForRewards
from fullbandit.core.params import SEED, Interval
from fullbandit.core.priors import PriorObservations, check_prior_noise
from fullbandit.problems.classes import TopK
from fullbandit.util.validation import InvalidParameterError, check_budget_floor

#: The parameters every fixed-budget per-arm algorithm has.
FIXED_BUDGET_CONSTRAINTS: dict[str, list] = {"budget": [Interval(int, 1, None)], "seed": [SEED]}
#: The parameters of :class:`PerArmConfidenceRounds` (every fixed-confidence per-arm algorithm that subclasses it).
CONFIDENCE_CONSTRAINTS: dict[str, list] = {
    "epsilon": [Interval(float, 0, None)],
    "delta": [Interval(float, 0, 1, closed="neither")],
    "noise_scale": [None, Interval(float, 0, None, closed="neither")],
    "budget": [Interval(int, 1, None)],
    "seed": [SEED],
}
#: Budget cap (single-arm samples) of a fixed-confidence per-arm algorithm when none is given.
CONFIDENCE_BUDGET = 10_000_000


def cut_round(plan: np.ndarray, budget: int, rng: np.random.Generator) -> np.ndarray:
    """``plan`` (samples per arm) cut to ``budget`` samples in all, evenly and without regard to arm index.

    Each arm gets ``min(plan_i, L)`` with the level ``L`` as high as ``budget`` allows; the
    ``budget - sum_i min(plan_i, L)`` samples left (fewer than the arms planned above ``L``)
    go one each to such arms drawn by ``rng`` without replacement. A plan within the budget
    is returned unchanged (and ``rng`` is not used).

    Examples
    --------
    >>> import numpy as np
    >>> shares = cut_round(np.array([5, 1, 5, 5]), 8, np.random.default_rng(0))  # level 2, one arm drawn
    >>> shares[1], sorted(shares.tolist())
    (np.int64(1), [1, 2, 2, 3])
    >>> cut_round(np.array([5, 1, 5, 5]), 16, np.random.default_rng(0)).tolist()
    [5, 1, 5, 5]
    """
    if int(plan.sum()) <= budget:
        return plan
    low, high = 0, int(plan.max())  # sum(min(plan, low)) <= budget < sum(min(plan, high))
    while high - low > 1:
        middle = (low + high) // 2
        if int(np.minimum(plan, middle).sum()) <= budget:
            low = middle
        else:
            high = middle
    shares = np.minimum(plan, low)
    above = np.flatnonzero(plan > low)
    shares[rng.choice(above, size=budget - int(shares.sum()), replace=False)] += 1
    return shares


def empirical_means(counts: np.ndarray, sums: np.ndarray) -> np.ndarray:
    """``sums / counts``, ``nan`` where an arm has no sample (any leading shape: rows may be independent runs)."""
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(counts > 0, sums / np.maximum(counts, 1), np.nan)


class PerArmRounds(Algorithm):
    """Base of the per-arm top-k algorithms that sample in rounds (see the module docstring).

    Attributes available to subclasses (after setup)
    ------------------------------------------------
    samples : numpy.ndarray of int
        Samples told per arm.
    sums : numpy.ndarray
        Sum of the told rewards per arm.
    round : int
        Rounds planned so far (the current one included).
    offered_noise_scale : float or None
        The noise scale :meth:`setup` was offered (:func:`fullbandit.run` offers the
        environment's declared scale of one arm's reward), whatever the algorithm's own
        ``noise_scale`` parameter says; ``None`` when none was offered.
    noise_scale_in_use : float or None
        The sub-Gaussian scale of one arm's reward that the algorithm's bounds use, for an
        algorithm that resolves one at setup (:class:`PerArmConfidenceRounds`: the parameter,
        else the offered one); ``None`` for one that keeps none.

    Examples
    --------
    Uniform sampling, two samples of every arm per round:

    >>> import numpy as np
    >>> import fullbandit as fb
    >>> from fullbandit.core.algorithm import StoppingCheck
    >>> from fullbandit.core.params import SEED, Interval
    >>> from fullbandit.semi.base import PerArmRounds
    >>> class TwoEach(PerArmRounds):
    ...     setting = "fixed-budget"
    ...     parameter_constraints = {"budget": [Interval(int, 1, None)], "seed": [SEED]}
    ...     def __init__(self, problem, *, budget=20, seed=None):
    ...         self.problem, self.budget, self.seed = problem, budget, seed
    ...     def _plan_round(self):
    ...         return np.full(self.problem.n, 2)
    ...     def _evaluate(self):
    ...         return StoppingCheck(self._told, np.inf, 0.0, self.problem.best(self.means()), False)
    >>> algorithm = TwoEach(fb.TopK(5, 2))
    >>> pull = algorithm.ask(max_count=100)      # the whole round in one batch
    >>> pull.arms, pull.count, algorithm.cost(pull)
    ((0, 1, 2, 3, 4), 2, 10)
    >>> algorithm.tell(pull, [2.0, 1.0, 0.0, 1.0, 2.0])
    >>> algorithm.samples.tolist(), algorithm.means().tolist()
    ([2, 2, 2, 2, 2], [1.0, 0.5, 0.0, 0.5, 1.0])
    >>> [algorithm.ask(max_count=3).arms for _ in range(3)]   # smaller batches: one arm each
    [(0,), (1,), (2,)]
    """

    feedback: ClassVar[str] = "semi"
    decision_classes: ClassVar[tuple[type, ...]] = (TopK,)
    problem: TopK

    samples: np.ndarray
    sums: np.ndarray
    round: int
    offered_noise_scale: float | None
    noise_scale_in_use: float | None = None

    # --- what subclasses provide ---------------------------------------------------------
    @abstractmethod
    def _plan_round(self) -> np.ndarray:
        """Samples per arm (``n`` non-negative integers, not all zero) for the next round."""


    def _build_rounds(self, rng: np.random.Generator) -> None:  # noqa: B027 - optional hook
        """Build the subclass's own working state before the first round (optional)."""

    def _budget_floor(self, noise_scale: float | None) -> tuple[int, str] | None:
        """``(least budget, what it buys)`` for a schedule that needs more than one sample; ``None``: no floor.

        A fixed-budget algorithm whose schedule cannot start within its budget would still
        answer, from arms never sampled; the floor is refused with the parameters instead.
        ``noise_scale`` is the scale offered at setup (``None`` before), for a floor that
        depends on it.
        """
        return None

    def minimum_budget(self, noise_scale: float | None = None) -> int:
        """The least ``budget`` this algorithm accepts for its problem (1 when its schedule has no floor).

        ``noise_scale`` stands for the environment's, for a floor that depends on it and an
        algorithm whose own ``noise_scale`` is ``None`` (without either, such a floor is
        unknown until setup and 1 is returned).

        >>> import fullbandit as fb
        >>> from fullbandit.semi import SAR
        >>> SAR(fb.TopK(8, 3)).minimum_budget()   # n + 1: one sample of every arm in the first phase
        9
        """
        floor = self._budget_floor(noise_scale)
        return 1 if floor is None else floor[0]

    # --- validation ------------------------------------------------------------------------
    def _validate(self) -> None:
        super()._validate()
        self._check_budget_floor(None)

    def _check_budget_floor(self, noise_scale: float | None) -> None:
        floor = self._budget_floor(noise_scale)
        if floor is not None:
            check_budget_floor(type(self).__name__, self.budget, *floor)

    # --- the round machinery ---------------------------------------------------------------
    def _build(self, rng: np.random.Generator, noise_scale: float | None) -> None:
        n = self.problem.n
        self.samples = np.zeros(n, dtype=np.int64)
        self.sums = np.zeros(n)
        self.round = 0
        self._queue = np.zeros(n, dtype=np.int64)  # samples of the round not yet handed out
        self._round_outstanding = 0  # handed-out samples of the round not yet told
        self._round_complete = False
        self._round_cut = False
        self.offered_noise_scale = noise_scale
        self.noise_scale_in_use = None  # an algorithm that resolves one does so in _build_rounds
        self._check_budget_floor(noise_scale)  # again: a floor may depend on the noise scale, offered only now
        self._build_rounds(rng)

    def known_noise_scale(self) -> float | None:
        """The scale of one reward as far as it is known: the one in use, else the one offered."""
        return self.offered_noise_scale if self.noise_scale_in_use is None else self.noise_scale_in_use

    def means(self) -> np.ndarray:
        """Empirical means (``nan`` for an arm never sampled)."""
        return empirical_means(self.samples, self.sums)

    def _next_round(self) -> None:
        plan = np.asarray(self._plan_round())
        if plan.shape != (self.problem.n,) or not np.issubdtype(plan.dtype, np.integer) or np.any(plan < 0) \
                or not plan.any():
            raise RuntimeError(f"{type(self).__name__}._plan_round must return n={self.problem.n} non-negative "
                               f"integers, not all zero; got {plan!r}")
        plan = plan.astype(np.int64)
        left = self.budget - self._told - self._outstanding
        self._round_cut = int(plan.sum()) > left
        self._queue = cut_round(plan, left, self._rng)
        self.round += 1
        self._round_complete = False

    @property
    def round_cut(self) -> bool:
        """Whether the current round was cut to the budget left (see :func:`cut_round`)."""
        self.setup()
        return self._round_cut

    def _next_pull(self, max_count: int):
        if not self._queue.any():
            if self._round_outstanding:
                # The next round is planned from every sample of this one: none can be handed out yet.
                raise WaitingForRewards(
                    f"{self.label()}: round {self.round} is handed out; tell (or abandon) its "
                    f"{self._round_outstanding} outstanding sample(s) before the next round is planned")
            self._next_round()
        # Arms needing the same number of samples go out together; the largest such count first.
        quota = int(self._queue.max())
        group = np.flatnonzero(self._queue == quota)
        if quota * group.size > max_count:
            count = min(quota, max_count)
            group = group[:max(1, max_count // count)]
        else:
            count = quota
        self._queue[group] -= count
        self._round_outstanding += count * group.size
        return tuple(int(i) for i in group), count, [self.round, [int(i) for i in group]]

    def _record(self, token, arms, count, reward) -> None:
        members = list(arms)
        self.samples[members] += count
        self.sums[members] += reward
        if token[0] == self.round:
            self._round_outstanding -= count * len(members)
            self._round_complete = not self._queue.any() and not self._round_outstanding

    def _release(self, token, count) -> None:
        if token[0] == self.round:
            self._queue[token[1]] += count
            self._round_outstanding -= count * len(token[1])

    def _due_for_check(self) -> bool:
        return self._round_complete

    def _after_check(self, check) -> None:
        # A round is evaluated once; subclasses that override this call it too.
        self._round_complete = False

    def constants(self) -> dict:
        """Rounds so far and the samples per arm (largest and mean)."""
        self.setup()
        return {"rounds": self.round, "max_samples_per_arm": int(self.samples.max()),
                "mean_samples_per_arm": float(self.samples.mean())}


class PerArmConfidenceRounds(PerArmRounds):
    """Base of the fixed-confidence per-arm top-k algorithms that sample in rounds (LUCB, CLUCB-PAC).

    On top of :class:`PerArmRounds`: the parameters ``epsilon`` (tolerance on the sum gap),
    ``delta`` (error probability), ``noise_scale`` (sub-Gaussian scale ``R`` of one arm's
    reward; ``None`` takes the one :meth:`setup` is offered, the environment's), ``budget``
    (a cap on single-arm samples, :data:`CONFIDENCE_BUDGET` by default) and ``seed``, with
    their constraints (:data:`CONFIDENCE_CONSTRAINTS`); the scale in use resolved at setup
    (:attr:`noise_scale_in_use`; refused, naming ``noise_scale``, when there is none); prior
    observations of single arms (:meth:`evidence` counts them in); and the reports.

    A subclass writes :meth:`PerArmRounds._plan_round` and :meth:`PerArmRounds._evaluate`
    (reading :meth:`evidence`, :attr:`noise_scale_in_use`, ``round``), declares ``name``,
    ``summary`` and, if it keeps more state, builds it in :meth:`_build_rounds` after calling
    this class's. Before every arm has a sample, :meth:`_unidentified` is the check to return.

    Examples
    --------
    Sample every arm once per round and stop when Hoeffding intervals (a union over arms and
    rounds) separate the empirical top-k, here with ``k = 1``:

    >>> import math
    >>> import numpy as np
    >>> import fullbandit as fb
    >>> from fullbandit.core.algorithm import StoppingCheck
    >>> from fullbandit.semi.base import PerArmConfidenceRounds
    >>> class EveryArm(PerArmConfidenceRounds):
    ...     def _plan_round(self):
    ...         return np.ones(self.problem.n, dtype=np.int64)
    ...     def _evaluate(self):
    ...         samples, sums = self.evidence()
    ...         if np.any(samples == 0):
    ...             return self._unidentified({})
    ...         means, n, t = sums / samples, self.problem.n, max(self.round, 1)
    ...         beta = self.noise_scale_in_use * np.sqrt(2 * math.log(4 * n * t * t / self.delta) / samples)
    ...         best = self.problem.best(means)
    ...         rest = [i for i in range(n) if i not in best]
    ...         gap = max(means[rest] + beta[rest]) - min(means[list(best)] - beta[list(best)])
    ...         return StoppingCheck(self.n_pulls, max(gap, 0.0), self.epsilon, best, True)
    >>> arms = fb.GaussianArms([0.9, 0.5, 0.1], sigma=0.25, feedback="semi", seed=0)
    >>> result = fb.run(EveryArm(fb.TopK(3, 1)), arms, progress=False)
    >>> result.answer, str(result.stop_reason), result.constants["noise_scale"]
    ((0,), 'stopping rule', 0.25)
    """

    setting: ClassVar[str] = "fixed-confidence"
    parameter_constraints: ClassVar[dict[str, list]] = CONFIDENCE_CONSTRAINTS
    takes_prior: ClassVar[bool] = True  # single-arm observations shift each arm's count

    epsilon: float
    delta: float
    noise_scale: float | None
    noise_scale_in_use: float  # resolved in _build_rounds

    def __init__(self, problem, *, epsilon: float = 0.0, delta: float = 0.05, noise_scale: float | None = None,
                 budget: int = CONFIDENCE_BUDGET, seed=None):
        self.problem = problem
        self.epsilon = epsilon
        self.delta = delta
        self.noise_scale = noise_scale
        self.budget = budget
        self.seed = seed

    def _build_rounds(self, rng: np.random.Generator) -> None:
        """Resolve the scale in use and start with no prior observations (a subclass calls this first)."""
        self.noise_scale_in_use = self._noise_scale_in_use(self.offered_noise_scale,
                                                           of="one arm's reward, 1/2 in [0, 1]")
        n = self.problem.n
        self._prior_samples, self._prior_sums = np.zeros(n, dtype=np.int64), np.zeros(n)

    def _absorb_prior(self, prior: PriorObservations) -> None:
        # Prior samples shift each arm's count u by a constant, so at stage t an arm still has at most t
        # possible counts and a union bound over (t, arm, u) behind a radius holds as it stands.
        if not prior.singletons:
            j = next(j for j, arm in enumerate(prior.arms) if len(arm) > 1)
            raise InvalidParameterError(
                f"{self.label()}: a per-arm algorithm takes observations of single arms only; prior arms[{j}] = "
                f"{prior.arms[j]} is a set of {len(prior.arms[j])} arms")
        check_prior_noise(prior, self.noise_scale_in_use, self.label())
        arms = [arm[0] for arm in prior.arms]
        self._prior_samples[arms] += prior.counts
        self._prior_sums[arms] += prior.reward_sums

    def evidence(self) -> tuple[np.ndarray, np.ndarray]:
        """Samples and reward sums per arm, the prior observations included (what the bounds read)."""
        return self.samples + self._prior_samples, self.sums + self._prior_sums

    @property
    def effective_noise_scale(self) -> float:
        """The sub-Gaussian scale ``R`` the radii use (the parameter, or the one ``run`` offered)."""
        self.setup()
        return self.noise_scale_in_use

    def constants(self) -> dict:
        """The configuration's constants, rounds and samples per arm."""
        return {**super().constants(), "noise_scale": self.noise_scale_in_use, "delta": self.delta}

    def _unidentified(self, details: dict) -> StoppingCheck:
        """The check while some arm has no sample: no estimate, no claim (``gap_bound`` infinite)."""
        return StoppingCheck(self._told, math.inf, self.epsilon, None, True, details)
