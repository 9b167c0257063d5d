"""AdaptiveTopK (Chen, Chen, Zhang, Zhou 2017, Algorithm 1) and the hardness H(t, eps) of their equation (6).

The problem is the epsilon-top-K arms problem with per-arm (semi-bandit) samples: return
``K`` arms whose *aggregate regret* ``(1/K) (sum of the K best means - sum of the chosen
means)`` (:func:`fullbandit.analysis.metrics.aggregate_regret`) is at most the paper's
``epsilon``, with probability at least ``1 - delta``. The class :class:`AdaptiveTopK` takes, like
every algorithm of the toolkit, ``epsilon`` on the team's sum (``K`` times the paper's); the
functions :func:`exchange_level` and :func:`hardness` keep the paper's scale.

Reference
---------
J. Chen, X. Chen, Q. Zhang, Y. Zhou. Adaptive multiple-arm identification. ICML 2017:
Algorithm 1 (ADAPTIVETOPK), Theorem 4 (correctness and sample complexity; its proof is
Claim 1 and Lemmas 2-5, section 2.1), equations (2)-(6) (the hardness ``H(t, eps)``) and
section 3 (the fixed-budget conversion used in their experiments).
"""

from __future__ import annotations

import math
from typing import ClassVar

import numpy as np

from fullbandit.core.algorithm import StoppingCheck
from fullbandit.core.params import SEED, Interval
from fullbandit.problems.classes import TopK
from fullbandit.semi.base import PerArmRounds
from fullbandit.util.validation import InvalidParameterError, check_vector

#: The default cap on single-arm samples (the budget only caps a fixed-confidence run).
DEFAULT_BUDGET = 10_000_000


def exchange_level(means, k: int, epsilon: float) -> int:
    """``t(eps, K)`` of equation (3) of Chen et al. (2017): how many arms may be exchanged.

    With the means sorted, ``theta_1 >= ... >= theta_n``, and the gaps of equation (2),
    ``Delta_i = theta_i - theta_{K+1}`` for ``i <= K`` and ``Delta_i = theta_K - theta_i``
    for ``i > K``, it is the largest ``t`` with ``Delta_{K-t} t <= K eps`` and
    ``Delta_{K+t+1} t <= K eps``. The paper lets ``t`` range over ``0..K-1``; arm
    ``K+t+1`` must exist, so here ``t <= min(K-1, n-K-1)`` (the same range when ``n >= 2K``).

    Examples
    --------
    >>> from fullbandit.semi.adaptive_topk import exchange_level
    >>> exchange_level([0.9, 0.52, 0.5, 0.49, 0.48, 0.0], k=3, epsilon=0.02)   # Delta_2 = 0.03, Delta_5 = 0.02
    1
    >>> exchange_level([0.9, 0.52, 0.5, 0.49, 0.1, 0.0], k=3, epsilon=0.02)    # Delta_5 = 0.4 > K eps
    0
    """
    theta, k = _sorted_means(means, k)
    n = theta.size
    gaps = _gaps(theta, k)  # gaps[i - 1] is Delta_i
    budget = k * float(epsilon)
    level = 0
    for t in range(1, min(k - 1, n - k - 1) + 1):
        if gaps[k - t - 1] * t <= budget and gaps[k + t] * t <= budget:
            level = t
    return level


def hardness(means, k: int, epsilon: float) -> float:
    """The hardness ``H(t, eps)`` of equation (6) of Chen et al. (2017).

    Definition (means sorted, ``theta_1 >= ... >= theta_n``; 1-based indices)::

        Delta_i   = theta_i - theta_{K+1}  (i <= K),   theta_K - theta_i  (i > K)      (2)
        t         = t(eps, K), the largest t in 0..K-1 with
                    Delta_{K-t} t <= K eps  and  Delta_{K+t+1} t <= K eps             (3)
        Psi_t     = min(Delta_{K-t}, Delta_{K+t+1})                                    (4)
        Psi_t^eps = max(eps, Psi_t)                                                     (5)
        H(t, eps) = sum_i min(Delta_i^-2, (Psi_t^eps)^-2)                               (6)

    (``t`` is at most ``n-K-1`` too, so that arm ``K+t+1`` exists; see
    :func:`exchange_level`.) Since ``Psi_t^eps >= eps``, ``H <= n / eps^2``; a zero gap
    contributes ``(Psi_t^eps)^-2``. Theorem 4 bounds AdaptiveTopK's samples by
    ``O((log log (1/eps) + log n + log (1/delta)) H)``.

    Parameters
    ----------
    means : sequence of float
        The true means (any order).
    k : int
        The number of arms to choose, ``1 <= k <= n-1``.
    epsilon : float
        The tolerance of the aggregate regret, ``> 0``.

    Examples
    --------
    >>> from fullbandit.semi.adaptive_topk import hardness
    >>> round(hardness([0.9, 0.8, 0.3, 0.2], k=2, epsilon=0.1), 6)   # t = 0, Psi = 0.5: 2/0.36 + 2*4
    13.555556
    >>> round(hardness([0.5, 0.5, 0.5, 0.5], k=2, epsilon=0.1), 6)   # all gaps zero: n / eps^2
    400.0
    """
    if not (isinstance(epsilon, int | float) and math.isfinite(epsilon) and epsilon > 0):
        raise InvalidParameterError(f"epsilon={epsilon!r} must be a positive finite number")
    theta, k = _sorted_means(means, k)
    gaps = _gaps(theta, k)
    t = exchange_level(theta, k, epsilon)
    psi = max(float(epsilon), min(gaps[k - t - 1], gaps[k + t]))
    with np.errstate(divide="ignore"):
        inverse_squares = np.where(gaps > 0, 1.0 / np.maximum(gaps, 1e-300) ** 2, np.inf)
    return float(np.minimum(inverse_squares, psi ** -2).sum())


