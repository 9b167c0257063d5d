"""LUCB1 and CLUCB-PAC: fixed-confidence per-arm (semi-bandit) top-k identification.

Both sample one or two single arms per round, chosen from per-arm confidence intervals
``theta_hat_i +- radius_i``, and stop when the intervals certify the empirical top-k.

* :class:`LUCB` is LUCB1 of Kalyanakrishnan, Tewari, Auer and Stone (2012): every round
  samples the two *critical* arms (the weakest of the empirical top-k by lower bound, the
  strongest of the rest by upper bound).
* :class:`CLUCB` is CLUCB-PAC of Chen, Lin, King, Lyu and Chen (2014) for the decision
  class of size-k subsets: every round samples the least sampled arm where the empirical
  top-k and the top-k of the pessimistic-optimistic weights differ. It is the baseline
  Chen, Chen, Zhang and Zhou (2017, section 3) run for epsilon-top-k with the aggregate
  regret.

Both report, as every algorithm of the toolkit does, a ``gap_bound`` that bounds the *sum*
gap ``theta(top-k) - theta(answer)`` from above on their confidence event, and stop when
it is at most ``epsilon``. (The aggregate regret of :func:`fullbandit.analysis.metrics.aggregate_regret`
is that sum gap divided by ``k``: to ask for aggregate regret at most ``eps``, pass
``epsilon = k * eps``.)

References
----------
S. Kalyanakrishnan, A. Tewari, P. Auer, P. Stone. PAC subset selection in stochastic
multi-armed bandits. ICML 2012.
S. Chen, T. Lin, I. King, M. R. Lyu, W. Chen. Combinatorial pure exploration of
multi-armed bandits. NeurIPS 2014.
J. Chen, X. Chen, Q. Zhang, Y. Zhou. Adaptive multiple-arm identification. ICML 2017.
"""

from __future__ import annotations

import math

import numpy as np

from fullbandit.core.algorithm import StoppingCheck
from fullbandit.semi.base import CONFIDENCE_BUDGET, CONFIDENCE_CONSTRAINTS, PerArmConfidenceRounds

#: Budget cap (single-arm samples) when none is given.
DEFAULT_BUDGET = CONFIDENCE_BUDGET

#: The constant ``k1`` of LUCB1's radius (Kalyanakrishnan et al. 2012, section 3): any
#: ``k1 > zeta(3) = 1.2021...`` makes the union bound over rounds, arms and sample counts
#: sum to less than ``delta``; the paper takes 5/4.
LUCB1_K1 = 5.0 / 4.0

CONSTRAINTS: dict[str, list] = CONFIDENCE_CONSTRAINTS


def _lowest_index_argmax(values: np.ndarray, candidates: np.ndarray) -> int:
    """The candidate of largest value, ties towards the lower arm index (no sort: O(len(candidates)))."""
    chosen = values[candidates]
    return int(candidates[chosen == chosen.max()].min())


