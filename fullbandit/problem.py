"""Decision classes: which super-arms may be chosen, and the linear maximisation over them.

A super-arm is a tuple of distinct arm indices in increasing order. Every class here has
a fixed super-arm size ``k`` and a linear maximisation oracle (:meth:`DecisionClass.best`),
so algorithms that only need that oracle (the empirical best, ICB) take the decision class
as a parameter: the top-k class of Kuroki et al. (2020), section 2, and partition matroids
("at most ``c_g`` members from group ``g``"), whose bases the greedy algorithm maximises
(Kuroki et al. 2020, Appendix B).
"""

from __future__ import annotations

import math
import operator
from abc import ABC, abstractmethod
from dataclasses import dataclass

import numpy as np

from fullbandit._validation import InvalidParameterError, check_int, check_k, check_vector

SuperArm = tuple[int, ...]
_ROUNDING = 1e-12  # relative size of a sum's rounding error: gaps below it are ties


class DecisionClass(ABC):
    """Super-arms of a fixed size ``k`` over ``n`` arms, with a linear maximisation oracle."""

    n: int
    k: int

    @property
    @abstractmethod
    def size(self) -> int:
        """Number of super-arms (an exact integer)."""

    @abstractmethod
    def _is_member(self, arms: SuperArm) -> str | None:
        """``None`` if the sorted, distinct, in-range ``arms`` belong to the class, else why not."""

    @abstractmethod
    def best(self, theta) -> SuperArm:
        """The super-arm maximising ``theta(M)`` (ties towards lower indices)."""

    @abstractmethod
    def random_member(self, rng: np.random.Generator) -> SuperArm:
        """A random super-arm of the class (used to draw random supports)."""

    @abstractmethod
    def to_dict(self) -> dict:
        """A JSON-serialisable description (see :func:`decision_class_from_dict`)."""

    def check_super_arm(self, super_arm, name: str = "super_arm") -> SuperArm:
        """Return ``super_arm`` as a sorted tuple after checking it belongs to the class."""
        try:
            arms = tuple(sorted(operator.index(i) for i in super_arm))
        except TypeError:
            raise TypeError(f"{name}={tuple(super_arm)!r} must hold integer arm indices") from None
        if len(arms) != self.k or len(set(arms)) != self.k:
            raise InvalidParameterError(f"{name}={tuple(super_arm)!r} must hold {self.k} distinct arms")
        if arms[0] < 0 or arms[-1] >= self.n:
            raise InvalidParameterError(f"{name}={tuple(super_arm)!r} must hold arm indices in 0..{self.n - 1}")
        reason = self._is_member(arms)
        if reason is not None:
            raise InvalidParameterError(f"{name}={tuple(super_arm)!r} is not in the decision class: {reason}")
        return arms

    def maximize(self, weights) -> SuperArm:
        """Linear maximisation oracle: argmax of ``sum(weights[i] for i in M)`` over the class."""
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


def _ranking(theta: np.ndarray) -> np.ndarray:
    # Stable sort on -theta: ties go to the lower index.
    return np.argsort(-theta, kind="stable")


@dataclass(frozen=True)
class TopK(DecisionClass):
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

    def _is_member(self, arms):
        return None

    def best(self, theta) -> SuperArm:
        """The ``k`` largest entries of ``theta``."""
        theta = check_vector("theta", theta, length=self.n)
        return tuple(sorted(int(i) for i in _ranking(theta)[: self.k]))

    def best_and_runner_up(self, theta) -> tuple[SuperArm, SuperArm]:
        """The best super-arm and the best super-arm different from it.

        For top-k the runner-up swaps the k-th and (k+1)-th ranked arms.
        """
        theta = check_vector("theta", theta, length=self.n)
        order = _ranking(theta)
        best = tuple(sorted(int(i) for i in order[: self.k]))
        swapped = np.concatenate([order[: self.k - 1], order[self.k: self.k + 1]])
        return best, tuple(sorted(int(i) for i in swapped))

    def random_member(self, rng) -> SuperArm:
        return tuple(sorted(int(i) for i in rng.choice(self.n, size=self.k, replace=False)))

    def to_dict(self) -> dict:
        return {"class": "TopK", "n": self.n, "k": self.k}


