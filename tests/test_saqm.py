"""SAQM (Kuroki et al. 2020, Algorithm 2): correctness of its stopping rule and its PAC guarantee."""

import itertools
import math
import os
import re

import numpy as np
import pytest

import fullbandit as fb
from fullbandit.full.qp import brute_force_qp
from fullbandit.full.saqm import SAQM


def _instance(n=6, k=3, gap=0.2, seed=0):
    """Planted gap: top-k means in [0.6, 1], the (k+1)-th ``gap`` below the k-th, the rest below."""
    rng = np.random.default_rng(seed)
    top = rng.uniform(0.6, 1.0, size=k)
    rest = np.concatenate([[top.min() - gap], rng.uniform(0.0, top.min() - gap, size=n - k - 1)])
    return rng.permutation(np.concatenate([top, rest]))


def _drive(algorithm, environment, on_check=None):
    checks_seen = 0
    while not algorithm.done:
        pull = algorithm.ask()
        algorithm.tell(pull, environment.pull(pull.arms))
        if on_check is not None and algorithm.n_checks > checks_seen:
            checks_seen = algorithm.n_checks
            on_check(algorithm.last_check)
    return algorithm.result()


@pytest.mark.parametrize("width_bound", ["certified", "theorem1"])
def test_width_bound_covers_the_exact_widest_ellipsoid_at_every_check(width_bound):
    # U_t must be an upper bound of max_M ||x_M||_{A^-1} (brute force over all C(7,3) = 35).
    theta = _instance(n=7, k=3, gap=0.3, seed=1)
    environment = fb.GaussianSum(theta, sigma=0.5, seed=2)
    algorithm = SAQM(fb.TopK(7, 3), epsilon=0.05, width_bound=width_bound, noise_scale=0.5,
                     support="random", seed=3, budget=20_000)
    widths_checked = []

    def verify(check):
        Q = check.estimate.gram_inverse
        _, exact = brute_force_qp(Q, 3)
        width = check.details["U_t"]
        assert width ** 2 >= exact * (1 - 1e-9)
        widths_checked.append(width ** 2 / exact)

    _drive(algorithm, environment, verify)
    assert len(widths_checked) >= 5
    if width_bound == "theorem1":
        assert min(widths_checked) > 1.0  # loose by construction: the ratio includes (k-2) * condition number


def test_stopping_rule_implies_epsilon_optimality_on_the_confidence_event():
    # Lemma 8: if |theta(M) - theta_hat(M)| <= C U for all M and the rule fires, M_hat is
    # epsilon-optimal. Check the algebra directly: feed noiseless rewards, so theta_hat = theta.
    theta = np.array([0.9, 0.8, 0.75, 0.5, 0.4])
    algorithm = SAQM(fb.TopK(5, 2), epsilon=0.0, noise_scale=0.01, seed=0, budget=10**6)
    while not algorithm.done:
        pull = algorithm.ask()
        algorithm.tell(pull, theta[list(pull.arms)].sum())
    assert algorithm.stop_reason == "stopping rule"
    assert algorithm.recommend() == (0, 1)
    check = algorithm.last_check
    # Fired exactly when the empirical gap reached 2 C U (epsilon = 0): 2 C U - gap <= 0, reported as 0 (a bound
    # on a gap is never negative) with the unclipped value in the details.
    assert check.details["empirical_gap"] == pytest.approx(0.05)  # theta(0,1) - theta(0,2)
    unclipped = check.details["unclipped_gap_bound"]
    assert unclipped == pytest.approx(2 * check.details["C_t"] * check.details["U_t"] - 0.05)
    assert unclipped <= 0.0 and check.gap_bound == 0.0


def _error_rate(runs, *, n, k, gap, epsilon, delta, sigma, noise_scale=None, confidence="tight", base_seed=0,
                support="auto"):
    errors, pulls = 0, []
    for run_index in range(runs):
        seeds = np.random.SeedSequence([base_seed, run_index]).spawn(3)
        theta = _instance(n, k, gap, seed=int(seeds[0].generate_state(1)[0]))
        environment = fb.GaussianSum(theta, sigma=sigma, seed=seeds[1])
        algorithm = SAQM(fb.TopK(n, k), epsilon=epsilon, delta=delta, noise_scale=noise_scale,
                         confidence=confidence, seed=seeds[2], budget=2_000_000, support=support)
        result = fb.run(algorithm, environment, progress=False)
        assert result.stop_reason == "stopping rule"
        errors += not result.epsilon_optimal
        pulls.append(result.pulls)
    return errors / runs, np.mean(pulls)


