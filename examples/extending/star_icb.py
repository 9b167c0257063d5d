"""Example extension, full-bandit feedback: ICB over an n-member "swap star" support.

One module and one registry line (the last): importing it registers ``star-icb``, which
``fullbandit.run``, the experiment grids and the conformance suite then find by name. A
distribution would declare the class as an entry point instead, in its ``pyproject.toml``::

    [project.entry-points."fullbandit.algorithms"]
    star-icb = "examples.extending.star_icb:StarICB"
"""

from __future__ import annotations

from fullbandit.core.registry import register
from fullbandit.full.icb import ICB
from fullbandit.full.static import DEFAULT_BUDGET, DESIGN_CONSTRAINTS
from fullbandit.problems.classes import TopK


class StarICB(ICB):
    """ICB over the swap star, an example of a static design with its own support: certified, (epsilon, delta)-PAC.

    The support has exactly ``n`` members: the base team ``B = {0, ..., k-1}``, ``B - {0} + {j}``
    for every arm ``j`` outside ``B``, and ``B - {i} + {k}`` for every other ``i`` in ``B``. Their
    differences from ``B`` are the swaps ``e_j - e_0`` and ``e_k - e_i``, which link every arm
    to arm 0, so they span the directions of sum zero; ``x_B`` (sum ``k``) adds the rest: the
    members are a basis of ``R^n``, the smallest spanning support there is. The stopping rule is
    ICB's (:class:`fullbandit.ICB`), whose guarantee asks only for a fixed design that spans
    ``R^n``, so it holds as proved: **certified**. A basis identifies the means with the fewest
    members, not with the fewest pulls (the default supports usually need fewer): this class
    shows the extension hook; it is not meant to beat ICB.

    Parameters
    ----------
    problem : TopK
    epsilon, delta, noise_scale, reward_range, confidence, allocation, budget, check_growth, stop_on_rule, seed
        As :class:`fullbandit.full.static.StaticFullBandit` (there is no ``support`` nor ``support_size``).

    References
    ----------
    Y. Kuroki, L. Xu, A. Miyauchi, J. Honda, M. Sugiyama. Polynomial-time algorithms for
    multiple-arm identification with full-bandit feedback. Neural Computation 32(9), 2020,
    Appendix A (ICB, Lemma 1).
    M. Soare, A. Lazaric, R. Munos. Best-arm identification in linear bandits. NeurIPS 2014,
    Proposition 1 (the fixed-design confidence bound).
    """

    name = "star-icb"
    summary = "Example: ICB (Kuroki et al. 2020, Appendix A) over an n-member swap-star basis, top-k"
    decision_classes = (TopK,)
    problem: TopK
    parameter_constraints = DESIGN_CONSTRAINTS

    def __init__(self, problem, *, epsilon: float = 0.0, delta: float = 0.05, noise_scale: float | None = None,
                 reward_range=None, confidence: str = "tight", allocation: str = "uniform",
                 budget: int = DEFAULT_BUDGET, check_growth: float = 0.05, stop_on_rule: bool = True, seed=None):
        self.problem, self.epsilon, self.delta, self.noise_scale = problem, epsilon, delta, noise_scale
        self.reward_range, self.confidence, self.allocation, self.budget = reward_range, confidence, allocation, budget
        self.check_growth, self.stop_on_rule, self.seed = check_growth, stop_on_rule, seed

    def design_support(self, rng):
        n, k = self.problem.n, self.problem.k
        base = set(range(k))
        swaps = [(0, j) for j in range(k, n)] + [(i, k) for i in range(1, k)]
        return [tuple(range(k))] + [tuple(sorted(base - {out} | {into})) for out, into in swaps]


register(StarICB)