def _sorted_means(means, k) -> tuple[np.ndarray, int]:
    theta = np.sort(check_vector("means", means))[::-1]
    if isinstance(k, bool) or not isinstance(k, int | np.integer) or not 1 <= k <= theta.size - 1:
        raise InvalidParameterError(f"k={k!r} must be an integer in 1..n-1 = 1..{theta.size - 1}")
    return theta, int(k)


def _gaps(theta: np.ndarray, k: int) -> np.ndarray:
    """Equation (2) on means sorted in decreasing order (0-based: entry ``i - 1`` is ``Delta_i``)."""
    gaps = np.empty_like(theta)
    gaps[:k] = theta[:k] - theta[k]
    gaps[k:] = theta[k - 1] - theta[k:]
    return gaps


class AdaptiveTopK(PerArmRounds):
    """AdaptiveTopK: Algorithm 1 of Chen, Chen, Zhang, Zhou (2017), epsilon-top-K arms, (epsilon, delta)-PAC.

    Rounds ``r = 1, 2, ...`` aim at accuracy ``2^-r``. Round ``r`` samples every undecided
    arm (the set ``S_r``, initially all ``n`` arms)

    ``m_r = ceil((2 R)^2 4^r ln(2 n r^2 / delta))``

    times. Then, with ``m = K - |A|`` places left, ``a`` and ``b`` the ``(m+1)``-th and
    ``m``-th largest empirical means in ``S_r`` and the empirical gap
    ``D_i = max(mu_i - a, b - mu_i)`` (equation (7)), it repeats: the arm ``x`` of largest
    ``D_x`` is accepted (into ``A``) if ``mu_x > a`` and rejected (into ``B``) otherwise and
    leaves ``S_r``, while ``D_x > 2 * 2^-r`` (``a``, ``b`` and ``D`` recomputed after each
    decision). The run stops after round ``r`` when ``2 * 2^-r (K - |A|) <= epsilon``
    (the outer loop's condition, with the paper's ``epsilon K`` written ``epsilon``: see below)
    and answers ``A`` plus the ``K - |A|`` arms of ``S`` with
    the largest empirical means (line 16).

    Guarantee (``certified``): Theorem 4 of the paper. On the event ``E`` that every arm
    of ``S_r`` has ``|mu_i - theta_i| < 2^-r`` after every round ``r`` (probability at least
    ``1 - delta``, Claim 1), every accepted arm is a top-K arm and every rejected one is not
    (Lemmas 3, 4), and the answer's aggregate regret is at most ``2 * 2^-r (K - |A|) / K``
    (section 2.1), which the stopping rule makes ``<= epsilon``. The sample complexity is
    ``O((log log (1/eps_t) + log n + log (1/delta)) H)`` with ``H`` as in
    :func:`hardness`.

    Where this implementation departs from, or completes, the paper
    ---------------------------------------------------------------
    * **Sub-Gaussian scale.** The paper assumes rewards in ``[0, 1]`` and samples
      ``4^r ln(2 n r^2 / delta)`` times (Hoeffding). Here the rewards are ``R``-sub-Gaussian
      (``R = noise_scale``) and the count is ``(2R)^2`` times that, which makes the same
      tail bound ``2 exp(-m_r 4^-r / (2 R^2)) = 2 (delta / (2 n r^2))^2`` of Claim 1 hold
      for every ``R``; rewards in ``[0, 1]`` are ``1/2``-sub-Gaussian, and ``R = 1/2`` gives
      the paper's counts exactly.
    * **Rounding.** ``m_r`` is rounded up (more samples: Claim 1 still holds).
    * **Estimates.** ``mu_i`` is the mean of *all* of arm ``i``'s samples so far, not only
      of round ``r``'s (the pseudo-code says "let theta_i^r be the empirical mean"). An arm
      of ``S_r`` has been in every earlier ``S_j``, so its count ``m_1 + ... + m_r >= m_r``
      is fixed in advance and Hoeffding's (sub-Gaussian) bound of Claim 1 holds for it
      verbatim, with the same constants.
    * **Ties.** Equal empirical gaps: the arm of smallest index is decided first; line 16
      ranks equal empirical means by index.
    * **No (m+1)-th arm.** When ``|S_r| = K - |A|`` (every other arm rejected) ``a`` is
      undefined; the remaining arms are accepted (on ``E`` they are exactly the top-K arms
      not yet in ``A``, and line 16 would choose them all).
    * **Scale of epsilon.** The paper's ``epsilon`` bounds the aggregate regret, an average over
      the ``K`` members; here, as for every algorithm of the toolkit, ``epsilon`` bounds the
      team's *sum* ``theta(M*) - theta(answer)``, which is ``K`` times the aggregate regret. So
      the paper's ``epsilon_paper`` is ``epsilon = K epsilon_paper`` here, the checks report
      ``gap_bound = 2 * 2^-r (K - |A|)`` against ``epsilon``, and the ``details`` hold both on
      the paper's scale (``regret_bound``, ``regret_epsilon = epsilon / K``).
    * **Budget.** ``budget`` caps the single-arm samples; a run that reaches it stops with
      ``"budget exhausted"`` and no claim, answering ``A`` plus the best empirical arms of
      ``S``. Only the end of a complete round is a check: in mid-round the gap bound is
      infinite.

    :class:`AdaptiveTopKBudget` is the fixed-budget conversion of the paper's experiments.

    Parameters
    ----------
    problem : TopK
        ``n`` arms, choose ``K``.
    epsilon : float
        Tolerance on the team's summed mean, ``K`` times the paper's aggregate regret (``>= 0``;
        ``0`` stops only when ``K`` arms are accepted).
    delta : float
        Error probability, in ``(0, 1)``.
    noise_scale : float, optional
        Sub-Gaussian scale ``R`` of one arm's reward (``1/2`` for rewards in ``[0, 1]``);
        :func:`fullbandit.run` passes the environment's when it is ``None``.
    budget : int
        Cap on the single-arm samples.
    seed : int, optional
        Unused by the (deterministic) rule; kept for the common interface.

    Examples
    --------
    >>> import fullbandit as fb
    >>> from fullbandit.semi import AdaptiveTopK
    >>> environment = fb.GaussianArms([0.9, 0.8, 0.75, 0.3, 0.2, 0.1], sigma=0.5, feedback="semi", seed=1)
    >>> result = fb.run(AdaptiveTopK(fb.TopK(6, 3), epsilon=0.15, delta=0.05), environment, progress=False)
    >>> result.answer, result.certified, result.epsilon_optimal
    ((0, 1, 2), True, True)
    """

    name: ClassVar[str] = "adaptive-topk"
    summary = 'Chen et al. 2017, Algorithm 1: per-arm rounds of accuracy 2^-r, accept/reject by empirical gap'
    setting: ClassVar[str] = "fixed-confidence"
    parameter_constraints: ClassVar[dict] = {
        "epsilon": [Interval(float, 0, None)],
        "delta": [Interval(float, 0, 1, closed="neither")],
        "noise_scale": [None, Interval(float, 0, None, closed="neither")],
        "budget": [Interval(int, 1, None)],
        "seed": [SEED],
    }

    def __init__(self, problem: TopK, *, epsilon: float = 0.0, delta: float = 0.05,
                 noise_scale: float | None = None, budget: int = DEFAULT_BUDGET, seed=None):
        self.problem = problem
        self.epsilon = epsilon
        self.delta = delta
        self.noise_scale = noise_scale
        self.budget = budget
        self.seed = seed

    # --- configuration ------------------------------------------------------------------------
    def _epsilon(self) -> float:
        """The tolerance on the team's sum (the fixed-budget conversion has none: 0)."""
        return float(self.epsilon)

    def _scale(self) -> float:
        return self._noise_scale_in_use(self.offered_noise_scale, of="one arm's reward, 1/2 in [0, 1]")

    def samples_in_round(self, r: int) -> int:
        """``m_r = ceil((2R)^2 4^r ln(2 n r^2 / delta))``: samples of each undecided arm in round ``r``.

        Capped at ``budget`` (a round that large can never be completed within it).

        Examples
        --------
        >>> import fullbandit as fb
        >>> algorithm = fb.semi.AdaptiveTopK(fb.TopK(10, 3), epsilon=0.1, delta=0.1, noise_scale=0.5)
        >>> [algorithm.samples_in_round(r) for r in (1, 2, 3)]     # 4^r ln(200 r^2), rounded up
        [22, 107, 480]
        """
        if isinstance(r, bool) or not isinstance(r, int) or r < 1:
            raise InvalidParameterError(f"r={r!r} must be an integer >= 1")
        self.setup()
        return min(self._uncapped_samples(r, self._scale()), self.budget)

    def _uncapped_samples(self, r: int, scale: float) -> int:
        """``m_r`` of :meth:`samples_in_round` before the cap."""
        return math.ceil((2.0 * scale) ** 2 * 4.0 ** r * math.log(2.0 * self.problem.n * r * r / self.delta))

    # --- the rounds ---------------------------------------------------------------------------
    def _build_rounds(self, rng: np.random.Generator) -> None:
        self._scale()  # refuse a missing noise scale at setup, before any pull
        self._undecided = np.ones(self.problem.n, dtype=bool)
        self._accepted: list[int] = []
        self._rejected: list[int] = []
        self._decided_in = np.zeros(self.problem.n, dtype=np.int64)  # round of each decision (0: undecided)

    def _plan_round(self) -> np.ndarray:
        quota = self.samples_in_round(self.round + 1)
        return np.where(self._undecided, quota, 0).astype(np.int64)

    def _decide(self) -> tuple[list[int], list[int]]:
        """The inner loop (lines 6-15) on round ``self.round``'s data: (accepted, rejected) in order.

        Pure: reads the data and the committed decisions, changes nothing.
        """
        threshold = 2.0 * 2.0 ** -self.round
        means = self.means()
        undecided = [int(i) for i in np.flatnonzero(self._undecided)]
        places = self.problem.k - len(self._accepted)
        accepted: list[int] = []
        rejected: list[int] = []
        while places > 0 and undecided:
            if len(undecided) == places:  # no (m+1)-th arm: the rest are the remaining top arms on E
                accepted.extend(undecided)
                break
            values = means[undecided]
            ordered = np.sort(values)[::-1]
            upper, lower = ordered[places - 1], ordered[places]  # b and a of line 6
            empirical_gaps = np.maximum(values - lower, upper - values)
            best = int(np.argmax(empirical_gaps))  # the smallest index among equal gaps
            if not empirical_gaps[best] > threshold:
                break
            arm = undecided.pop(best)
            if values[best] > lower:
                accepted.append(arm)
                places -= 1
            else:
                rejected.append(arm)
        return accepted, rejected

    def _answer(self, accepted: list[int], undecided: np.ndarray) -> tuple[int, ...]:
        """``A`` plus the ``K - |A|`` undecided arms of largest empirical mean (line 16; ties by index)."""
        places = self.problem.k - len(accepted)
        candidates = np.flatnonzero(undecided)
        means = np.nan_to_num(self.means()[candidates], nan=-np.inf)  # a never-sampled arm ranks last
        chosen = candidates[np.argsort(-means, kind="stable")[:places]]
        return tuple(sorted([*accepted, *(int(i) for i in chosen)]))

    def _evaluate(self) -> StoppingCheck:
        k = self.problem.k
        epsilon = self._epsilon()
        accepted = list(self._accepted)
        rejected = list(self._rejected)
        undecided = self._undecided.copy()
        if self._full_round_in():  # round r's data are all in and not yet acted on: lines 6-15
            new_accepted, new_rejected = self._decide()
            accepted += new_accepted
            rejected += new_rejected
            undecided[new_accepted + new_rejected] = False
        places = k - len(accepted)
        if places == 0:
            bound = 0.0
        elif self._full_round_in():
            bound = 2.0 * 2.0 ** -self.round * places
        else:
            bound = math.inf
        answer = None if self._told == 0 else self._answer(accepted, undecided)
        details = {"round": self.round, "accepted": len(accepted), "rejected": len(rejected),
                   "undecided": int(undecided.sum()), "regret_bound": bound / k, "regret_epsilon": epsilon / k,
                   "noise_scale": self._scale(), "delta": self.delta}
        return StoppingCheck(self._told, bound, epsilon, answer, self.guarantee == "certified", details)

    def _full_round_in(self) -> bool:
        """Whether round ``r``'s data are all in and the round was not cut: lines 6-15 may act on them.

        The rule ``|mu_i - theta_i| < 2^-r`` needs ``m_r`` samples of every arm of ``S_r``; a
        round cut to the budget left (:func:`fullbandit.semi.base.cut_round`) has fewer, so it
        decides nothing and claims nothing: the answer is then line 16's on its data.
        """
        return self._round_complete and not self._round_cut

    def _after_check(self, check: StoppingCheck) -> None:
        if self._full_round_in():  # commit the decisions the check was evaluated with
            accepted, rejected = self._decide()
            self._accepted += accepted
            self._rejected += rejected
            self._undecided[accepted + rejected] = False
            self._decided_in[accepted + rejected] = self.round
        super()._after_check(check)

    def constants(self) -> dict:
        """Rounds, samples per arm, and the decisions so far."""
        base = super().constants()
        return {**base, "accepted_arms": len(self._accepted), "rejected_arms": len(self._rejected)}

    @property
    def accepted(self) -> tuple[int, ...]:
        """Arms accepted so far (set ``A``), in the order of acceptance."""
        self.setup()
        return tuple(self._accepted)

    @property
    def rejected(self) -> tuple[int, ...]:
        """Arms rejected so far (set ``B``), in the order of rejection."""
        self.setup()
        return tuple(self._rejected)

    @property
    def decision_rounds(self) -> np.ndarray:
        """The round in which each arm was accepted or rejected (``0``: still undecided; a copy).

        The arms of ``S_r`` are those with ``0`` or a value ``>= r``.
        """
        self.setup()
        return self._decided_in.copy()


