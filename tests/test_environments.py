"""Tests for fullbandit.environments.models: reward laws, declared noise scales, seeding and validation.

Statistical tests are seeded. Each states its number of pulls and a tolerance chosen so
that a correct implementation fails with probability < 1e-6 for a random seed:
* bounded rewards: Hoeffding, P(|mean - mu| > eps) <= 2 exp(-2 N eps^2 / range^2), with a
  Bonferroni split over the quantities checked in the test;
* Gaussian means: the sample mean is exactly normal; 5.5 standard errors has two-sided
  probability 3.8e-8 per quantity;
* Gaussian variances: (N - 1) s^2 / sigma^2 is exactly chi-square(N - 1); we use its
  quantiles.
"""

from __future__ import annotations

import math
import re

import numpy as np
import pytest
from scipy import stats

from fullbandit.environments.models import BernoulliTeam, Categorical, GaussianArms, GaussianSum, Replay, SparseReplay
from fullbandit.semi.batch import CategoricalBatch, batch_arms
from fullbandit.util.validation import InvalidParameterError

FAIL_PROB = 1e-6
N_PULLS = 20_000


def hoeffding_eps(n_pulls: int, value_range: float, n_checks: int) -> float:
    """Half-width with P(any of n_checks means off by more) <= FAIL_PROB / 2 (Hoeffding + union)."""
    alpha = FAIL_PROB / 2 / n_checks
    return value_range * math.sqrt(math.log(2.0 / alpha) / (2.0 * n_pulls))


def replay_matrix(rng, n_questions=40, n_workers=6):
    matrix = (rng.random((n_questions, n_workers)) < rng.uniform(0.2, 0.9, size=n_workers)).astype(int)
    matrix[0] = 0  # a question nobody got right and one everybody got right: the sum spans [0, k]
    matrix[1] = 1
    return matrix


# --- means ---------------------------------------------------------------------------------

def test_gaussian_full_mean_and_variance():
    means = np.array([0.3, -1.2, 2.5, 0.7, 1.1])
    sigma = 1.7
    arm = (0, 2, 3)
    env = GaussianSum(means, sigma, feedback="full", seed=101)
    rewards = np.array([env.pull(arm) for _ in range(N_PULLS)])
    assert rewards.shape == (N_PULLS,)
    # mean: exactly normal with sd sigma / sqrt(N); 5.5 sd -> two-sided 3.8e-8.
    assert abs(rewards.mean() - means[list(arm)].sum()) <= 5.5 * sigma / math.sqrt(N_PULLS)
    # variance: (N-1) s^2 / sigma^2 ~ chi2(N-1); each tail 2.5e-7.
    statistic = (N_PULLS - 1) * rewards.var(ddof=1) / sigma ** 2
    assert stats.chi2.ppf(2.5e-7, N_PULLS - 1) <= statistic <= stats.chi2.isf(2.5e-7, N_PULLS - 1)


def test_gaussian_semi_members_mean_variance_independence():
    means = np.array([0.3, -1.2, 2.5, 0.7, 1.1])
    sigma = 2.0
    arm = (4, 1, 2)  # deliberately unsorted: rewards come back in the order given
    k = len(arm)
    env = GaussianSum(means, sigma, feedback="semi", seed=202)
    rewards = np.array([env.pull(arm) for _ in range(N_PULLS)])
    assert rewards.shape == (N_PULLS, k)
    member_sd = sigma / math.sqrt(k)
    # 3 means at 5.5 sd (3 * 3.8e-8), 3 variances with tails 5e-8 each (3 * 1e-7),
    # 3 pairwise correlations at 5.5 / sqrt(N) (normal approximation, 3 * 3.8e-8): total < 1e-6.
    for j, i in enumerate(arm):
        assert abs(rewards[:, j].mean() - means[i]) <= 5.5 * member_sd / math.sqrt(N_PULLS)
        statistic = (N_PULLS - 1) * rewards[:, j].var(ddof=1) / member_sd ** 2
        assert stats.chi2.ppf(5e-8, N_PULLS - 1) <= statistic <= stats.chi2.isf(5e-8, N_PULLS - 1)
    correlation = np.corrcoef(rewards.T)
    off_diagonal = correlation[~np.eye(k, dtype=bool)]
    assert np.all(np.abs(off_diagonal) <= 5.5 / math.sqrt(N_PULLS))


