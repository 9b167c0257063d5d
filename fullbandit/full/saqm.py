"""SAQM: static allocation with quadratic maximisation (Kuroki et al. 2020, Algorithm 2)."""

from __future__ import annotations

import math

from fullbandit.core.params import Options
from fullbandit.dks import ORACLES
from fullbandit.full.qp import approximate_qp, certified_bounds
from fullbandit.full.static import DEFAULT_BUDGET, STATIC_CONSTRAINTS, StaticFullBandit
from fullbandit.linalg.least_squares import LeastSquaresEstimate
from fullbandit.problems.classes import TopK

WIDTH_BOUNDS = ("certified", "theorem1")


class SAQM(StaticFullBandit):
    """Static allocation with quadratic maximisation, (epsilon, delta)-PAC.

    Pulls the support of a static allocation by deterministic tracking and, on the
    stopping schedule, computes the empirical best ``M_hat`` and runner-up ``M_2`` of
    ``theta_hat``, approximately solves the confidence-ellipsoid maximisation
    ``max_M ||x_M||^2_{A^-1}`` with Algorithm 1 (value ``Z_t``), and bounds the largest
    width ``U_t >= max_M ||x_M||_{A^-1}``. Every super-arm then satisfies
    ``|theta(M) - theta_hat(M)| <= C_t U_t`` on the confidence event, so stopping when

        ``theta_hat(M_hat) - theta_hat(M_2) >= 2 C_t U_t - epsilon``

    (its ``gap_bound`` is ``max(0, 2 C_t U_t - (theta_hat(M_hat) - theta_hat(M_2)))``: a bound on a
    gap is never negative, :meth:`fullbandit.core.algorithm.Algorithm._meaningful`) makes ``M_hat``
    epsilon-optimal with probability at least ``1 - delta``. The union bound of ``C_t`` is over
    the ``C(n, k)`` super-arms.

    Parameters
    ----------
    problem : TopK
    width_bound : {"certified", "theorem1"}
        How ``U_t^2`` is obtained from the QP:

        * ``"theorem1"``: ``Z_t / alpha_t`` with ``alpha_t`` the ratio of Theorem 1,
          ``alpha / (1 + (k - 2) lambda_max / lambda_min)`` of ``A_t^-1``, and ``alpha`` the
          oracle's *proven* DkS ratio (for greedy peeling ``k (k-1) / (n (n-1))``; see
          :func:`fullbandit.dks.proven_peeling_ratio`). The paper's rule; valid but loose.
        * ``"certified"`` (default): the smallest of the Theorem 1 bound and the other
          certified bounds of :func:`fullbandit.full.qp.certified_bounds` (spectral,
          Cauchy-Schwarz, row, oracle ratio). Every one is a rigorous upper bound on the
          QP optimum, so the guarantee is unchanged and the run stops earlier.
    oracle : str
        Densest-k-subgraph oracle of Algorithm 1 (a name in :data:`fullbandit.dks.ORACLES`).
    epsilon, delta, noise_scale, reward_range, confidence, support, support_size
        See :class:`fullbandit.full.static.StaticFullBandit`.
    allocation, budget, check_growth, stop_on_rule, seed
        See :class:`fullbandit.full.static.StaticFullBandit`.

    Notes
    -----
    Choices the paper leaves open, made here: the stopping rule is checked on a
    geometric schedule rather than every round (same guarantee, at most a factor
    ``1 + check_growth`` more pulls); the default allocation is uniform over the support
    of :func:`fullbandit.design.support.make_support`; the default confidence constant is the
    tighter one of :func:`fullbandit.linalg.radius.confidence_radius`. For ``k = 1`` the CEM
    is solved exactly. Ties in ``theta_hat`` go to the lower arm index.

    References
    ----------
    Y. Kuroki, L. Xu, A. Miyauchi, J. Honda, M. Sugiyama. Polynomial-time algorithms for
    multiple-arm identification with full-bandit feedback. Neural Computation 32(9),
    2020: Algorithm 2, stopping condition (4), Theorems 1-3.
    M. Soare, A. Lazaric, R. Munos. Best-arm identification in linear bandits. NeurIPS 2014.

    Examples
    --------
    >>> import fullbandit as fb
    >>> env = fb.GaussianSum([1.0, 0.9, 0.2, 0.1, 0.0], sigma=0.2, seed=1)
    >>> algorithm = fb.SAQM(fb.TopK(5, 2), epsilon=0.1, delta=0.05, seed=2)
    >>> result = fb.run(algorithm, env, progress=False)
    >>> result.answer, str(result.stop_reason), result.gap_bound <= 0.1
    ((0, 1), 'stopping rule', True)
    """

    name = "saqm"
    summary = 'Kuroki et al. 2020, Algorithm 2: static allocation, confidence-ellipsoid maximisation through DkS'
    decision_classes = (TopK,)
    problem: TopK
    parameter_constraints = {**STATIC_CONSTRAINTS, "width_bound": [Options(WIDTH_BOUNDS)],
                             "oracle": [Options(ORACLES)]}

    def __init__(self, problem, *, width_bound: str = "certified", oracle: str = "peeling", epsilon: float = 0.0,
                 delta: float = 0.05, noise_scale: float | None = None, reward_range=None,
                 confidence: str = "tight", support="auto",
                 support_size: int | None = None, allocation: str = "uniform", budget: int = DEFAULT_BUDGET,
                 check_growth: float = 0.05, stop_on_rule: bool = True, seed=None):
        self.width_bound = width_bound
        self.oracle = oracle
        super().__init__(problem, epsilon=epsilon, delta=delta, noise_scale=noise_scale, reward_range=reward_range,
                         confidence=confidence,
                         support=support, support_size=support_size, allocation=allocation, budget=budget,
                         check_growth=check_growth, stop_on_rule=stop_on_rule, seed=seed)

    def label(self) -> str:
        return f"saqm[{self.width_bound}]"

    def _n_directions(self) -> int:
        return self.problem.size

    def constants(self) -> dict:
        return {**super().constants(), "width_bound": self.width_bound, "oracle": self.oracle}

    def _rule(self, estimate: LeastSquaresEstimate, radius: float):
        theta = estimate.theta
        best, runner_up = self.problem.best_and_runner_up(theta)
        empirical_gap = float(theta[list(best)].sum() - theta[list(runner_up)].sum())
        Q = estimate.gram_inverse
        # A^-1 is exactly symmetric and its eigenvalues come from the check's one decomposition.
        solution = approximate_qp(Q, self.problem.k, self.oracle, eigenvalues=estimate.spectrum.eigenvalues(),
                                  validate=False)
        if self.width_bound == "theorem1":
            bounds = {"theorem1": solution.value / solution.theorem1_ratio}
        else:
            bounds = certified_bounds(Q, self.problem.k, solution)
        bound_name = min(bounds, key=bounds.__getitem__)
        width = math.sqrt(bounds[bound_name])
        # On the confidence event every super-arm M has |theta(M) - theta_hat(M)| <= C_t U_t, so
        # theta(M*) - theta(M_hat) <= theta_hat(M_2) + C_t U_t - (theta_hat(M_hat) - C_t U_t).
        gap_bound = 2.0 * radius * width - empirical_gap
        return gap_bound, best, {"C_t": radius, "U_t": width, "Z_t": solution.value, "alpha_t": solution.theorem1_ratio,
                                 "empirical_gap": empirical_gap, "bound_used": bound_name}
