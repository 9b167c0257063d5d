"""Fixed-budget thresholding bandits: LSA, APT, UCBE, Opt-KG and round-robin Uniform.

Each algorithm samples one arm per step and, after any number of samples, classifies every
arm as above (``theta_i >= threshold``) or below the threshold of a
:class:`fullbandit.Thresholding` problem. They are written once, in array form over
independent runs (:class:`fullbandit.semi.sequential.SequentialPerArm`), so that the same
code serves the ask/tell algorithm and the batched :func:`fullbandit.semi.sequential.simulate`
of Tao et al.'s Figure 1 (:mod:`fullbandit.experiments.tao`).

Common conventions (all five classes):

* ``Delta_hat_i = |theta_hat_i - threshold|``, ``theta_hat_i`` the empirical mean and ``T_i``
  the number of samples of arm ``i``;
* ties of an index go to the lowest arm index;
* the index policies (LSA, APT, UCBE) first sample every arm once, lowest index first (an
  arm with no sample has no ``Delta_hat``);
* the answer declares arm ``i`` above iff ``theta_hat_i >= threshold``; an arm never sampled
  is declared below (Opt-KG answers from its posterior instead, see :class:`OptKG`).

References
----------
C. Tao, S. Blanco, J. Peng, Y. Zhou. Thresholding bandit with optimal aggregate regret.
NeurIPS 2019 (Algorithm 1; section 5 for the baselines and their parameters).
A. Locatelli, M. Gutzeit, A. Carpentier. An optimal algorithm for the thresholding bandit
problem. ICML 2016 (Algorithm 1, APT).
J.-Y. Audibert, S. Bubeck, R. Munos. Best arm identification in multi-armed bandits. COLT 2010 (UCB-E).
X. Chen, Q. Lin, D. Zhou. Statistical decision making for optimal budget allocation in crowd
labeling. JMLR 16, 2015 (Opt-KG).
"""

from __future__ import annotations

from typing import ClassVar

import numpy as np
from scipy.special import betainc, betaln

from fullbandit.core.params import Interval
from fullbandit.problems.classes import Thresholding
from fullbandit.semi.base import FIXED_BUDGET_CONSTRAINTS, empirical_means
from fullbandit.semi.sequential import SequentialPerArm, lowest_argmin
from fullbandit.util.validation import check_real, check_vector

#: Default budget: enough for the conformance instances, small enough for quick runs.
DEFAULT_BUDGET = 1000

__all__ = ["APT", "LSA", "UCBE", "OptKG", "ThresholdUniform", "threshold_hardness"]


def threshold_hardness(means, threshold: float) -> float:
    """``H = sum_i 1 / Delta_i^2`` with ``Delta_i = |theta_i - threshold|`` (``inf`` if an arm sits on it).

    The complexity of the thresholding problem (Locatelli et al. 2016, section 2), which
    UCBE's exploration constant ``a = 4^b (T - K) / H`` uses (Tao et al. 2019, section 5).

    Examples
    --------
    >>> from fullbandit.semi.thresholding import threshold_hardness
    >>> round(threshold_hardness([0.4, 0.75], 0.5), 9)     # 1/0.1^2 + 1/0.25^2 = 100 + 16
    116.0
    """
    theta = check_vector("means", means)
    threshold = check_real("threshold", threshold)
    gaps = np.abs(theta - threshold)
    if np.any(gaps == 0):
        return float("inf")
    return float(np.sum(1.0 / gaps**2))


def _tails(alpha: np.ndarray, beta: np.ndarray, x: float) -> tuple[np.ndarray, np.ndarray]:
    """``(I_x(alpha, beta), 1 - I_x(alpha, beta))``, each accurate where it is the small one.

    One incomplete beta evaluation per entry: the tail on the far side of the posterior
    mean from ``x`` (the small one, up to the mean-median difference) is computed directly,
    ``1 - I_x(alpha, beta) = I_{1-x}(beta, alpha)`` if need be, and the other as its
    complement (at least about 1/2, so the subtraction loses nothing). scipy's ``betaincc``
    was 2 to 4 times slower than ``betainc`` (scipy 1.17) on the figure's parameters.
    """
    alpha, beta = np.broadcast_arrays(np.asarray(alpha, dtype=float), np.asarray(beta, dtype=float))
    mean_above = alpha * (1.0 - x) >= beta * x  # posterior mean >= x: P(theta < x) is the small tail
    small = np.empty(alpha.shape)
    small[mean_above] = betainc(alpha[mean_above], beta[mean_above], x)
    small[~mean_above] = betainc(beta[~mean_above], alpha[~mean_above], 1.0 - x)
    return np.where(mean_above, small, 1.0 - small), np.where(mean_above, 1.0 - small, small)


