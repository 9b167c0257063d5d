"""AdaptiveTopK (Chen, Chen, Zhang, Zhou 2017, Algorithm 1), its fixed-budget conversion and
the hardness H(t, eps) of their equation (6).

The statistical tests count failures over seeded runs and compare the count with the
``1 - 1e-6`` quantile of a binomial at the claimed level (``binom.isf(1e-6, runs, level)``):
a correct algorithm fails them with probability at most 1e-6 per test, and every one of
them has a negative control (the confidence radius shrunk by passing a smaller noise
scale) that must exceed the same tolerance.
"""

from __future__ import annotations

import math
import tempfile
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

import fullbandit as fb
from fullbandit.analysis.metrics import aggregate_regret
from fullbandit.core.algorithm import Algorithm
from fullbandit.semi import AdaptiveTopK, AdaptiveTopKBudget, exchange_level, hardness
from fullbandit.util.state import StateError
from fullbandit.util.validation import InvalidParameterError

ZETA4 = math.pi ** 4 / 90


def tolerance(runs: int, level: float) -> int:
    """The largest failure count a rule failing with probability ``<= level`` exceeds with probability 1e-6."""
    return int(stats.binom.isf(1e-6, runs, level))


# --- the hardness H(t, eps) -------------------------------------------------------------------


def brute_force_hardness(means: list[float], k: int, epsilon: float) -> tuple[int, float]:
    """``(t, H(t, eps))``: equations (2)-(6) of Chen et al. (2017), transcribed with 1-based dictionaries."""
    theta = dict(enumerate(sorted(means, reverse=True), start=1))
    n = len(means)
    gap = {i: (theta[i] - theta[k + 1] if i <= k else theta[k] - theta[i]) for i in theta}
    t = 0
    for candidate in range(0, k):  # t in {0, ..., K-1}, with arm K+t+1 present
        if k + candidate + 1 > n:
            break
        if gap[k - candidate] * candidate <= k * epsilon and gap[k + candidate + 1] * candidate <= k * epsilon:
            t = candidate
    psi = max(epsilon, min(gap[k - t], gap[k + t + 1]))
    total = 0.0
    for i in range(1, n + 1):
        inverse = math.inf if gap[i] ** 2 == 0 else 1.0 / gap[i] ** 2  # (a tiny gap's square underflows)
        total += min(inverse, 1.0 / psi ** 2)
    return t, total


@pytest.mark.slow
@settings(max_examples=200, deadline=None)
@given(data=st.data())
def test_hardness_matches_brute_force(data):
    n = data.draw(st.integers(3, 12), label="n")
    grid = data.draw(st.booleans(), label="on a grid")  # a coarse grid makes ties and zero gaps common
    value = st.sampled_from([0.0, 0.25, 0.5, 0.75, 1.0]) if grid else st.floats(0.0, 1.0)
    means = data.draw(st.lists(value, min_size=n, max_size=n), label="means")
    k = data.draw(st.integers(1, n - 1), label="k")
    epsilon = data.draw(st.floats(1e-3, 0.5), label="epsilon")
    t, expected = brute_force_hardness(means, k, epsilon)
    assert exchange_level(means, k, epsilon) == t
    assert math.isclose(hardness(means, k, epsilon), expected, rel_tol=1e-9)
    assert hardness(means, k, epsilon) <= n / epsilon ** 2 * (1 + 1e-9)


def test_hardness_uses_the_exchange_level():
    # K = 3, eps = 0.1: gaps Delta = (0.41, 0.21, 0.01, 0.01, 0.2, 0.5). t = 1 (0.21 and 0.2 times 1
    # <= K eps = 0.3; t = 2 fails, 2 * 0.41 > 0.3), Psi_1 = min(Delta_2, Delta_5) = 0.2 > eps, so
    # no term exceeds 1 / 0.2^2 = 25 (with t = 0 the cap would be 1 / eps^2 = 100).
    means = [0.9, 0.7, 0.5, 0.49, 0.3, 0.0]
    assert exchange_level(means, 3, 0.1) == 1
    expected = 1 / 0.41 ** 2 + 1 / 0.21 ** 2 + 3 * 25.0 + 1 / 0.5 ** 2
    assert math.isclose(hardness(means, 3, 0.1), expected, rel_tol=1e-6)
    with pytest.raises(ValueError, match="epsilon"):
        hardness(means, 3, 0.0)
    with pytest.raises(ValueError, match="k="):
        hardness(means, 6, 0.1)


# --- the rule ---------------------------------------------------------------------------------


