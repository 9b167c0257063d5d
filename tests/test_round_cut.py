"""A round the budget cannot complete is cut evenly, not by arm index (``fullbandit.semi.base.cut_round``)."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from fullbandit.semi.base import cut_round


@pytest.mark.parametrize("plan", [(5, 1, 5, 5), (3, 0, 7, 2, 2), (4, 4, 4), (1, 9)])
def test_the_cut_is_the_even_water_level_for_every_budget(plan):
    plan = np.array(plan)
    for budget, seed in itertools.product(range(int(plan.sum()) + 2), range(3)):
        shares = cut_round(plan, budget, np.random.default_rng(seed))
        assert int(shares.sum()) == min(budget, int(plan.sum()))
        assert np.all((0 <= shares) & (shares <= plan))
        cut = shares < plan
        if cut.any():  # every arm cut short holds at least the largest share minus one: no arm is favoured
            assert shares[cut].min() >= shares.max() - 1


def test_the_arms_given_the_remainder_are_drawn_not_the_lowest_indices():
    plan = np.full(10, 4)
    extra = [frozenset(np.flatnonzero(cut_round(plan, 23, np.random.default_rng(seed)) == 3).tolist())
             for seed in range(20)]
    assert all(len(arms) == 3 for arms in extra)
    assert len(set(extra)) > 10  # 120 possible triples: the seeded draw varies with the seed
    again = [cut_round(plan, 23, np.random.default_rng(7)).tolist() for _ in range(2)]
    assert again[0] == again[1]
