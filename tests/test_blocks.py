"""Pulls in blocks: a static design hands out its pulls between two checks in blocks, the
environments draw a block at once, and a blocked run is a single-pull run in distribution.

* The protocol: with ``run(blocks=True)`` a static algorithm asks at most once per support
  member between two checks; with ``blocks=False`` every pull is a single one.
* The environments: a block of ``c`` pulls (one draw: a normal of variance ``c sigma^2``,
  binomials, a multinomial over questions) has the law of the sum of ``c`` single pulls
  (two-sample Kolmogorov-Smirnov tests on seeded draws).
* Whole runs: each run is reproducible from its seeds, blocked or not; the estimate after a
  fixed number of pulls has the same law blocked and single-pull (two-sample tests per
  coordinate); and (slow) the pulls to stop agree in distribution and the blocked runs'
  error rate stays within ``delta``.
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

import fullbandit as fb

LEVEL = 1e-3  # each two-sample test rejects a true null with probability at most this (seeded: deterministic)
MEANS = [0.8, 0.7, 0.5, 0.45, 0.3, 0.2]
ANSWERS = (np.random.default_rng(5).random((40, 6)) < np.array(MEANS)).astype(int)  # 40 questions, 6 workers

ENVIRONMENTS = {
    "gaussian": lambda seed, feedback="full": fb.GaussianSum(MEANS, sigma=0.5, seed=seed, feedback=feedback),
    "bernoulli": lambda seed, feedback="full": fb.BernoulliTeam(MEANS, seed=seed, feedback=feedback),
    "replay": lambda seed, feedback="full": fb.Replay(ANSWERS, seed=seed, feedback=feedback),
}


class CountingAsks:
    """Wraps an algorithm's ``ask`` to record every block size handed out."""

    def __init__(self, algorithm):
        self.sizes: list[int] = []
        ask = algorithm.ask

        def counted(max_count=1):
            pull = ask(max_count)
            self.sizes.append(pull.count)
            return pull

        algorithm.ask = counted


@pytest.mark.parametrize("name", ["icb", "saqm", "safoa", "swap"])
def test_a_static_design_hands_out_at_most_one_block_per_member_between_checks(name):
    algorithm = fb.registry.build(name, fb.TopK(6, 2), epsilon=0.05, seed=1)
    asks = CountingAsks(algorithm)
    result = fb.run(algorithm, ENVIRONMENTS["gaussian"](2), progress=False)
    members = len(algorithm.support_arms)
    assert result.stop_reason == "stopping rule"
    assert len(asks.sizes) <= (algorithm.n_checks + 1) * members
    assert sum(asks.sizes) == result.pulls and max(asks.sizes) > 1
    single = fb.registry.build(name, fb.TopK(6, 2), epsilon=0.05, seed=1)
    asks = CountingAsks(single)
    result = fb.run(single, ENVIRONMENTS["gaussian"](2), progress=False, blocks=False)
    assert set(asks.sizes) == {1} and len(asks.sizes) == result.pulls


@pytest.mark.parametrize("kind", list(ENVIRONMENTS))
@pytest.mark.parametrize("feedback", ["full", "semi"])
def test_a_block_has_the_law_of_the_sum_of_its_single_pulls(kind, feedback):
    arms, count, draws = (0, 2, 5), 12, 1500
    blocked = ENVIRONMENTS[kind](10, feedback)
    single = ENVIRONMENTS[kind](11, feedback)
    block_sums = np.array([blocked.pull(arms, count=count) for _ in range(draws)]).reshape(draws, -1)
    pull_sums = np.array([np.sum([single.pull(arms) for _ in range(count)], axis=0) for _ in range(draws)])
    pull_sums = pull_sums.reshape(draws, -1)
    for column in range(block_sums.shape[1]):
        assert stats.ks_2samp(block_sums[:, column], pull_sums[:, column]).pvalue > LEVEL
    # the moments a variance-adaptive algorithm is told: (sum, sum of squares) of the block
    total, squares = blocked.pull_moments(arms, count=count)
    assert np.all(np.asarray(squares) >= np.asarray(total) ** 2 / count - 1e-9)


def _run(environment: str, blocks: bool, seed: int, budget: int | None = None, **options):
    algorithm = fb.ICB(fb.TopK(6, 2), support="random", seed=seed, **options)
    if budget is not None:
        algorithm = fb.ICB(fb.TopK(6, 2), support="random", seed=seed, budget=budget, stop_on_rule=False,
                           **options)
    return algorithm, fb.run(algorithm, ENVIRONMENTS[environment](seed + 1000), progress=False, blocks=blocks)


@pytest.mark.parametrize("environment", list(ENVIRONMENTS))
@pytest.mark.parametrize("blocks", [True, False])
def test_each_run_is_reproducible_from_its_seeds(environment, blocks):
    first, result = _run(environment, blocks, 3, epsilon=0.1)
    second, again = _run(environment, blocks, 3, epsilon=0.1)
    assert (result.pulls, result.answer, result.gap_bound, result.checks) == \
        (again.pulls, again.answer, again.gap_bound, again.checks)
    np.testing.assert_array_equal(first.last_check.estimate.theta, second.last_check.estimate.theta)


@pytest.mark.parametrize("environment", list(ENVIRONMENTS))
def test_the_estimate_after_a_fixed_number_of_pulls_has_one_law_blocked_or_not(environment):
    # check_growth=4: checks at m, 5 m, 25 m pulls (m = 15 members), so blocks of up to 20 pulls.
    runs, budget = 120, 375
    estimates = {}
    for blocks, offset in ((True, 0), (False, runs)):
        values = []
        for seed in range(offset, offset + runs):
            algorithm, result = _run(environment, blocks, seed, budget=budget, check_growth=4.0)
            assert result.pulls == budget and len(algorithm.support_arms) == 15
            values.append(algorithm.last_check.estimate.theta)
        estimates[blocks] = np.array(values)
    for arm in range(6):
        assert stats.ks_2samp(estimates[True][:, arm], estimates[False][:, arm]).pvalue > LEVEL / 6


@pytest.mark.slow
@pytest.mark.parametrize("environment", list(ENVIRONMENTS))
def test_pulls_to_stop_have_one_law_blocked_or_not_and_errors_stay_within_delta(environment):
    runs, delta = 300, 0.1
    outcomes = {}
    for blocks, offset in ((True, 0), (False, runs)):
        pulls, errors = [], 0
        for seed in range(offset, offset + runs):
            _, result = _run(environment, blocks, seed, epsilon=0.0, delta=delta, check_growth=0.5)
            pulls.append(result.pulls)
            errors += result.answer != result.best
        outcomes[blocks] = (np.array(pulls), errors)
    assert stats.ks_2samp(outcomes[True][0], outcomes[False][0]).pvalue > LEVEL
    assert stats.mannwhitneyu(outcomes[True][0], outcomes[False][0]).pvalue > LEVEL
    for _, errors in outcomes.values():
        assert errors <= stats.binom.ppf(1 - LEVEL, runs, delta)
