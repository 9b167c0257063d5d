"""What a densest-k-subgraph oracle is: an algorithm on a validated matrix plus the ratio it proves."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from fullbandit.dks.weights import WeightMatrix, check_weight_matrix
from fullbandit.util.validation import check_int

__all__ = ["Oracle"]


@dataclass(frozen=True)
class Oracle:
    """A densest-k-subgraph algorithm with an approximation ratio it reaches on every instance.

    Attributes
    ----------
    name : str
        The name :func:`fullbandit.dks.densest_k_subgraph` and Algorithm 1 call it by.
    run : callable
        ``run(weights, k)``: the ``k`` chosen vertex indices, increasing, for a
        :class:`~fullbandit.dks.weights.WeightMatrix` and an already checked ``k``
        (``1 <= k <= n``); nothing is validated again.
    proven_ratio : callable
        ``proven_ratio(n, k)``: a ratio ``alpha`` with ``w(S) >= alpha OPT_k`` on every
        instance with ``n`` vertices, used to certify bounds.

    Examples
    --------
    >>> import numpy as np
    >>> from fullbandit.dks import get_oracle
    >>> oracle = get_oracle("peeling")
    >>> W = np.ones((4, 4))
    >>> W[2, 3] = W[3, 2] = 5.0
    >>> oracle.solve(W, 2).tolist(), oracle.proven_ratio(4, 2)
    ([2, 3], 0.16666666666666666)
    """

    name: str
    run: Callable[[WeightMatrix, int], np.ndarray]
    proven_ratio: Callable[[int, int], float]

    def solve(self, W, k: int) -> np.ndarray:
        """Validate ``W`` (see :func:`~fullbandit.dks.weights.check_weight_matrix`) and ``k``, then :attr:`run`.

        Examples
        --------
        >>> from fullbandit.dks import get_oracle
        >>> get_oracle("fpk").solve([[0, 1, 0], [1, 0, 3], [0, 3, 0]], 2).tolist()
        [1, 2]
        """
        weights = check_weight_matrix(W)
        return self.run(weights, check_int("k", k, low=1, high=weights.n))