class _ThresholdPolicy(SequentialPerArm):
    """What the thresholding policies share: the problem class and the empirical answer."""

    decision_classes: ClassVar[tuple[type, ...]] = (Thresholding,)
    setting: ClassVar[str] = "fixed-budget"
    anytime: ClassVar[bool] = True  # UCBE, whose constant a depends on T, is not
    problem: Thresholding  # type: ignore[assignment]  # PerArmRounds declares TopK (its top-k subclasses)

    def _gaps(self, counts: np.ndarray, sums: np.ndarray) -> np.ndarray:
        """``Delta_hat`` per run and arm (``nan`` for an arm never sampled)."""
        if counts.all():  # the common case, without empirical_means' masking (the figure's inner loop)
            return np.abs(sums / counts - self.problem.threshold)
        return np.abs(empirical_means(counts, sums) - self.problem.threshold)

    def _decide(self, counts, sums, state):
        # nan >= threshold is False: an arm never sampled is declared below.
        with np.errstate(invalid="ignore"):
            return empirical_means(counts, sums) >= self.problem.threshold

    def _index_choice(self, counts: np.ndarray, index: np.ndarray) -> np.ndarray:
        """``argmin`` of ``index`` per run, after every arm has one sample (lowest unsampled arm first)."""
        if counts.all():  # no nan, and argmin returns the first (lowest-index) minimum
            return np.argmin(index, axis=1)
        return lowest_argmin(np.where(counts == 0, -np.inf, index))


class LSA(_ThresholdPolicy):
    """Logarithmic-Sample Algorithm (Tao, Blanco, Peng, Zhou 2019, Algorithm 1).

    After one sample of each arm (lowest index first), every step samples

        ``argmin_i  alpha * T_i * Delta_hat_i^2 + 0.5 * ln T_i``,

    ties to the lowest index; the answer declares arm ``i`` above iff
    ``theta_hat_i >= threshold`` (line 5). The rule does not use the budget: LSA is anytime.

    Choices the paper leaves open: the order of the initial samples (lowest index first)
    and ties (lowest index); an answer asked for before every arm is sampled declares the
    unsampled arms below.

    Parameters
    ----------
    problem : Thresholding
    alpha : float
        The tuning constant ``alpha > 0`` (the paper's experiments: 1.35).
    budget : int
        ``T``: single-arm samples.
    seed : None, int, SeedSequence or Generator
        Unused by the rule (it is deterministic given the rewards); kept for the protocol.

    Examples
    --------
    >>> import fullbandit as fb
    >>> from fullbandit.semi import LSA
    >>> environment = fb.BernoulliTeam([0.1, 0.3, 0.45, 0.55, 0.7, 0.9], feedback="semi", seed=2)
    >>> result = fb.run(LSA(fb.Thresholding(6, 0.5), budget=3000), environment, progress=False)
    >>> result.answer, result.pulls
    ((3, 4, 5), 3000)
    """

    name = "lsa"
    summary = ('Tao et al. 2019, Algorithm 1: thresholding, argmin alpha T_i Delta_i^2 + 0.5 ln T_i (per-arm, '
               'anytime, fixed budget)')
    parameter_constraints: ClassVar[dict[str, list]] = {
        "alpha": [Interval(float, 0, None, closed="neither")], **FIXED_BUDGET_CONSTRAINTS}

    def __init__(self, problem, *, alpha: float = 1.35, budget: int = DEFAULT_BUDGET, seed=None):
        self.problem = problem
        self.alpha = alpha
        self.budget = budget
        self.seed = seed

    def _choose(self, counts, sums, t, state):
        with np.errstate(divide="ignore", invalid="ignore"):
            index = self.alpha * counts * self._gaps(counts, sums) ** 2 + 0.5 * np.log(counts)
        return self._index_choice(counts, index)


