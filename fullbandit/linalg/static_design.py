"""The data of a static design: counts, reward sums (and sums of squared rewards) per member of
a fixed support, and the least-squares estimate formed from them at a stopping check.

With a static allocation the pulled super-arms come from a fixed support chosen before
any reward is seen, so a pull only bumps a count and a reward sum per support member
(O(1)). The least-squares estimate behind the confidence bound of Kuroki et al. (2020),
Proposition 1, ``theta_hat_t = A_t^-1 b_t`` with ``A_t = sum_s x_s x_s^T`` and ``b_t = sum_s r_s x_s``,
depends on the pulls only through these: with ``T_j`` pulls of member ``x_j`` and reward
sum ``S_j``, ``A_t = sum_j T_j x_j x_j^T`` and ``b_t = sum_j S_j x_j``. So the Gram matrix,
its Cholesky factor and ``theta_hat_t`` are formed only when a stopping rule is checked.

For the variance-adaptive radius (``confidence="bernstein"``, bounded rewards) the design
also keeps each member's sum of squared rewards ``Q_j``, from which
:meth:`StaticDesign.bernstein_terms` bounds every member's reward standard deviation.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable
from functools import partial

import numpy as np

from fullbandit.linalg.circulant import CirculantInverse, circulant_matrix, shift_closed_row
from fullbandit.linalg.incidence import Incidence
from fullbandit.linalg.least_squares import LeastSquaresEstimate, SingularDesignError
from fullbandit.linalg.radius import BernsteinTerms, maurer_pontil_std_bound, union_log
from fullbandit.linalg.spectrum import InverseSpectrum, SingularMatrixError, cholesky_inverse
from fullbandit.util.validation import InvalidParameterError, check_int, check_probability, check_real


class StaticDesign:
    """Counts and reward sums per member of a fixed support of super-arms.

    The support is stored as a compact incidence (:class:`fullbandit.linalg.incidence.Incidence`:
    the arm indices of each member, never an ``m x n`` matrix), and a stopping check costs
    ``O(n^2)`` between factorisations: the Gram matrix ``X^T X`` of the support and its inverse
    (with its spectrum) are computed once, and when every member has been pulled equally
    often, ``q`` times (a uniform design checked at whole passes), ``A_t = q X^T X`` and
    ``A_t^-1 = (X^T X)^-1 / q`` exactly. Otherwise ``A_t`` is formed from the counts: as
    ``v X^T X`` plus the members whose count differs from the most common one, ``v`` (the
    members of an unfinished pass), and factorised afresh (``O(n^3)``), as it is whenever
    prior observations are added.

    Parameters
    ----------
    n : int
        Number of single arms.
    support : sequence of super-arms
        The super-arms that may be pulled, each a sequence of arm indices.
    square_sums : bool
        Also keep each member's sum of squared rewards (for ``confidence="bernstein"``):
        :meth:`record` then needs the squares of a block of more than one pull.

    Attributes
    ----------
    incidence : fullbandit.linalg.incidence.Incidence
        The members' arm indices.
    counts : numpy.ndarray of int
        Pulls per member.
    reward_sums : numpy.ndarray
        Sum of the observed rewards per member.
    square_sums : numpy.ndarray or None
        Sum of the squared observed rewards per member (``None`` unless kept).
    pulls : int
        Total pulls recorded.
    prior_gram, prior_vector : numpy.ndarray
        What earlier observations (:meth:`add_prior`) add to ``A`` and ``b`` (zero by default).
    prior_pulls : int
        How many earlier observations those are (not counted in :attr:`pulls`).

    Examples
    --------
    Three pairs of three arms with noiseless rewards recover the means:

    >>> from fullbandit.linalg.static_design import StaticDesign
    >>> design = StaticDesign(3, [(0, 1), (1, 2), (0, 2)])
    >>> for member, reward in [(0, 1.5), (1, 2.5), (2, 2.0)]:
    ...     design.record(member, reward)
    >>> design.estimate().theta.round(12).tolist()
    [0.5, 1.0, 1.5]
    """

    def __init__(self, n: int, support, *, square_sums: bool = False):
        self.n = n
        self.support = _as_super_arms(support)
        self.incidence = Incidence(n, self.support)
        m = len(self.support)
        self.counts = np.zeros(m, dtype=np.int64)
        self.reward_sums = np.zeros(m)
        self.square_sums: np.ndarray | None = np.zeros(m) if square_sums else None
        self.pulls = 0
        self.prior_gram = _NO_PRIOR_GRAM(n)  # a read-only zero view until add_prior: no n x n array
        self.prior_vector = np.zeros(n)
        self.prior_pulls = 0
        self._support_gram: np.ndarray | None = None
        self._support_inverse: InverseSpectrum | None = None  # (X^T X)^-1 with its spectrum
        self._support_leverages: np.ndarray | None = None  # x_j^T (X^T X)^-1 x_j
        self._circulant: np.ndarray | None | bool = False  # False: not looked at; None: X^T X is not circulant

    @property
    def matrix(self) -> np.ndarray:
        """The members' 0/1 indicators as a dense ``m x n`` matrix (made on each call: for inspection)."""
        return self.incidence.dense()

    def add_prior(self, rows, counts, reward_sums) -> None:
        """Add earlier observations of any arm sets to ``A`` and ``b`` (not to :attr:`pulls`).

        Parameters
        ----------
        rows : sequence of sequences of int
            The arm sets observed (any size; a single worker's answers are ``(i,)``).
        counts : sequence of int
            Observations of each set.
        reward_sums : sequence of float
            Sum of the observed rewards of each set.

        Examples
        --------
        One earlier answer of arm 0 (right) and one of arm 1 (wrong) identify both means
        before any pull of the support:

        >>> from fullbandit.linalg.static_design import StaticDesign
        >>> design = StaticDesign(2, [(0, 1)])
        >>> design.add_prior([(0,), (1,)], [1, 1], [1.0, 0.0])
        >>> design.estimate().theta.tolist(), design.pulls, design.prior_pulls
        ([1.0, 0.0], 0, 2)
        """
        observed = Incidence(self.n, rows)
        counts = np.asarray(counts, dtype=float)
        if not self.prior_gram.flags.writeable:
            self.prior_gram = np.zeros((self.n, self.n))
        self.prior_gram += observed.gram(counts)
        self.prior_vector += observed.transpose_times(np.asarray(reward_sums, dtype=float))
        self.prior_pulls += int(counts.sum())

    def record(self, member: int, reward: float, count: int = 1, square_sum: float | None = None) -> None:
        """Record the summed reward of ``count`` pulls of support member ``member``.

        Parameters
        ----------
        member : int
            Index of the member in ``support``.
        reward : float
            Sum of the ``count`` observed rewards.
        count : int
            Number of pulls.
        square_sum : float, optional
            Sum of the ``count`` squared rewards, kept when the design keeps square sums
            (``reward ** 2`` by default for a single pull; required for a block).

        Examples
        --------
        >>> from fullbandit.linalg.static_design import StaticDesign
        >>> design = StaticDesign(2, [(0,), (1,)])
        >>> design.record(1, 3.0, count=2)
        >>> design.counts.tolist(), design.reward_sums.tolist(), design.pulls
        ([0, 2], [0.0, 3.0], 2)
        """
        if self.square_sums is not None:
            if square_sum is None:
                if count != 1:
                    raise InvalidParameterError(
                        f"square_sum is needed for a block of count={count} pulls: this design keeps square sums")
                square_sum = reward * reward
            self.square_sums[member] += square_sum
        self.counts[member] += count
        self.reward_sums[member] += reward
        self.pulls += count

    def record_blocks(self, members, counts, rewards, square_sums=None) -> None:
        """Record blocks at once: ``counts[i]`` pulls of member ``members[i]`` summing to ``rewards[i]``.

        Parameters
        ----------
        members, counts : array_like of int
        rewards : array_like of float
        square_sums : array_like of float, optional
            Each block's sum of squared rewards (required when the design keeps square sums,
            unless every block is a single pull).

        Examples
        --------
        >>> from fullbandit.linalg.static_design import StaticDesign
        >>> design = StaticDesign(2, [(0,), (1,)])
        >>> design.record_blocks([1, 0], [2, 3], [3.0, 1.5])
        >>> design.counts.tolist(), design.reward_sums.tolist(), design.pulls
        ([3, 2], [1.5, 3.0], 5)
        """
        members = np.asarray(members, dtype=np.intp)
        counts = np.asarray(counts, dtype=np.int64)
        rewards = np.asarray(rewards, dtype=float)
        if self.square_sums is not None:
            if square_sums is None:
                if np.any(counts != 1):
                    raise InvalidParameterError("square_sums are needed for blocks of more than one pull: this design "
                                                "keeps square sums")
                square_sums = rewards * rewards
            np.add.at(self.square_sums, members, np.asarray(square_sums, dtype=float))
        np.add.at(self.counts, members, counts)
        np.add.at(self.reward_sums, members, rewards)
        self.pulls += int(counts.sum())

    def sample_variances(self) -> np.ndarray:
        """The unbiased sample variance of each member's rewards (``nan`` below two pulls).

        ``V_j = (Q_j - S_j^2 / T_j) / (T_j - 1)`` from the count ``T_j``, the sum ``S_j`` and
        the sum of squares ``Q_j`` (rounding below zero is clipped to zero).

        Examples
        --------
        >>> from fullbandit.linalg.static_design import StaticDesign
        >>> design = StaticDesign(2, [(0,), (1,)], square_sums=True)
        >>> for reward in (1.0, 2.0, 4.0):
        ...     design.record(0, reward)
        >>> design.record(1, 6.0, count=3, square_sum=14.0)   # a block: rewards 1, 2, 3
        >>> design.sample_variances().round(12).tolist()
        [2.333333333333, 1.0]
        """
        if self.square_sums is None:
            raise InvalidParameterError("this design keeps no square sums (StaticDesign(..., square_sums=True))")
        counts = self.counts.astype(float)
        variances = np.full(counts.shape, np.nan)
        enough = counts >= 2
        if np.any(enough):
            mean_squares = self.reward_sums[enough] ** 2 / counts[enough]
            variances[enough] = np.maximum(self.square_sums[enough] - mean_squares, 0.0) / (counts[enough] - 1.0)
        return variances

    def bernstein_terms(self, estimate: LeastSquaresEstimate, range_width: float, delta: float,
                        check: int) -> BernsteinTerms:
        """The terms of ``confidence="bernstein"`` at the ``check``-th stopping check.

        ``std_bound`` is the largest :func:`maurer_pontil_std_bound` over the pulled members,
        each at level ``6 (delta / 2) / (pi^2 j^2 m)`` (``m`` support members, ``j = check``),
        so that, summed over the members and the checks, the variance bounds fail with
        probability at most ``delta / 2``: ``log(1 / level) = union_log(j, delta / 2, m) - log 2``.
        ``leverage`` is the largest ``||x_j||_{A^-1}`` over the pulled members.

        Parameters
        ----------
        estimate : LeastSquaresEstimate
            The estimate of this check (its ``A^-1``).
        range_width : float
            ``B``: the length of the interval the rewards lie in.
        delta : float
            The algorithm's whole error probability (the variance bounds take half).
        check : int
            Index ``j >= 1`` of the check.

        Returns
        -------
        BernsteinTerms

        Examples
        --------
        Two members pulled 101 times each with rewards in ``[0, 2]`` of sample variance 0.01:

        >>> import math
        >>> from fullbandit.linalg.radius import union_log
        >>> from fullbandit.linalg.static_design import StaticDesign
        >>> design = StaticDesign(1, [(0,), (0,)], square_sums=True)
        >>> for member in (0, 1):
        ...     design.record(member, 101.0, count=101, square_sum=101.0 + 100 * 0.01)
        >>> terms = design.bernstein_terms(design.estimate(), 2.0, 0.1, check=3)
        >>> log_inverse = union_log(3, 0.05, 2) - math.log(2)
        >>> round(terms.std_bound, 12) == round(0.1 + 2.0 * math.sqrt(2 * log_inverse / 100), 12)
        True
        >>> round(terms.leverage, 12)          # ||x||_{A^-1} with A = 202
        0.070359754473
        """
        if self.square_sums is None:
            raise InvalidParameterError("this design keeps no square sums (StaticDesign(..., square_sums=True))")
        check_real("range_width", range_width, low=0.0, low_inclusive=False)
        check_probability("delta", delta)
        check_int("check", check, low=1)
        pulled = self.counts > 0
        log_inverse_level = union_log(check, delta / 2.0, len(self.support)) - math.log(2.0)
        variances = self.sample_variances()
        std_bound = max((maurer_pontil_std_bound(int(count), float(variance), range_width, log_inverse_level)
                         for count, variance in zip(self.counts[pulled], variances[pulled], strict=True)),
                        default=range_width / 2.0)
        leverages = self._leverages(estimate, np.flatnonzero(pulled))
        leverage = float(math.sqrt(max(float(np.max(leverages)), 0.0))) if leverages.size else 0.0
        return BernsteinTerms(range_width=float(range_width), std_bound=float(std_bound), leverage=leverage)

    def _leverages(self, estimate: LeastSquaresEstimate, rows: np.ndarray) -> np.ndarray:
        """``x_j^T A^-1 x_j`` for the given members; scaled from the support's when ``A^-1 = (X^T X)^-1 / q``."""
        base = self._support_inverse
        if base is not None and estimate.spectrum.base is base.base:
            if self._support_leverages is None:
                self._support_leverages = self.incidence.quadratic_forms(base.base)
            return estimate.spectrum.factor * self._support_leverages[rows]
        return self.incidence.quadratic_forms(estimate.gram_inverse, rows)

    def rank(self) -> int:
        """Rank of the super-arms pulled at least once (with the prior observations).

        Returns
        -------
        int
            ``n`` exactly when :meth:`estimate` can identify ``theta``.

        Examples
        --------
        >>> from fullbandit.linalg.static_design import StaticDesign
        >>> design = StaticDesign(3, [(0, 1), (1, 2), (0, 2)])
        >>> design.record(0, 1.0)
        >>> design.rank()
        1
        """
        pulled = self.incidence.dense(np.flatnonzero(self.counts > 0))  # error messages only: made on demand
        if self.prior_pulls:
            return int(np.linalg.matrix_rank(pulled.T @ pulled + self.prior_gram))
        return int(np.linalg.matrix_rank(pulled)) if pulled.size else 0

    def support_gram(self) -> np.ndarray:
        """``X^T X`` of the support (computed once; read-only).

        Examples
        --------
        >>> from fullbandit.linalg.static_design import StaticDesign
        >>> StaticDesign(2, [(0,), (0, 1)]).support_gram().tolist()
        [[2.0, 1.0], [1.0, 1.0]]
        """
        if self._support_gram is None:
            row = self._circulant_row()
            gram = self.incidence.gram() if row is None else circulant_matrix(row)
            gram.flags.writeable = False
            self._support_gram = gram
        return self._support_gram

    def spans(self) -> bool:
        """Whether the support identifies ``theta``: ``X^T X`` passes the factorisation of :meth:`estimate`.

        Examples
        --------
        >>> from fullbandit.linalg.static_design import StaticDesign
        >>> StaticDesign(3, [(0, 1), (1, 2), (0, 2)]).spans(), StaticDesign(3, [(0, 1), (1, 2)]).spans()
        (True, False)
        """
        try:
            self._inverse_of_support()
        except SingularMatrixError:
            return False
        return True

    def _circulant_row(self) -> np.ndarray | None:
        """First row of ``X^T X`` when the support is closed under the cyclic shift (then circulant), else ``None``."""
        if self._circulant is False:
            self._circulant = shift_closed_row(self.n, self.support)
        return self._circulant  # type: ignore[return-value]

    def _inverse_of_support(self) -> InverseSpectrum:
        if self._support_inverse is None:
            row = self._circulant_row()
            if row is None:
                inverse = cholesky_inverse(self.support_gram())
                cache: dict = {}
            else:  # O(n log n) by the Fourier transform, O(n^2) to write out (fullbandit.linalg.circulant)
                closed_form = CirculantInverse(row)
                inverse = closed_form.matrix()
                cache = {"eigenvalues": np.sort(closed_form.eigenvalues),
                         "projected": closed_form.projected_lambda_max()}
            inverse.flags.writeable = False
            self._support_inverse = InverseSpectrum(inverse, _cache=cache)
        return self._support_inverse

    def gram(self) -> np.ndarray:
        """``A_t = sum_j T_j x_j x_j^T`` plus the prior observations' Gram matrix (exact for integer counts).

        Examples
        --------
        >>> from fullbandit.linalg.static_design import StaticDesign
        >>> design = StaticDesign(2, [(0,), (0, 1)])
        >>> design.record(0, 1.0, count=3)
        >>> design.gram().tolist()
        [[3.0, 0.0], [0.0, 0.0]]
        """
        counts = self.counts
        if not counts.size or not counts.any():
            return self.prior_gram.copy()
        if counts.min() == counts.max():  # whole passes: q X^T X
            gram = float(counts[0]) * self.support_gram()
        elif self._support_gram is not None:  # v X^T X, corrected where a member's count is not v
            values, frequencies = np.unique(counts, return_counts=True)
            common = values[np.argmax(frequencies)]
            differ = np.flatnonzero(counts != common)
            gram = float(common) * self._support_gram + self.incidence.gram(counts[differ] - common, differ)
        else:
            pulled = np.flatnonzero(counts)
            gram = self.incidence.gram(counts[pulled], pulled)
        gram += self.prior_gram
        return gram

    def whole_passes(self) -> int:
        """``q`` when every member has been pulled exactly ``q >= 1`` times and no prior observation was added,
        else 0: then ``A = q X^T X``, the estimate reads the support's cached inverse, and the time-uniform
        radius (:mod:`fullbandit.linalg.time_uniform`) holds.

        Examples
        --------
        >>> from fullbandit.linalg.static_design import StaticDesign
        >>> design = StaticDesign(2, [(0,), (1,)])
        >>> design.record(0, 1.0, count=2)
        >>> design.whole_passes()
        0
        >>> design.record(1, 1.0, count=2)
        >>> design.whole_passes()
        2
        """
        counts = self.counts
        if not counts.size or counts[0] == 0 or self.prior_pulls or counts.min() != counts.max():
            return 0
        return int(counts[0])

    def estimate(self) -> LeastSquaresEstimate:
        """Least squares from the pulls so far and the prior observations (Cholesky factor and ``potri``).

        Returns
        -------
        LeastSquaresEstimate
            ``theta_hat``, ``A`` and ``A^-1`` for the pulls recorded so far.

        Raises
        ------
        SingularDesignError
            If the pulled super-arms do not span R^n.

        Examples
        --------
        >>> from fullbandit.linalg.static_design import StaticDesign
        >>> design = StaticDesign(2, [(0,), (1,)])
        >>> design.record(0, 3.0, count=2)
        >>> design.record(1, 1.0)
        >>> estimate = design.estimate()
        >>> estimate.theta.round(12).tolist(), estimate.gram.tolist(), estimate.pulls
        ([1.5, 1.0], [[2.0, 0.0], [0.0, 1.0]], 3)
        """
        b = self.incidence.transpose_times(self.reward_sums) + self.prior_vector
        passes = self.whole_passes()
        gram: np.ndarray | Callable[[], np.ndarray]
        reform: Callable[[], np.ndarray] | None = None
        try:
            if passes:  # A = q X^T X: A^-1 = (X^T X)^-1 / q, with the support's spectrum scaled
                spectrum = self._inverse_of_support().scaled(1.0 / passes)
                reform = partial(np.multiply, spectrum.factor, spectrum.base)
                inverse = reform()
                gram = partial(np.multiply, float(passes), self.support_gram())  # as gram(): formed when read
            else:
                gram = self.gram()
                inverse = cholesky_inverse(gram)
                spectrum = InverseSpectrum(inverse)
        except SingularMatrixError:
            raise SingularDesignError(
                f"the pulled super-arms span rank {self.rank()} < n={self.n}: theta is not "
                "identifiable; pull every support member once with a support that spans R^n") from None
        theta = inverse @ b
        return LeastSquaresEstimate(theta=theta, gram=gram, gram_inverse=inverse, pulls=self.pulls,
                                    spectrum=spectrum, reform_inverse=reform)


def _NO_PRIOR_GRAM(n: int) -> np.ndarray:
    return np.broadcast_to(np.zeros(1), (n, n))


def _as_super_arms(support) -> tuple[tuple[int, ...], ...]:
    """The members as tuples of Python ints (kept as they are when they already are: no copy of each)."""
    members = tuple(support)
    if all(type(arm) is tuple for arm in members) and set(map(type, itertools.chain.from_iterable(members))) <= {int}:
        return members
    return tuple(tuple(int(i) for i in arm) for arm in members)