def _top_k_split(means: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    """The ``k`` largest means (ties towards the lower arm index) and the other arms, each in index order.

    The sets of a stable descending sort, found by one selection instead: O(n), not O(n log n).
    """
    kth = np.partition(means, means.size - k)[means.size - k]  # the k-th largest mean
    high = means > kth
    high[np.flatnonzero(means == kth)[: k - int(np.count_nonzero(high))]] = True  # the lowest tied arms
    return np.flatnonzero(high), np.flatnonzero(~high)


class LUCB(PerArmConfidenceRounds):
    """LUCB1: sample the two critical arms until their confidence intervals separate, (epsilon, delta)-PAC.

    With ``u_a`` samples of arm ``a`` at stage ``t``, the radius is LUCB1's

        ``beta(u, t) = R sqrt(2 log(k1 n t^4 / delta) / u)``,  ``k1 = 5/4``,

    which for ``R = 1/2`` (rewards in ``[0, 1]``) is the paper's
    ``sqrt(log(k1 n t^4 / delta) / (2u))``. Every arm is sampled once (stage 1); then at
    each stage ``t`` the empirical top-k ``High`` (ties towards lower indices) gives the
    critical arms

        ``h = argmin_{a in High} (theta_hat_a - beta(u_a, t))``,
        ``l = argmax_{b not in High} (theta_hat_b + beta(u_b, t))``

    (ties towards lower indices), both are sampled once, ``t`` grows by one, and the run
    stops when ``B(t) = ucb_l - lcb_h <= epsilon / s`` with ``s = min(k, n - k)``, on the
    critical arms recomputed at the new stage. A stage is one round of
    :class:`fullbandit.semi.PerArmRounds`; its two samples are one pull when blocks are
    allowed.

    **From the per-arm guarantee to the sum gap.** The paper's tolerance is per arm: with
    probability ``1 - delta`` every chosen arm is within ``epsilon`` of the k-th best mean.
    That alone says little about the sum (one missed arm may be far above the k-th). The
    stopping condition gives more: on LUCB1's confidence event (the upper bound of every
    arm of a top-k set ``M*`` and the lower bound of every other arm hold, at every stage),
    each arm ``i`` of ``M*`` left out satisfies ``theta_i <= ucb_i <= ucb_l`` and each chosen
    arm ``j`` outside ``M*`` satisfies ``theta_j >= lcb_j >= lcb_h``; pairing them,

        ``theta(M*) - theta(answer) <= s * max(B, 0)``,

    as at most ``s = min(k, n - k)`` arms are exchanged. That is the reported ``gap_bound``,
    so ``gap_bound <= epsilon`` is exactly the paper's condition with the per-arm tolerance
    ``epsilon / s``: the toolkit's ``epsilon`` is a bound on the sum gap, as for every other
    algorithm. For ``k = 1`` (or ``k = n - 1``) the two coincide.

    Parameters
    ----------
    problem : TopK
    epsilon : float
        Tolerance on the sum gap ``theta(top-k) - theta(answer)``, ``>= 0``; the per-arm
        tolerance of the paper is ``epsilon / min(k, n - k)``.
    delta : float
        Error probability, ``0 < delta < 1``.
    noise_scale : float, optional
        Sub-Gaussian scale ``R`` of one arm's reward (``1/2`` for rewards in ``[0, 1]``);
        ``None`` takes the environment's declared scale (:func:`fullbandit.run`).
    budget : int
        Cap on single-arm samples; at the cap the run ends "budget exhausted" (no guarantee).
    seed : None, int, SeedSequence or Generator
        Unused by the rule (it is deterministic given the rewards); kept for the protocol.

    Notes
    -----
    Departures from the paper: the sub-Gaussian scale ``R`` (the paper assumes ``[0, 1]``
    rewards and Hoeffding's inequality, i.e. ``R = 1/2``; the radius is the same union bound
    with ``exp(-u beta^2 / (2 R^2))`` in place of ``exp(-2 u beta^2)``, so ``k1`` is
    unchanged); the tolerance ``epsilon`` on the sum, mapped to the paper's per-arm one as
    above; explicit tie-breaking towards lower arm indices (the paper breaks ties
    arbitrarily); a stop at the budget cap; and the stopping rule, when evaluated between
    the two samples of a stage (only at the budget cap or on request), uses the current
    stage index, which the union bound still covers since no arm has more than ``t`` samples.
    The per-arm bounds are over each arm's samples in the order they were handed out, which
    is the order they are recorded whatever order they are told in
    (:meth:`fullbandit.core.algorithm.Algorithm.tell`): an arm's recorded samples are never a subset
    chosen by their values.

    References
    ----------
    S. Kalyanakrishnan, A. Tewari, P. Auer, P. Stone. PAC subset selection in stochastic
    multi-armed bandits. ICML 2012: Algorithm 1 (LUCB) with the LUCB1 radius of section 3
    (``k1 = 5/4``); correctness, (epsilon, m, delta)-PAC, from the one-sided union bound over
    stages ``t``, arms and sample counts ``u <= t`` (``sum_t t^-3 = zeta(3) < k1``), and the
    expected sample complexity ``O(H_{epsilon/2} log(H_{epsilon/2} / delta))`` (Theorem 6
    in the ICML version, as we recall it; check against the paper).

    Examples
    --------
    >>> import fullbandit as fb
    >>> from fullbandit.semi import LUCB
    >>> arms = fb.BernoulliTeam([0.9, 0.8, 0.5, 0.3, 0.2], feedback="semi", seed=1)
    >>> result = fb.run(LUCB(fb.TopK(5, 2), epsilon=0.1, delta=0.05), arms, progress=False)
    >>> result.answer, result.certified, result.gap_bound <= 0.1
    ((0, 1), True, True)
    >>> result.constants["per_arm_epsilon"]
    0.05
    """

    name = "lucb"
    summary = ('Kalyanakrishnan et al. 2012, LUCB1: per-arm samples of the two critical arms, top-k (tolerance '
               'on the sum split over min(k, n-k) swaps)')

    def radius(self, samples, stage: int) -> np.ndarray:
        """LUCB1's ``beta(u, t)`` for sample counts ``samples`` at stage ``t`` (``R``-sub-Gaussian).

        Examples
        --------
        >>> import fullbandit as fb
        >>> from fullbandit.semi import LUCB
        >>> algorithm = LUCB(fb.TopK(4, 1), delta=0.1, noise_scale=0.5).setup()
        >>> float(algorithm.radius(10, 3)) == (__import__("math").log(1.25 * 4 * 3 ** 4 / 0.1) / 20) ** 0.5
        True
        """
        u = np.asarray(samples, dtype=float)
        log_term = math.log(LUCB1_K1 * self.problem.n * float(stage) ** 4 / self.delta)
        return self.noise_scale_in_use * np.sqrt(2.0 * log_term / u)

    @property
    def swaps(self) -> int:
        """``s = min(k, n - k)``: the most arms an answer can exchange with a top-k set."""
        return min(self.problem.k, self.problem.n - self.problem.k)

    def _critical(self):
        """High (the empirical top-k), the critical arms ``h`` and ``l``, and their bounds, at stage ``round``.

        The stopping check and the next plan read the same data: the second call reuses the
        first's result (a cache keyed by the samples told, rebuilt after a load).
        """
        cached = getattr(self, "_critical_cache", None)
        if cached is not None and cached[0] == self._told:
            return cached[1]
        samples, sums = self.evidence()
        means = sums / samples
        high, low = _top_k_split(means, self.problem.k)
        beta = self.radius(samples, max(self.round, 1))
        lower, upper = means - beta, means + beta
        h = _lowest_index_argmax(-lower, high)
        l_arm = _lowest_index_argmax(upper, low)
        critical = (high, h, l_arm, float(lower[h]), float(upper[l_arm]))
        self._critical_cache = (self._told, critical)
        return critical

    def _plan_round(self) -> np.ndarray:
        plan = np.zeros(self.problem.n, dtype=np.int64)
        if self.round == 0:
            plan[:] = 1  # stage 1: every arm once
            return plan
        _, h, l_arm, _, _ = self._critical()
        plan[[h, l_arm]] = 1
        return plan

    def _evaluate(self) -> StoppingCheck:
        details: dict = {"stage": self.round, "per_arm_epsilon": self.epsilon / self.swaps}
        if np.any(self.samples == 0):
            return self._unidentified(details)
        high, h, l_arm, lcb_h, ucb_l = self._critical()
        answer = tuple(sorted(int(i) for i in high))
        separation = ucb_l - lcb_h
        details.update({"h": h, "l": l_arm, "B": separation})
        # B(1) is infinite in the paper: no stop on the first samples alone.
        gap_bound = math.inf if self.round <= 1 else self.swaps * max(separation, 0.0)
        return StoppingCheck(self._told, gap_bound, self.epsilon, answer, True, details)

    def constants(self) -> dict:
        return {**super().constants(), "per_arm_epsilon": self.epsilon / self.swaps, "k1": LUCB1_K1}


class CLUCB(PerArmConfidenceRounds):
    """CLUCB-PAC for top-k: sample the least sampled arm where the optimistic answer differs, (epsilon, delta)-PAC.

    After ``t`` samples in all (``T_i`` of arm ``i``), the radius is CLUCB's

        ``rad_t(i) = R sqrt(2 log(4 n t^3 / delta) / T_i)``.

    Every arm is sampled once; then, with ``M`` the empirical top-k and the weights
    ``w~_i = theta_hat_i - rad_t(i)`` for ``i`` in ``M`` and ``theta_hat_i + rad_t(i)``
    outside, ``M~`` the top-k of ``w~``, the run stops when

        ``w~(M~) - w~(M) <= epsilon``

    and otherwise samples ``p = argmax rad_t(i)`` over the symmetric difference of ``M`` and
    ``M~`` (the least sampled arm there; ties towards lower indices). Every round is one
    sample.

    **The gap bound.** ``w~(M~) - w~(M)`` is the reported ``gap_bound``, and the paper's
    condition is already on the sum: on CLUCB's event (every ``|theta_hat_i - theta_i| <
    rad_t(i)``, all ``t``), for a top-k set ``M*``,
    ``theta(M*) - theta(M) <= w~(M*) - w~(M) <= w~(M~) - w~(M)``. For epsilon-top-k with
    aggregate regret at most ``eps`` as in Chen et al. (2017), pass ``epsilon = k * eps``.

    Parameters
    ----------
    problem : TopK
    epsilon : float
        Tolerance on the sum gap ``theta(top-k) - theta(answer)``, ``>= 0``.
    delta : float
        Error probability, ``0 < delta < 1``.
    noise_scale : float, optional
        Sub-Gaussian scale ``R`` of one arm's reward (``1/2`` for rewards in ``[0, 1]``);
        ``None`` takes the environment's declared scale (:func:`fullbandit.run`).
    budget : int
        Cap on single-arm samples; at the cap the run ends "budget exhausted" (no guarantee).
    seed : None, int, SeedSequence or Generator
        Unused by the rule (it is deterministic given the rewards); kept for the protocol.

    Notes
    -----
    Departures from the paper: only the top-k decision class (the oracle is a sort, ties
    towards lower indices, as :meth:`fullbandit.TopK.best`); the stop at the budget cap; if
    ``M~`` and ``M`` differed with equal weight the rule has already stopped, so the
    sampling set is never empty (a guard samples the least sampled arm regardless).

    References
    ----------
    S. Chen, T. Lin, I. King, M. R. Lyu, W. Chen. Combinatorial pure exploration of
    multi-armed bandits. NeurIPS 2014: Algorithm 1 (CLUCB) with the radius of Theorem 1
    (``R``-sub-Gaussian arms), and its PAC variant CLUCB-PAC (stop when
    ``w~(M~) - w~(M) <= epsilon``; epsilon-optimal with probability ``1 - delta``, the
    hardness ``H_epsilon = sum_i min(Delta_i^-2, epsilon^-2)`` for top-k) from the paper's
    PAC extension (given there as a theorem of the supplementary material, as we recall it).
    J. Chen, X. Chen, Q. Zhang, Y. Zhou. Adaptive multiple-arm identification. ICML 2017,
    sections 1 and 3 (CLUCB-PAC as the baseline for epsilon-top-k with aggregate regret).

    Examples
    --------
    >>> import fullbandit as fb
    >>> from fullbandit.semi import CLUCB
    >>> arms = fb.BernoulliTeam([0.9, 0.8, 0.5, 0.3, 0.2], feedback="semi", seed=1)
    >>> result = fb.run(CLUCB(fb.TopK(5, 2), epsilon=0.1, delta=0.05), arms, progress=False)
    >>> result.answer, result.certified, result.gap_bound <= 0.1
    ((0, 1), True, True)
    """

    name = "clucb-pac"
    summary = ('Chen et al. 2014, CLUCB-PAC for top-k: per-arm samples where the optimistic top-k differs, '
               'sum-gap tolerance')

    def radius(self, samples, total: int) -> np.ndarray:
        """CLUCB's ``rad_t(i)`` for sample counts ``samples`` after ``t = total`` samples.

        Examples
        --------
        >>> import fullbandit as fb
        >>> from fullbandit.semi import CLUCB
        >>> algorithm = CLUCB(fb.TopK(4, 1), delta=0.1, noise_scale=0.5).setup()
        >>> float(algorithm.radius(10, 40)) == 0.5 * (2 * __import__("math").log(4 * 4 * 40 ** 3 / 0.1) / 10) ** 0.5
        True
        """
        u = np.asarray(samples, dtype=float)
        log_term = math.log(4.0 * self.problem.n * float(total) ** 3 / self.delta)
        return self.noise_scale_in_use * np.sqrt(2.0 * log_term / u)

    def _sets(self):
        """``M``, ``M~`` (as masks), ``w~`` and ``rad_t`` on the data told so far (all arms sampled).

        The stopping check and the next plan read the same data: the second call reuses the
        first's arrays (a cache keyed by the samples told, rebuilt after a load).
        """
        cached = getattr(self, "_sets_cache", None)
        if cached is not None and cached[0] == self._told:
            return cached[1]
        n, k = self.problem.n, self.problem.k
        samples, sums = self.evidence()
        means = sums / samples
        rad = self.radius(samples, max(self._told, 1))
        best = np.zeros(n, dtype=bool)
        best[np.argsort(-means, kind="stable")[:k]] = True  # TopK.best: ties towards lower indices
        weights = np.where(best, means - rad, means + rad)
        optimistic = np.zeros(n, dtype=bool)
        optimistic[np.argsort(-weights, kind="stable")[:k]] = True
        sets = (best, optimistic, weights, rad)
        self._sets_cache = (self._told, sets)
        return sets

    def _plan_round(self) -> np.ndarray:
        plan = np.zeros(self.problem.n, dtype=np.int64)
        if self.round == 0:
            plan[:] = 1
            return plan
        best, optimistic, _, rad = self._sets()
        differ = np.flatnonzero(best != optimistic)
        if differ.size == 0:  # unreachable after a check that did not stop (see Notes)
            differ = np.arange(self.problem.n)
        plan[_lowest_index_argmax(rad, differ)] = 1
        return plan

    def _evaluate(self) -> StoppingCheck:
        details: dict = {"samples": int(self.samples.sum())}
        if np.any(self.samples == 0):
            return self._unidentified(details)
        best, optimistic, weights, rad = self._sets()
        # w~(M~) - w~(M) over the symmetric difference only (no rounding from the common arms).
        gap_bound = float(weights[optimistic & ~best].sum() - weights[best & ~optimistic].sum())
        answer = tuple(int(i) for i in np.flatnonzero(best))
        details.update({"max_radius": float(rad.max()),
                        "challenger": "-".join(str(int(i)) for i in np.flatnonzero(optimistic))})
        return StoppingCheck(self._told, gap_bound, self.epsilon, answer, True, details)
