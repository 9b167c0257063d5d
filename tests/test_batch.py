"""Batch reward samplers and the sequential engine's simulate(): laws, reproducibility, errors, state."""

from __future__ import annotations

import tempfile
from pathlib import Path

import numpy as np
import pytest

import fullbandit as fb
from fullbandit.semi.batch import BernoulliBatch, CategoricalBatch, GaussianBatch, batch_arms
from fullbandit.semi.sequential import SequentialPerArm, simulate
from fullbandit.util.validation import InvalidParameterError

SUPPORT = [0.0, 0.5, 1.0]
TABLE = [[0.6, 0.3, 0.1], [0.1, 0.2, 0.7], [0.0, 1.0, 0.0]]
SAMPLERS = {
    "bernoulli": lambda: BernoulliBatch([0.1, 0.5, 0.9]),
    "gaussian": lambda: GaussianBatch([0.1, 0.5, 0.9], sigma=0.4),
    "categorical": lambda: CategoricalBatch(SUPPORT, TABLE),
}
#: Per-reward variances of the three laws, for the tolerance of the mean checks.
VARIANCES = {
    "bernoulli": np.array([0.09, 0.25, 0.09]),
    "gaussian": np.full(3, 0.16),
    "categorical": np.array(TABLE) @ np.square(SUPPORT) - np.square(np.array(TABLE) @ SUPPORT),
}