@pytest.mark.parametrize("feedback", ["full", "semi"])
def test_bernoulli_means(feedback):
    means = np.array([0.1, 0.5, 0.93, 0.0, 1.0, 0.37])
    arm = (0, 1, 2, 5)
    env = BernoulliTeam(means, feedback=feedback, seed=303)
    rewards = np.array([env.pull(arm) for _ in range(N_PULLS)])
    if feedback == "full":
        assert set(np.unique(rewards)) <= {0.0, 1.0, 2.0, 3.0, 4.0}
        # sum in [0, 4]: Hoeffding with range 4, one check.
        assert abs(rewards.mean() - means[list(arm)].sum()) <= hoeffding_eps(N_PULLS, 4.0, 1)
    else:
        assert set(np.unique(rewards)) <= {0.0, 1.0}
        # each member in [0, 1]: Hoeffding with range 1, union over 4 members.
        eps = hoeffding_eps(N_PULLS, 1.0, len(arm))
        assert np.all(np.abs(rewards.mean(axis=0) - means[list(arm)]) <= eps)


def test_bernoulli_degenerate_means_are_deterministic():
    env = BernoulliTeam([0.0, 1.0, 1.0, 0.0], feedback="semi", seed=1)
    for _ in range(500):
        assert env.pull((0, 1, 2, 3)).tolist() == [0.0, 1.0, 1.0, 0.0]
    env = BernoulliTeam([0.0, 1.0, 1.0, 0.0], feedback="full", seed=1)
    assert all(env.pull((1, 2, 3)) == 2.0 for _ in range(500))


@pytest.mark.parametrize("feedback", ["full", "semi"])
def test_replay_means(feedback):
    rng = np.random.default_rng(404)
    matrix = replay_matrix(rng)
    env = Replay(matrix, feedback=feedback, seed=405)
    # The declared mean of a worker is its accuracy, exactly.
    assert np.array_equal(env.means, matrix.mean(axis=0))
    assert env.n == matrix.shape[1] and env.n_questions == matrix.shape[0]
    arm = (1, 3, 4)
    rewards = np.array([env.pull(arm) for _ in range(N_PULLS)])
    if feedback == "full":
        assert abs(rewards.mean() - env.means[list(arm)].sum()) <= hoeffding_eps(N_PULLS, 3.0, 1)
    else:
        eps = hoeffding_eps(N_PULLS, 1.0, len(arm))
        assert np.all(np.abs(rewards.mean(axis=0) - env.means[list(arm)]) <= eps)


def test_replay_accepts_booleans():
    matrix = np.array([[True, False], [True, True], [False, False], [True, False]])
    env = Replay(matrix)
    assert np.array_equal(env.means, [0.75, 0.25])


# --- Replay: the members of a pull answer the same question ----------------------------------

def test_replay_semi_members_answer_the_same_question():
    rng = np.random.default_rng(7)
    base = (rng.random((30, 4)) < 0.5).astype(int)
    base[0, 0], base[1, 0] = 0, 1  # column 0 is not constant
    matrix = np.column_stack([base, base[:, 0]])  # worker 4 is a copy of worker 0
    env = Replay(matrix, feedback="semi", seed=8)
    rows = {tuple(row) for row in matrix}
    seen = set()
    for _ in range(3000):
        rewards = env.pull((0, 1, 2, 3, 4))
        assert rewards[0] == rewards[4]  # identical columns always agree
        assert tuple(int(v) for v in rewards) in rows  # the rewards are one question's row
        seen.add(rewards[0])
        sub = env.pull((4, 0))
        assert sub[0] == sub[1]
    assert seen == {0.0, 1.0}  # both answers occur, so the agreement is not trivial


def test_replay_full_reward_is_a_row_sum():
    rng = np.random.default_rng(9)
    matrix = replay_matrix(rng, n_questions=25, n_workers=7)
    arm = (0, 2, 5, 6)
    possible = set(matrix[:, list(arm)].sum(axis=1).astype(float))
    env = Replay(matrix, feedback="full", seed=10)
    observed = {env.pull(arm) for _ in range(3000)}
    assert observed <= possible
    # 3000 draws from 25 equally likely questions: every distinct row sum appears
    # (P(some question never drawn) <= 25 (24/25)^3000 < 1e-50).
    assert observed == possible


# --- full feedback is the sum of the semi feedback of the same draw ------------------------