@pytest.mark.slow
@pytest.mark.parametrize("confidence", ["tight", "paper"])
def test_saqm_is_epsilon_delta_pac_on_small_instances(confidence):
    # 150 seeded runs, delta = 0.2, epsilon = 0 on planted-gap instances (n=5, k=2, gap 0.1,
    # noise sd 0.1 on the sum).
    # PAC means P[error] <= 0.2; with 150 runs, a true rate of 0.2 gives more than 45 errors
    # (rate 0.3) with probability about 0.2%, so "rate <= 0.3" is the binomial tolerance.
    rate, _ = _error_rate(150, n=5, k=2, gap=0.1, epsilon=0.0, delta=0.2, sigma=0.1, confidence=confidence)
    assert rate <= 0.3


def test_an_underestimated_noise_scale_breaks_the_guarantee():
    # Negative control for the PAC tests: the same instances with R 100 times too small
    # stop far too early and err far more often than delta = 0.2 allows (150 runs; these
    # stop after a few pulls, so the control is cheap).
    # The cyclic windows (the design this control was calibrated on; "auto" now takes all 10 pairs).
    rate, _ = _error_rate(150, n=5, k=2, gap=0.1, epsilon=0.0, delta=0.2, sigma=0.1, noise_scale=0.001,
                          support="cyclic")
    assert rate > 0.3


@pytest.mark.slow
def test_saqm_is_pac_over_many_runs_with_a_positive_epsilon():
    # 600 runs, delta = 0.1, epsilon = 0.05: a true error rate of 0.1 exceeds 0.14 (84 errors)
    # with probability below 0.1%.
    rate, _ = _error_rate(600, n=6, k=3, gap=0.05, epsilon=0.05, delta=0.1, sigma=0.2, base_seed=7)
    assert rate <= 0.14


def test_tight_constant_needs_fewer_pulls_than_the_papers():
    # Same sample path (same seeds): a smaller C_t can only stop earlier.
    common = dict(n=5, k=2, gap=0.1, epsilon=0.0, delta=0.1, sigma=0.1)
    _, tight = _error_rate(5, **common, confidence="tight")
    _, paper = _error_rate(5, **common, confidence="paper")
    assert tight < paper


def test_certified_width_stops_no_later_than_theorem1_on_the_same_sample_path():
    theta = _instance(5, 2, 0.3, seed=4)
    pulls = {}
    for width_bound in ("certified", "theorem1"):
        environment = fb.GaussianSum(theta, sigma=0.2, seed=5)
        algorithm = SAQM(fb.TopK(5, 2), epsilon=0.05, width_bound=width_bound, seed=6, budget=5_000_000)
        result = fb.run(algorithm, environment, progress=False)
        assert result.stop_reason == "stopping rule" and result.epsilon_optimal
        pulls[width_bound] = result.pulls
    assert pulls["certified"] <= pulls["theorem1"]


def test_a_different_seed_gives_a_different_support():
    supports = {SAQM(fb.TopK(12, 4), support="random", seed=seed, noise_scale=1.0).support_arms for seed in range(3)}
    assert len(supports) == 3


def test_a_failed_save_leaves_the_previous_state_intact(tmp_path, monkeypatch):
    algorithm = SAQM(fb.TopK(5, 2), noise_scale=1.0, seed=0)
    path = tmp_path / "state.json"
    algorithm.save(path)
    before = path.read_text()
    algorithm.tell(algorithm.ask(), 1.0)

    def disk_full(descriptor):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "fsync", disk_full)
    with pytest.raises(ValueError, match=f"cannot save to {path}: No space left on device"):
        algorithm.save(path)
    assert path.read_text() == before
    assert [p.name for p in tmp_path.iterdir()] == ["state.json"]  # no temporary left behind


def test_budget_exhausted_is_reported_not_claimed():
    # Two tied best arms and epsilon = 0: the rule can never fire.
    theta = np.array([1.0, 1.0, 0.0, 0.0])
    algorithm = SAQM(fb.TopK(4, 1), epsilon=0.0, budget=500, seed=0)
    result = fb.run(algorithm, fb.GaussianSum(theta, sigma=0.1, seed=1), progress=False)
    assert result.stop_reason == "budget exhausted"
    assert result.pulls == 500
    assert not result.certified
    with pytest.raises(fb.ProtocolError, match="stopped"):
        algorithm.ask()


@pytest.mark.parametrize("kwargs, match", [
    (dict(delta=-0.1), "delta=-0.1 must be a float in (0, 1)"),
    (dict(delta=float("nan")), "delta=nan must be a float in (0, 1)"),
    (dict(delta=1.0), "delta=1.0 must be a float in (0, 1)"),
    (dict(epsilon=-1.0), "epsilon=-1.0 must be a finite float >= 0"),
    (dict(epsilon=float("inf")), "epsilon=inf must be a finite float >= 0"),
    (dict(width_bound="exact"), "width_bound='exact' must be one of 'certified', 'theorem1'"),
    (dict(oracle="magic"), "oracle='magic' must be one of"),
    (dict(confidence="loose"),
     "confidence='loose' must be one of 'auto', 'bernstein', 'paper', 'stitched', 'tight', 'time-uniform'"),
    (dict(support="windows"), "support='windows' must be one of 'auto', 'cyclic', 'random'"),
    (dict(budget=0), "budget=0 must be an int >= 1"),
    (dict(noise_scale=0.0), "noise_scale=0.0 must be None or a finite float > 0"),
])
def test_bad_parameters_raise_clear_errors(kwargs, match):
    algorithm = SAQM(fb.TopK(6, 2), **kwargs)  # the constructor only stores
    with pytest.raises(ValueError, match="SAQM: " + re.escape(match)):
        algorithm.ask()


