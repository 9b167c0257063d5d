"""Shift-closed supports: circulant Gram matrices inverted by the Fourier transform (issue 27, scale).

Every closed form is compared with the dense computation it replaces (the Gram matrix of the
written-out indicators, its Cholesky inverse, ``eigvalsh``), and the detection with supports
that are one member away from closed.
"""

from __future__ import annotations

import numpy as np
import pytest

import fullbandit as fb
from fullbandit.design.conditioning import optimal_swap_variance, swap_variance
from fullbandit.design.support import SWAP_OPTIMAL_FACTOR, cyclic_block_support, cyclic_windows, make_support
from fullbandit.linalg.circulant import CirculantInverse, shift_closed_row
from fullbandit.linalg.spectrum import SingularMatrixError, centred_lambda_max, cholesky_inverse
from fullbandit.linalg.static_design import StaticDesign
from fullbandit.util.validation import InvalidParameterError

TOLERANCE = 1e-9  # relative: the Fourier transform and the Cholesky factor round differently


def _dense_gram(n, support):
    x = np.zeros((len(support), n))
    for row, member in enumerate(support):
        x[row, list(member)] = 1.0
    return x.T @ x


@pytest.mark.parametrize("n, k, blocks", [(11, 3, 1), (12, 5, 2), (30, 7, 3), (64, 10, 4)])
def test_the_closed_forms_are_the_dense_computations(n, k, blocks):
    support = cyclic_block_support(n, k, blocks, seed=n)
    gram = _dense_gram(n, support)
    row = shift_closed_row(n, support)
    assert row is not None and np.array_equal(row, gram[0])
    closed = CirculantInverse(row)
    dense = cholesky_inverse(gram)
    scale = np.abs(dense).max()
    assert np.allclose(closed.matrix(), dense, rtol=0, atol=TOLERANCE * scale)
    assert np.allclose(np.sort(closed.eigenvalues), np.linalg.eigvalsh(dense), rtol=TOLERANCE, atol=0)
    assert closed.projected_lambda_max() == pytest.approx(centred_lambda_max(dense), rel=TOLERANCE)
    d = np.diag(dense)
    assert np.allclose(closed.swap_variances(), d[0] + d - 2.0 * dense[0], rtol=0, atol=TOLERANCE * scale)


def test_a_support_one_member_from_closed_is_not_circulant():
    support = cyclic_block_support(13, 4, 2, seed=0)
    assert shift_closed_row(13, support) is not None
    assert shift_closed_row(13, support[:-1]) is None  # 25 members: not a union of orbits
    replaced = support[:-1] + [tuple(sorted({0, 1, 2, 5}))]
    assert replaced[-1] not in support and shift_closed_row(13, replaced) is None
    swapped = support[:13] + support[14:] + [support[13]]  # order does not matter: a multiset
    assert np.array_equal(shift_closed_row(13, swapped), shift_closed_row(13, support))
    assert np.array_equal(shift_closed_row(7, cyclic_windows(7, 3)), _dense_gram(7, cyclic_windows(7, 3))[0])


def test_the_design_estimate_takes_the_closed_form_and_equals_least_squares():
    n, k = 40, 6
    support = cyclic_block_support(n, k, 3, seed=1)
    rng = np.random.default_rng(2)
    theta = rng.uniform(0.0, 1.0, n)
    circulant, generic = StaticDesign(n, support), StaticDesign(n, support)
    generic._circulant = None  # forces the Cholesky path on the same support
    for member, arms in enumerate(support):
        for count in (3,):  # whole passes: the cached support inverse
            reward = float(count * theta[list(arms)].sum() + rng.normal(0.0, 1.0))
            circulant.record(member, reward, count)
            generic.record(member, reward, count)
    fast, slow = circulant.estimate(), generic.estimate()
    assert circulant._circulant_row() is not None and generic._circulant_row() is None
    assert np.allclose(fast.theta, slow.theta, rtol=0, atol=1e-9)
    assert np.allclose(fast.gram_inverse, slow.gram_inverse, rtol=0, atol=1e-12)
    assert fast.spectrum.projected_lambda_max() == pytest.approx(slow.spectrum.projected_lambda_max(), rel=1e-9)
    x = np.zeros((len(support), n))
    for row, arms in enumerate(support):
        x[row, list(arms)] = 3.0  # each member's summed reward is the sum of 3 pulls
    least_squares = np.linalg.lstsq(x, circulant.reward_sums, rcond=None)[0]
    assert np.allclose(fast.theta, least_squares, rtol=0, atol=1e-9)


