"""Example extension, per-arm (semi-bandit) feedback: round-robin successive elimination for top-k.

One module and one registry line (the last): importing it registers ``rr-elimination``, which
``fullbandit.run``, the experiment grids and the conformance suite then find by name. A
distribution would declare the class as an entry point instead, in its ``pyproject.toml``::

    [project.entry-points."fullbandit.algorithms"]
    rr-elimination = "examples.extending.elimination:RoundRobinElimination"
"""

from __future__ import annotations

import math

import numpy as np

from fullbandit.core.algorithm import StoppingCheck
from fullbandit.core.registry import register
from fullbandit.semi.base import PerArmConfidenceRounds


class RoundRobinElimination(PerArmConfidenceRounds):
    """Sample every arm still in doubt once per round, with Hoeffding radii: an example, certified (epsilon, delta)-PAC.

    An arm with ``u`` samples has the radius ``beta(u) = R sqrt(2 log(pi^2 n u^2 / (3 delta)) / u)``:
    its sub-Gaussian tail ``2 exp(-u beta^2 / (2 R^2)) = 6 delta / (pi^2 n u^2)``, summed over the
    ``n`` arms and every ``u >= 1``, is ``delta``. With probability at least ``1 - delta`` every arm's
    mean is then within ``beta(u)`` of the mean of its first ``u`` samples for every ``u``, so at
    every round, however the rounds chose the arms (the base records each arm's samples in the
    order they were handed out, whatever order they are told in).

    With ``High`` the empirical top-k, ``h`` its arm of lowest lower bound and ``l`` the arm of
    highest upper bound outside it, on that event ``theta(top-k) - theta(High) <= s max(ucb_l - lcb_h, 0)``
    with ``s = min(k, n - k)`` (at most ``s`` arms are exchanged; the argument of LUCB,
    :class:`fullbandit.semi.LUCB`). That is the gap bound; the run stops when it is at most
    ``epsilon``. Each round samples once every arm whose interval reaches across the boundary
    (an arm of ``High`` with ``lcb < ucb_l``, an arm outside with ``ucb > lcb_h``): the arms
    clearly in or clearly out are eliminated from the sampling, as in successive elimination.

    Parameters
    ----------
    problem : TopK
    epsilon, delta, noise_scale, budget, seed
        As :class:`fullbandit.semi.base.PerArmConfidenceRounds`.

    References
    ----------
    E. Even-Dar, S. Mannor, Y. Mansour. Action elimination and stopping conditions for the
    multi-armed bandit and reinforcement learning problems. JMLR 7, 2006 (successive elimination).
    S. Kalyanakrishnan, A. Tewari, P. Auer, P. Stone. PAC subset selection in stochastic
    multi-armed bandits. ICML 2012 (the critical arms that bound the top-k's gap).
    """

    name = "rr-elimination"
    summary = "Example: round-robin successive elimination (Even-Dar et al. 2006) with Hoeffding radii, top-k"

    def radius(self, samples) -> np.ndarray:
        """``beta(u)`` for the sample counts ``samples``."""
        u = np.asarray(samples, dtype=float)
        return self.noise_scale_in_use * np.sqrt(2.0 * np.log(math.pi ** 2 * self.problem.n * u * u / (3 * self.delta))
                                                 / u)

    def _bounds(self):
        samples, sums = self.evidence()
        means, beta = sums / samples, self.radius(samples)
        high = np.array(self.problem.best(means))
        low = np.setdiff1d(np.arange(self.problem.n), high)
        return high, low, means - beta, means + beta

    def _plan_round(self) -> np.ndarray:
        if self.round == 0:
            return np.ones(self.problem.n, dtype=np.int64)
        high, low, lower, upper = self._bounds()
        plan = np.zeros(self.problem.n, dtype=np.int64)
        plan[high] = lower[high] < upper[low].max()
        plan[low] = upper[low] > lower[high].min()
        return plan

    def _evaluate(self) -> StoppingCheck:
        if np.any(self.evidence()[0] == 0):
            return self._unidentified({"round": self.round})
        high, low, lower, upper = self._bounds()
        separation = float(upper[low].max() - lower[high].min())
        swaps = min(self.problem.k, self.problem.n - self.problem.k)
        return StoppingCheck(self.n_pulls, swaps * max(separation, 0.0), self.epsilon, tuple(int(i) for i in high),
                             True, {"round": self.round, "separation": separation})


register(RoundRobinElimination)