@pytest.mark.parametrize("make", [
    lambda feedback: BernoulliTeam([0.2, 0.6, 0.5, 0.9, 0.4], feedback=feedback, seed=55),
    lambda feedback: Replay(replay_matrix(np.random.default_rng(3), 20, 5), feedback=feedback, seed=55),
    lambda feedback: Categorical([-1.0, 0.5, 2.0], np.full((5, 3), 1 / 3), feedback=feedback, seed=55),
])
def test_full_is_sum_of_semi_for_same_seed(make):
    full, semi = make("full"), make("semi")
    arms = [(0, 1, 2), (1, 3, 4), (0, 4), (2, 3, 4)]
    for t in range(2000):
        arm = arms[t % len(arms)]
        assert full.pull(arm) == pytest.approx(float(np.sum(semi.pull(arm))), abs=1e-12)


# --- noise scales --------------------------------------------------------------------------

@pytest.mark.parametrize("k", [1, 2, 3, 7])
def test_noise_scales_as_documented(k):
    means = np.linspace(0.1, 0.9, 8)
    sigma = 1.3
    assert GaussianSum(means, sigma, feedback="full").noise_scale(k) == pytest.approx(sigma)
    assert GaussianSum(means, sigma, feedback="semi").noise_scale(k) == pytest.approx(sigma / math.sqrt(k))
    assert BernoulliTeam(means, feedback="full").noise_scale(k) == pytest.approx(math.sqrt(k) / 2)
    assert BernoulliTeam(means, feedback="semi").noise_scale(k) == pytest.approx(0.5)
    matrix = (np.random.default_rng(k).random((10, 8)) < 0.5).astype(int)
    assert Replay(matrix, feedback="full").noise_scale(k) == pytest.approx(k / 2)
    assert Replay(matrix, feedback="semi").noise_scale(k) == pytest.approx(0.5)
    # noise_scales is (per member, of the sum) regardless of the feedback kind
    assert GaussianSum(means, sigma, feedback="semi").noise_scales(k) == pytest.approx((sigma / math.sqrt(k), sigma))


def _log_mgf_centred(values, probabilities, lambdas):
    values = np.asarray(values, dtype=float)
    mu = float(np.dot(probabilities, values))
    return np.array([math.log(float(np.dot(probabilities, np.exp(lam * (values - mu))))) for lam in lambdas])


LAMBDAS = np.concatenate([-np.geomspace(1e-3, 30, 60), np.geomspace(1e-3, 30, 60)])


def test_bernoulli_declared_scale_is_sub_gaussian_exactly():
    # Exact law of the sum of independent Bernoulli members (convolution), and the
    # sub-Gaussian condition log E exp(lam (S - mu)) <= lam^2 R^2 / 2 for a grid of lam.
    rng = np.random.default_rng(11)
    for _ in range(20):
        means = rng.uniform(0, 1, size=6)
        means[0] = 0.5  # the worst case for the variance
        env = BernoulliTeam(means, feedback="full")
        for k in (1, 3, 5):
            law = np.array([1.0])
            for p in means[:k]:
                law = np.convolve(law, [1 - p, p])
            R = env.noise_scale(k)
            lhs = _log_mgf_centred(np.arange(k + 1), law, LAMBDAS)
            assert np.all(lhs <= LAMBDAS ** 2 * R ** 2 / 2 + 1e-12)
            # and the semi scale holds for each member
            r = BernoulliTeam(means, feedback="semi").noise_scale(k)
            lhs = _log_mgf_centred([0, 1], [1 - means[0], means[0]], LAMBDAS)
            assert np.all(lhs <= LAMBDAS ** 2 * r ** 2 / 2 + 1e-12)


def test_replay_declared_scale_bounds_the_noise():
    rng = np.random.default_rng(12)
    for _ in range(10):
        matrix = replay_matrix(rng, n_questions=30, n_workers=8)
        env = Replay(matrix, feedback="full", seed=int(rng.integers(1 << 30)))
        for arm in [(0, 1), (2, 3, 4), (0, 1, 2, 3, 4, 5, 6)]:
            k = len(arm)
            R = env.noise_scale(k)
            sums = matrix[:, list(arm)].sum(axis=1)
            # exact law: question drawn uniformly; sub-Gaussian with the declared R
            lhs = _log_mgf_centred(sums, np.full(len(sums), 1 / len(sums)), LAMBDAS)
            assert np.all(lhs <= LAMBDAS ** 2 * R ** 2 / 2 + 1e-12)
            mu = env.means[list(arm)].sum()
            for _ in range(300):
                reward = env.pull(arm)
                assert 0.0 <= reward <= k
                assert abs(reward - mu) <= k and abs(reward - mu) <= 2 * R
            # Hoeffding's range condition: the sum's range is at most 2R (here equal, as
            # rows 0 and 1 are all-wrong and all-right).
            assert sums.max() - sums.min() == 2 * R


