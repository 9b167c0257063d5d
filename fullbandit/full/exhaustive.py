"""Exhaustive: the linear-bandit reduction, exact and exponential (Kuroki et al. 2020, Appendix E)."""

from __future__ import annotations


from fullbandit._validation import check_int
from fullbandit.estimation import LeastSquaresEstimate
from fullbandit.full.gap_objective import ENUMERATION_LIMIT, exact_maximum
from fullbandit.full.static import StaticFullBandit, StoppingCheck
from fullbandit.problem import DecisionClass
from fullbandit._validation import InvalidParameterError


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
        Refuse (at construction, with a clear error) when the class has more super-arms.
    epsilon, delta, noise_scale, confidence, support, support_size, budget, check_growth, seed, allocation
        See :class:`fullbandit.full.static.StaticFullBandit`.

    References
    ----------
    Y. Kuroki et al. Neural Computation 32(9), 2020, Appendix E, Algorithm 5, objective (5).
    M. Soare, A. Lazaric, R. Munos. Best-arm identification in linear bandits. NeurIPS 2014.
    """

    name = "exhaustive"

    def __init__(self, problem: DecisionClass, *, limit: int = ENUMERATION_LIMIT, **options):
        self.limit = check_int("limit", limit, low=1)
        if problem.size > self.limit:
            raise InvalidParameterError(
                f"Exhaustive enumerates all {problem.size} super-arms of n={problem.n}, k={problem.k}, "
                f"more than limit={self.limit}: use SAQM, SA-FOA or ICB, or raise limit")
        super().__init__(problem, **options)

    def _n_directions(self) -> int:
        size = self.problem.size
        return max(1, size * (size - 1) // 2)

    def _parameters(self) -> dict:
        return {**super()._parameters(), "limit": self.limit}

    def _evaluate_stopping(self, estimate: LeastSquaresEstimate, radius: float) -> StoppingCheck:
        best = self.problem.best(estimate.theta)
        challenger, value = exact_maximum(self.problem, estimate.theta, estimate.gram_inverse, best, radius,
                                          self.limit)
        return StoppingCheck(pulls=estimate.pulls, stop=value <= self.epsilon, statistic=-value,
                             threshold=-self.epsilon, answer=best,
                             details={"C_t": radius, "objective": value,
                                      "challenger": "-".join(map(str, challenger))})