def test_sample_sizes_are_the_papers_for_rewards_in_unit_interval():
    algorithm = AdaptiveTopK(fb.TopK(10, 3), epsilon=0.1, delta=0.1, noise_scale=0.5)
    for r in range(1, 6):
        assert algorithm.samples_in_round(r) == math.ceil(4 ** r * math.log(2 * 10 * r * r / 0.1) - 1e-9)
    doubled = AdaptiveTopK(fb.TopK(10, 3), epsilon=0.1, delta=0.1, noise_scale=1.0)
    assert doubled.samples_in_round(3) == math.ceil(4 * 4 ** 3 * math.log(2 * 10 * 9 / 0.1) - 1e-9)


def test_missing_noise_scale_is_refused():
    algorithm = AdaptiveTopK(fb.TopK(5, 2), epsilon=0.1)
    with pytest.raises(ValueError, match="noise_scale"):
        algorithm.ask()
    assert not algorithm.is_set_up


def test_stops_exactly_when_the_outer_loop_condition_fails():
    """Every check before the last has ``2 * 2^-r (K - |A|) > eps K``; the last has ``<=``."""
    means = np.linspace(0.9, 0.1, 9)
    k, epsilon = 4, 0.05
    algorithm = AdaptiveTopK(fb.TopK(9, k), epsilon=epsilon * k, delta=0.1)
    checks = []
    result = fb.run(algorithm, fb.GaussianArms(means, sigma=0.5, feedback="semi", seed=3), progress=False,
                    on_check=checks.append)
    assert result.stop_reason == "stopping rule" and result.certified
    for number, check in enumerate(checks, start=1):
        r, places = check.details["round"], k - check.details["accepted"]
        assert r == number and math.isclose(check.gap_bound, 2 * 2.0 ** -r * places)
        assert check.epsilon == pytest.approx(epsilon * k)
        assert (2 * 2.0 ** -r * places <= epsilon * k) == (number == len(checks))
    assert result.pulls == sum(algorithm.samples_in_round(r) * np.count_nonzero(
        (algorithm.decision_rounds == 0) | (algorithm.decision_rounds >= r)) for r in range(1, len(checks) + 1))
    assert result.epsilon_optimal and aggregate_regret(means, result.answer) <= epsilon


def test_all_accepted_stops_with_zero_bound():
    means = np.array([0.9, 0.9, 0.1, 0.1, 0.1])
    result = fb.run(AdaptiveTopK(fb.TopK(5, 2), epsilon=0.0, delta=0.1), fb.BernoulliTeam(means, feedback="semi",
                                                                                         seed=0), progress=False)
    assert result.answer == (0, 1) and result.gap_bound == 0.0 and result.certified


def _told_means(algorithm: AdaptiveTopK, means) -> None:
    """Play one round with hand-made data: every sample of arm i is means[i] (no noise)."""
    checks = algorithm.n_checks
    while algorithm.n_checks == checks:
        pull = algorithm.ask(10 ** 9)
        algorithm.tell(pull, [means[i] * pull.count for i in pull.arms])


def test_accept_reject_thresholds_on_hand_made_data():
    """Lines 6-15: in round r an arm is decided only when its empirical gap exceeds 2 * 2^-r."""
    algorithm = AdaptiveTopK(fb.TopK(5, 2), epsilon=0.0, delta=0.1, noise_scale=0.5)
    # Round 1 (2 * 2^-1 = 1): no gap exceeds 1, nothing is decided.
    _told_means(algorithm, [0.9, 0.6, 0.5, 0.45, 0.0])
    assert algorithm.round == 1 and algorithm.accepted == () and algorithm.rejected == ()
    # Round 2 (threshold 0.5): a = 0.5, b = 0.6. Arm 4's gap 0.6 - 0.0 = 0.6 > 0.5: rejected first;
    # then arm 0's 0.9 - 0.5 = 0.4 and the others' are <= 0.5: undecided. (2^-r = 0.25 would decide 0 too.)
    _told_means(algorithm, [0.9, 0.6, 0.5, 0.45, 0.0])
    assert algorithm.round == 2 and algorithm.accepted == () and algorithm.rejected == (4,)
    # Round 3 (threshold 0.25): arm 0 (gap 0.4) is accepted; then with one place, a = 0.5, b = 0.6:
    # arms 1, 2, 3 have gaps 0.1, 0.1, 0.15, all <= 0.25.
    _told_means(algorithm, [0.9, 0.6, 0.5, 0.45, 0.0])
    assert algorithm.accepted == (0,) and algorithm.rejected == (4,)
    assert algorithm.last_check.gap_bound == pytest.approx(2 * 2.0 ** -3 * 1)
    assert algorithm.recommend() == (0, 1)