def test_bernoulli_full_reward_bounded():
    env = BernoulliTeam(np.linspace(0.05, 0.95, 7), feedback="full", seed=13)
    for k in (1, 3, 6):
        arm = tuple(range(k))
        mu = env.means[:k].sum()
        for _ in range(500):
            reward = env.pull(arm)
            assert 0.0 <= reward <= k and float(reward).is_integer()
            assert abs(reward - mu) <= k


# --- seeding -------------------------------------------------------------------------------

@pytest.mark.slow
@pytest.mark.parametrize("make", [
    lambda seed, fb: GaussianSum([0.1, 0.2, 0.3, 0.4], 1.0, feedback=fb, seed=seed),
    lambda seed, fb: BernoulliTeam([0.1, 0.2, 0.3, 0.4], feedback=fb, seed=seed),
    lambda seed, fb: Replay(replay_matrix(np.random.default_rng(0), 50, 4), feedback=fb, seed=seed),
])
@pytest.mark.parametrize("feedback", ["full", "semi"])
def test_same_seed_same_rewards_different_seed_different(make, feedback):
    arms = [(0, 1), (1, 2, 3), (0, 3), (2, 3)]

    def sequence(seed, length=6000):  # longer than one internal block of draws
        env = make(seed, feedback)
        return [np.atleast_1d(env.pull(arms[t % 4])).tolist() for t in range(length)]

    first = sequence(2024)
    assert sequence(2024) == first
    assert sequence(np.random.SeedSequence(2024)) == first
    # Different seeds: two independent sequences of 6000 pulls coincide with negligible
    # probability (for the discrete environments each pull agrees with probability < 0.9).
    assert sequence(2025) != first


def test_generator_seed_is_used_as_is():
    a = GaussianSum([0.0, 1.0], seed=np.random.default_rng(5))
    b = GaussianSum([0.0, 1.0], seed=np.random.default_rng(5))
    assert [a.pull((0, 1)) for _ in range(100)] == [b.pull((0, 1)) for _ in range(100)]


def test_means_are_read_only_copies():
    source = np.array([0.1, 0.2, 0.3])
    env = GaussianSum(source)
    source[0] = 99.0
    assert env.means[0] == 0.1
    with pytest.raises(ValueError):
        env.means[0] = 5.0


# --- validation ----------------------------------------------------------------------------

@pytest.mark.parametrize("means", [[0.1, np.nan, 0.3], [0.1, np.inf, 0.2]])
def test_non_finite_means_raise(means):
    with pytest.raises(InvalidParameterError, match="means must contain only finite values"):
        GaussianSum(means)
    with pytest.raises(InvalidParameterError, match="means"):
        BernoulliTeam(means)


def test_too_few_arms_raise():
    with pytest.raises(InvalidParameterError, match="at least 2 arms"):
        GaussianSum([0.5])
    with pytest.raises(InvalidParameterError, match="means"):
        GaussianSum([[0.1, 0.2], [0.3, 0.4]])


@pytest.mark.parametrize("cls", [GaussianSum, BernoulliTeam])
def test_bad_feedback_raises(cls):
    with pytest.raises(InvalidParameterError, match=r"feedback='x' is not one of the allowed values: 'full', 'semi'"):
        cls([0.1, 0.2, 0.3], feedback="x")


def test_replay_bad_feedback_raises():
    with pytest.raises(InvalidParameterError, match=r"feedback='x'"):
        Replay([[0, 1], [1, 1]], feedback="x")


@pytest.mark.parametrize("sigma", [0.0, -1.0, math.nan, math.inf])
def test_bad_sigma_raises(sigma):
    with pytest.raises(InvalidParameterError, match="sigma"):
        GaussianSum([0.1, 0.2], sigma)


def test_sigma_wrong_type_raises():
    with pytest.raises(TypeError, match="sigma"):
        GaussianSum([0.1, 0.2], "1.0")