def test_k_out_of_range_raises():
    for k in (0, 6, 7):
        with pytest.raises(ValueError, match=f"k={k} must satisfy 1 <= k < n=6"):
            fb.TopK(6, k)


def test_non_finite_reward_raises_and_records_nothing():
    algorithm = SAQM(fb.TopK(5, 2), noise_scale=1.0, seed=0)
    pull = algorithm.ask()
    for bad in (float("nan"), float("inf")):
        with pytest.raises(ValueError, match="reward=.* must be finite"):
            algorithm.tell(pull, bad)
    assert algorithm.n_pulls == 0


def test_singular_design_raises():
    # All 2-subsets of {0,1,2} plus {3,4}: arms 3 and 4 are never separated.
    support = [(0, 1), (0, 2), (1, 2), (3, 4)]
    with pytest.raises(fb.SingularDesignError, match="rank 4 < n=5"):
        SAQM(fb.TopK(5, 2), support=support, noise_scale=1.0).ask()


def test_cyclic_support_requires_coprime_n_and_k():
    with pytest.raises(ValueError, match=r"gcd\(n=6, k=2\) = 2"):
        SAQM(fb.TopK(6, 2), support="cyclic", noise_scale=1.0).ask()


def test_telling_an_arm_outside_the_support_raises():
    algorithm = SAQM(fb.TopK(5, 2), support="cyclic", noise_scale=1.0)
    with pytest.raises(fb.ProtocolError, match=r"super_arm=\(0, 2\) has no outstanding pull"):
        algorithm.tell((0, 2), 1.0)


def test_ask_without_noise_scale_explains_how_to_set_it():
    with pytest.raises(ValueError, match="noise_scale is not set"):
        SAQM(fb.TopK(5, 2)).ask()


def test_feedback_kind_must_match():
    environment = fb.BernoulliTeam([0.9, 0.5, 0.4, 0.1], feedback="semi", seed=0)
    with pytest.raises(ValueError, match="feedback='semi'"):
        fb.run(SAQM(fb.TopK(4, 2)), environment)


def test_union_bound_is_the_number_of_super_arms():
    algorithm = SAQM(fb.TopK(9, 4), noise_scale=1.0, seed=0)
    assert algorithm.constants()["union_bound"] == math.comb(9, 4) == len(list(itertools.combinations(range(9), 4)))


def test_one_absurd_reward_never_certifies_and_gap_bounds_are_never_negative():
    """One reward of 1e300 among rewards near 1: the sums no longer resolve the noise, so nothing is
    certified (the issue's run stopped 'certified' after 32 pulls at gap_bound -9.5e298); and on random
    states a gap bound is never negative (SAQM's 2 C U - gap was, in about a quarter of them)."""
    means = np.array([0.9, 0.8, 0.75, 0.5, 0.4])
    rng = np.random.default_rng(0)
    algorithm = SAQM(fb.TopK(5, 2), epsilon=0.1, noise_scale=0.3, seed=0, budget=600)
    first = algorithm.ask()
    algorithm.tell(first, 1e300)
    bounds = []
    while not algorithm.done:
        pull = algorithm.ask()
        algorithm.tell(pull, float(means[list(pull.arms)].sum() + 0.3 * rng.standard_normal()))
        bounds.append(algorithm.last_check.gap_bound if algorithm.last_check else None)
    assert algorithm.stop_reason == "budget exhausted" and algorithm.result().gap_bound == math.inf
    assert algorithm.last_check.gap_bound == math.inf and algorithm.last_check.details["numerically_meaningless"]
    negative = 0
    for seed in range(20):  # epsilon = 0: each run stops at a check whose 2 C U - gap is <= 0
        environment = fb.GaussianSum(rng.uniform(0, 1, 6), sigma=0.05, seed=seed)
        checks = []
        fb.run(SAQM(fb.TopK(6, 3), epsilon=0.0, seed=seed, budget=20_000), environment, progress=False,
               on_check=checks.append)
        assert all(check.gap_bound >= 0.0 for check in checks)
        negative += sum(check.details.get("unclipped_gap_bound", 0.0) < 0.0 for check in checks)
    assert negative > 0  # the clipping was needed: some unclipped bounds were negative
