"""An example algorithm written against the public base, in one module (see test_extension.py).

Uniform sampling with a fixed budget: every pull is a super-arm drawn uniformly from the
decision class; at the end of the budget the answer is the best super-arm of the least
squares estimate. It makes no confidence claim (the baseline "Uniform" of the
fixed-budget literature, e.g. Bubeck, Wang, Viswanathan 2013, section 5).
"""

from __future__ import annotations

import numpy as np

from fullbandit.core.algorithm import Algorithm, StoppingCheck
from fullbandit.core.params import SEED, Interval
from fullbandit.problems.classes import DecisionClass


class UniformSampling(Algorithm):
    """Pull uniformly random super-arms until ``budget``, then recommend the least-squares best.

    Parameters
    ----------
    problem : DecisionClass
    budget : int
        Number of pulls.
    seed : None, int, SeedSequence or Generator
    """

    name = "uniform-sampling"
    feedback = "full"
    setting = "fixed-budget"
    decision_classes = (DecisionClass,)
    parameter_constraints = {"budget": [Interval(int, 1, None)], "seed": [SEED]}

    def __init__(self, problem, *, budget: int = 2_000, seed=None):
        self.problem = problem
        self.budget = budget
        self.seed = seed

    def _build(self, rng, noise_scale):
        n = self.problem.n
        self._gram = np.zeros((n, n))
        self._moments = np.zeros(n)

    def _next_pull(self, max_count):
        return self.problem.random_member(self._rng), 1, None

    def _record(self, token, arms, count, reward):
        x = np.zeros(self.problem.n)
        x[list(arms)] = 1.0
        self._gram += count * np.outer(x, x)
        self._moments += reward * x

    def _release(self, token, count):
        pass  # uniform draws are independent: an abandoned pull leaves nothing to return

    def _due_for_check(self):
        return False  # fixed budget: the base evaluates once, when the budget is spent

    def _evaluate(self):
        if np.linalg.matrix_rank(self._gram) < self.problem.n:
            return StoppingCheck(self._told, np.inf, 0.0, None, False)
        theta = np.linalg.solve(self._gram, self._moments)
        return StoppingCheck(self._told, np.inf, 0.0, self.problem.best(theta), False)