@pytest.mark.parametrize("means", [[0.5, 1.01], [-0.01, 0.5], [0.2, 2.0, 0.3]])
def test_bernoulli_means_outside_unit_interval_raise(means):
    with pytest.raises(InvalidParameterError, match=r"\[0, 1\]"):
        BernoulliTeam(means)


@pytest.mark.parametrize("matrix, pattern", [
    ([[0, 1], [2, 1]], "only 0/1"),
    ([[0, 1], [0.5, 1]], "only 0/1"),
    ([[0, 1], [np.nan, 1]], r"only 0/1 .* nan at correct\[1, 0\]"),
    ([[0, 1], ["1", 1]], "only 0/1"),  # text is never a grade, even "1"
    (np.ma.masked_equal([[0, 1], [-1, 1]], -1), r"1 entry masked \(missing\), the first at correct\[1, 0\]"),
    ([0, 1, 1], "2-D"),
    (np.zeros((0, 3)), "2-D"),
    ([[0], [1]], "at least 2 arms"),
])
def test_replay_bad_matrix_raises(matrix, pattern):
    with pytest.raises(InvalidParameterError, match=pattern):
        Replay(matrix)


@pytest.mark.parametrize("feedback", ["full", "semi"])
@pytest.mark.parametrize("super_arm", [(0, 4), (-1, 2), (1, 1), (0, 2, 2), ()])
def test_bad_super_arm_raises(feedback, super_arm):
    envs = [GaussianSum([0.1, 0.2, 0.3, 0.4], feedback=feedback),
            BernoulliTeam([0.1, 0.2, 0.3, 0.4], feedback=feedback),
            Replay([[0, 1, 1, 0], [1, 1, 0, 0]], feedback=feedback)]
    for env in envs:
        with pytest.raises(InvalidParameterError, match=r"must hold distinct arm indices in 0\.\.3"):
            env.pull(super_arm)
        # a rejected super-arm stays rejected (no caching of failures as successes)
        with pytest.raises(InvalidParameterError):
            env.pull(list(super_arm))


@pytest.mark.parametrize("super_arm", [(0.5, 2), (0, 2.9)])
def test_non_integer_arm_index_raises(super_arm):
    # 0.5 or 2.9 is not an arm index; truncating it pulls a super-arm the caller did not ask for.
    env = GaussianSum([0.1, 0.2, 0.3, 0.4], seed=0)
    with pytest.raises((InvalidParameterError, TypeError)):
        env.pull(super_arm)


def test_bad_labels_raise():
    with pytest.raises(InvalidParameterError, match="labels must have length n=3"):
        GaussianSum([0.1, 0.2, 0.3], labels=["a", "b"])
    assert GaussianSum([0.1, 0.2, 0.3], labels=["a", "b", 7]).labels == ("a", "b", "7")


def test_negative_seed_raises():
    with pytest.raises(InvalidParameterError, match="seed"):
        GaussianSum([0.1, 0.2], seed=-1)


# --- blocks: pull(arms, count=m) has the law of the sum of m single pulls --------------------

BLOCK = 7
BLOCK_DRAWS = 4_000
ENVIRONMENTS = {
    "gaussian": lambda feedback, seed: GaussianSum([0.3, -1.2, 2.5, 0.7], 1.5, feedback=feedback, seed=seed),
    "bernoulli": lambda feedback, seed: BernoulliTeam([0.1, 0.5, 0.8, 0.95], feedback=feedback, seed=seed),
    "replay": lambda feedback, seed: Replay(replay_matrix(np.random.default_rng(4), 30, 4), feedback=feedback,
                                            seed=seed),
    "categorical": lambda feedback, seed: Categorical([0.0, 0.5, 1.0], [[0.6, 0.3, 0.1], [0.2, 0.2, 0.6],
                                                                         [0.0, 1.0, 0.0], [0.5, 0.0, 0.5]],
                                                      feedback=feedback, seed=seed),
}


