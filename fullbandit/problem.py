"""Decision classes: which super-arms may be chosen, and the linear maximisation over them.

A super-arm is a tuple of distinct arm indices in increasing order. The top-k class
holds every size-``k`` subset of ``n`` arms (Kuroki et al. 2020, section 2); later
classes (e.g. partition matroids) provide the same interface, so algorithms that only
need a linear maximisation oracle (the empirical best, the runner-up, ICB) take the
decision class as a parameter.
"""

from __future__ import annotations

import math
import operator
from dataclasses import dataclass

import numpy as np

from fullbandit._validation import InvalidParameterError, check_int, check_k, check_vector

SuperArm = tuple[int, ...]
_ROUNDING = 1e-12  # relative size of a sum's rounding error: gaps below it are ties


@dataclass(frozen=True)
class TopK:
    """All size-``k`` subsets of ``n`` arms.

    Parameters
    ----------
    n : int
        Number of single arms, ``n >= 2``.
    k : int
        Super-arm size, ``1 <= k < n``.

    Notes
    -----
    Ties in the means are broken towards the lower arm index, so ``best`` is a
    deterministic function of ``theta``.

    References
    ----------
    Kuroki, Xu, Miyauchi, Honda, Sugiyama. Polynomial-time algorithms for multiple-arm
    identification with full-bandit feedback. Neural Computation 32(9), 2020, section 2.
    """

    n: int
    k: int

    def __post_init__(self):
        check_int("n", self.n, low=2)
        check_k(self.k, self.n)

    @property
    def size(self) -> int:
        """Number of super-arms, ``C(n, k)`` (an exact integer)."""
        return math.comb(self.n, self.k)

    def check_super_arm(self, super_arm, name: str = "super_arm") -> SuperArm:
        """Return ``super_arm`` as a sorted tuple after checking it belongs to the class."""
        try:
            arms = tuple(sorted(operator.index(i) for i in super_arm))
        except TypeError:
            raise TypeError(f"{name}={tuple(super_arm)!r} must hold integer arm indices") from None
        if len(arms) != self.k or len(set(arms)) != self.k:
            raise InvalidParameterError(
                f"{name}={tuple(super_arm)!r} must hold {self.k} distinct arms")
        if arms[0] < 0 or arms[-1] >= self.n:
            raise InvalidParameterError(
                f"{name}={tuple(super_arm)!r} must hold arm indices in 0..{self.n - 1}")
        return arms

    def _ranking(self, theta: np.ndarray) -> np.ndarray:
        # Stable sort on -theta: ties go to the lower index.
        return np.argsort(-theta, kind="stable")

    def best(self, theta) -> SuperArm:
        """The super-arm maximising ``theta(M)``: the ``k`` largest entries of ``theta``."""
        theta = check_vector("theta", theta, length=self.n)
        return tuple(sorted(int(i) for i in self._ranking(theta)[: self.k]))

    def best_and_runner_up(self, theta) -> tuple[SuperArm, SuperArm]:
        """The best super-arm and the best super-arm different from it.

        For top-k the runner-up swaps the k-th and (k+1)-th ranked arms.
        """
        theta = check_vector("theta", theta, length=self.n)
        order = self._ranking(theta)
        best = tuple(sorted(int(i) for i in order[: self.k]))
        swapped = np.concatenate([order[: self.k - 1], order[self.k: self.k + 1]])
        return best, tuple(sorted(int(i) for i in swapped))

    def maximize(self, weights) -> SuperArm:
        """Linear maximisation oracle: argmax of ``sum(weights[i] for i in M)``."""
        return self.best(weights)

    def value(self, super_arm, theta) -> float:
        """``theta(M)``: the sum of the means of the members of ``super_arm``."""
        theta = check_vector("theta", theta, length=self.n)
        return float(theta[list(self.check_super_arm(super_arm))].sum())

    def gap(self, super_arm, theta) -> float:
        """``theta(M*) - theta(M)`` (zero for an optimal super-arm, never negative).

        Both values are summed over sorted indices, so ``M = M*`` gives exactly zero.
        """
        theta = check_vector("theta", theta, length=self.n)
        return max(0.0, self.value(self.best(theta), theta) - self.value(super_arm, theta))

    def is_optimal(self, super_arm, theta) -> bool:
        """Whether ``super_arm`` attains the best value (up to rounding, so ties count)."""
        theta = check_vector("theta", theta, length=self.n)
        scale = max(1.0, float(np.abs(theta).sum()))
        return self.gap(super_arm, theta) <= _ROUNDING * scale

    def indicator(self, super_arm) -> np.ndarray:
        """The 0/1 vector ``x_M`` of length ``n``."""
        x = np.zeros(self.n)
        x[list(self.check_super_arm(super_arm))] = 1.0
        return x
