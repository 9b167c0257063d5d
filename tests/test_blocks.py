"""Pulls in blocks: a static design hands out its pulls between two checks in blocks, the
environments draw a block at once, and a blocked run is a single-pull run in distribution.

* The protocol: with ``run(blocks=True)`` a static algorithm hands out every pull up to its
  next check in one call (``ask_blocks``: a block per support member); with ``blocks=False``
  every pull is a single one.
* The environments: a block of ``c`` pulls (one draw: a normal of variance ``c sigma^2``,
  binomials, a multinomial over questions), alone (``pull``) or drawn with others
  (``pull_blocks``), has the law of the sum of ``c`` single pulls (two-sample
  Kolmogorov-Smirnov tests on seeded draws).
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
    """Wraps an algorithm's ``ask`` and ``ask_blocks`` to record what each call handed out."""

    def __init__(self, algorithm):
        self.sizes: list[int] = []  # one entry per pull handed out by ask
        self.block_calls: list[np.ndarray] = []  # the counts of each ask_blocks call
        ask, ask_blocks = algorithm.ask, algorithm.ask_blocks

        def counted(max_count=1):
            pull = ask(max_count)
            self.sizes.append(pull.count)
            return pull

        def counted_blocks(max_count=1 << 30):
            blocks = ask_blocks(max_count)
            self.block_calls.append(blocks.counts)
            return blocks

        algorithm.ask, algorithm.ask_blocks = counted, counted_blocks


@pytest.mark.slow
@pytest.mark.parametrize("name", ["icb", "saqm", "safoa", "swap", "phased"])
def test_a_static_design_hands_out_its_pulls_between_two_checks_at_once(name):
    # Checks half the pulls so far apart: several passes of the support fall between two of them (at the
    # default 5% a run that stops within 20 passes checks after every pass, one pull per member).
    algorithm = fb.registry.build(name, fb.TopK(6, 2), epsilon=0.05, seed=1, check_growth=0.5)
    asks = CountingAsks(algorithm)
    result = fb.run(algorithm, ENVIRONMENTS["gaussian"](2), progress=False)
    assert result.stop_reason == "stopping rule" and not asks.sizes
    assert len(asks.block_calls) == algorithm.n_checks  # one call per check: the check ends each
    blocks = np.concatenate(asks.block_calls)
    assert blocks.sum() == result.pulls and blocks.max() > 1
    assert all(calls.size <= len(algorithm._design.support) for calls in asks.block_calls)  # a block per member
    single = fb.registry.build(name, fb.TopK(6, 2), epsilon=0.05, seed=1, check_growth=0.5)
    asks = CountingAsks(single)
    result = fb.run(single, ENVIRONMENTS["gaussian"](2), progress=False, blocks=False)
    assert set(asks.sizes) == {1} and len(asks.sizes) == result.pulls and not asks.block_calls


@pytest.mark.slow
@pytest.mark.parametrize("kind", list(ENVIRONMENTS))
@pytest.mark.parametrize("feedback", ["full", "semi"])
def test_a_block_has_the_law_of_the_sum_of_its_single_pulls(kind, feedback):
    arms, count, draws = (0, 2, 5), 12, 1500
    blocked = ENVIRONMENTS[kind](10, feedback)
    single = ENVIRONMENTS[kind](11, feedback)
    block_sums = np.array([blocked.pull(arms, count=count) for _ in range(draws)]).reshape(draws, -1)
    singles = np.array([[single.pull(arms) for _ in range(count)] for _ in range(draws)]).reshape(draws, count, -1)
    pull_sums, pull_squares = singles.sum(axis=1), (singles ** 2).sum(axis=1)
    for column in range(block_sums.shape[1]):
        assert stats.ks_2samp(block_sums[:, column], pull_sums[:, column]).pvalue > LEVEL
    # the moments a variance-adaptive algorithm is told: (sum, sum of squares) of the block
    total, squares = blocked.pull_moments(arms, count=count)
    assert np.all(np.asarray(squares) >= np.asarray(total) ** 2 / count - 1e-9)
    if feedback == "full":  # drawn together with other blocks (a static design's pulls up to its check)
        together = ENVIRONMENTS[kind](12).pull_blocks([arms, (1, 3)] * draws, np.tile([count, 3], draws))[::2]
        assert stats.ks_2samp(together, pull_sums[:, 0]).pvalue > LEVEL
        totals, squares = ENVIRONMENTS[kind](13).pull_blocks([arms] * draws, np.full(draws, count), moments=True)
        assert stats.ks_2samp(totals, pull_sums[:, 0]).pvalue > LEVEL
        assert stats.ks_2samp(squares, pull_squares[:, 0]).pvalue > LEVEL