@pytest.mark.slow
@pytest.mark.parametrize("feedback", ["full", "semi"])
@pytest.mark.parametrize("name", sorted(ENVIRONMENTS))
def test_a_block_is_distributed_as_the_sum_of_single_pulls(name, feedback):
    # Two independent samples of 4,000 blocks of 7 pulls each: drawn as blocks, and as 7 single
    # pulls summed. Kolmogorov-Smirnov two-sample test per coordinate at level 1e-6 / 4; a
    # block law with the wrong mean or spread (count in place of sqrt(count), one question for
    # the whole block) is rejected.
    arms = (0, 2, 3)
    environment = ENVIRONMENTS[name](feedback, 1)
    blocks = np.array([environment.pull(arms, count=BLOCK) for _ in range(BLOCK_DRAWS)]).reshape(BLOCK_DRAWS, -1)
    environment = ENVIRONMENTS[name](feedback, 2)
    singles = np.array([sum(environment.pull(arms) for _ in range(BLOCK)) for _ in range(BLOCK_DRAWS)])
    singles = singles.reshape(BLOCK_DRAWS, -1)
    for column in range(blocks.shape[1]):
        assert stats.ks_2samp(blocks[:, column], singles[:, column]).pvalue > FAIL_PROB / 4


def test_replay_block_draws_questions_independently():
    # A block of m pulls draws m questions: its sum is not m times one question's sum.
    matrix = np.zeros((2, 3), dtype=int)
    matrix[0] = 1  # question 0: everybody right; question 1: everybody wrong
    environment = Replay(matrix, seed=0)
    sums = {environment.pull((0, 1), count=10) for _ in range(200)}
    assert len(sums) > 3 and all(0 <= value <= 20 for value in sums)


@pytest.mark.parametrize("count", [0, -1, 1.5, True, "2"])
def test_bad_count_raises(count):
    with pytest.raises(InvalidParameterError, match=r"count=.* must be an integer >= 1"):
        GaussianSum([0.0, 1.0], seed=0).pull((0,), count=count)


@pytest.mark.parametrize("super_arm", [3, None, "01", 2.0])
def test_a_super_arm_that_is_not_a_sequence_is_named(super_arm):
    with pytest.raises(TypeError, match="super_arm=.* must be a sequence of integer arm indices"):
        GaussianSum([0.0, 1.0, 2.0], seed=0).pull(super_arm)


# --- categorical arms ------------------------------------------------------------------------
# Tolerances: 5 standard errors of the exact law (two-sided normal probability 5.7e-7 per
# quantity; the draws are seeded, so a pass is reproducible).

SUPPORT = np.array([-1.0, 0.5, 2.0])
TABLE = np.array([[0.2, 0.5, 0.3], [0.7, 0.0, 0.3], [0.0, 0.0, 1.0], [0.1, 0.8, 0.1]])
CAT_MEANS = TABLE @ SUPPORT
CAT_VARIANCES = TABLE @ SUPPORT ** 2 - CAT_MEANS ** 2


def categorical(feedback="semi", seed=0):
    return Categorical(SUPPORT, TABLE, feedback=feedback, seed=seed)


def test_categorical_means_attributes_and_defaults():
    environment = categorical()
    np.testing.assert_allclose(environment.means, TABLE @ SUPPORT, rtol=0, atol=1e-15)
    np.testing.assert_array_equal(environment.support, SUPPORT)
    np.testing.assert_array_equal(environment.probabilities, TABLE)
    assert environment.feedback == "semi"
    for array in (environment.support, environment.probabilities):
        with pytest.raises(ValueError):
            array[0] = 5.0


@pytest.mark.parametrize("count", [1, 7])
def test_categorical_member_means_single_pulls_and_blocks(count):
    environment, arms, draws = categorical(seed=3), (0, 1, 3), 20_000 // count
    totals = np.array([environment.pull(arms, count=count) for _ in range(draws)])
    standard_error = np.sqrt(count * CAT_VARIANCES[list(arms)] / draws)
    assert np.all(np.abs(totals.mean(axis=0) - count * CAT_MEANS[list(arms)]) < 5 * standard_error)
    assert np.all(totals.var(axis=0) > 0)  # arm 2 would be constant; these are not


@pytest.mark.parametrize("count", [1, 7])
def test_categorical_full_feedback_sum_mean(count):
    environment, arms, draws = categorical("full", seed=4), (0, 1, 2, 3), 20_000 // count
    totals = np.array([environment.pull(arms, count=count) for _ in range(draws)])
    standard_error = math.sqrt(count * CAT_VARIANCES.sum() / draws)
    assert abs(totals.mean() - count * CAT_MEANS.sum()) < 5 * standard_error


