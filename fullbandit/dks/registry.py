"""Named DkS oracles for the matrix path of Algorithm 1, each with a proven ratio."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from fullbandit._validation import check_choice
from fullbandit.dks.feige_peleg_kortsarz import fpk_matrix, proven_fpk_ratio
from fullbandit.dks.swaps import local_search_matrix
from fullbandit.dks.peeling import _peel, proven_peeling_ratio


@dataclass(frozen=True)
class Oracle:
    """A DkS oracle on a dense weight matrix.

    ``solve(W, k)`` returns ``k`` vertex indices (inputs already validated);
    ``proven_ratio(n, k)`` is a ratio it reaches on every instance, used to certify bounds.
    """

    name: str
    solve: Callable[[np.ndarray, int], np.ndarray]
    proven_ratio: Callable[[int, int], float]


def _then_swap(first: Callable) -> Callable:
    # 1-swap local search never lowers the weight, so the first oracle's ratio still holds.
    def solve(W, k):
        return local_search_matrix(W, k, first(W, k))
    return solve


ORACLES: dict[str, Oracle] = {
    "peeling": Oracle("peeling", _peel, proven_peeling_ratio),
    "fpk": Oracle("fpk", fpk_matrix, proven_fpk_ratio),
    "peeling+swap": Oracle("peeling+swap", _then_swap(_peel), proven_peeling_ratio),
    "fpk+swap": Oracle("fpk+swap", _then_swap(fpk_matrix), proven_fpk_ratio),
}


def get_oracle(name: str) -> Oracle:
    """The registered oracle called ``name`` (see :data:`ORACLES`)."""
    return ORACLES[check_choice("oracle", name, tuple(ORACLES))]
