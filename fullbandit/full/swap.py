"""SwapBound: stopping on bounds over the directed swap directions of top-k (pair and graded rules)."""

from __future__ import annotations

import math

import numpy as np

from fullbandit.core.params import Interval, Options
from fullbandit.full.static import DEFAULT_BUDGET, STATIC_CONSTRAINTS, StaticFullBandit
from fullbandit.full.swap_bounds import graded_deltas, max_swaps, n_directed_swaps, team_bound
from fullbandit.linalg.least_squares import LeastSquaresEstimate
from fullbandit.problems.classes import SuperArm, TopK

#: Which bounds the statistic combines.
RULES = ("all", "pair", "graded")
#: The per-swap-size terms of :func:`fullbandit.full.swap_bounds.team_bound` each choice of ``rules`` combines.
RULE_TERMS = {"all": ("pair", "graded", "exact"), "pair": ("pair",), "graded": ("graded",)}


class SwapBound(StaticFullBandit):
    """Stops on the smallest certified gap bound over directed swaps, (epsilon, delta)-PAC, top-k.

    The statistic of a team ``M`` is the smaller of two upper bounds on its gap
    ``max_M' theta(M') - theta(M)``, both valid on one family of confidence events
    (:mod:`fullbandit.full.swap_bounds` has the proofs):

    * pair: a maximum-weight matching between ``M`` and its complement with weights
      ``max(0, theta_hat_j - theta_hat_i + C_1 ||e_j - e_i||_{A^-1})`` (``O(n^3)``);
    * graded: ``max(0, max_m G_m + C_m sqrt(2 m lambda_max(P A^-1 P)))`` over the swap sizes
      ``m``, with ``G_m`` the best empirical m-swap gain, each term replaced by a coupled row
      bound of the same quantity when that is smaller
      (:func:`fullbandit.full.swap_bounds.coupled_swap_terms`).

    The events (directed: only the directions from a team *to* one fixed optimal team ``M*``,
    one-sided). ``C_m`` is the radius of a one-sided union over the ``C(k, m) C(n - k, m)``
    directions ``x_M* - x_M`` with ``|M* \\ M| = m``, at level
    ``delta_m = delta m^-2 / sum_{i <= min(k, n - k)} i^-2``; the pair rule reads the ``m = 1`` event, so no level
    is split between the rules. Proof of the guarantee: the events fail together with
    probability at most ``sum_m delta_m = delta``; on them, every team's two bounds are
    upper bounds of its gap (the module's proofs, with ``M'`` = ``M*``), at every check at
    once; the stopping team is the one of smallest bound among the empirical best and its
    ``alternatives`` closest single swaps, a choice made from the data that the events do
    not depend on; when that bound is at most ``epsilon`` the team is ``epsilon``-good.
    (The argument of generalised likelihood ratio stopping: Garivier and Kaufmann 2016,
    Proposition 12, and for linear bandits Jedra and Proutiere 2020; here with a union over
    the directed m-swaps instead of a self-normalised bound in ``R^n``.)

    Against ICB: ICB unions over the ``n`` arm directions on both sides and pays
    ``||e_i|| + ||e_j||`` for a swap; the pair rule unions over ``k (n - k)`` one-sided
    directions and pays ``||e_j - e_i||`` (about ``1 / sqrt(2)`` of ICB's for a balanced
    design); the graded rule pays ``sqrt(m)``, not ``m``, for ``m`` swaps.

    Parameters
    ----------
    problem : TopK
    rules : {"all", "pair", "graded"}
        The bounds to take the minimum of: both (default) or one alone. The pair rule alone
        gives its event all of ``delta``.
    alternatives : int
        How many teams one swap away from the empirical best (those of the closest
        estimated value) are also tried as the team to certify; ``0`` (default) certifies
        the empirical best only. Any value keeps the guarantee. With a uniform design every
        direction has about the same width and the empirical best was the cheapest team in
        every check we measured (the ``efficiency`` cells ``n = 10, 12``, 10 seeds each:
        the same pulls with 0, 8 and 30 alternatives), so the default spares the extra
        bounds; designs with unequal widths may gain.
    confidence : {"auto", "time-uniform", "stitched", "tight", "paper", "bernstein"}
        As in :class:`fullbandit.full.static.StaticFullBandit`, ``"auto"`` by default: the
        mixture boundary of :mod:`fullbandit.linalg.time_uniform` (valid at every whole pass at
        once, so no union over the checks) with a uniform allocation and no prior, else
        ``"stitched"``.
    support : {"swap-optimal", "auto", "cyclic", "random"} or sequence of super-arms
        As in :class:`fullbandit.full.static.StaticFullBandit`, but ``"swap-optimal"`` by
        default: a support whose uniform design's largest swap variance is within 10% of the
        best any design can have (:func:`fullbandit.design.support.make_support`), which is
        what every bound of this rule is made of: a few whole cyclic orbits where the class
        is small (32 to 70 members at ``n = 8..14``, ``k = 3``, where random supports grew to
        the whole class of 56 to 364: the checks, at whole passes, come 1.75 to 5.2 times
        more often), else random members. On the quiz data
        (``k = 10``, Bernoulli workers, ``epsilon = 0.5``) it needed 1.7 to 1.8 times fewer
        pulls than ``"auto"``'s ``8 n`` members. Above ``n = 724`` it is made of cyclic
        blocks, whose checks cost ``O(n^2)`` rather than ``O(n^3)``: ``n = 10,000``,
        ``k = 100`` is certified in minutes (``benchmarks/bench_scale.py``).
    epsilon, delta, noise_scale, reward_range, support_size
        See :class:`fullbandit.full.static.StaticFullBandit`.
    allocation, budget, check_growth, stop_on_rule, seed
        See :class:`fullbandit.full.static.StaticFullBandit`.

    Notes
    -----
    The base class hands :meth:`_rule` one radius ``C_t`` built from :meth:`_n_directions`;
    this rule needs one radius per swap size (different ``|D_m|`` and levels) and computes
    them itself (:meth:`directed_radii`), ignoring that argument. For reporting,
    ``union_bound`` (:meth:`_n_directions`) is the number of one-sided events in use,
    ``sum_m C(k, m) C(n - k, m)``. The result's constants hold ``C_pair`` (``C_1``), each
    bound's value (``pair_bound``, ``graded_bound``), the one that gave the minimum
    (``bound_used``) and whether the certified team is the empirical best
    (``certified_team_is_empirical_best``). Choices of this implementation, which no paper
    fixes: the candidate teams (single swaps of the empirical best, closest first) and the
    levels ``delta_m``.

    References
    ----------
    M. Soare, A. Lazaric, R. Munos. Best-arm identification in linear bandits. NeurIPS 2014,
    Proposition 1.
    Y. Kuroki, L. Xu, A. Miyauchi, J. Honda, M. Sugiyama. Polynomial-time algorithms for
    multiple-arm identification with full-bandit feedback. Neural Computation 32(9), 2020,
    Proposition 1 and Appendix A.
    A. Garivier, E. Kaufmann. Optimal best arm identification with fixed confidence. COLT
    2016, section 3 (stopping on the deviations at the true parameter only).
    S. R. Howard, A. Ramdas, J. McAuliffe, J. Sekhon. Time-uniform, nonparametric,
    nonasymptotic confidence sequences. Annals of Statistics 49(2), 2021 (the default radius).

    Examples
    --------
    >>> import fullbandit as fb
    >>> from fullbandit.full import SwapBound
    >>> environment = fb.GaussianSum([1.0, 0.9, 0.2, 0.1, 0.0], sigma=0.2, seed=1)
    >>> result = fb.run(SwapBound(fb.TopK(5, 2), epsilon=0.1, seed=2), environment, progress=False)
    >>> result.answer, result.certified, result.gap_bound <= 0.1
    ((0, 1), True, True)
    >>> result.constants["bound_used"] in ("pair", "graded", "exact", "none"), result.constants["confidence"]
    (True, 'time-uniform')
    """

    name = "swap"
    summary = 'fullbandit: the smallest of certified gap bounds over directed swaps, top-k'
    decision_classes = (TopK,)
    problem: TopK
    parameter_constraints = {**STATIC_CONSTRAINTS, "rules": [Options(RULES)],
                             "alternatives": [Interval(int, 0, None)]}

    def __init__(self, problem, *, rules: str = "all", alternatives: int = 0, epsilon: float = 0.0,
                 delta: float = 0.05, noise_scale: float | None = None, reward_range=None,
                 confidence: str = "auto", support="swap-optimal",
                 support_size: int | None = None, allocation: str = "uniform", budget: int = DEFAULT_BUDGET,
                 check_growth: float = 0.05, stop_on_rule: bool = True, seed=None):
        self.rules = rules
        self.alternatives = alternatives
        super().__init__(problem, epsilon=epsilon, delta=delta, noise_scale=noise_scale, reward_range=reward_range,
                         confidence=confidence,
                         support=support, support_size=support_size, allocation=allocation, budget=budget,
                         check_growth=check_growth, stop_on_rule=stop_on_rule, seed=seed)

    def label(self) -> str:
        return "swap" if self.rules == "all" else f"swap[{self.rules}]"

    def constants(self) -> dict:
        return {**super().constants(), "rules": self.rules, "alternatives": self.alternatives}

    def levels(self) -> np.ndarray:
        """The level ``delta_m`` of the directed event ``E(D_m)``, ``m = 1..min(k, n - k)``.

        ``delta m^-2 / sum_i i^-2`` (:func:`fullbandit.full.swap_bounds.graded_deltas`) with the
        graded rule, whose ``m = 1`` event the pair rule shares; all of ``delta`` on ``D_1``
        with the pair rule alone.

        Examples
        --------
        >>> import fullbandit as fb
        >>> from fullbandit.full import SwapBound
        >>> SwapBound(fb.TopK(5, 2), delta=0.06, rules="pair").levels().tolist()
        [0.06]
        >>> [round(level, 5) for level in SwapBound(fb.TopK(5, 2), delta=0.06).levels().tolist()]
        [0.048, 0.012]
        """
        if self.rules == "pair":
            return np.array([float(self.delta)])
        return graded_deltas(float(self.delta), max_swaps(self.problem.n, self.problem.k))

    def _n_directions(self) -> int:
        # The one-sided directed events in use (reported as ``union_bound``).
        n, k = self.problem.n, self.problem.k
        return sum(n_directed_swaps(n, k, m) for m in range(1, len(self.levels()) + 1))

    def directed_radii(self, t: int) -> list[float]:
        """``C_m = C_t(D_m, delta_m)`` for ``m = 1, 2, ...``: one-sided, over the directed m-swaps (see Notes)."""
        n, k = self.problem.n, self.problem.k
        return [self.radius(t, delta=float(level), n_directions=n_directed_swaps(n, k, m), one_sided=True)
                for m, level in enumerate(self.levels().tolist(), start=1)]

    def _rule(self, estimate: LeastSquaresEstimate, radius: float):
        del radius  # one radius per swap size, each with its own union and level (see Notes)
        theta, Q = estimate.theta, estimate.gram_inverse
        radii = self.directed_radii(estimate.pulls)
        best = self.problem.best(theta)
        if not math.isfinite(radii[0]):  # between whole passes the time-uniform bound says nothing
            return math.inf, best, {"C_pair": radii[0], "bound_used": "none", "binding_swaps": 0,
                                    "certified_team_is_empirical_best": True}
        rules = RULE_TERMS[self.rules]
        lam = estimate.spectrum.projected_lambda_max() if "graded" in rules else None
        team, bound = best, team_bound(theta, Q, best, radii, rules=rules, lambda_max=lam)
        for candidate in single_swaps(theta, best, self.alternatives):
            # Every team's bound holds on the same directed events: certify the one that is cheapest.
            other = team_bound(theta, Q, candidate, radii, rules=rules, lambda_max=lam)
            if other.value < bound.value:
                team, bound = candidate, other
        details = {"C_pair": radii[0], "bound_used": bound.rule or "none", "binding_swaps": bound.swaps,
                   "certified_team_is_empirical_best": team == best}
        return bound.value, team, details


def single_swaps(theta, best, limit: int) -> list[SuperArm]:
    """The ``limit`` teams one swap away from ``best`` whose estimated value is closest to it (best first).

    Examples
    --------
    >>> from fullbandit.full.swap import single_swaps
    >>> single_swaps([1.0, 0.8, 0.75, 0.1], (0, 1), 2)
    [(0, 2), (1, 2)]
    """
    if limit <= 0:
        return []
    theta = np.asarray(theta, dtype=float)
    inside = np.asarray(best)
    outside = np.setdiff1d(np.arange(theta.size), inside)
    losses = theta[inside][:, None] - theta[outside][None, :]
    order = np.argsort(losses, axis=None, kind="stable")[:limit]
    teams = []
    for flat in order.tolist():
        row, column = divmod(flat, outside.size)
        team = set(inside.tolist()) - {int(inside[row])} | {int(outside[column])}
        teams.append(tuple(sorted(team)))
    return teams
