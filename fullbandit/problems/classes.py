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
from dataclasses import dataclass, field

import numpy as np

from fullbandit.util.validation import InvalidParameterError, check_int, check_k, check_vector

SuperArm = tuple[int, ...]
_ROUNDING = 1e-12  # relative size of a sum's rounding error: gaps below it are ties


class DecisionClass(ABC):
    """Super-arms of a fixed size ``k`` over ``n`` arms, with a linear maximisation oracle.

    A subclass provides ``n``, ``k``, :attr:`size`, :meth:`best`, :meth:`random_member`,
    :meth:`to_dict` and the membership test ``_is_member``; values, gaps and indicators
    follow from them.

    Examples
    --------
    >>> from fullbandit.problems.classes import DecisionClass, TopK
    >>> problem = TopK(4, 2)
    >>> isinstance(problem, DecisionClass), problem.size
    (True, 6)
    >>> problem.best([0.1, 0.9, 0.5, 0.4])
    (1, 2)
    """

    n: int
    k: int

    @property
    @abstractmethod
    def size(self) -> int:
        """Number of super-arms (an exact Python integer: it may exceed what a float holds exactly).

        Examples
        --------
        >>> from fullbandit.problems.classes import TopK
        >>> TopK(100, 50).size
        100891344545564193334812497256
        """

    @abstractmethod
    def _is_member(self, arms: SuperArm) -> str | None:
        """``None`` if the sorted, distinct, in-range ``arms`` belong to the class, else why not."""

    @abstractmethod
    def best(self, theta) -> SuperArm:
        """The super-arm maximising ``theta(M)`` (ties towards lower indices).

        Parameters
        ----------
        theta : array_like of shape (n,)
            Arm means (or any weights).

        Returns
        -------
        tuple of int
            The maximiser, sorted.

        Examples
        --------
        >>> from fullbandit.problems.classes import TopK
        >>> TopK(4, 2).best([0.5, 0.5, 0.5, 0.1])  # three-way tie: lowest indices
        (0, 1)
        """

    @abstractmethod
    def random_member(self, rng: np.random.Generator) -> SuperArm:
        """A random super-arm of the class (used to draw random supports).

        Every member has a positive probability; the law need not be uniform.

        Parameters
        ----------
        rng : numpy.random.Generator
            The source of randomness (advanced).

        Returns
        -------
        tuple of int
            A member, sorted.

        Examples
        --------
        >>> import numpy as np
        >>> from fullbandit.problems.classes import TopK
        >>> problem = TopK(5, 2)
        >>> problem.check_super_arm(problem.random_member(np.random.default_rng(0))) is not None
        True
        """

    @abstractmethod
    def to_dict(self) -> dict:
        """A JSON-serialisable description (see :func:`decision_class_from_dict`).

        Returns
        -------
        dict
            ``{"class": name, ...}`` with the constructor arguments.

        Examples
        --------
        >>> from fullbandit.problems.classes import TopK
        >>> TopK(5, 2).to_dict()
        {'class': 'TopK', 'n': 5, 'k': 2}
        """

    def check_super_arm(self, super_arm, name: str = "super_arm") -> SuperArm:
        """Return ``super_arm`` as a sorted tuple after checking it belongs to the class.

        Parameters
        ----------
        super_arm : sequence of int
            Arm indices, in any order.
        name : str
            How error messages call the argument.

        Returns
        -------
        tuple of int

        Raises
        ------
        TypeError
            If an index is not an integer.
        InvalidParameterError
            If the arms are not ``k`` distinct indices in ``0 .. n-1`` or not a member.

        Examples
        --------
        >>> from fullbandit.problems.classes import TopK
        >>> TopK(5, 3).check_super_arm([4, 0, 2])
        (0, 2, 4)
        >>> TopK(5, 3).check_super_arm([0, 1])
        Traceback (most recent call last):
        ...
        fullbandit.util.validation.InvalidParameterError: super_arm=(0, 1) must hold 3 distinct arms
        """
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

    def require_spanning_design(self, labels=None) -> None:  # noqa: B027 - optional hook
        """Refuse a class whose super-arms' indicators do not span ``R^n``.

        The full-bandit algorithms estimate every arm's mean by least squares on the team
        sums, which needs the indicators of the super-arms they pull to span ``R^n``; they
        call this before their first pull. The default checks nothing: the ``k``-subsets of
        ``n`` arms span ``R^n`` whenever ``1 <= k < n``, which :class:`TopK` enforces.
        :class:`PartitionMatroid` overrides it.

        Parameters
        ----------
        labels : sequence of str, optional
            Names of the groups (or whatever the class is built from), for the message.

        Examples
        --------
        >>> from fullbandit.problems.classes import TopK
        >>> TopK(5, 4).require_spanning_design() is None
        True
        """

    def maximize(self, weights) -> SuperArm:
        """Linear maximisation oracle: argmax of ``sum(weights[i] for i in M)`` over the class.

        The same as :meth:`best`, under the name algorithms such as ICB use for weights
        that are not means.

        Parameters
        ----------
        weights : array_like of shape (n,)

        Returns
        -------
        tuple of int

        Examples
        --------
        >>> from fullbandit.problems.classes import TopK
        >>> TopK(4, 2).maximize([-1.0, 2.0, 0.0, 3.0])
        (1, 3)
        """
        return self.best(weights)

    def value(self, super_arm, theta) -> float:
        """``theta(M)``: the sum of the means of the members of ``super_arm``.

        Parameters
        ----------
        super_arm : sequence of int
        theta : array_like of shape (n,)

        Returns
        -------
        float

        Examples
        --------
        >>> from fullbandit.problems.classes import TopK
        >>> TopK(4, 2).value((3, 1), [0.25, 0.5, 1.0, 2.0])
        2.5
        """
        theta = check_vector("theta", theta, length=self.n)
        return float(theta[list(self.check_super_arm(super_arm))].sum())

    def gap(self, super_arm, theta) -> float:
        """``theta(M*) - theta(M)`` (zero for an optimal super-arm, never negative).

        Both values are summed over sorted indices, so ``M = M*`` gives exactly zero.

        Parameters
        ----------
        super_arm : sequence of int
        theta : array_like of shape (n,)

        Returns
        -------
        float

        Examples
        --------
        >>> from fullbandit.problems.classes import TopK
        >>> problem = TopK(4, 2)
        >>> problem.gap((0, 1), [0.25, 0.5, 1.0, 2.0]), problem.gap((2, 3), [0.25, 0.5, 1.0, 2.0])
        (2.25, 0.0)
        """
        theta = check_vector("theta", theta, length=self.n)
        return max(0.0, self.value(self.best(theta), theta) - self.value(super_arm, theta))

    def is_optimal(self, super_arm, theta) -> bool:
        """Whether ``super_arm`` attains the best value (up to rounding, so ties count).

        A gap below ``1e-12 max(1, sum |theta_i|)`` counts as zero: the rounding error of
        two sums of ``k`` terms.

        Parameters
        ----------
        super_arm : sequence of int
        theta : array_like of shape (n,)

        Returns
        -------
        bool

        Examples
        --------
        >>> from fullbandit.problems.classes import TopK
        >>> problem = TopK(3, 1)
        >>> problem.is_optimal((1,), [0.5, 0.5, 0.1]), problem.is_optimal((2,), [0.5, 0.5, 0.1])
        (True, False)
        """
        theta = check_vector("theta", theta, length=self.n)
        scale = max(1.0, float(np.abs(theta).sum()))
        return self.gap(super_arm, theta) <= _ROUNDING * scale

    def indicator(self, super_arm) -> np.ndarray:
        """The 0/1 vector ``x_M`` of length ``n``.

        Parameters
        ----------
        super_arm : sequence of int

        Returns
        -------
        numpy.ndarray of shape (n,)

        Examples
        --------
        >>> from fullbandit.problems.classes import TopK
        >>> TopK(4, 2).indicator((1, 3)).tolist()
        [0.0, 1.0, 0.0, 1.0]
        """
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

    Examples
    --------
    >>> from fullbandit.problems.classes import TopK
    >>> problem = TopK(5, 2)
    >>> problem.size, problem.best([0.1, 0.9, 0.3, 0.8, 0.2])
    (10, (1, 3))
    """

    n: int
    k: int

    def __post_init__(self):
        check_int("n", self.n, low=2)
        check_k(self.k, self.n)

    @property
    def size(self) -> int:
        """Number of super-arms, ``C(n, k)`` (an exact integer).

        Examples
        --------
        >>> from fullbandit.problems.classes import TopK
        >>> TopK(5, 2).size
        10
        """
        return math.comb(self.n, self.k)

    def _is_member(self, arms):
        return None

    def best(self, theta) -> SuperArm:
        """The arms of the ``k`` largest entries of ``theta`` (ties towards lower indices).

        Parameters
        ----------
        theta : array_like of shape (n,)

        Returns
        -------
        tuple of int

        Examples
        --------
        >>> from fullbandit.problems.classes import TopK
        >>> TopK(4, 2).best([0.2, 0.7, 0.2, 0.9])
        (1, 3)
        """
        theta = check_vector("theta", theta, length=self.n)
        return tuple(sorted(int(i) for i in _ranking(theta)[: self.k]))

    def best_and_runner_up(self, theta) -> tuple[SuperArm, SuperArm]:
        """The best super-arm and the best super-arm different from it.

        For top-k the runner-up swaps the k-th and (k+1)-th ranked arms: any other
        super-arm differs from the best by at least as large an exchange.

        Parameters
        ----------
        theta : array_like of shape (n,)

        Returns
        -------
        (tuple of int, tuple of int)

        Examples
        --------
        >>> from fullbandit.problems.classes import TopK
        >>> TopK(4, 2).best_and_runner_up([0.1, 0.9, 0.5, 0.4])
        ((1, 2), (1, 3))
        """
        theta = check_vector("theta", theta, length=self.n)
        order = _ranking(theta)
        best = tuple(sorted(int(i) for i in order[: self.k]))
        swapped = np.concatenate([order[: self.k - 1], order[self.k: self.k + 1]])
        return best, tuple(sorted(int(i) for i in swapped))

    def random_member(self, rng) -> SuperArm:
        """A uniformly random ``k``-subset.

        Parameters
        ----------
        rng : numpy.random.Generator

        Returns
        -------
        tuple of int

        Examples
        --------
        >>> import numpy as np
        >>> from fullbandit.problems.classes import TopK
        >>> len(TopK(6, 3).random_member(np.random.default_rng(0)))
        3
        """
        return tuple(sorted(int(i) for i in rng.choice(self.n, size=self.k, replace=False)))

    def to_dict(self) -> dict:
        """A JSON-serialisable description (see :func:`decision_class_from_dict`).

        Returns
        -------
        dict
            ``{"class": "TopK", "n": n, "k": k}``.

        Examples
        --------
        >>> from fullbandit.problems.classes import TopK, decision_class_from_dict
        >>> decision_class_from_dict(TopK(5, 2).to_dict()) == TopK(5, 2)
        True
        """
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

    Attributes
    ----------
    n : int
        Number of arms, ``len(groups)``.

    Examples
    --------
    Five arms in two groups, at most one from group 0:

    >>> from fullbandit.problems.classes import PartitionMatroid
    >>> problem = PartitionMatroid(groups=(0, 0, 1, 1, 1), capacities=(1, 2), k=2)
    >>> problem.best([0.9, 0.8, 0.7, 0.1, 0.2])  # arms 0 and 1 may not both be chosen
    (0, 2)
    >>> problem.size  # 2 * 3 teams with one from each group + 3 pairs from group 1
    9
    """

    groups: tuple
    capacities: tuple
    k: int
    n: int = field(init=False, repr=False, compare=False)  # len(groups), stored as TopK stores it

    def __post_init__(self):
        groups = tuple(check_int("groups[i]", g, low=0) for g in self.groups)
        capacities = tuple(check_int("capacities[g]", c, low=0) for c in self.capacities)
        object.__setattr__(self, "groups", groups)
        object.__setattr__(self, "capacities", capacities)
        object.__setattr__(self, "n", len(groups))
        if len(groups) < 2:
            raise InvalidParameterError(f"groups must label at least 2 arms, got {len(groups)}")
        if max(groups) >= len(capacities):
            raise InvalidParameterError(
                f"groups uses label {max(groups)} but capacities has only {len(capacities)} entries")
        room = sum(min(c, groups.count(g)) for g, c in enumerate(capacities))
        check_int("k", self.k, low=1, high=min(room, len(groups) - 1))

    def _group_sizes(self) -> list[int]:
        return [self.groups.count(g) for g in range(len(self.capacities))]

    @property
    def size(self) -> int:
        """Number of bases: the coefficient of ``x^k`` in ``prod_g sum_{j <= c_g} C(s_g, j) x^j``.

        ``s_g`` is the size of group ``g``: a basis takes ``j_g <= c_g`` of its members, in
        ``C(s_g, j_g)`` ways, with ``sum_g j_g = k``.

        Examples
        --------
        ``(1 + 2x)(1 + 3x + 3x^2)`` has ``x^2`` coefficient ``3 + 6 = 9``:

        >>> from fullbandit.problems.classes import PartitionMatroid
        >>> PartitionMatroid((0, 0, 1, 1, 1), (1, 2), 2).size
        9
        """
        polynomial = [1]
        for size, capacity in zip(self._group_sizes(), self.capacities, strict=True):
            factor = [math.comb(size, j) for j in range(min(size, capacity) + 1)]
            product = [0] * (len(polynomial) + len(factor) - 1)
            for a, p in enumerate(polynomial):
                for b, f in enumerate(factor):
                    product[a + b] += p * f
            polynomial = product
        return polynomial[self.k] if self.k < len(polynomial) else 0

    def _count_ranges(self) -> list[tuple[int, int, int, int]]:
        """``(group, size, lo, hi)`` of each group with members: a basis holds ``lo .. hi`` of them.

        With ``m_g = min(c_g, s_g)`` and ``M = sum_g m_g``: ``hi_g = min(m_g, k)`` and
        ``lo_g = max(0, k - (M - m_g))`` (the other groups take at most ``M - m_g``); every
        count in between occurs, since a basis can trade one member with another group.
        """
        sizes = self._group_sizes()
        room = [min(cap, size) for cap, size in zip(self.capacities, sizes, strict=True)]
        total = sum(room)
        return [(g, sizes[g], max(0, self.k - (total - room[g])), min(room[g], self.k))
                for g in range(len(sizes)) if sizes[g] > 0]

    @property
    def design_rank(self) -> int:
        """Rank of the matrix whose rows are the indicator vectors of all the bases.

        The full-bandit algorithms estimate ``theta`` by least squares on team sums, so
        they need this rank to be ``n``. Closed form, with the notation of
        :meth:`_count_ranges` over the ``G`` groups that have members (sizes ``s_g``):
        call group ``g`` *fixed* if ``lo_g = hi_g`` (every basis holds the same number of
        its members; ``F`` such groups) and *mixed* if some basis holds some but not all of
        its members (``[lo_g, hi_g]`` meets ``[1, s_g - 1]``). Then

        ``rank = max(1, G - F) + sum over mixed groups of (s_g - 1)``,

        and the rank is ``n`` exactly when ``G = 1`` (then ``1 <= k < n``, which the
        constructor enforces) or when every group has a cap ``c_g >= 1`` and
        ``M = sum_g min(c_g, s_g) > k``.

        Proof. Let ``V`` be the span of the bases' indicators and ``P: R^n -> R^G`` the
        map summing the coordinates of each group. (1) If ``g`` is mixed, for members
        ``a != b`` of ``g`` some basis holds ``a`` but not ``b`` (take counts with
        ``1 <= j_g <= s_g - 1``), and exchanging ``a`` for ``b`` gives a basis, so
        ``e_a - e_b`` is in ``V``: ``V`` contains the ``(s_g - 1)``-dimensional space
        ``D_g`` of vectors on ``g`` summing to 0. (2) If ``g`` is not mixed, every basis
        holds none or all of ``g``, so every vector of ``V`` is constant on ``g``. (3) A
        vector of ``V`` with zero group sums is therefore 0 on the unmixed groups and in
        ``D_g`` on the mixed ones, so ``V`` meets the kernel of ``P`` in the sum of the
        ``D_g`` and ``dim V = dim P(V) + sum_{mixed} (s_g - 1)``. (4) ``P(V)`` is the span of
        the feasible count vectors ``J = {j integer : 0 <= j_g <= m_g, sum_g j_g = k}``,
        the integer points of a polytope whose vertices are integral (an interval matrix
        is totally unimodular), so ``J`` has the polytope's affine hull, which its implicit
        equalities cut out (Schrijver, *Theory of Linear and Integer Programming*, 1986,
        section 8.2): ``sum_g j_g = k`` and ``j_g = lo_g`` for the fixed groups. That hull
        has dimension ``G - 1 - F`` when ``F < G`` (and 0 when every group is fixed; never
        ``F = G - 1``, as the sum then fixes the last group) and misses the origin
        (``k >= 1``), so ``dim span J = max(1, G - F)``. For the criterion: with
        ``G >= 2``, a group with ``c_g = 0`` is fixed at 0, and ``M = k`` fixes every group;
        either way ``max(1, G - F) < G``. Conversely, if every ``c_g >= 1`` and ``M > k``, no
        group is fixed (``hi_g >= 1`` and ``lo_g <= k - 1 < hi_g`` or ``lo_g = 0``) and every
        group is mixed (``hi_g >= 1`` and ``lo_g <= m_g - 1 <= s_g - 1``), so the rank is
        ``G + sum_g (s_g - 1) = n``. ``tests/test_problem_rank.py`` checks the formula
        against ``numpy.linalg.matrix_rank`` of every basis on small instances.

        Examples
        --------
        Caps summing to ``k``: every team holds one member of each group, so team sums
        only compare members of one group with each other (rank ``1 + 1 + 1 = 3 < 4``):

        >>> from fullbandit.problems.classes import PartitionMatroid
        >>> PartitionMatroid((0, 0, 1, 1), (1, 1), 2).design_rank
        3
        >>> PartitionMatroid((0, 0, 1, 1), (2, 1), 2).design_rank   # caps sum to 3 > k
        4
        """
        ranges = self._count_ranges()
        fixed = sum(lo == hi for _, _, lo, hi in ranges)
        mixed = sum(size - 1 for _, size, lo, hi in ranges if max(lo, 1) <= min(hi, size - 1))
        return max(1, len(ranges) - fixed) + mixed

    def require_spanning_design(self, labels=None) -> None:
        """Refuse caps under which the full-bandit algorithms cannot estimate every arm's mean.

        Raised before any pull (by :func:`fullbandit.run`, by :meth:`fullbandit.core.registry.AlgorithmSpec.build`
        for a full-bandit algorithm, and by :func:`fullbandit.datasets.groups.partition_matroid_from_column`)
        when only one team is feasible, when a group's cap is 0, or when the caps (each
        counted up to its group's size) sum to exactly ``k``; these are the cases where
        :attr:`design_rank` is below ``n``. The message names every group with its size
        and cap and says what to change.

        Parameters
        ----------
        labels : sequence of str, optional
            The group names (``labels[g]`` for group ``g``); group indices otherwise.

        Raises
        ------
        InvalidParameterError

        Examples
        --------
        >>> from fullbandit.problems.classes import PartitionMatroid
        >>> PartitionMatroid((0, 0, 1, 1, 1), (1, 2), 2).require_spanning_design()   # caps sum to 3 > 2
        >>> import textwrap
        >>> from fullbandit import InvalidParameterError
        >>> try:
        ...     PartitionMatroid((0, 0, 1, 1), (1, 1), 2).require_spanning_design(["fr", "jp"])
        ... except InvalidParameterError as error:
        ...     print(textwrap.fill(str(error), 90))
        group caps fr: 2 arms, cap 1; jp: 2 arms, cap 1: counted up to each group's size, the caps
        sum to k=2, so every feasible team holds exactly 1 of fr, 1 of jp: team sums then compare
        arms only within a group and the full-bandit algorithms' least-squares design has rank 3 <
        n=4. Raise a cap so that they sum to more than k, or lower k below 2
        """
        rank = self.design_rank
        if rank == self.n:
            return
        sizes = self._group_sizes()
        names = [str(labels[g]) if labels is not None else f"group {g}" for g in range(len(sizes))]
        used = [g for g in range(len(sizes)) if sizes[g] > 0]
        table = "; ".join(f"{names[g]}: {sizes[g]} {'arm' if sizes[g] == 1 else 'arms'}, cap {self.capacities[g]}"
                          for g in used)
        rank_text = f"the full-bandit algorithms' least-squares design has rank {rank} < n={self.n}"
        if self.size == 1:
            team = self.best(np.zeros(self.n))
            raise InvalidParameterError(
                f"group caps {table} leave only one feasible team of k={self.k} ({', '.join(map(str, team))}): "
                f"there is nothing to search. Raise a cap or lower k")
        closed = [g for g in used if self.capacities[g] == 0]
        if closed:
            raise InvalidParameterError(
                f"group caps {table}: {', '.join(names[g] for g in closed)} {'has' if len(closed) == 1 else 'have'} "
                f"cap 0, so {'its' if len(closed) == 1 else 'their'} arms are never on a team and {rank_text}. "
                f"Drop those arms or give every group a cap of at least 1")
        counts = ", ".join(f"{min(self.capacities[g], sizes[g])} of {names[g]}" for g in used)
        raise InvalidParameterError(
            f"group caps {table}: counted up to each group's size, the caps sum to k={self.k}, so every feasible "
            f"team holds exactly {counts}: team sums then compare arms only within a group and {rank_text}. "
            f"Raise a cap so that they sum to more than k, or lower k below {self.k}")

    def _is_member(self, arms):
        counts = [0] * len(self.capacities)
        for arm in arms:
            counts[self.groups[arm]] += 1
        over = [g for g, (count, capacity) in enumerate(zip(counts, self.capacities, strict=True)) if count > capacity]
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
        """Greedy: arms by decreasing ``theta`` (ties to lower index), each taken while its group has room.

        Exact for a linear objective over the bases of a matroid (Edmonds 1971).

        Parameters
        ----------
        theta : array_like of shape (n,)

        Returns
        -------
        tuple of int

        Examples
        --------
        >>> from fullbandit.problems.classes import PartitionMatroid
        >>> PartitionMatroid((0, 0, 1), (1, 1), 2).best([0.9, 0.8, 0.1])
        (0, 2)
        """
        theta = check_vector("theta", theta, length=self.n)
        return self._greedy(_ranking(theta))

    def random_member(self, rng) -> SuperArm:
        """Greedy over a uniformly random order of the arms (every basis has positive probability).

        Parameters
        ----------
        rng : numpy.random.Generator

        Returns
        -------
        tuple of int

        Examples
        --------
        >>> import numpy as np
        >>> from fullbandit.problems.classes import PartitionMatroid
        >>> problem = PartitionMatroid((0, 0, 1, 1), (1, 1), 2)
        >>> arms = problem.random_member(np.random.default_rng(0))
        >>> sorted(problem.groups[i] for i in arms)
        [0, 1]
        """
        return self._greedy(rng.permutation(self.n))

    def to_dict(self) -> dict:
        """A JSON-serialisable description (see :func:`decision_class_from_dict`).

        Returns
        -------
        dict
            ``{"class": "PartitionMatroid", "groups": [...], "capacities": [...], "k": k}``.

        Examples
        --------
        >>> from fullbandit.problems.classes import PartitionMatroid
        >>> PartitionMatroid((0, 1, 1), (1, 1), 2).to_dict()
        {'class': 'PartitionMatroid', 'groups': [0, 1, 1], 'capacities': [1, 1], 'k': 2}
        """
        return {"class": "PartitionMatroid", "groups": list(self.groups), "capacities": list(self.capacities),
                "k": self.k}


