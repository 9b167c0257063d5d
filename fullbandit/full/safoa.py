"""SA-FOA: static allocation with first-order approximation (Kuroki et al. 2020, Algorithm 3)."""

from __future__ import annotations

from fullbandit.core.params import Interval, Options
from fullbandit.core.registry import AlgorithmSpec
from fullbandit.dks import ORACLES
from fullbandit.full.gap_objective import GapSearch, SurrogateBound, certified_minimum, triangle_bound
from fullbandit.full.static import DEFAULT_BUDGET, STATIC_CONSTRAINTS, StaticFullBandit
from fullbandit.linalg.least_squares import LeastSquaresEstimate
from fullbandit.linalg.spectrum import InverseSpectrum
from fullbandit.problems.classes import TopK

MODES = ("heuristic", "certified")


class SAFOA(StaticFullBandit):
    """Static allocation with a first-order approximation of the gap objective (5).

    Stops when ``max_M f(M) <= epsilon`` seems (heuristic) or is proven (certified) to hold,
    where ``f(M) = theta_hat(M) - theta_hat(M_hat) + C_t ||x_M - x_M_hat||_{A_t^-1}`` and
    ``C_t`` has its union bound over the ``K (K - 1) / 2`` pairwise directions.

    Search (both modes). The square root in ``f`` is replaced by its tangent at ``f0 > 0``,
    which bounds it from above; the resulting surrogate is a 0-1 QP maximised
    approximately with Algorithm 1 (:meth:`fullbandit.full.gap_objective.GapSearch.step`).
    References: the ``n_references`` single swaps of ``M_hat`` with the largest linear
    (triangle-inequality) score set ``f0 = ||x_M' - x_M_hat||^2``; each found solution then
    re-centres ``f0`` at its own norm, for up to ``recentre_steps`` steps while ``f``
    improves. Every candidate is scored with the original objective ``f``.

    Modes
    -----
    ``"heuristic"`` (the published rule): the statistic is the best original objective
    found. That is a value of ``f`` at one super-arm, a *lower* bound of ``max_M f``, so
    the rule can stop early; the paper calls it PAC, but an approximate maximiser of an
    upper-bounding surrogate is not an upper bound. Report its empirical error rate.

    ``"certified"``: the statistic is a rigorous upper bound of ``max_M f``: the smaller of
    the triangle-inequality bound (:func:`fullbandit.full.gap_objective.triangle_bound`)
    and the certified QP bounds of every surrogate evaluated (each surrogate bounds ``f``
    from above everywhere). Stopping on it is (epsilon, delta)-PAC.

    Parameters
    ----------
    problem : TopK
    mode : {"heuristic", "certified"}
    oracle : str
        Densest-k-subgraph oracle of Algorithm 1.
    n_references : int
        Reference super-arms per check (the paper's number was lost; our choice).
    recentre_steps : int
        Re-centring steps per reference (our choice).
    epsilon, delta, noise_scale, reward_range, confidence, support, support_size
        See :class:`fullbandit.full.static.StaticFullBandit`.
    allocation, budget, check_growth, stop_on_rule, seed
        See :class:`fullbandit.full.static.StaticFullBandit`.

    References
    ----------
    Y. Kuroki, L. Xu, A. Miyauchi, J. Honda, M. Sugiyama. Polynomial-time algorithms for
    multiple-arm identification with full-bandit feedback. Neural Computation 32(9), 2020,
    Algorithm 3 and objective (5).

    Examples
    --------
    >>> import fullbandit as fb
    >>> environment = fb.GaussianSum([1.0, 0.9, 0.2, 0.1, 0.0], sigma=0.2, seed=1)
    >>> result = fb.run(fb.SAFOA(fb.TopK(5, 2), epsilon=0.1, seed=2), environment, progress=False)
    >>> result.answer, result.certified
    ((0, 1), True)
    >>> heuristic = fb.run(fb.SAFOA(fb.TopK(5, 2), mode="heuristic", epsilon=0.1, seed=2), environment,
    ...                    progress=False)
    >>> heuristic.guarantee, heuristic.certified   # the published rule carries no guarantee
    ('heuristic', False)
    """

    name = "safoa"
    summary = 'Kuroki et al. 2020, Algorithm 3, stopping on a certified upper bound of the gap objective (5)'
    decision_classes = (TopK,)
    problem: TopK
    parameter_constraints = {**STATIC_CONSTRAINTS, "mode": [Options(MODES)], "oracle": [Options(ORACLES)],
                             "n_references": [Interval(int, 1, None)], "recentre_steps": [Interval(int, 0, None)]}

    def __init__(self, problem, *, mode: str = "certified", oracle: str = "peeling", n_references: int = 4,
                 recentre_steps: int = 3, epsilon: float = 0.0, delta: float = 0.05,
                 noise_scale: float | None = None, reward_range=None,
                 confidence: str = "tight", support="auto",
                 support_size: int | None = None, allocation: str = "uniform", budget: int = DEFAULT_BUDGET,
                 check_growth: float = 0.05, stop_on_rule: bool = True, seed=None):
        self.mode = mode
        self.oracle = oracle
        self.n_references = n_references
        self.recentre_steps = recentre_steps
        super().__init__(problem, epsilon=epsilon, delta=delta, noise_scale=noise_scale, reward_range=reward_range,
                         confidence=confidence,
                         support=support, support_size=support_size, allocation=allocation, budget=budget,
                         check_growth=check_growth, stop_on_rule=stop_on_rule, seed=seed)

    @property
    def guarantee(self) -> str:
        return "heuristic" if self.mode == "heuristic" else "certified"

    def label(self) -> str:
        return f"safoa[{self.mode}]"

    def _n_directions(self) -> int:
        size = self.problem.size
        return max(1, size * (size - 1) // 2)

    def constants(self) -> dict:
        return {**super().constants(), "mode": self.mode, "oracle": self.oracle}

    def search(self, theta, Q, best, radius, spectrum: InverseSpectrum | None = None) -> dict:
        """The first-order search of one check: best candidate, its ``f``, and the surrogate bounds.

        ``spectrum`` is the check's spectrum of ``Q`` (:class:`fullbandit.linalg.spectrum.InverseSpectrum`),
        shared with the surrogate steps (:class:`fullbandit.full.gap_objective.GapSearch`). The
        surrogate bounds are :class:`fullbandit.full.gap_objective.SurrogateBound` objects, whose
        spectral part is computed only when asked for (the heuristic mode never asks).
        """
        gap = GapSearch(theta, Q, best, radius, spectrum)
        best_value, best_arm = 0.0, tuple(best)
        surrogate_bounds = []
        steps: dict[tuple, tuple[tuple[int, ...], SurrogateBound] | None] = {}  # a step depends only on its centre
        for reference in gap.references(self.n_references):
            current, current_value = reference, gap.value(reference)
            if current_value > best_value:
                best_value, best_arm = current_value, current
            for _ in range(self.recentre_steps + 1):
                if current not in steps:
                    f0 = gap.distance(current)
                    steps[current] = gap.step(f0, self.oracle) if f0 > 0 else None
                step = steps[current]
                if step is None:
                    break
                candidate, bound = step
                surrogate_bounds.append(bound)
                value = gap.value(candidate)
                if value > best_value:
                    best_value, best_arm = value, candidate
                if value <= current_value or candidate == current:
                    break
                current, current_value = candidate, value
        return {"value": best_value, "maximiser": best_arm, "surrogate_bounds": surrogate_bounds}

    def _rule(self, estimate: LeastSquaresEstimate, radius: float):
        theta, Q = estimate.theta, estimate.gram_inverse
        best = self.problem.best(theta)
        found = self.search(theta, Q, best, radius, estimate.spectrum)
        details = {"C_t": radius, "found_value": found["value"],
                   "found_maximiser": "-".join(map(str, found["maximiser"]))}
        if self.mode == "heuristic":
            return found["value"], best, details
        triangle = triangle_bound(self.problem, theta, Q, best, radius)
        bound, bound_name = certified_minimum(triangle, found["surrogate_bounds"])
        details.update({"certified_bound": bound, "bound_used": bound_name})
        return bound, best, details


#: SAFOA as published (Algorithm 3 stopping on a *lower* bound of (5)): registered as its own entry, tagged heuristic.
SAFOA_HEURISTIC = AlgorithmSpec("safoa-heuristic", SAFOA, {"mode": "heuristic"},
                                summary="Kuroki et al. 2020, Algorithm 3 as published: stops on a lower bound of (5), "
                                        "no guarantee")