class AdaptiveTopKBudget(AdaptiveTopK):
    """AdaptiveTopK converted to a fixed budget, as in the experiments of Chen et al. (2017), section 3.

    "We remove the outer while loop of Algorithm 1. As a replacement, we keep track of the
    total number of pulls, and stop pulling the arms once the budget is exhausted": the
    rounds, sample sizes and accept/reject rule are :class:`AdaptiveTopK`'s (with ``delta``,
    the paper's experiments use ``delta = 0.01``), there is no ``epsilon``, and the answer
    is ``A`` plus the ``K - |A|`` undecided arms of largest empirical mean when the budget
    is spent. The run ends early only when ``K`` arms are accepted (nothing is left to
    learn). No confidence claim: the guarantee is ``"fixed-budget"``.

    The paper leaves open which samples of the last round the budget buys. Here the round
    is cut when planned (:func:`fullbandit.semi.base.cut_round`): every undecided arm gets
    the same share of the budget left (the remainder to arms drawn by the seeded
    generator), the cut round decides nothing, and its samples count in the means of the
    answer. A budget below the first round's ``n * m_1`` samples thus samples every arm
    about ``budget / n`` times and answers the best empirical arms; a budget below ``n`` is
    refused (some arm would never be sampled).

    Examples
    --------
    >>> import fullbandit as fb
    >>> from fullbandit.semi import AdaptiveTopKBudget
    >>> environment = fb.BernoulliTeam([0.7] * 3 + [0.3] * 7, feedback="semi", seed=2)
    >>> result = fb.run(AdaptiveTopKBudget(fb.TopK(10, 3), budget=2000), environment, progress=False)
    >>> result.answer, result.guarantee, result.pulls <= 2000
    ((0, 1, 2), 'fixed-budget', True)
    """

    name: ClassVar[str] = "adaptive-topk-budget"
    summary = 'Chen et al. 2017, section 3: Algorithm 1 without its outer loop, to a fixed budget'
    setting: ClassVar[str] = "fixed-budget"
    parameter_constraints: ClassVar[dict] = {
        "delta": [Interval(float, 0, 1, closed="neither")],
        "noise_scale": [None, Interval(float, 0, None, closed="neither")],
        "budget": [Interval(int, 1, None)],
        "seed": [SEED],
    }

    def __init__(self, problem: TopK, *, budget: int = 100_000, delta: float = 0.01,
                 noise_scale: float | None = None, seed=None):
        self.problem = problem
        self.budget = budget
        self.delta = delta
        self.noise_scale = noise_scale
        self.seed = seed

    def _budget_floor(self, noise_scale: float | None) -> tuple[int, str]:
        # Below n samples some arm is never sampled and could never be in the answer on its merits.
        n = self.problem.n
        return n, f"n = {n}: one sample of each of the n={n} arms"

    def _epsilon(self) -> float:
        return 0.0