@pytest.mark.parametrize("name", SAMPLERS)
def test_single_draws_and_sums_have_the_arms_means(name):
    """Means of 20,000 draws per arm within 5 standard errors (a wrong law, e.g. swapped arms, is off by > 50)."""
    arms = SAMPLERS[name]()
    rng = np.random.default_rng(3)
    draws = 20_000
    chosen = np.repeat(np.arange(3), draws)
    single = arms.sample_one(chosen, rng).reshape(3, draws).mean(axis=1)
    error = np.sqrt(VARIANCES[name] / draws) + 1e-12
    assert np.all(np.abs(single - arms.means) <= 5 * error), single
    counts = np.tile([[40, 1, 7]], (draws // 4, 1))
    sums = arms.sample_sums(counts, rng)
    per_sample = sums.sum(axis=0) / counts.sum(axis=0)
    error = np.sqrt(VARIANCES[name] / counts.sum(axis=0)) + 1e-12
    assert np.all(np.abs(per_sample - arms.means) <= 5 * error), per_sample
    # A sum of m rewards has m times the variance: the spread of the 40-sample sums.
    spread = sums[:, 0].var()
    assert spread == pytest.approx(40 * VARIANCES[name][0], rel=0.1)


def test_categorical_sums_take_only_values_of_the_support():
    arms = CategoricalBatch(SUPPORT, TABLE)
    sums = arms.sample_sums(np.full((500, 3), 3), np.random.default_rng(0))
    assert np.all(np.isin(sums, [0.0, 0.5, 1.0, 1.5, 2.0, 2.5, 3.0]))
    assert np.all(sums[:, 2] == 1.5)  # the third arm always returns 0.5
    assert arms.noise_scale == 0.5


@pytest.mark.parametrize("name", SAMPLERS)
def test_same_seed_same_draws(name):
    arms = SAMPLERS[name]()
    counts = np.array([[3, 0, 2], [1, 1, 1]])
    first = arms.sample_sums(counts, np.random.default_rng(9))
    assert np.array_equal(first, arms.sample_sums(counts, np.random.default_rng(9)))
    assert np.array_equal(arms.sample_one(np.array([2, 0, 1]), np.random.default_rng(4)),
                          arms.sample_one(np.array([2, 0, 1]), np.random.default_rng(4)))


@pytest.mark.parametrize("counts, message", [
    (np.array([[1, 2]]), "counts"), (np.array([[1.0, 2.0, 3.0]]), "counts"), (np.array([[1, -1, 2]]), "counts")])
def test_bad_counts_are_refused(counts, message):
    with pytest.raises(InvalidParameterError, match=message):
        BernoulliBatch([0.1, 0.5, 0.9]).sample_sums(counts, np.random.default_rng(0))


def test_bad_laws_are_refused_with_the_argument_named():
    with pytest.raises(InvalidParameterError, match="means"):
        BernoulliBatch([0.1, 1.5])
    with pytest.raises(InvalidParameterError, match="sigma"):
        GaussianBatch([0.1], sigma=-1.0)
    with pytest.raises(InvalidParameterError, match="probabilities"):
        CategoricalBatch(SUPPORT, [[0.5, 0.5, 0.5]])
    with pytest.raises(InvalidParameterError, match="probabilities"):
        CategoricalBatch(SUPPORT, [[0.5, 0.5]])


def test_batch_arms_matches_the_environments_law():
    bernoulli = batch_arms(fb.BernoulliTeam([0.2, 0.7], feedback="semi"))
    gaussian = batch_arms(fb.GaussianArms([0.2, 0.7], sigma=0.3, feedback="semi"))
    assert isinstance(bernoulli, BernoulliBatch) and bernoulli.means.tolist() == [0.2, 0.7]
    assert isinstance(gaussian, GaussianBatch) and gaussian.sigma == 0.3
    with pytest.raises(InvalidParameterError, match="batch sampler"):
        batch_arms(fb.GaussianSum([0.2, 0.7]))


class Counting(SequentialPerArm):
    """A stateful test policy: samples the arm with the fewest samples, and counts how often it changed arm."""

    decision_classes = (fb.Thresholding,)

    def __init__(self, problem, *, budget=50, seed=None):
        self.problem, self.budget, self.seed = problem, budget, seed

    def _policy_start(self, runs):
        return {"switches": np.zeros(runs, dtype=np.int64), "last": np.full(runs, -1, dtype=np.int64)}

    def _choose(self, counts, sums, t, state):
        return np.argmin(counts, axis=1)

    def _policy_update(self, counts, sums, t, state):
        arm = np.argmax(counts == counts.max(axis=1, keepdims=True), axis=1)  # any; only the count matters here
        state["switches"] += state["last"] != arm
        state["last"] = arm

    def _decide(self, counts, sums, state):
        return sums >= self.problem.threshold * counts

    def _details(self, counts, sums, state):
        return {"switches": int(state["switches"][0])}


def test_policy_state_is_replayed_from_the_record():
    problem = fb.Thresholding(3, 0.5)
    environment = fb.BernoulliTeam([0.1, 0.5, 0.9], feedback="semi", seed=2)
    reference = fb.run(Counting(problem, budget=40), environment, progress=False)
    algorithm, environment = Counting(problem, budget=40), fb.BernoulliTeam([0.1, 0.5, 0.9], feedback="semi", seed=2)
    for _ in range(17):
        pull = algorithm.ask()
        algorithm.tell(pull, environment.pull(pull.arms))
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "state.json"
        algorithm.save(path)
        resumed = fb.load(path)
        while not resumed.done:
            pull = resumed.ask()
            resumed.tell(pull, environment.pull(pull.arms))
        assert resumed.result().constants["switches"] == reference.constants["switches"] > 0
        assert resumed.result().answer == reference.answer


def test_simulate_refuses_bad_arguments_with_their_names():
    algorithm = Counting(fb.Thresholding(3, 0.5), budget=20)
    arms = BernoulliBatch([0.1, 0.5, 0.9])
    with pytest.raises(InvalidParameterError, match="runs"):
        simulate(algorithm, arms, runs=0)
    with pytest.raises(InvalidParameterError, match="checkpoints"):
        simulate(algorithm, arms, runs=2, checkpoints=(0, 5))
    with pytest.raises(InvalidParameterError, match="checkpoints"):
        simulate(algorithm, arms, runs=2, checkpoints=(21,))
    with pytest.raises(InvalidParameterError, match="n=2"):
        simulate(algorithm, BernoulliBatch([0.1, 0.5]), runs=2)
    with pytest.raises(TypeError, match="BatchArms"):
        simulate(algorithm, fb.BernoulliTeam([0.1, 0.5, 0.9], feedback="semi"), runs=2)


def test_simulate_is_reproducible_and_matches_the_single_run_policy():
    """Every row of a batch follows the policy: min-count sampling gives equal counts, the same in every run."""
    algorithm = Counting(fb.Thresholding(3, 0.5), budget=30)
    first = simulate(algorithm, BernoulliBatch([0.1, 0.5, 0.9]), runs=64, seed=5, checkpoints=(9, 30))
    second = simulate(algorithm, BernoulliBatch([0.1, 0.5, 0.9]), runs=64, seed=5, checkpoints=(9, 30))
    assert all(np.array_equal(first.answers[t], second.answers[t]) for t in (9, 30))
    assert np.all(first.counts == 10)
    assert not np.array_equal(first.answers[30], simulate(algorithm, BernoulliBatch([0.1, 0.5, 0.9]), runs=64,
                                                           seed=6).answers[30])


def test_steps_may_be_out_together_and_told_in_any_order():
    """A crowd answers in parallel: each ask plans a step from the data recorded so far, which are the
    first pulls handed out (a tell before an older pull's waits for it); every record updates the policy."""
    algorithm = Counting(fb.Thresholding(3, 0.5), budget=10)
    first, second, third = algorithm.ask(), algorithm.ask(), algorithm.ask()
    assert [first.arms, second.arms, third.arms] == [(0,), (0,), (0,)]  # nothing told yet: the same fewest-samples arm
    algorithm.tell(third, [1.0])
    algorithm.abandon(second)
    assert algorithm.ask().arms == (0,) and algorithm.held == (2,)  # third waits for first: nothing recorded
    algorithm.tell(first, [0.0])
    assert algorithm.samples.tolist() == [2, 0, 0] and algorithm.sums.tolist() == [1.0, 0.0, 0.0]
    assert algorithm.n_checks == 2 and algorithm.result().constants["switches"] == 1


def test_simulate_uses_the_samplers_noise_scale_even_for_an_algorithm_already_set_up():
    """simulate() works on a fresh copy: a scale given earlier to the algorithm object is not reused."""

    class Scaled(Counting):
        def _details(self, counts, sums, state):
            return {}

        def _decide(self, counts, sums, state):
            # Declares every arm above iff the scale the policy was set up with is large.
            return np.full(counts.shape, self.offered_noise_scale > 1.0)

    algorithm = Scaled(fb.Thresholding(3, 0.5), budget=6).setup(noise_scale=0.5)
    batch = simulate(algorithm, GaussianBatch([0.1, 0.5, 0.9], sigma=3.0), runs=2, seed=0)
    assert batch.answers[6].all() and algorithm.offered_noise_scale == 0.5


def test_simulate_refuses_a_policy_that_names_an_arm_out_of_range():
    class Broken(Counting):
        def _choose(self, counts, sums, t, state):
            return np.full(counts.shape[0], -1)

    with pytest.raises(RuntimeError, match="outside 0..2"):
        simulate(Broken(fb.Thresholding(3, 0.5), budget=5), BernoulliBatch([0.1, 0.5, 0.9]), runs=2)