class APT(_ThresholdPolicy):
    """Anytime Parameter-free Thresholding (Locatelli, Gutzeit, Carpentier 2016, Algorithm 1).

    After one sample of each arm (lowest index first), every step samples

        ``argmin_i  sqrt(T_i) * (Delta_hat_i + epsilon)``,

    ties to the lowest index; the answer declares arm ``i`` above iff
    ``theta_hat_i >= threshold`` (Tao et al. 2019, section 5: APT's answer with the
    indifference zone dropped, for the aggregate regret). Anytime.

    Choices the paper leaves open: the order of the initial samples and ties (lowest index).

    Parameters
    ----------
    problem : Thresholding
    epsilon : float
        The precision ``epsilon >= 0`` (Tao et al. test 0, 0.025, 0.05, 0.1).
    budget : int
        ``T``: single-arm samples.
    seed : None, int, SeedSequence or Generator
        Unused by the rule; kept for the protocol.

    Examples
    --------
    >>> import fullbandit as fb
    >>> from fullbandit.semi import APT
    >>> environment = fb.BernoulliTeam([0.1, 0.3, 0.45, 0.55, 0.7, 0.9], feedback="semi", seed=2)
    >>> result = fb.run(APT(fb.Thresholding(6, 0.5), epsilon=0.05, budget=3000), environment, progress=False)
    >>> result.answer
    (3, 4, 5)
    """

    name = "apt"
    summary = ('Locatelli et al. 2016, Algorithm 1: thresholding, argmin sqrt(T_i) (Delta_i + epsilon) '
               '(per-arm, anytime, fixed budget)')
    parameter_constraints: ClassVar[dict[str, list]] = {
        "epsilon": [Interval(float, 0, None)], **FIXED_BUDGET_CONSTRAINTS}

    def __init__(self, problem, *, epsilon: float = 0.0, budget: int = DEFAULT_BUDGET, seed=None):
        self.problem = problem
        self.epsilon = epsilon
        self.budget = budget
        self.seed = seed

    def _choose(self, counts, sums, t, state):
        index = np.sqrt(counts) * (self._gaps(counts, sums) + self.epsilon)
        return self._index_choice(counts, index)


class UCBE(_ThresholdPolicy):
    """UCB-E (Audibert, Bubeck 2010) adapted to thresholding (Locatelli et al. 2016; Tao et al. 2019, section 5).

    After one sample of each arm (lowest index first), every step samples

        ``argmin_i  Delta_hat_i - sqrt(a / T_i)``,  ``a = 4^b (T - K) / H``,

    with ``T`` the budget, ``K`` the number of arms and ``H = sum_i Delta_i^-2`` the
    instance's hardness (:func:`threshold_hardness` of the true means), ties to the lowest
    index; the answer declares arm ``i`` above iff ``theta_hat_i >= threshold``. ``a``
    depends on ``T``: UCBE is not anytime (a run to ``T`` is not a prefix of a run to a
    larger budget).

    Choices the papers leave open: initial order and ties (lowest index). ``H`` needs the
    true means, which a user of the algorithm does not have: with ``hardness=None`` this
    implementation substitutes, at every step and per run, the plug-in estimate
    ``H_hat = sum_i min(Delta_hat_i^-2, T_i)`` (an arm whose gap the data cannot resolve yet
    counts at most its sample count, so ``H_hat`` stays finite). That estimate is *not* from
    the papers; Tao et al.'s experiments pass the true ``H`` (as :mod:`fullbandit.experiments.tao` does).

    Parameters
    ----------
    problem : Thresholding
    b : float
        The exponent of ``4^b`` (Tao et al. test -1, 0, 4).
    hardness : float, optional
        ``H > 0`` of the instance; ``None``: the plug-in estimate above.
    budget : int
        ``T``: single-arm samples.
    seed : None, int, SeedSequence or Generator
        Unused by the rule; kept for the protocol.

    Examples
    --------
    >>> import fullbandit as fb
    >>> from fullbandit.semi import UCBE
    >>> from fullbandit.semi.thresholding import threshold_hardness
    >>> means = [0.1, 0.3, 0.45, 0.55, 0.7, 0.9]
    >>> H = threshold_hardness(means, 0.5)
    >>> round(H, 6)
    862.5
    >>> environment = fb.BernoulliTeam(means, feedback="semi", seed=2)
    >>> result = fb.run(UCBE(fb.Thresholding(6, 0.5), hardness=H, budget=3000), environment, progress=False)
    >>> result.answer
    (3, 4, 5)
    """

    name = "ucbe"
    summary = ('Audibert & Bubeck 2010 UCB-E for thresholding (Tao et al. 2019, sec. 5): argmin Delta_i - '
               'sqrt(a / T_i), a = 4^b (T - K) / H')
    anytime: ClassVar[bool] = False
    parameter_constraints: ClassVar[dict[str, list]] = {
        "b": [Interval(float, None, None)], "hardness": [None, Interval(float, 0, None, closed="neither")],
        **FIXED_BUDGET_CONSTRAINTS}

    def __init__(self, problem, *, b: float = 0.0, hardness: float | None = None, budget: int = DEFAULT_BUDGET,
                 seed=None):
        self.problem = problem
        self.b = b
        self.hardness = hardness
        self.budget = budget
        self.seed = seed

    def exploration(self, counts: np.ndarray, sums: np.ndarray) -> np.ndarray:
        """``a`` per run (shape ``(runs, 1)``): ``4^b (T - K) / H`` (``0`` once ``T <= K``)."""
        spare = max(int(self.budget) - self.problem.n, 0)
        if self.hardness is not None:
            return np.full((counts.shape[0], 1), 4.0 ** self.b * spare / self.hardness)
        with np.errstate(divide="ignore", invalid="ignore"):
            inverse_squares = np.where(counts > 0, 1.0 / self._gaps(counts, sums) ** 2, 0.0)
        estimate = np.minimum(inverse_squares, counts).sum(axis=1, keepdims=True)
        return 4.0 ** self.b * spare / np.maximum(estimate, 1.0)  # estimate >= 1 once every arm has a sample

    def _choose(self, counts, sums, t, state):
        with np.errstate(divide="ignore", invalid="ignore"):
            index = self._gaps(counts, sums) - np.sqrt(self.exploration(counts, sums) / counts)
        return self._index_choice(counts, index)