@dataclass(frozen=True)
class PartitionMatroid(DecisionClass):
    """Size-``k`` sets with at most ``capacities[g]`` members from each group ``g``.

    The bases of a (truncated) partition matroid: e.g. a team of ``k`` workers with at
    most two from each country. The greedy algorithm (sort by weight, add an arm while
    its group has room, until ``k`` are chosen) maximises any linear objective over them
    (Kuroki et al. 2020, Appendix B; Edmonds 1971).

    Parameters
    ----------
    groups : sequence of int
        ``groups[i]`` is the group of arm ``i`` (labels ``0 .. G-1``).
    capacities : sequence of int
        ``capacities[g] >= 0`` members allowed from group ``g``.
    k : int
        Super-arm size; ``1 <= k <= sum(min(capacity, group size))``.
    """

    groups: tuple
    capacities: tuple
    k: int

    def __post_init__(self):
        groups = tuple(check_int("groups[i]", g, low=0) for g in self.groups)
        capacities = tuple(check_int("capacities[g]", c, low=0) for c in self.capacities)
        object.__setattr__(self, "groups", groups)
        object.__setattr__(self, "capacities", capacities)
        if len(groups) < 2:
            raise InvalidParameterError(f"groups must label at least 2 arms, got {len(groups)}")
        if max(groups) >= len(capacities):
            raise InvalidParameterError(
                f"groups uses label {max(groups)} but capacities has only {len(capacities)} entries")
        room = sum(min(c, groups.count(g)) for g, c in enumerate(capacities))
        check_int("k", self.k, low=1, high=min(room, len(groups) - 1))

    @property
    def n(self) -> int:
        return len(self.groups)

    def _group_sizes(self) -> list[int]:
        return [self.groups.count(g) for g in range(len(self.capacities))]

    @property
    def size(self) -> int:
        """Number of bases: the coefficient of ``x^k`` in ``prod_g sum_{j <= c_g} C(s_g, j) x^j``."""
        polynomial = [1]
        for size, capacity in zip(self._group_sizes(), self.capacities):
            factor = [math.comb(size, j) for j in range(min(size, capacity) + 1)]
            product = [0] * (len(polynomial) + len(factor) - 1)
            for a, p in enumerate(polynomial):
                for b, f in enumerate(factor):
                    product[a + b] += p * f
            polynomial = product
        return polynomial[self.k] if self.k < len(polynomial) else 0

    def _is_member(self, arms):
        counts = [0] * len(self.capacities)
        for arm in arms:
            counts[self.groups[arm]] += 1
        over = [g for g, (count, capacity) in enumerate(zip(counts, self.capacities)) if count > capacity]
        return None if not over else f"group(s) {over} exceed their capacity"

    def _greedy(self, order) -> SuperArm:
        room = list(self.capacities)
        chosen = []
        for arm in order:
            group = self.groups[int(arm)]
            if room[group] > 0:
                room[group] -= 1
                chosen.append(int(arm))
                if len(chosen) == self.k:
                    break
        return tuple(sorted(chosen))

    def best(self, theta) -> SuperArm:
        """Greedy: arms by decreasing ``theta`` (ties to lower index), each taken while its group has room."""
        theta = check_vector("theta", theta, length=self.n)
        return self._greedy(_ranking(theta))

    def random_member(self, rng) -> SuperArm:
        # Greedy over a uniformly random order: every basis has positive probability.
        return self._greedy(rng.permutation(self.n))

    def to_dict(self) -> dict:
        return {"class": "PartitionMatroid", "groups": list(self.groups), "capacities": list(self.capacities),
                "k": self.k}


def decision_class_from_dict(data: dict) -> DecisionClass:
    """Rebuild a decision class from :meth:`DecisionClass.to_dict`."""
    kind = data.get("class")
    if kind == "TopK":
        return TopK(data["n"], data["k"])
    if kind == "PartitionMatroid":
        return PartitionMatroid(tuple(data["groups"]), tuple(data["capacities"]), data["k"])
    raise InvalidParameterError(f"unknown decision class {kind!r}: expected 'TopK' or 'PartitionMatroid'")