def test_categorical_block_sum_of_squares_is_exact():
    # Support (0, 1, 3): a member's block total t1 + 3 t3 and sum of squares t1 + 9 t3 give back
    # the tallies, which must be non-negative integers adding up to at most the count.
    environment = Categorical([0.0, 1.0, 3.0], [[0.3, 0.3, 0.4], [0.1, 0.6, 0.3]], seed=5)
    count = 9
    for _ in range(300):
        totals, squares = environment.pull_moments((0, 1), count=count)
        threes = (squares - totals) / 6
        ones = totals - 3 * threes
        assert np.all(threes == np.round(threes)) and np.all(ones == np.round(ones))
        assert np.all(threes >= 0) and np.all(ones >= 0) and np.all(ones + threes <= count)
    # A two-valued arm: every 3 contributes 9 to the squares, so squares == 3 * total exactly.
    two_valued = Categorical([0.0, 1.0, 3.0], [[0.5, 0.0, 0.5], [0.0, 1.0, 0.0]], seed=6)
    for count in (1, 2, 50):
        totals, squares = two_valued.pull_moments((0, 1), count=count)
        assert squares[0] == 3 * totals[0] and squares[1] == totals[1] == count


@pytest.mark.parametrize("feedback", ["semi", "full"])
def test_categorical_block_squares_have_the_right_mean(feedback):
    # E[sum of squares over a block of m pulls] = m (variance + mean^2) of one observation.
    environment, arms, count, draws = categorical(feedback, seed=8), (0, 1, 3), 5, 4_000
    pairs = [environment.pull_moments(arms, count=count) for _ in range(draws)]
    squares = np.array([np.atleast_1d(pair[1]) for pair in pairs])
    if feedback == "semi":
        expected = count * (TABLE[list(arms)] @ SUPPORT ** 2)
    else:
        expected = np.atleast_1d(count * (CAT_VARIANCES[list(arms)].sum() + CAT_MEANS[list(arms)].sum() ** 2))
    standard_error = squares.std(axis=0) / math.sqrt(draws)
    assert np.all(np.abs(squares.mean(axis=0) - expected) < 5 * standard_error)


@pytest.mark.parametrize("k", [1, 2, 4])
def test_categorical_noise_scales_and_ranges(k):
    environment = categorical()  # support spans [-1, 2]: half-width 1.5
    assert environment.noise_scales(k) == pytest.approx((1.5, 1.5 * math.sqrt(k)))
    assert environment.reward_ranges(k) == ((-1.0, 2.0), (-1.0 * k, 2.0 * k))
    assert environment.noise_scale(k) == pytest.approx(1.5)
    assert categorical("full").noise_scale(k) == pytest.approx(1.5 * math.sqrt(k))
    assert categorical("full").reward_range(k) == (-1.0 * k, 2.0 * k)
    # The declared scale is sub-Gaussian for every arm's exact law (Hoeffding's lemma).
    for row in TABLE:
        lhs = _log_mgf_centred(SUPPORT, row, LAMBDAS)
        assert np.all(lhs <= LAMBDAS ** 2 * 1.5 ** 2 / 2 + 1e-12)


def test_categorical_rewards_stay_on_the_support():
    environment = categorical(seed=9)
    seen = {float(value) for _ in range(2_000) for value in environment.pull((0, 1, 2, 3))}
    assert seen == set(SUPPORT.tolist())
    assert all(environment.pull((2,)) == [2.0] for _ in range(100))  # probability 1 on the last value


@pytest.mark.parametrize("support, probabilities, pattern", [
    ([0.0, 1.0, 1.0], [[0.5, 0.5, 0.0]] * 2, r"support must be strictly increasing"),
    ([1.0, 0.0], [[0.5, 0.5]] * 2, r"support must be strictly increasing"),
    ([0.0, np.nan], [[0.5, 0.5]] * 2, r"support must contain only finite values"),
    ([[0.0, 1.0]], [[0.5, 0.5]] * 2, r"support must be one-dimensional"),
    ([], np.zeros((2, 0)), r"support must hold at least one value"),
    ([0.0, 1.0], [0.5, 0.5], r"probabilities must have shape \(n, 2\).*got shape \(2,\)"),
    ([0.0, 1.0], [[0.2, 0.3, 0.5]] * 2, r"probabilities must have shape \(n, 2\).*got shape \(2, 3\)"),
    ([0.0, 1.0], [[0.5, 0.5], [0.5]], r"probabilities must be a rectangular array of real numbers"),
    ([0.0, 1.0], [[0.5, 0.5], [np.inf, 0.0]], r"probabilities must contain only finite values"),
    ([0.0, 1.0], [[0.5, 0.5], [1.5, -0.5]], r"probabilities must be non-negative: row 1"),
    ([0.0, 1.0], [[0.5, 0.5], [0.5, 0.4]], r"probabilities must sum to 1: row 1 sums to 0.9"),
    ([0.0, 1.0], [[0.5, 0.5]], r"means must hold at least 2 arms"),
])
def test_categorical_validation_names_the_argument(support, probabilities, pattern):
    with pytest.raises(InvalidParameterError, match=pattern):
        Categorical(support, probabilities)