class OptKG(_ThresholdPolicy):
    """Optimistic knowledge gradient, Opt-KG (Chen, Lin, Zhou 2015), for thresholding.

    Arm ``i`` has a ``Beta(a, b)`` prior; after ``T_i`` samples with reward sum ``s_i`` its
    posterior is ``Beta(alpha_i, beta_i) = Beta(a + s_i, b + T_i - s_i)``. With
    ``P(alpha, beta) = P(theta >= threshold | Beta(alpha, beta)) = 1 - I_threshold(alpha, beta)``
    and ``h(x) = max(x, 1 - x)``, every step samples

        ``argmax_i max(R1_i, R2_i)``,  ``R1 = h(P(alpha+1, beta)) - h(P(alpha, beta))``,
        ``R2 = h(P(alpha, beta+1)) - h(P(alpha, beta))``

    (the expected-best-case gain of one more label, Chen et al.'s Opt-KG), ties to the lowest
    index. The answer declares arm ``i`` above iff ``P(alpha_i, beta_i) >= 1/2``: the Bayes
    decision under the posterior (an arm never sampled is classified by its prior). Anytime.

    Choices the paper leaves open (its labels are 0/1 and its threshold 1/2): a reward in
    ``[0, 1]`` that is not 0 or 1 counts as a fractional success (``s_i`` is the reward sum);
    rewards outside ``[0, 1]`` are outside the model, and ``s_i`` is clipped to ``[0, T_i]``
    so the posterior stays a Beta law; a threshold outside ``[0, 1]`` is clipped to it.
    ``R1`` and ``R2`` are computed as differences of ``min(P, 1 - P)``, the smaller tail
    evaluated directly (the same numbers as the formula, without the cancellation of
    ``1 - P`` near 1), the neighbours by the incomplete beta recurrences (:meth:`rewards`);
    the policy state caches ``max(R1, R2)`` per arm (recomputed where the sample count changed).

    Parameters
    ----------
    problem : Thresholding
    a, b : float
        The prior's parameters, ``> 0`` (Tao et al. test ``(1, 1)`` and ``(0.5, 0.5)``).
    budget : int
        ``T``: single-arm samples.
    seed : None, int, SeedSequence or Generator
        Unused by the rule; kept for the protocol.

    Examples
    --------
    >>> import fullbandit as fb
    >>> from fullbandit.semi import OptKG
    >>> environment = fb.BernoulliTeam([0.1, 0.3, 0.45, 0.55, 0.7, 0.9], feedback="semi", seed=2)
    >>> result = fb.run(OptKG(fb.Thresholding(6, 0.5), budget=3000), environment, progress=False)
    >>> result.answer
    (3, 4, 5)
    """

    name = "opt-kg"
    summary = ('Chen, Lin, Zhou 2015: optimistic knowledge gradient on Beta posteriors, thresholding (per-arm, '
               'anytime, fixed budget)')
    parameter_constraints: ClassVar[dict[str, list]] = {
        "a": [Interval(float, 0, None, closed="neither")], "b": [Interval(float, 0, None, closed="neither")],
        **FIXED_BUDGET_CONSTRAINTS}

    def __init__(self, problem, *, a: float = 1.0, b: float = 1.0, budget: int = DEFAULT_BUDGET, seed=None):
        self.problem = problem
        self.a = a
        self.b = b
        self.budget = budget
        self.seed = seed

    def posterior(self, counts: np.ndarray, sums: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``(alpha, beta) = (a + s, b + T - s)`` per run and arm, ``s`` the clipped reward sum."""
        successes = np.clip(sums, 0.0, counts)
        return self.a + successes, self.b + (counts - successes)

    def _cut(self) -> float:
        return float(np.clip(self.problem.threshold, 0.0, 1.0))

    def above_probability(self, alpha: np.ndarray, beta: np.ndarray) -> np.ndarray:
        """``P(theta >= threshold | Beta(alpha, beta))``."""
        return _tails(alpha, beta, self._cut())[1]

    def rewards(self, counts: np.ndarray, sums: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``(R1, R2)`` per run and arm (any shape).

        ``1 - h(P) = min(I, 1 - I)`` with ``I = I_threshold(alpha, beta)``; the neighbours
        ``I(alpha+1, beta) = I - d / alpha`` and ``I(alpha, beta+1) = I + d / beta`` with
        ``d = x^alpha (1-x)^beta / B(alpha, beta)`` (the incomplete beta recurrences), so an
        entry costs one incomplete-beta evaluation instead of six.
        """
        alpha, beta = self.posterior(counts, sums)
        x = self._cut()
        below, above = _tails(alpha, beta, x)
        with np.errstate(divide="ignore"):
            step = np.exp(alpha * np.log(x) + beta * np.log1p(-x) - betaln(alpha, beta))
        now = np.minimum(below, above)
        after_success = np.minimum(np.maximum(below - step / alpha, 0.0), above + step / alpha)
        after_failure = np.minimum(below + step / beta, np.maximum(above - step / beta, 0.0))
        return now - after_success, now - after_failure

    def _policy_start(self, runs):
        # A cache of max(R1, R2) per run and arm, and the sample counts it was computed at:
        # a step changes one arm per run, so only that entry is recomputed (Tao et al.'s
        # figure needs 10^5 steps of 5000 runs). It is a pure function of counts and sums.
        n = self.problem.n
        return {"gain": np.zeros((runs, n)), "seen": np.full((runs, n), -1, dtype=np.int64)}

    def _choose(self, counts, sums, t, state):
        gain, seen = state["gain"], state["seen"]
        stale = counts != seen
        if stale.any():
            success, failure = self.rewards(counts[stale], sums[stale])
            gain[stale] = np.maximum(success, failure)
            seen[stale] = counts[stale]
        return lowest_argmin(-gain)

    def _decide(self, counts, sums, state):
        return self.above_probability(*self.posterior(counts, sums)) >= 0.5


class ThresholdUniform(_ThresholdPolicy):
    """Round robin ``0, 1, ..., K-1, 0, ...`` then the empirical classification (Tao et al. 2019, section 5).

    Every step samples the least-sampled arm, ties to the lowest index: the round robin from
    arm 0, so each arm gets ``floor(T/K)`` or ``ceil(T/K)`` samples. The answer declares arm
    ``i`` above iff ``theta_hat_i >= threshold`` (unsampled arms: below). Anytime.

    Parameters
    ----------
    problem : Thresholding
    budget : int
        ``T``: single-arm samples.
    seed : None, int, SeedSequence or Generator
        Unused; kept for the protocol.

    Examples
    --------
    >>> import fullbandit as fb
    >>> from fullbandit.semi import ThresholdUniform
    >>> environment = fb.BernoulliTeam([0.1, 0.3, 0.45, 0.55, 0.7, 0.9], feedback="semi", seed=2)
    >>> result = fb.run(ThresholdUniform(fb.Thresholding(6, 0.5), budget=3000), environment, progress=False)
    >>> result.answer, result.constants["max_samples_per_arm"]
    ((3, 4, 5), 500)
    """

    name = "threshold-uniform"
    summary = 'Tao et al. 2019, sec. 5 Uniform: round robin, then the empirical classification'
    parameter_constraints: ClassVar[dict[str, list]] = FIXED_BUDGET_CONSTRAINTS

    def __init__(self, problem, *, budget: int = DEFAULT_BUDGET, seed=None):
        self.problem = problem
        self.budget = budget
        self.seed = seed

    def _choose(self, counts, sums, t, state):
        return lowest_argmin(counts.astype(float))