def test_cyclic_blocks_are_distinct_spanning_and_seeded():
    support = cyclic_block_support(12, 4, 3, seed=5)
    assert len(support) == 36 and len(set(support)) == 36  # no block is a shift of another, none periodic
    assert np.linalg.matrix_rank(_dense_gram(12, support)) == 12
    assert support == cyclic_block_support(12, 4, 3, seed=5)
    assert support != cyclic_block_support(12, 4, 3, seed=6)
    with pytest.raises(InvalidParameterError, match="blocks"):
        cyclic_block_support(12, 4, 0)


def test_a_singular_circulant_is_refused():
    windows = [(0, 1), (1, 2), (2, 3), (0, 3)]  # gcd(4, 2) = 2: e_0 - e_1 + e_2 - e_3 is unidentified
    with pytest.raises(SingularMatrixError):
        CirculantInverse(shift_closed_row(4, windows))
    design = StaticDesign(4, windows)
    for member in range(4):
        design.record(member, 1.0)
    with pytest.raises(fb.SingularDesignError, match="rank 3"):
        design.estimate()


def test_swap_optimal_takes_cyclic_blocks_at_large_n_and_meets_its_target():
    # n = 800: 8 n random members would pass SUPPORT_ENTRY_CAP, so the blocks are taken.
    n, k = 800, 20
    support = make_support(n, k, "swap-optimal", seed=0)
    assert shift_closed_row(n, support) is not None and len(support) % n == 0
    target = SWAP_OPTIMAL_FACTOR * optimal_swap_variance(n, k)
    assert _dense_swap_variance(n, support) <= target  # the dense computation agrees with the closed form's verdict
    assert _dense_swap_variance(n, support[: len(support) // 2]) > target  # half the blocks would not do: it grew
    assert swap_variance(n, support) == pytest.approx(_dense_swap_variance(n, support), rel=TOLERANCE)


@pytest.mark.parametrize("n, k", [(8, 3), (10, 3), (12, 3), (14, 3), (20, 5), (9, 4), (30, 3)])
def test_swap_optimal_takes_few_whole_orbits_where_the_class_is_small(n, k):
    # Small classes: a few cyclic orbits (at most 8 n members) meet the target, where random supports grew to the
    # whole class (C(14, 3) = 364): passes, and so the stopping checks, are that much finer.
    support = make_support(n, k, "swap-optimal", seed=0)
    assert len(set(support)) == len(support) and all(len(member) == k for member in support)
    assert shift_closed_row(n, support) is not None and len(support) % n == 0 and len(support) <= 8 * n
    target = SWAP_OPTIMAL_FACTOR * optimal_swap_variance(n, k)
    assert _dense_swap_variance(n, support) <= target
    assert _dense_swap_variance(n, support[: len(support) - n]) > target  # one orbit fewer would not do
    assert support == make_support(n, k, "swap-optimal", seed=1)  # deterministic: the seed is not drawn from


def _dense_swap_variance(n, support):
    inverse = cholesky_inverse(_dense_gram(n, support) / len(support))
    d = np.diag(inverse)
    return float(np.max(d[:, None] + d[None, :] - 2.0 * inverse))


def test_swap_certifies_on_a_cyclic_support_as_on_a_random_one():
    means = np.r_[np.full(3, 0.8), np.full(13, 0.3)]
    for support in (cyclic_block_support(16, 3, 4, seed=0), "random"):
        algorithm = fb.SwapBound(fb.TopK(16, 3), epsilon=0.0, delta=0.05, support=support, seed=1)
        result = fb.run(algorithm, fb.GaussianSum(means, sigma=0.5, seed=2), progress=False)
        assert result.certified and set(result.answer) == {0, 1, 2}


@pytest.mark.slow
def test_swap_at_scale_on_cyclic_blocks_certifies_an_epsilon_good_team():
    # n = 800 takes the cyclic blocks; 4 seeds at delta = 1e-3: all four right but with probability <= 0.4 %.
    n, k = 800, 20
    accuracies = np.random.default_rng(0).beta(4.0, 2.0, n)
    best = np.sort(accuracies)[::-1][:k].sum()
    for seed in range(4):
        algorithm = fb.SwapBound(fb.TopK(n, k), epsilon=0.05 * k, delta=1e-3, seed=seed, budget=10**8)
        result = fb.run(algorithm, fb.BernoulliTeam(accuracies, seed=100 + seed), progress=False)
        assert shift_closed_row(n, algorithm.support_arms) is not None
        assert result.certified and best - accuracies[list(result.answer)].sum() <= 0.05 * k
