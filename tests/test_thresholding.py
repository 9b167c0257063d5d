"""Thresholding bandits (fullbandit.semi.thresholding): the published indices, evaluated directly.

Each policy's array code is compared with a plain-Python evaluation of the paper's formula
on random states; the ask/tell algorithm and the batched simulation are fed the same reward
streams; a small statistical check with a negative control shows the index does its job.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from fullbandit import Thresholding, TopK
from fullbandit.datasets.synthetic import tao_setup1
from fullbandit.semi import APT, LSA, UCBE, OptKG, ThresholdUniform, threshold_hardness
from fullbandit.semi.batch import BatchArms, BernoulliBatch
from fullbandit.semi.sequential import simulate

THRESHOLD = 0.5
N = 6


def random_states(seed: int, rows: int = 400, n: int = N, most: int = 12, integer: bool = True):
    """Counts in 1..most and sums in [0, counts]: integer sums make exact index ties frequent."""
    rng = np.random.default_rng(seed)
    counts = rng.integers(1, most + 1, size=(rows, n))
    sums = rng.integers(0, counts + 1).astype(float) if integer else rng.random((rows, n)) * counts
    return counts, sums


def lowest_minimiser(values: list[float]) -> int:
    best = min(values)
    return next(i for i, value in enumerate(values) if value == best)


def assert_same_choice(chosen: int, index: list[float]) -> None:
    """``chosen`` is the lowest minimiser of the directly computed ``index``.

    numpy's and math's ``log``/``sqrt`` may differ in the last bit, so a different arm is
    accepted only when the two index values differ yet agree to 1e-12 (a near tie, not a tie).
    """
    expected = lowest_minimiser(index)
    if chosen != expected:
        assert index[chosen] != index[expected] and abs(index[chosen] - index[expected]) <= 1e-12 * (
            1 + abs(index[expected])), f"chose {chosen}, the formula gives {expected}: {index}"


def python_gap(count: int, total: float) -> float:
    return abs(total / count - THRESHOLD)


# --- (a) the index policies against their published formulas ---------------------------------

def lsa_index(count, total, alpha):
    return alpha * count * python_gap(count, total) ** 2 + 0.5 * math.log(count)


def apt_index(count, total, epsilon):
    return math.sqrt(count) * (python_gap(count, total) + epsilon)


def ucbe_index(count, total, a):
    return python_gap(count, total) - math.sqrt(a / count)


@pytest.mark.parametrize("integer", [True, False], ids=["integer-sums", "real-sums"])
@pytest.mark.parametrize("make, index", [
    (lambda p: LSA(p, alpha=1.35), lambda c, s: lsa_index(c, s, 1.35)),
    (lambda p: LSA(p, alpha=0.2), lambda c, s: lsa_index(c, s, 0.2)),
    (lambda p: APT(p, epsilon=0.0), lambda c, s: apt_index(c, s, 0.0)),
    (lambda p: APT(p, epsilon=0.05), lambda c, s: apt_index(c, s, 0.05)),
    # a = 4^b (T - K) / H with T = 500, K = 6, H = 80
    (lambda p: UCBE(p, b=0.0, hardness=80.0, budget=500), lambda c, s: ucbe_index(c, s, 494 / 80)),
    (lambda p: UCBE(p, b=-1.0, hardness=80.0, budget=500), lambda c, s: ucbe_index(c, s, 494 / 320)),
], ids=["lsa", "lsa-small-alpha", "apt-0", "apt-0.05", "ucbe-0", "ucbe-minus-1"])
def test_index_policy_chooses_the_published_argmin(make, index, integer):
    algorithm = make(Thresholding(N, THRESHOLD))
    counts, sums = random_states(1 if integer else 2, integer=integer)
    chosen = algorithm._choose(counts, sums, int(counts[0].sum()), algorithm._policy_start(len(counts)))
    assert chosen.shape == (len(counts),)
    for row in range(len(counts)):
        assert_same_choice(int(chosen[row]), [index(int(c), float(s)) for c, s in zip(counts[row], sums[row],
                                                                                        strict=True)])


def test_ucbe_without_hardness_uses_the_documented_plug_in():
    # H_hat = sum_i min(Delta_hat_i^-2, T_i) per run; a = 4^b (T - K) / H_hat.
    algorithm = UCBE(Thresholding(N, THRESHOLD), b=1.0, budget=300)
    counts, sums = random_states(3)
    chosen = algorithm._choose(counts, sums, 0, {})
    for row in range(len(counts)):
        pairs = list(zip(counts[row].tolist(), sums[row].tolist(), strict=True))
        estimate = sum(c if python_gap(c, s) == 0 else min(python_gap(c, s) ** -2, c) for c, s in pairs)
        a = 4.0 * (300 - N) / estimate
        assert_same_choice(int(chosen[row]), [ucbe_index(c, s, a) for c, s in pairs])


@pytest.mark.parametrize("make", [LSA, APT, lambda p: UCBE(p, hardness=50.0), ThresholdUniform],
                         ids=["lsa", "apt", "ucbe", "uniform"])
def test_unsampled_arms_come_first_lowest_index_first(make):
    algorithm = make(Thresholding(4, THRESHOLD))
    counts = np.array([[0, 0, 0, 0], [3, 0, 5, 0], [2, 2, 2, 0], [4, 1, 9, 9]])
    sums = np.array([[0, 0, 0, 0], [3, 0, 0, 0], [0, 2, 1, 0], [2, 1, 0, 9.0]])
    chosen = algorithm._choose(counts, sums, 0, algorithm._policy_start(4))
    assert chosen[:3].tolist() == [0, 1, 3]


def test_uniform_is_round_robin():
    run = simulate(ThresholdUniform(Thresholding(4, THRESHOLD), budget=10), BernoulliBatch([0.1, 0.4, 0.6, 0.9]),
                   runs=3, seed=0)
    assert run.counts.tolist() == [[3, 3, 2, 2]] * 3


def test_answers_are_the_empirical_classification():
    algorithm = LSA(Thresholding(4, THRESHOLD))
    counts = np.array([[2, 4, 0, 1]])
    sums = np.array([[1.0, 1.0, 0.0, 0.7]])   # means 0.5 (at the threshold: above), 0.25, unsampled, 0.7
    assert algorithm._decide(counts, sums, {}).tolist() == [[True, False, False, True]]


# --- (b) Opt-KG against the closed form --------------------------------------------------------

def upper_tail(alpha: int, beta: int, x: float) -> float:
    """P(theta >= x | Beta(alpha, beta)) = 1 - I_x(alpha, beta) = P(Bin(alpha + beta - 1, x) <= alpha - 1)."""
    m = alpha + beta - 1
    return sum(math.comb(m, j) * x**j * (1 - x) ** (m - j) for j in range(alpha))


def h(p: float) -> float:
    return max(p, 1 - p)


@pytest.mark.parametrize("threshold", [0.5, 0.3])
def test_opt_kg_posterior_and_rewards_match_the_binomial_identity(threshold):
    algorithm = OptKG(Thresholding(N, threshold), a=1.0, b=2.0)
    counts, sums = random_states(4, rows=60, most=25)
    alpha, beta = algorithm.posterior(counts, sums)
    np.testing.assert_array_equal(alpha, 1.0 + sums)
    np.testing.assert_array_equal(beta, 2.0 + counts - sums)
    success, failure = algorithm.rewards(counts, sums)
    probability = algorithm.above_probability(alpha, beta)
    decided = algorithm._decide(counts, sums, algorithm._policy_start(len(counts)))
    chosen = algorithm._choose(counts, sums, 0, algorithm._policy_start(len(counts)))
    for row in range(len(counts)):
        gains = []
        for arm in range(N):
            a, b = int(alpha[row, arm]), int(beta[row, arm])
            p = upper_tail(a, b, threshold)
            r1 = h(upper_tail(a + 1, b, threshold)) - h(p)
            r2 = h(upper_tail(a, b + 1, threshold)) - h(p)
            assert probability[row, arm] == pytest.approx(p, abs=1e-12)
            assert success[row, arm] == pytest.approx(r1, abs=1e-12)
            assert failure[row, arm] == pytest.approx(r2, abs=1e-12)
            assert decided[row, arm] == (p >= 0.5) or abs(p - 0.5) < 1e-12
            gains.append(-max(r1, r2))
        assert_same_choice(int(chosen[row]), gains)


def test_opt_kg_fractional_and_out_of_range_rewards():
    algorithm = OptKG(Thresholding(3, THRESHOLD), a=0.5, b=0.5)
    alpha, beta = algorithm.posterior(np.array([[4, 4, 4]]), np.array([[2.5, -1.0, 7.0]]))
    assert alpha.tolist() == [[3.0, 0.5, 4.5]] and beta.tolist() == [[2.0, 4.5, 0.5]]


def test_opt_kg_cache_equals_a_fresh_evaluation():
    # After steps that change one arm per run, the cached max(R1, R2) is the fresh value everywhere.
    algorithm = OptKG(Thresholding(N, THRESHOLD))
    counts, sums = random_states(6, rows=200, most=30)
    state = algorithm._policy_start(len(counts))
    rng = np.random.default_rng(7)
    for _ in range(5):
        chosen = algorithm._choose(counts, sums, 0, state)
        fresh = np.maximum(*algorithm.rewards(counts, sums))
        np.testing.assert_array_equal(state["gain"], fresh)
        assert (chosen == np.argmax(fresh, axis=1)).all()
        rows = np.arange(len(counts))
        counts[rows, chosen] += 1
        sums[rows, chosen] += rng.integers(0, 2, len(counts))


def test_opt_kg_prior_only_answer():
    # No sample: Beta(1, 1) puts P = 1/2 on theta >= 1/2, declared above; Beta(1, 3) puts 1/8.
    problem = Thresholding(2, THRESHOLD)
    zero = np.zeros((1, 2), dtype=np.int64)
    assert OptKG(problem)._decide(zero, zero.astype(float), {}).tolist() == [[True, True]]
    assert OptKG(problem, b=3.0)._decide(zero, zero.astype(float), {}).tolist() == [[False, False]]


# --- (c) ask/tell and simulate agree on the same rewards --------------------------------------

class StreamArms(BatchArms):
    """Serves ``streams[r, i, j]``: the j-th reward of arm i in run r; logs every step's choices."""

    def __init__(self, streams: np.ndarray):
        self.streams = streams
        self.means = streams.mean(axis=(0, 2))
        self.used = np.zeros(streams.shape[:2], dtype=np.int64)
        self.chosen: list[np.ndarray] = []

    @property
    def noise_scale(self) -> float:
        return 0.5

    def sample_one(self, arms, rng):
        rows = np.arange(len(arms))
        rewards = self.streams[rows, arms, self.used[rows, arms]]
        self.used[rows, arms] += 1
        self.chosen.append(np.array(arms))
        return rewards

    def sample_sums(self, counts, rng):
        raise NotImplementedError