def _wrong_decisions(algorithm: AdaptiveTopK, means: np.ndarray) -> bool:
    top = set(np.argsort(-means, kind="stable")[: algorithm.problem.k].tolist())
    return bool(set(algorithm.accepted) - top or set(algorithm.rejected) & top)


# --- (epsilon, delta)-PAC -----------------------------------------------------------------------

#: A hard instance: two best arms at 1/2, the rest a hair beyond the tolerance (one swap costs
#: 0.101 / 2 > epsilon = 0.05), Bernoulli rewards.
HAIR = np.array([0.5, 0.5, 0.399, 0.399, 0.399, 0.399])


def pac_failures(means, k, epsilon, delta, runs, scale_divisor=1.0, seed=0) -> tuple[int, int]:
    """(regret failures, runs with a wrong accept/reject) over seeded Bernoulli runs."""
    failures = wrong = 0
    for run in range(runs):
        environment = fb.BernoulliTeam(means, feedback="semi", seed=seed + run)
        algorithm = AdaptiveTopK(fb.TopK(len(means), k), epsilon=epsilon * k, delta=delta,
                                 noise_scale=0.5 / scale_divisor)
        result = fb.run(algorithm, environment, progress=False)
        failures += aggregate_regret(means, result.answer) > epsilon
        wrong += _wrong_decisions(algorithm, means)
    return failures, wrong


@pytest.mark.slow
def test_pac_on_a_hard_instance():
    """P(aggregate regret > eps) <= delta: 300 runs, delta = 0.1, at most binom.isf(1e-6, 300, 0.1) = 57 failures."""
    runs, delta = 300, 0.1
    failures, wrong = pac_failures(HAIR, 2, 0.05, delta, runs)
    assert failures <= tolerance(runs, delta) and wrong <= tolerance(runs, delta)


@pytest.mark.slow
def test_pac_negative_control_fails():
    """The radius shrunk (the noise scale divided by 8, 64 times fewer samples) fails the same test.

    (Divided by 3 or 4 it does not: the rule's slack is large, see test_confidence_event.)
    """
    runs, delta = 300, 0.1
    failures, _ = pac_failures(HAIR, 2, 0.05, delta, runs, scale_divisor=8.0)
    assert failures > tolerance(runs, delta)


def event_failures(sigma: float, scale_divisor: float, delta: float, runs: int, seed: int = 0) -> int:
    """Runs in which the event E of Chen et al. (Definition 2) fails: after some round r an arm of
    S_r has |mu_i - theta_i| >= 2^-r. Gaussian arms of scale sigma (the sub-Gaussian generalisation)."""
    means = HAIR
    failed = 0
    for run in range(runs):
        algorithm = AdaptiveTopK(fb.TopK(len(means), 2), epsilon=0.05 * 2, delta=delta,
                                 noise_scale=sigma / scale_divisor)
        violated = []

        def on_check(check, algorithm=algorithm, violated=violated):
            r = check.details["round"]
            rounds = algorithm.decision_rounds
            in_round = (rounds == 0) | (rounds >= r)
            deviation = np.abs(algorithm.means() - means)[in_round]
            violated.append(bool(np.any(deviation >= 2.0 ** -r)))

        fb.run(algorithm, fb.GaussianArms(means, sigma=sigma, feedback="semi", seed=seed + run), progress=False,
               on_check=on_check)
        failed += any(violated)
    return failed


@pytest.mark.slow
def test_confidence_event():
    """Claim 1, at the level its proof actually gives: the union bound of 2 (delta / (2 n r^2))^2
    over the arms and rounds is zeta(4) delta^2 / (2n) (0.0225 for delta = 0.5, n = 6). Gaussian
    arms with sigma = 1.5 (the sub-Gaussian scale in place of [0, 1] rewards). The negative
    controls (scale divided by 2 and by 3) must exceed the same tolerance."""
    runs, delta, sigma = 300, 0.5, 1.5
    level = ZETA4 * delta ** 2 / (2 * len(HAIR))
    assert event_failures(sigma, 1.0, delta, runs) <= tolerance(runs, level)
    for divisor in (2.0, 3.0):
        assert event_failures(sigma, divisor, delta, runs, seed=10_000) > tolerance(runs, level), divisor