@dataclass(frozen=True)
class Thresholding(DecisionClass):
    """Classify each of ``n`` arms as above (``theta_i >= threshold``) or below the threshold.

    The thresholding bandit problem (Locatelli, Gutzeit, Carpentier 2016; Tao, Blanco,
    Peng, Zhou 2019, section 2): a decision is the set of arms declared above, of any size,
    so the decision class is every subset of the arms. It is a linear maximisation over
    that class: the set ``{i : theta_i >= threshold}`` maximises
    ``value(S) = sum_{i in S} (theta_i - threshold)``, and the gap of a decision is the sum
    of ``|theta_i - threshold|`` over the arms it misclassifies. The papers' loss, the
    number of misclassified arms (aggregate regret, its expectation), is
    :func:`fullbandit.analysis.metrics.misclassified`.

    Pulls sample one arm at a time (per-arm feedback), so ``k`` (the size of a pull, which
    sets the environments' noise scale) is 1; decisions have any size.

    Parameters
    ----------
    n : int
        Number of arms, ``n >= 1``.
    threshold : float
        The threshold ``theta`` (finite).

    References
    ----------
    C. Tao, S. Blanco, J. Peng, Y. Zhou. Thresholding bandit with optimal aggregate regret.
    NeurIPS 2019, section 2 (the output ``d_i = 1`` iff arm ``i`` is declared ``>= theta``).

    Examples
    --------
    >>> from fullbandit.problems.classes import Thresholding
    >>> problem = Thresholding(4, 0.5)
    >>> problem.best([0.2, 0.5, 0.7, 0.4])     # the arms at or above the threshold
    (1, 2)
    >>> round(problem.gap((2, 3), [0.2, 0.5, 0.7, 0.4]), 12)   # 0.4 declared above: |0.4 - 0.5|
    0.1
    >>> problem.check_super_arm([])            # declaring no arm above is a decision too
    ()
    """

    n: int
    threshold: float
    k: int = field(default=1, init=False)

    def __post_init__(self):
        check_int("n", self.n, low=1)
        value = self.threshold
        if isinstance(value, bool) or not isinstance(value, (int, float, np.floating, np.integer)) \
                or not math.isfinite(float(value)):
            raise InvalidParameterError(f"threshold={value!r} must be a finite real number")
        object.__setattr__(self, "threshold", float(value))

    @property
    def size(self) -> int:
        """``2^n`` decisions."""
        return 2 ** self.n

    def _is_member(self, arms):
        return None

    def check_super_arm(self, super_arm, name: str = "super_arm") -> SuperArm:
        """``super_arm`` (the arms declared above, any number of them) as a sorted tuple of distinct indices."""
        try:
            arms = tuple(sorted(operator.index(i) for i in super_arm))
        except TypeError:
            raise TypeError(f"{name}={tuple(super_arm)!r} must hold integer arm indices") from None
        if len(set(arms)) != len(arms):
            raise InvalidParameterError(f"{name}={tuple(super_arm)!r} must hold distinct arms")
        if arms and (arms[0] < 0 or arms[-1] >= self.n):
            raise InvalidParameterError(f"{name}={tuple(super_arm)!r} must hold arm indices in 0..{self.n - 1}")
        return arms

    def best(self, theta) -> SuperArm:
        """The arms with ``theta_i >= threshold`` (the maximiser of ``sum_{i in S} (theta_i - threshold)``)."""
        theta = check_vector("theta", theta, length=self.n)
        return tuple(int(i) for i in np.flatnonzero(theta >= self.threshold))

    def value(self, super_arm, theta) -> float:
        """``sum_{i in S} (theta_i - threshold)``: the linear objective the correct decision maximises."""
        theta = check_vector("theta", theta, length=self.n)
        return float((theta[list(self.check_super_arm(super_arm))] - self.threshold).sum())

    def gap(self, super_arm, theta) -> float:
        """``sum |theta_i - threshold|`` over the misclassified arms (zero for a correct decision)."""
        theta = check_vector("theta", theta, length=self.n)
        declared = np.zeros(self.n, dtype=bool)
        declared[list(self.check_super_arm(super_arm))] = True
        wrong = declared != (theta >= self.threshold)
        return float(np.abs(theta - self.threshold)[wrong].sum())

    def random_member(self, rng) -> SuperArm:
        """A uniformly random subset."""
        return tuple(int(i) for i in np.flatnonzero(rng.random(self.n) < 0.5))

    def to_dict(self) -> dict:
        """``{"class": "Thresholding", "n": n, "threshold": threshold}``."""
        return {"class": "Thresholding", "n": self.n, "threshold": self.threshold}


def decision_class_from_dict(data: dict) -> DecisionClass:
    """Rebuild a decision class from :meth:`DecisionClass.to_dict`.

    Parameters
    ----------
    data : dict
        The output of ``to_dict`` (e.g. read back from JSON).

    Returns
    -------
    DecisionClass

    Raises
    ------
    InvalidParameterError
        If ``data["class"]`` is not a known class (or its arguments are invalid).

    Examples
    --------
    >>> from fullbandit.problems.classes import decision_class_from_dict
    >>> decision_class_from_dict({"class": "TopK", "n": 6, "k": 3})
    TopK(n=6, k=3)
    """
    kind = data.get("class")
    if kind == "TopK":
        return TopK(data["n"], data["k"])
    if kind == "PartitionMatroid":
        return PartitionMatroid(tuple(data["groups"]), tuple(data["capacities"]), data["k"])
    if kind == "Thresholding":
        return Thresholding(data["n"], data["threshold"])
    raise InvalidParameterError(f"unknown decision class {kind!r}: expected 'TopK', 'PartitionMatroid' or "
                                "'Thresholding'")
