"""OptMAI: Quartile-Elimination then Accept-Reject rounds with geometric round budgets.

Y. Zhou, X. Chen, J. Li. Optimal PAC multiple arm identification with applications to
crowdsourcing. ICML 2014: Algorithm 1 (OptMAI), Algorithm 2 (Quartile-Elimination),
Algorithm 3 (Accept-Reject), Theorem 4.3 (regret and samples per arm), section 6 (the
experiments' adjustments).
"""

from __future__ import annotations

import math
from typing import ClassVar

import numpy as np

from fullbandit.core.algorithm import StoppingCheck
from fullbandit.core.params import SEED, Instance, Interval
from fullbandit.semi.base import PerArmRounds

#: The ratio of consecutive round budgets in Algorithm 1: ``e^0.2 * 3/4`` (about 0.916).
PAPER_BETA = math.exp(0.2) * 0.75
#: Slack of the floor of a round's per-arm share (so that e.g. 19.999999999 counts as 20).
_FLOOR_SLACK = 1e-9
_STAGES = ("start", "qe", "ar", "padding")


def adjusted_budget(budget: int, beta: float, n: int) -> float:
    """The experiments' ``Q' = Q / (1 - beta^(ln n / ln(4/3)))`` (Zhou, Chen, Li 2014, section 6).

    Examples
    --------
    >>> from fullbandit.semi.optmai import adjusted_budget
    >>> round(adjusted_budget(20_000, 0.8, 1000), 1)   # ln 1000 / ln(4/3) = 24.0 rounds: 0.8^24 ~ 0.005
    20094.6
    """
    return budget / (1.0 - beta ** (math.log(n) / math.log(4.0 / 3.0)))


def round_quota(round_index: int, active: int, used: int, budget: float, beta: float) -> int:
    """Samples of each of ``active`` arms in round ``r``, before the cap by the remaining budget.

    ``max(1, floor(((1 - beta^(r+1)) Q - used) / |S_r|))``: the paper's round budget
    ``beta^r (1 - beta) Q`` plus what the rounding down of the earlier rounds left of their
    budgets (``(1 - beta^(r+1)) Q`` is the paper's spend through round ``r``; ``used`` the
    samples of rounds ``0..r-1``), shared equally and rounded down, but at least one.

    Examples
    --------
    >>> from fullbandit.semi.optmai import round_quota
    >>> round_quota(0, 100, 0, 10_000, 0.8), round_quota(0, 30, 0, 1_000, 0.8)   # 2000 / 100; 200 / 30
    (20, 6)
    >>> round_quota(1, 23, 180, 1_000, 0.8)    # (360 - 180) / 23: the 20 left by round 0 are carried
    7
    >>> round_quota(0, 100, 0, 100, 0.8)       # a share below one sample
    1
    """
    target = (1.0 - beta ** (round_index + 1)) * budget
    return max(1, math.floor((target - used) / active + _FLOOR_SLACK))


