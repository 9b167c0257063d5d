"""The swap directions of top-k, enumerated: the reference the bound tests compare with."""

from __future__ import annotations

import itertools
from functools import cache

import numpy as np


@cache
def swap_directions(n: int, m: int) -> np.ndarray:
    """Every ``e_J - e_I``, ``I, J`` disjoint ``m``-subsets, one sign per ``+-`` pair (first ``J`` in order)."""
    rows = []
    for added in itertools.combinations(range(n), m):
        rest = [i for i in range(n) if i not in added]
        for removed in itertools.combinations(rest, m):
            if added < removed:
                y = np.zeros(n)
                y[list(added)] = 1.0
                y[list(removed)] = -1.0
                rows.append(y)
    return np.array(rows)