def _run(environment: str, blocks: bool, seed: int, budget: int | None = None, **options):
    algorithm = fb.ICB(fb.TopK(6, 2), support="random", seed=seed, **options)
    if budget is not None:
        algorithm = fb.ICB(fb.TopK(6, 2), support="random", seed=seed, budget=budget, stop_on_rule=False,
                           **options)
    return algorithm, fb.run(algorithm, ENVIRONMENTS[environment](seed + 1000), progress=False, blocks=blocks)


@pytest.mark.slow
@pytest.mark.parametrize("environment", list(ENVIRONMENTS))
@pytest.mark.parametrize("blocks", [True, False])
def test_each_run_is_reproducible_from_its_seeds(environment, blocks):
    first, result = _run(environment, blocks, 3, epsilon=0.1)
    second, again = _run(environment, blocks, 3, epsilon=0.1)
    assert (result.pulls, result.answer, result.gap_bound, result.checks) == \
        (again.pulls, again.answer, again.gap_bound, again.checks)
    np.testing.assert_array_equal(first.last_check.estimate.theta, second.last_check.estimate.theta)


@pytest.mark.slow
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


def test_blocks_are_refused_when_malformed_and_a_refused_call_changes_nothing():
    algorithm = fb.ICB(fb.TopK(6, 2), noise_scale=0.5, support="random", seed=0, check_growth=1.0)
    environment = ENVIRONMENTS["gaussian"](1)
    first = algorithm.ask_blocks()
    algorithm.tell_blocks(first, environment.pull_blocks(first.arms, first.counts))
    blocks = algorithm.ask_blocks()
    state = (algorithm.n_pulls, algorithm._outstanding, algorithm._design.counts.copy())
    rewards = environment.pull_blocks(blocks.arms, blocks.counts)
    for bad, error in ((rewards[:-1], "one number per block"), (np.append(rewards[:-1], np.nan), "finite"),
                       (list(rewards[:-1]) + ["x"], "real number")):
        with pytest.raises((fb.InvalidParameterError, TypeError), match=error):
            algorithm.tell_blocks(blocks, bad)
    with pytest.raises(fb.ProtocolError, match="not outstanding"):
        algorithm.tell_blocks(first, rewards)
    saved = fb.Algorithm.from_state(algorithm.get_state())  # outstanding blocks are part of the record
    assert saved.outstanding_blocks(blocks.id).arms == blocks.arms
    assert (algorithm.n_pulls, algorithm._outstanding) == state[:2]
    np.testing.assert_array_equal(algorithm._design.counts, state[2])
    algorithm.abandon(blocks)  # they return to the design: handed out again, the same
    again = algorithm.ask_blocks()
    assert again.arms == blocks.arms and again.counts.tolist() == blocks.counts.tolist()
    algorithm.tell_blocks(again, environment.pull_blocks(again.arms, again.counts))
    assert algorithm.n_pulls == first.pulls + again.pulls and algorithm.n_checks == 2
    assert algorithm.get_state()["summary"]["told"] == algorithm.n_pulls


def test_an_adaptive_algorithm_hands_out_no_blocks_and_bernstein_needs_the_squares():
    lucb = fb.registry.build("lucb", fb.TopK(6, 2), epsilon=0.1, noise_scale=0.5, seed=0)
    assert not lucb.hands_out_blocks and lucb.ask_blocks() is None
    bernstein = fb.ICB(fb.TopK(6, 2), confidence="bernstein", reward_range=(0, 2), support="random", seed=0,
                       check_growth=3.0)  # checks at m and 4 m pulls: blocks of 1, then of 3
    environment = ENVIRONMENTS["bernoulli"](1)
    for round_ in range(2):
        blocks = bernstein.ask_blocks()
        totals, squares = environment.pull_blocks(blocks.arms, blocks.counts, moments=True)
        assert blocks.counts.max() == 1 + 2 * round_
        if round_:
            with pytest.raises(fb.InvalidParameterError, match="sums_of_squares is required"):
                bernstein.tell_blocks(blocks, totals)
            with pytest.raises(fb.InvalidParameterError, match="refused"):
                bernstein.tell_blocks(blocks, totals + 3 * blocks.counts, sums_of_squares=squares + 100.0)
        bernstein.tell_blocks(blocks, totals, sums_of_squares=squares)
    np.testing.assert_array_equal(bernstein._design.counts, 4)