@pytest.mark.slow
@pytest.mark.parametrize("make", [
    lambda p, T: LSA(p, budget=T), lambda p, T: APT(p, epsilon=0.025, budget=T),
    lambda p, T: UCBE(p, b=0.0, hardness=120.0, budget=T), lambda p, T: UCBE(p, b=4.0, budget=T),
    lambda p, T: OptKG(p, a=0.5, b=0.5, budget=T), lambda p, T: ThresholdUniform(p, budget=T),
], ids=["lsa", "apt", "ucbe", "ucbe-plug-in", "opt-kg", "uniform"])
@pytest.mark.parametrize("fractional", [False, True], ids=["bernoulli", "fractional"])
def test_ask_tell_and_simulate_make_the_same_choices(make, fractional):
    runs, budget, problem = 4, 150, Thresholding(N, THRESHOLD)
    rng = np.random.default_rng(5)
    means = np.array([0.3, 0.45, 0.5, 0.55, 0.6, 0.8])
    shape = (runs, N, budget)
    streams = rng.random(shape) * 2 * means[:, None] if fractional else (rng.random(shape) < means[:, None]) * 1.0
    arms = StreamArms(streams)
    batch = simulate(make(problem, budget), arms, runs=runs, checkpoints=(budget // 3, budget), seed=0)
    batch_choices = np.array(arms.chosen).T  # (runs, steps)
    for run in range(runs):
        algorithm, used, choices = make(problem, budget), np.zeros(N, dtype=np.int64), []
        while not algorithm.done:
            if algorithm.n_pulls == budget // 3:
                assert algorithm.recommend() == tuple(np.flatnonzero(batch.answers[budget // 3][run]))
            pull = algorithm.ask(1)
            arm = pull.arms[0]
            choices.append(arm)
            algorithm.tell(pull, [float(streams[run, arm, used[arm]])])
            used[arm] += 1
        assert choices == batch_choices[run].tolist()
        assert algorithm.result().answer == tuple(np.flatnonzero(batch.answers[budget][run]))


# --- (d) the index does its job: a statistical check with a negative control ------------------

class ReversedLSA(LSA):
    """LSA with the sign of its index flipped (samples the arm LSA would sample last)."""

    def _choose(self, counts, sums, t, state):
        with np.errstate(divide="ignore", invalid="ignore"):
            index = self.alpha * counts * self._gaps(counts, sums) ** 2 + 0.5 * np.log(counts)
        return self._index_choice(counts, -index)


def mean_misclassified(algorithm, means, runs: int, seed: int) -> tuple[float, float]:
    run = simulate(algorithm, BernoulliBatch(means), runs=runs, seed=seed)
    wrong = (run.answers[algorithm.budget] != (means >= THRESHOLD)).sum(axis=1)
    return float(wrong.mean()), float(wrong.std(ddof=1) / math.sqrt(runs))


def test_lsa_beats_uniform_and_a_reversed_index_loses():
    """Tao setup 1 (K = 10), T = 600, 2000 runs each.

    Measured (seed 1): LSA 0.12, Uniform 0.47, reversed LSA 2.86 misclassified arms, standard
    errors <= 0.03. The test asks LSA to beat Uniform by 0.15 (about 8 standard errors of the
    difference short of the measured 0.35) and the reversed index to lose to Uniform by 1.
    """
    means, problem = tao_setup1().means, Thresholding(10, THRESHOLD)
    lsa, lsa_se = mean_misclassified(LSA(problem, budget=600), means, 2000, seed=1)
    uniform, uniform_se = mean_misclassified(ThresholdUniform(problem, budget=600), means, 2000, seed=2)
    reversed_, _ = mean_misclassified(ReversedLSA(problem, budget=600), means, 2000, seed=3)
    assert max(lsa_se, uniform_se) < 0.03
    assert lsa < uniform - 0.15, (lsa, uniform)
    assert reversed_ > uniform + 1.0, (reversed_, uniform)


# --- (e) hardness ---------------------------------------------------------------------------------

def test_threshold_hardness_by_hand():
    # 1/0.3^2 + 1/0.05^2 + 1/0.1^2 = 11.111... + 400 + 100
    assert threshold_hardness([0.2, 0.45, 0.6], 0.5) == pytest.approx(511.1111111111111, rel=1e-12)
    assert threshold_hardness([0.2, 0.5], 0.5) == math.inf
    assert threshold_hardness(tao_setup1().means, 0.5) == pytest.approx(
        2 * (1 / 0.3**2 + 1 / 0.25**2 + 1 / 0.2**2 + 1 / 0.15**2 + 1 / 0.05**2), rel=1e-12)


# --- (f) parameter validation ------------------------------------------------------------------

@pytest.mark.parametrize("make, name", [
    (lambda p: LSA(p, alpha=0.0), "alpha"), (lambda p: LSA(p, alpha="1"), "alpha"),
    (lambda p: APT(p, epsilon=-0.1), "epsilon"), (lambda p: UCBE(p, b=math.nan), "b"),
    (lambda p: UCBE(p, hardness=0.0), "hardness"), (lambda p: UCBE(p, hardness=math.inf), "hardness"),
    (lambda p: OptKG(p, a=0.0), "a"), (lambda p: OptKG(p, b=-1.0), "b"),
    (lambda p: ThresholdUniform(p, budget=0), "budget"), (lambda p: LSA(p, seed=-1), "seed"),
])
def test_invalid_parameters_are_refused_by_name(make, name):
    algorithm = make(Thresholding(N, THRESHOLD))
    with pytest.raises((ValueError, TypeError), match=rf"\b{name}="):
        algorithm.setup()
    assert not algorithm.is_set_up


@pytest.mark.parametrize("cls", [LSA, APT, UCBE, OptKG, ThresholdUniform])
def test_top_k_problems_are_refused(cls):
    with pytest.raises(TypeError, match="Thresholding"):
        cls(TopK(4, 2)).setup()