@pytest.mark.slow
def test_pac_many_runs():
    """3000 runs of the hard instance, delta = 0.1; and a second hard instance (K = 4, n = 8)."""
    runs, delta = 3000, 0.1
    failures, wrong = pac_failures(HAIR, 2, 0.05, delta, runs, seed=1)
    assert failures <= tolerance(runs, delta) and wrong <= tolerance(runs, delta)
    failures, wrong = pac_failures(np.array([0.55] * 4 + [0.45] * 4), 4, 0.02, delta, runs, seed=2)
    assert failures <= tolerance(runs, delta) and wrong <= tolerance(runs, delta)
    failures, _ = pac_failures(HAIR, 2, 0.05, delta, runs, scale_divisor=8.0, seed=3)
    assert failures > tolerance(runs, delta)
    runs = 2000
    level = ZETA4 * 0.5 ** 2 / (2 * len(HAIR))
    assert event_failures(1.5, 1.0, 0.5, runs, seed=4) <= tolerance(runs, level)


# --- sample complexity ---------------------------------------------------------------------------


def test_fewer_samples_on_a_wide_gap():
    """TWOGROUP (0.7 / 0.3, n = 20, K = 5, eps = 0.01, delta = 0.05): far fewer samples than
    uniform sampling needs for the same guarantee (every mean within eps/2 by Hoeffding and a
    union bound: 2 ln(2n/delta) / eps^2 samples per arm), and than on the UNIFORM instance."""
    n, k, epsilon, delta = 20, 5, 0.01, 0.05
    uniform_needs = n * math.ceil(2 * math.log(2 * n / delta) / epsilon ** 2)
    two_group = np.array([0.7] * k + [0.3] * (n - k))
    spread = 1 - np.arange(1, n + 1) / n
    pulls = {}
    for name, means in {"two-group": two_group, "uniform": spread}.items():
        result = fb.run(AdaptiveTopK(fb.TopK(n, k), epsilon=epsilon * k, delta=delta),
                        fb.BernoulliTeam(means, feedback="semi", seed=5), progress=False)
        assert result.certified and aggregate_regret(means, result.answer) <= epsilon
        pulls[name] = result.pulls
    assert pulls["two-group"] * 20 < uniform_needs
    assert pulls["two-group"] * 5 < pulls["uniform"]
    assert hardness(two_group, k, epsilon) * 5 < hardness(spread, k, epsilon)


# --- saved state ----------------------------------------------------------------------------------


def _drive(algorithm, environment, max_count, until=None):
    while not algorithm.done and (until is None or algorithm.n_pulls < until):
        pull = algorithm.ask(max_count)
        algorithm.tell(pull, environment.pull(pull.arms, count=pull.count))


@pytest.mark.slow
@pytest.mark.parametrize("cls", [AdaptiveTopK, AdaptiveTopKBudget])
def test_save_and_load_mid_run_resumes_to_the_same_result(cls):
    means = np.linspace(0.8, 0.2, 10)
    options = {"epsilon": 0.05} if cls is AdaptiveTopK else {"budget": 30_000}
    make = lambda: cls(fb.TopK(10, 4), delta=0.1, noise_scale=0.5, seed=0, **options)  # noqa: E731
    reference = make()
    _drive(reference, fb.GaussianArms(means, sigma=0.5, feedback="semi", seed=9), max_count=37)
    assert reference.round >= 3
    for fraction in (0.1, 0.5, 0.9):
        algorithm, environment = make(), fb.GaussianArms(means, sigma=0.5, feedback="semi", seed=9)
        _drive(algorithm, environment, max_count=37, until=int(fraction * reference.n_pulls))
        outstanding = algorithm.ask(37)
        with tempfile.TemporaryDirectory() as folder:
            path = Path(folder) / "state.json"
            algorithm.save(path)
            resumed = Algorithm.load(path)
        assert isinstance(resumed, cls) and resumed.get_state() == algorithm.get_state()
        resumed.tell(outstanding, environment.pull(outstanding.arms, count=outstanding.count))
        _drive(resumed, environment, max_count=37)
        assert resumed.result().as_dict() == reference.result().as_dict()
        assert resumed.accepted == reference.accepted and resumed.rejected == reference.rejected


def test_corrupted_decisions_are_refused(tmp_path):
    algorithm = AdaptiveTopK(fb.TopK(6, 2), epsilon=0.05, delta=0.1, noise_scale=0.5)
    _drive(algorithm, fb.GaussianArms(HAIR, sigma=0.5, feedback="semi", seed=1), max_count=1000, until=2000)
    state = algorithm.get_state()
    state["summary"]["checks"] += 1
    with pytest.raises(StateError, match="summary.checks"):
        Algorithm.from_state(state)


# --- the fixed-budget conversion ----------------------------------------------------------------------