class OptMAI(PerArmRounds):
    """OptMAI (Zhou, Chen, Li 2014, Algorithm 1): top-``K`` by Quartile-Elimination, then Accept-Reject.

    Round ``r`` samples every active arm ``beta^r (1 - beta) Q / |S_r|`` times. While at
    least ``4K`` arms are active, a Quartile-Elimination round (Algorithm 2) drops the
    quarter of them with the lowest empirical means; then Accept-Reject rounds
    (Algorithm 3) compute each active arm's empirical gap
    ``max(mean - mean_(K'+1), mean_(K') - mean)`` (``K' = K - |T|`` places left), and
    remove arms by decreasing gap until a quarter is gone or ``K`` arms are accepted: a
    removed arm among the ``K'`` largest means is accepted into ``T``, any other is
    discarded. The answer is ``T``. The aim is a small aggregate regret
    (:func:`fullbandit.analysis.metrics.aggregate_regret`): Theorem 4.3 gives
    ``O(sqrt(n/Q (1 + ln(1/delta)/K)))`` with probability ``1 - delta``, and at most
    ``O(Q / n^0.3)`` samples of any one arm.

    Where this implementation completes or departs from the published text:

    * **Rounding.** Every active arm of a round gets the same number of samples: the round's
      budget ``beta^r (1 - beta) Q`` plus what the rounding down of the earlier rounds left,
      divided by ``|S_r|`` and rounded down, but at least one (:func:`round_quota`). The
      carry keeps the rounds' spend within ``|S_r|`` of the paper's ``(1 - beta^(r+1)) Q``
      (without it, rounding down alone loses about ``|S_r| / 2`` samples in every round: 8%
      of ``Q = 20 n`` for ``n = 1000``); an arm gets at most ``|S_(r-1)| / |S_r| <= 2``
      samples more than its share ``beta^r (1 - beta) Q / |S_r|``.
    * **Budget.** The rounds never spend more than ``budget``: a quota that does not fit
      in the rest of the budget is cut to ``floor(rest / |S_r|)`` and the round's rule is
      applied as usual; if not even one sample per active arm fits, the elimination stops
      and the answer is ``T`` completed by the ``K'`` active arms with the largest means over
      all their samples (a *forced* decision; unsampled arms rank last).
    * **Leftover budget.** The rounds use about ``(1 - beta^R) Q`` (paper, footnote 1). A
      fixed-budget run of this toolkit ends when the budget is spent, so once the answer
      is fixed the rest is handed out as *padding*: ``rest // n`` samples of every arm
      (one more for the first ``rest % n`` arms). Padding never changes the answer; a live
      campaign may stop asking once :attr:`decided` is true. ``constants()`` reports
      ``samples_used`` (by the rounds) and ``padding_samples``.
    * **Quartile-Elimination** removes exactly ``floor(|S|/4)`` arms (the text's "a quarter"),
      the lowest means, instead of those strictly below an empirical first quartile, whose
      number depends on the quartile's definition and on ties (with ties it could remove
      none, and the round count ``R <= ln n / ln(4/3)`` of section 6 would fail).
    * **Accept-Reject** accepts a removed arm when it is among the ``K'`` largest means (in
      the tie-broken order below); the text's ``mean_a >= mean_(K'+1)`` would also accept
      the ``(K'+1)``-th arm itself, whose gap ties with the ``K'``-th's. When the active arms
      are no more than the places left (``|S| <= K - |T|``), they are all accepted without
      sampling (the only completion of ``T``; the text would sample them with no
      ``(K'+1)``-th mean to compare).
    * **Ties** (of means, and of gaps) are broken by random keys, one per active arm,
      drawn from the algorithm's generator when a round is planned (``rng.random(n)`` at
      the start, then ``rng.random(|S_r|)`` per round, in increasing arm order); the lower
      key goes first: among equal means it is eliminated first (QE) and ranks higher (AR),
      and among equal gaps it is removed first.

    Parameters
    ----------
    problem : TopK
        ``n`` arms, choose ``K``.
    budget : int
        ``Q``: the number of single-arm samples, never exceeded (the rounds' share plus the
        padding spend exactly ``Q``). At least ``n``, so that the first round samples every
        arm; less is refused (the first round's quota would be cut to zero and the answer
        forced before any sample).
    beta : float
        Ratio of consecutive round budgets, in ``(3/4, 1)``. The analysis uses
        ``e^0.2 * 3/4`` (:data:`PAPER_BETA`, about 0.916); the experiments report 0.8 and
        0.9 and recommend 0.8 (the default).
    adjusted_budget : bool
        Plan the rounds with the experiments' ``Q' = Q / (1 - beta^(ln n / ln(4/3)))``
        (:func:`adjusted_budget`, section 6), so that the rounds use about ``Q`` rather than
        ``(1 - beta^R) Q``; the cap by the remaining budget still keeps them within ``Q``.
    reuse_samples : bool
        Estimate each round's means from all the samples of an arm so far (as in the
        experiments, section 6), not from the round's own samples only (Algorithms 2-3).
    seed : None, int, SeedSequence or Generator
        Source of the tie-breaking keys.

    Examples
    --------
    Twenty Gaussian arms, the five best at 0.9:

    >>> import numpy as np
    >>> import fullbandit as fb
    >>> from fullbandit.semi import OptMAI
    >>> means = np.r_[np.full(5, 0.9), np.linspace(0.1, 0.5, 15)]
    >>> algorithm = OptMAI(fb.TopK(20, 5), budget=4_000, seed=0)
    >>> result = fb.run(algorithm, fb.GaussianArms(means, sigma=0.5, feedback="semi", seed=1), progress=False)
    >>> result.answer, result.pulls, str(result.stop_reason)
    ((0, 1, 2, 3, 4), 4000, 'budget exhausted')
    >>> algorithm.decided, algorithm.samples_used, int(algorithm.padding.sum())   # rounds + padding = Q
    (True, 3327, 673)
    >>> algorithm.round_sizes      # |S_r|: one Quartile-Elimination round (20 >= 4K), then Accept-Reject
    [20, 15, 11, 8, 6, 4, 3, 2]
    >>> algorithm.round_quotas     # samples of each active arm in round r
    [40, 42, 47, 51, 55, 66, 70, 84]
    """

    name: ClassVar[str] = "optmai"
    summary = ('Zhou, Chen, Li 2014, Algorithms 1-3: Quartile-Elimination then Accept-Reject rounds, fixed '
               'budget of samples, semi-bandit')
    setting: ClassVar[str] = "fixed-budget"
    parameter_constraints: ClassVar[dict[str, list]] = {
        "budget": [Interval(int, 1, None)], "beta": [Interval(float, 0.75, 1, closed="neither")],
        "adjusted_budget": [Instance(bool)], "reuse_samples": [Instance(bool)], "seed": [SEED]}

    def __init__(self, problem, *, budget: int = 10_000, beta: float = 0.8, adjusted_budget: bool = False,
                 reuse_samples: bool = False, seed=None):
        self.problem = problem
        self.budget = budget
        self.beta = beta
        self.adjusted_budget = adjusted_budget
        self.reuse_samples = reuse_samples
        self.seed = seed

    def _budget_floor(self, noise_scale: float | None) -> tuple[int, str]:
        n = self.problem.n
        return n, f"the first round samples each of the n={n} arms at least once; with less its quota is " \
                  "cut to zero and the answer forced before any sample"

    # --- working state -------------------------------------------------------------------
    def _build_rounds(self, rng: np.random.Generator) -> None:
        n = self.problem.n
        self._active = np.arange(n)  # S of the current round (all arms before the first)
        self._accepted: list[int] = []  # T
        self._stage = "start"  # the current round: start (none yet), qe, ar or padding
        self._quota = 0
        self._keys = rng.random(n)  # tie-breaking keys (refreshed for the active arms each round)
        self._start_sums = np.zeros(n)  # sums of every arm when the current round began
        self._used = 0  # samples of the rounds (padding excluded)
        self._decision: tuple[int, ...] | None = None
        self._forced = False
        self._padding = np.zeros(n, dtype=np.int64)
        self._sizes: list[int] = []
        self._quotas: list[int] = []

    @property
    def planning_budget(self) -> float:
        """The ``Q`` the round budgets are computed from (``Q'`` with ``adjusted_budget``)."""
        if self.adjusted_budget:
            return adjusted_budget(self.budget, self.beta, self.problem.n)
        return float(self.budget)

    @property
    def decided(self) -> bool:
        """Whether the answer is fixed (only padding, if anything, is left)."""
        self.setup()
        return self._decision is not None

    @property
    def samples_used(self) -> int:
        """Samples planned by the OptMAI rounds (padding excluded)."""
        self.setup()
        return self._used

    @property
    def padding(self) -> np.ndarray:
        """Padding samples per arm (planned once the answer is fixed; zeros before)."""
        self.setup()
        return self._padding.copy()

    @property
    def round_sizes(self) -> list[int]:
        """``|S_r|`` of every round planned so far."""
        self.setup()
        return list(self._sizes)

    @property
    def round_quotas(self) -> list[int]:
        """Samples of each active arm in every round planned so far."""
        self.setup()
        return list(self._quotas)

    # --- the rules -------------------------------------------------------------------------
    def _round_told(self) -> bool:
        return self._stage in ("qe", "ar") and not self._queue.any() and not self._round_outstanding

    def _round_means(self) -> np.ndarray:
        """The estimates of the current round's active arms (its own samples, or all of them)."""
        arms = self._active
        if self.reuse_samples:
            return self.sums[arms] / self.samples[arms]
        return (self.sums[arms] - self._start_sums[arms]) / self._quota

    def _outcome(self) -> tuple[np.ndarray, list[int]]:
        """``(S, T)`` after the current round's rule, if the round is all told (no state changes)."""
        if not self._round_told():
            return self._active, list(self._accepted)
        arms, means, keys = self._active, self._round_means(), self._keys[self._active]
        size = arms.size
        if self._stage == "qe":  # Algorithm 2: drop the quarter with the lowest means
            lowest = np.lexsort((keys, means))[: size // 4]
            return np.delete(arms, np.sort(lowest)), list(self._accepted)
        # Algorithm 3: remove by decreasing empirical gap; accept those among the K' largest means.
        accepted = list(self._accepted)
        places = self.problem.k - len(accepted)
        ranked = np.lexsort((keys, -means))
        rank = np.empty(size, dtype=np.int64)
        rank[ranked] = np.arange(size)
        upper, lower = means[ranked[places - 1]], means[ranked[places]]
        gaps = np.maximum(means - lower, upper - means)
        keep = np.ones(size, dtype=bool)
        remaining = size
        for i in np.lexsort((keys, -gaps)):
            if len(accepted) >= self.problem.k or 4 * remaining <= 3 * size:
                break
            keep[i] = False
            remaining -= 1
            if rank[i] < places:
                accepted.append(int(arms[i]))
        return arms[keep], accepted

    def _settle(self, active: np.ndarray, accepted: list[int]) -> tuple[int, ...] | None:
        """The answer when ``(S, T)`` leave no choice: ``T`` full, or ``S`` no larger than the places left."""
        if len(accepted) >= self.problem.k:
            return tuple(sorted(accepted))
        if active.size <= self.problem.k - len(accepted):
            return tuple(sorted(accepted + [int(i) for i in active]))
        return None

    def _completed(self, active: np.ndarray, accepted: list[int]) -> tuple[int, ...]:
        """``T`` completed by the active arms with the largest means over all samples (ties: the keys)."""
        settled = self._settle(active, accepted)
        if settled is not None:
            return settled
        means = np.nan_to_num(self.means()[active], nan=-np.inf)
        best = np.lexsort((self._keys[active], -means))[: self.problem.k - len(accepted)]
        return tuple(sorted(accepted + [int(i) for i in active[best]]))

    # --- rounds ------------------------------------------------------------------------------
    def _plan_round(self) -> np.ndarray:
        n = self.problem.n
        if self._decision is None:
            active, accepted = self._outcome()
            self._active, self._accepted = active, accepted
            self._decision = self._settle(active, accepted)
        rest = self.budget - self._told
        if self._decision is None:
            r, size = len(self._sizes), self._active.size
            quota = min(round_quota(r, size, self._used, self.planning_budget, self.beta), rest // size)
            if quota == 0:
                self._decision = self._completed(self._active, self._accepted)
                self._forced = True
            else:
                self._stage = "qe" if size >= 4 * self.problem.k else "ar"
                self._quota = quota
                self._keys[self._active] = self._rng.random(size)
                self._start_sums = self.sums.copy()
                self._sizes.append(int(size))
                self._quotas.append(int(quota))
                self._used += quota * size
                plan = np.zeros(n, dtype=np.int64)
                plan[self._active] = quota
                return plan
        self._stage = "padding"
        plan = np.full(n, rest // n, dtype=np.int64)
        plan[: rest % n] += 1
        self._padding += plan
        return plan

    def _evaluate(self) -> StoppingCheck:
        active, accepted = self._outcome()
        answer = self._decision if self._decision is not None else self._completed(active, accepted)
        details = {"optmai_rounds": len(self._sizes), "samples_used": self._used,
                   "padding_samples": int(self._padding.sum()), "decided": self._decision is not None,
                   "forced_decision": self._forced, "active_arms": int(active.size),
                   "accepted_arms": len(accepted), "planning_budget": self.planning_budget}
        return StoppingCheck(self._told, math.inf, 0.0, answer, False, details)