def test_categorical_rounding_in_rows_is_tolerated_and_removed():
    environment = Categorical([0.0, 1.0], [[1 / 3, 2 / 3 + 1e-12], [0.25, 0.75]])
    np.testing.assert_allclose(environment.probabilities.sum(axis=1), 1.0, rtol=0, atol=1e-15)


def test_categorical_bad_feedback_and_labels_raise():
    with pytest.raises(InvalidParameterError, match="feedback"):
        Categorical(SUPPORT, TABLE, feedback="partial")
    with pytest.raises(InvalidParameterError, match="labels must have length n=4"):
        Categorical(SUPPORT, TABLE, labels=["a", "b"])


def test_batch_arms_of_a_categorical_environment_is_a_categorical_batch_with_the_same_law():
    environment = Categorical(SUPPORT, TABLE, labels=list("abcd"))
    batch = batch_arms(environment)
    assert isinstance(batch, CategoricalBatch)
    np.testing.assert_allclose(batch.means, environment.means, rtol=0, atol=1e-15)
    assert batch.noise_scale == environment.noise_scale(1)
    runs = 5_000
    sums = batch.sample_sums(np.full((runs, 4), 3), np.random.default_rng(10))
    standard_error = np.sqrt(3 * CAT_VARIANCES / runs)
    assert np.all(np.abs(sums.mean(axis=0) - 3 * CAT_MEANS) <= 5 * standard_error + 1e-12)


def test_categorical_runs_a_full_feedback_algorithm_with_the_bernstein_bound():
    # ICB with confidence="bernstein" needs the declared ranges and blocks with their sums of squares.
    import fullbandit as fb
    environment = Categorical([0.0, 0.5, 1.0], [[0.1, 0.2, 0.7], [0.7, 0.2, 0.1], [0.5, 0.3, 0.2],
                                                [0.2, 0.2, 0.6], [0.9, 0.05, 0.05]], feedback="full", seed=1)
    result = fb.run(fb.ICB(fb.TopK(5, 2), confidence="bernstein", delta=0.05), environment, progress=False)
    assert tuple(sorted(result.answer)) == (0, 3) and result.pulls > 0


@pytest.mark.parametrize("make, name, shown", [
    (lambda: GaussianSum(["a", "b"]), "means", "entry 0 is 'a' (str)"),
    (lambda: GaussianArms([0.5, "0.7"]), "means", "entry 1 is '0.7' (str)"),  # numpy would read the text
    (lambda: BernoulliTeam([0.5, 0.5j]), "means", "entry 1 is 0.5j (complex)"),
    (lambda: GaussianSum([0.5, None]), "means", "entry 1 is None (NoneType)"),
    (lambda: Categorical(["low", "high"], [[0.5, 0.5]] * 2), "support", "entry 0 is 'low' (str)"),
    (lambda: Categorical([0.0, 1.0], [["a", "b"]] * 2), "probabilities", "entry 0 is 'a' (str)"),
])
def test_entries_that_are_no_real_numbers_are_refused_naming_the_argument(make, name, shown):
    with pytest.raises(TypeError, match=rf"^{name} must hold real numbers, but {re.escape(shown)}"):
        make()


def test_a_ragged_or_text_answer_table_is_refused_naming_it():
    with pytest.raises(InvalidParameterError, match=r"^means must be a rectangular array of real numbers"):
        GaussianSum([[0.1, 0.2], [0.3]])
    with pytest.raises(TypeError, match=r"^table must hold only 0, 1 or NaN \(no answer\)"):
        SparseReplay([["yes", 1], [0, 1]])
