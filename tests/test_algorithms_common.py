"""One suite every full-bandit algorithm must pass (in the spirit of scikit-learn's common tests)."""

import numpy as np
import pytest

import fullbandit as fb
from fullbandit.full import ALGORITHMS

NAMES = sorted(ALGORITHMS)
CERTIFIED = ["exhaustive", "icb", "safoa-certified", "saqm"]
THETA = np.array([0.9, 0.8, 0.75, 0.4, 0.35, 0.2, 0.1])


def _make(name, **options):
    return ALGORITHMS[name](fb.TopK(7, 2), **{"epsilon": 0.05, "seed": 3, "support": "random", **options})


def _without_time(result):
    data = result.as_dict()
    data.pop("wall_time")
    return data


@pytest.mark.parametrize("name", NAMES)
def test_same_seed_same_run_and_ask_tell_equals_run(name):
    first = fb.run(_make(name), fb.GaussianSum(THETA, sigma=0.3, seed=5), progress=False)
    second = fb.run(_make(name), fb.GaussianSum(THETA, sigma=0.3, seed=5), progress=False)
    assert _without_time(first) == _without_time(second)
    algorithm, environment = _make(name, noise_scale=0.3), fb.GaussianSum(THETA, sigma=0.3, seed=5)
    while not algorithm.done:
        arm = algorithm.ask()
        algorithm.tell(arm, environment.pull(arm))
    manual = algorithm.result()
    assert (manual.answer, manual.pulls, manual.stop_reason) == (first.answer, first.pulls, first.stop_reason)
    assert manual.constants["statistic"] == first.constants["statistic"]


@pytest.mark.parametrize("name", NAMES)
def test_saved_state_resumes_bit_for_bit(name, tmp_path):
    reference = fb.run(_make(name), fb.GaussianSum(THETA, sigma=0.3, seed=6), progress=False)
    algorithm, environment = _make(name, noise_scale=0.3), fb.GaussianSum(THETA, sigma=0.3, seed=6)
    for _ in range(reference.pulls // 2):
        arm = algorithm.ask()
        algorithm.tell(arm, environment.pull(arm))
    algorithm.save(tmp_path / "state.json")
    resumed = type(algorithm).load(tmp_path / "state.json")
    while not resumed.done:
        arm = resumed.ask()
        resumed.tell(arm, environment.pull(arm))
    final = resumed.result()
    assert (final.answer, final.pulls, final.constants["statistic"]) == (
        reference.answer, reference.pulls, reference.constants["statistic"])


@pytest.mark.parametrize("name", NAMES)
def test_budget_ends_a_run_without_a_claim(name):
    tied = np.array([1.0, 1.0, 1.0, 0.0, 0.0, 0.0, 0.0])  # three tied best arms, k = 2, epsilon = 0
    result = fb.run(_make(name, epsilon=0.0, budget=300), fb.GaussianSum(tied, sigma=0.3, seed=1), progress=False)
    assert result.stop_reason == "budget exhausted" and result.pulls == 300 and not result.certified


@pytest.mark.parametrize("name", NAMES)
def test_bad_input_is_refused(name):
    with pytest.raises(ValueError, match="delta=2.0 must satisfy"):
        _make(name, delta=2.0)
    with pytest.raises(ValueError, match="epsilon=-0.1 must satisfy"):
        _make(name, epsilon=-0.1)
    with pytest.raises(ValueError, match="allocation='optimal' is not one of the allowed values"):
        _make(name, allocation="optimal")
    algorithm = _make(name, noise_scale=1.0)
    arm = algorithm.ask()
    with pytest.raises(ValueError, match="reward=nan must be finite"):
        algorithm.tell(arm, float("nan"))
    assert algorithm.n_pulls == 0


def _planted(seed, n=6, k=2, gap=0.1):
    rng = np.random.default_rng(seed)
    top = rng.uniform(0.6, 1.0, k)
    rest = np.concatenate([[top.min() - gap], rng.uniform(0.0, top.min() - gap, n - k - 1)])
    return rng.permutation(np.concatenate([top, rest]))


def _error_rate(name, runs, delta, base_seed=0):
    errors = 0
    for run_index in range(runs):
        seeds = np.random.SeedSequence([base_seed, run_index]).spawn(3)
        theta = _planted(int(seeds[0].generate_state(1)[0]))
        algorithm = ALGORITHMS[name](fb.TopK(6, 2), epsilon=0.0, delta=delta, seed=seeds[2], budget=2_000_000)
        result = fb.run(algorithm, fb.GaussianSum(theta, sigma=0.1, seed=seeds[1]), progress=False)
        assert result.stop_reason == "stopping rule"
        errors += not result.epsilon_optimal
    return errors / runs


@pytest.mark.parametrize("name", CERTIFIED)
def test_certified_algorithms_are_pac_on_small_instances(name):
    # 100 seeded runs per algorithm, delta = 0.2, epsilon = 0, planted gap 0.1, noise sd 0.1.
    # A true error rate of 0.2 exceeds 0.32 (32 errors) with probability about 0.2% (binomial).
    assert _error_rate(name, 100, delta=0.2) <= 0.32


@pytest.mark.slow
@pytest.mark.parametrize("name", NAMES)
def test_error_rates_over_many_runs(name):
    # 500 runs, delta = 0.1: for certified modes a true rate of 0.1 exceeds 0.135 (67 errors)
    # with probability below 0.5%. The heuristic SA-FOA has no guarantee: its measured rate
    # is printed (run with -s) and held to the same level, which it has met in our runs.
    rate = _error_rate(name, 500, delta=0.1, base_seed=11)
    print(f"{name}: empirical error rate {rate:.3f} over 500 runs (delta = 0.1)")
    assert rate <= 0.135
