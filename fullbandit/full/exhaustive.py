"""Exhaustive: the linear-bandit reduction, exact and exponential (Kuroki et al. 2020, Appendix E)."""

from __future__ import annotations

from fullbandit.core.params import Interval
from fullbandit.full.gap_objective import exact_maximum
from fullbandit.full.static import DEFAULT_BUDGET, STATIC_CONSTRAINTS, StaticFullBandit
from fullbandit.linalg.least_squares import LeastSquaresEstimate
from fullbandit.util.enumeration import ENUMERATION_LIMIT
from fullbandit.util.validation import InvalidParameterError


class Exhaustive(StaticFullBandit):
    """Stops when the exact maximum of the gap objective (5) is at most ``epsilon``, (epsilon, delta)-PAC.

    ``max_M theta_hat(M) - theta_hat(M_hat) + C_t ||x_M - x_M_hat||_{A_t^-1} <= epsilon``,
    evaluated by enumerating every super-arm, with the union bound of ``C_t`` over the
    ``K (K - 1) / 2`` pairwise directions ``x_M - x_M'``. This is the static algorithm of
    Soare et al. (2014) applied to the super-arms as arms: the reference the polynomial
    algorithms are compared with, in time ``O(K n^2)`` per check.

    Parameters
    ----------
    problem : DecisionClass
    limit : int
        Refuse (at setup, with a clear error) when the class has more super-arms (default
        :data:`fullbandit.util.enumeration.ENUMERATION_LIMIT`, so that one check takes
        well under a second).
    epsilon, delta, noise_scale, reward_range, confidence, support, support_size
        See :class:`fullbandit.full.static.StaticFullBandit`.
    allocation, budget, check_growth, stop_on_rule, seed
        See :class:`fullbandit.full.static.StaticFullBandit`.

    References
    ----------
    Y. Kuroki et al. Neural Computation 32(9), 2020, Appendix E, Algorithm 5, objective (5).
    M. Soare, A. Lazaric, R. Munos. Best-arm identification in linear bandits. NeurIPS 2014.

    Examples
    --------
    >>> import fullbandit as fb
    >>> environment = fb.GaussianSum([1.0, 0.9, 0.2, 0.1, 0.0], sigma=0.2, seed=1)
    >>> result = fb.run(fb.Exhaustive(fb.TopK(5, 2), epsilon=0.1, seed=2), environment, progress=False)
    >>> result.answer, result.certified, result.constants["union_bound"]   # C(10, 2) pairs of super-arms
    ((0, 1), True, 45)
    """

    name = "exhaustive"
    summary = 'Kuroki et al. 2020, Appendix E: exact gap objective (5) by enumeration'
    parameter_constraints = {**STATIC_CONSTRAINTS, "limit": [Interval(int, 1, None)]}

    def __init__(self, problem, *, limit: int = ENUMERATION_LIMIT, epsilon: float = 0.0, delta: float = 0.05,
                 noise_scale: float | None = None, reward_range=None,
                 confidence: str = "tight", support="auto",
                 support_size: int | None = None, allocation: str = "uniform", budget: int = DEFAULT_BUDGET,
                 check_growth: float = 0.05, stop_on_rule: bool = True, seed=None):
        self.limit = limit
        super().__init__(problem, epsilon=epsilon, delta=delta, noise_scale=noise_scale, reward_range=reward_range,
                         confidence=confidence,
                         support=support, support_size=support_size, allocation=allocation, budget=budget,
                         check_growth=check_growth, stop_on_rule=stop_on_rule, seed=seed)

    def _setup_checks(self) -> None:
        if self.problem.size > self.limit:
            raise InvalidParameterError(
                f"Exhaustive enumerates all {self.problem.size} super-arms of n={self.problem.n}, "
                f"k={self.problem.k}, more than limit={self.limit}: use SAQM, SA-FOA or ICB, or raise limit")

    def _n_directions(self) -> int:
        size = self.problem.size
        return max(1, size * (size - 1) // 2)

    def _rule(self, estimate: LeastSquaresEstimate, radius: float):
        best = self.problem.best(estimate.theta)
        challenger, value = exact_maximum(self.problem, estimate.theta, estimate.gram_inverse, best, radius,
                                          self.limit)
        return value, best, {"C_t": radius, "challenger": "-".join(map(str, challenger))}