def test_fixed_budget_spends_the_budget_and_answers():
    means = 1 - np.arange(1, 31) / 30
    algorithm = AdaptiveTopKBudget(fb.TopK(30, 10), budget=20_000)
    result = fb.run(algorithm, fb.BernoulliTeam(means, feedback="semi", seed=4), progress=False)
    assert result.pulls == 20_000 and result.stop_reason == "budget exhausted"
    assert result.guarantee == "fixed-budget" and not result.certified and len(result.answer) == 10
    assert aggregate_regret(means, result.answer) < 0.05


def test_a_budget_below_the_first_round_is_shared_evenly_and_not_by_arm_index():
    # Round 1 asks m_1 = ceil(4 ln(2 * 30 / 0.01)) = 35 samples of each of the 30 arms (R = 1/2); a budget
    # one short of that is cut evenly: 29 arms sampled 35 times and one, drawn by the seeded generator, 34
    # times. Handed out in index order (this layer's old rule) the last arm would get 34 and, with a
    # smaller budget, the last arms none.
    means = 1 - np.arange(1, 31) / 30
    short_arms = set()
    for seed in range(8):
        algorithm = AdaptiveTopKBudget(fb.TopK(30, 10), budget=30 * 35 - 1, seed=seed)
        result = fb.run(algorithm, fb.BernoulliTeam(means, feedback="semi", seed=seed), progress=False)
        assert result.pulls == 30 * 35 - 1 and result.stop_reason == "budget exhausted"
        assert sorted(algorithm.samples.tolist()) == [34] + [35] * 29 and algorithm.round_cut
        short_arms.add(int(np.argmin(algorithm.samples)))
        # The cut round decides nothing: the answer is line 16's, the 10 best empirical means.
        assert algorithm.accepted == () and algorithm.rejected == ()
        assert result.answer == tuple(sorted(np.argsort(-algorithm.means(), kind="stable")[:10].tolist()))
    assert len(short_arms) > 1  # not always the same (last) arm


@pytest.mark.parametrize("budget", [1, 29])
def test_fixed_budget_refuses_a_budget_that_cannot_sample_every_arm(budget):
    means = 1 - np.arange(1, 31) / 30
    algorithm = AdaptiveTopKBudget(fb.TopK(30, 10), budget=budget)
    assert algorithm.minimum_budget() == 30
    with pytest.raises(InvalidParameterError, match=rf"AdaptiveTopKBudget: budget={budget} must be at least 30 "
                                                    r"\(n = 30: one sample of each"):
        fb.run(algorithm, fb.BernoulliTeam(means, feedback="semi", seed=4), progress=False)
    assert not algorithm.is_set_up and algorithm.budget == budget
    enough = fb.run(AdaptiveTopKBudget(fb.TopK(30, 10), budget=30), fb.BernoulliTeam(means, feedback="semi", seed=4),
                    progress=False)
    assert enough.pulls == 30 and len(enough.answer) == 10


def test_a_round_cut_to_the_budget_certifies_nothing():
    # Arms of mean 1 and 0 without noise: AdaptiveTopK accepts and rejects every arm after round 2 (round 1's
    # threshold 2 * 2^-1 = 1 equals the empirical gaps) and stops certified. Its rule needs m_2 samples of
    # every arm; a budget one sample short cuts round 2, and the run must end at the budget with no claim.
    def run(budget):
        return fb.run(AdaptiveTopK(fb.TopK(6, 2), epsilon=0.0, delta=0.1, noise_scale=0.5, budget=budget),
                      fb.BernoulliTeam([1, 1, 0, 0, 0, 0], feedback="semi", seed=0), progress=False)

    m = AdaptiveTopK(fb.TopK(6, 2), epsilon=0.0, delta=0.1, noise_scale=0.5).samples_in_round
    full = run(6 * (m(1) + m(2)))
    assert full.certified and full.pulls == 6 * (m(1) + m(2))  # the control: two full rounds certify
    cut = run(6 * (m(1) + m(2)) - 1)
    assert cut.stop_reason == "budget exhausted" and not cut.certified and cut.gap_bound == math.inf
    assert cut.answer == (0, 1)


def test_fixed_budget_stops_early_once_k_arms_are_accepted():
    means = np.array([0.7] * 3 + [0.3] * 7)
    result = fb.run(AdaptiveTopKBudget(fb.TopK(10, 3), budget=10 ** 6), fb.BernoulliTeam(means, feedback="semi",
                                                                                         seed=1), progress=False)
    assert result.answer == (0, 1, 2) and result.stop_reason == "stopping rule" and result.pulls < 10 ** 5
    assert fb.registry.get("adaptive-topk-budget").setting == "fixed-budget"
    assert fb.registry.get("adaptive-topk").guarantee == "certified"
