"""ICB: independent confidence bounds (Kuroki et al. 2020, Appendix A, Algorithm 4)."""

from __future__ import annotations

import numpy as np

from fullbandit.full.static import StaticFullBandit
from fullbandit.linalg.least_squares import LeastSquaresEstimate


class ICB(StaticFullBandit):
    """Independent confidence bounds over any decision class with a linear oracle, (epsilon, delta)-PAC.

    Each arm gets its own interval ``|theta_hat_i - theta_i| <= beta_i = C_t sqrt((A_t^-1)_ii)``,
    with the union bound of ``C_t`` over the ``n`` directions ``e_i`` (Lemma 1 of Appendix A,
    from Proposition 1 and the triangle inequality). For the empirical best ``M_hat`` and any
    ``M``, ``theta(M) - theta(M_hat) <= sum_{i in M} w_i - sum_{i in M_hat} w_i`` with
    ``w_i = theta_hat_i + beta_i`` outside ``M_hat`` and ``theta_hat_i - beta_i`` inside, so
    ICB stops when the linear maximisation

        ``max_M sum_{i in M} w_i - sum_{i in M_hat} w_i <= epsilon``

    solved exactly by the decision class's oracle (sorting for top-k, greedy for a matroid).
    Polynomial per round (Lemma 2).

    Parameters
    ----------
    problem : DecisionClass
        Any class with a linear maximisation oracle (:class:`fullbandit.TopK`,
        :class:`fullbandit.PartitionMatroid`).
    epsilon, delta, noise_scale, reward_range, confidence, support, support_size
        See :class:`fullbandit.full.static.StaticFullBandit`.
    allocation, budget, check_growth, stop_on_rule, seed
        See :class:`fullbandit.full.static.StaticFullBandit`.

    Notes
    -----
    Choices the paper leaves open: the geometric check schedule and the default static
    support of :class:`StaticFullBandit`; for a class other than top-k the random support
    is drawn from the class itself.

    References
    ----------
    Y. Kuroki, L. Xu, A. Miyauchi, J. Honda, M. Sugiyama. Polynomial-time algorithms for
    multiple-arm identification with full-bandit feedback. Neural Computation 32(9), 2020,
    Appendix A (Lemma 1, Algorithm 4, Lemmas 2-3) and Appendix B.

    Examples
    --------
    At most one worker from each of three groups:

    >>> import fullbandit as fb
    >>> problem = fb.PartitionMatroid(groups=(0, 0, 1, 1, 2, 2), capacities=(1, 1, 1), k=2)
    >>> environment = fb.GaussianSum([0.9, 0.8, 0.3, 0.2, 0.6, 0.1], sigma=0.2, seed=3)
    >>> result = fb.run(fb.ICB(problem, epsilon=0.05, seed=4), environment, progress=False)
    >>> result.answer, result.certified
    ((0, 4), True)
    """

    name = "icb"
    summary = 'Kuroki et al. 2020, Appendix A: independent confidence bounds, any class with a linear oracle'

    def _n_directions(self) -> int:
        return self.problem.n

    def _rule(self, estimate: LeastSquaresEstimate, radius: float):
        theta = estimate.theta
        beta = radius * np.sqrt(np.clip(np.diag(estimate.gram_inverse), 0.0, None))
        best = self.problem.best(theta)
        inside = np.zeros(self.problem.n, dtype=bool)
        inside[list(best)] = True
        weights = np.where(inside, theta - beta, theta + beta)
        challenger = self.problem.maximize(weights)
        objective = float(weights[list(challenger)].sum() - weights[list(best)].sum())
        return objective, best, {"C_t": radius, "challenger": "-".join(map(str, challenger)),
                                 "max_beta": float(beta.max())}
