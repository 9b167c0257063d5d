"""SAR and Uniform (per-arm, fixed budget): against a direct simulation of the published rule,
budgets, the round protocol of PerArmRounds, and saved state."""

from __future__ import annotations

import math

import numpy as np
import pytest

import fullbandit as fb
from fullbandit.environments.models import Environment
from fullbandit.semi import SAR, Uniform
from fullbandit.semi.sar import sar_phase_lengths
from fullbandit.util.validation import InvalidParameterError


class Streams(Environment):
    """Per-arm reward streams drawn in advance: the i-th sample of an arm is the same whoever asks."""

    def __init__(self, streams: np.ndarray):
        super().__init__(streams.mean(axis=1), feedback="semi", seed=0)
        self.streams = streams
        self.used = np.zeros(streams.shape[0], dtype=int)

    def noise_scales(self, k):
        return 0.5, 0.5 * math.sqrt(k)

    def member_rewards(self, arms, count):
        totals = np.array([self.streams[i, self.used[i]:self.used[i] + count].sum() for i in arms])
        self.used[arms] += count
        return totals


def direct_sar(streams: np.ndarray, k: int, budget: int) -> tuple[tuple[int, ...], np.ndarray]:
    """SAR as published (Bubeck et al. 2013, Algorithm 3), one arm and one sample at a time,
    with the choices fullbandit.semi.SAR documents (equal means ordered by index, equal
    gaps to the lowest-ranked arm, the last phase takes what the ceilings left)."""
    n = streams.shape[0]
    logbar = 0.5 + sum(1.0 / i for i in range(2, n + 1))
    active, accepted, pulled = list(range(n)), [], np.zeros(n, dtype=int)
    for phase in range(1, n):
        wanted = k - len(accepted)
        if wanted in (0, len(active)):
            break
        target = math.ceil((budget - n) / (logbar * (n + 1 - phase)))
        if phase == n - 1:
            target = max(pulled[i] for i in active) + (budget - pulled.sum()) // len(active)
        for arm in active:
            while pulled[arm] < target:
                pulled[arm] += 1
        means = {arm: streams[arm, :pulled[arm]].mean() for arm in active}
        order = sorted(active, key=lambda i: (-means[i], i))
        gaps = [means[a] - means[order[wanted]] if r < wanted else means[order[wanted - 1]] - means[a]
                for r, a in enumerate(order)]
        best_gap = max(gaps)
        rank = max(r for r, gap in enumerate(gaps) if gap == best_gap)  # ties: the lowest-ranked arm
        leaving = order[rank]
        if means[leaving] > means[order[wanted]]:  # accept only if strictly above the (m+1)-th mean
            accepted.append(leaving)
        active.remove(leaving)
    wanted = k - len(accepted)
    means = {arm: streams[arm, :pulled[arm]].mean() for arm in active}
    rest = sorted(sorted(active, key=lambda i: (-means[i], i))[:wanted])
    return tuple(sorted(accepted + rest)), pulled


@pytest.mark.parametrize("n, k, budget, seed", [(6, 2, 600, 0), (10, 3, 2000, 1), (10, 7, 1500, 2),
                                                (8, 1, 400, 3), (12, 6, 5000, 4)])
def test_sar_matches_a_direct_simulation_of_the_published_rule(n, k, budget, seed):
    rng = np.random.default_rng(seed)
    means = rng.uniform(0.2, 0.8, n)
    streams = (rng.random((n, budget)) < means[:, None]).astype(float)
    expected_answer, expected_samples = direct_sar(streams, k, budget)
    result = fb.run(SAR(fb.TopK(n, k), budget=budget), Streams(streams), progress=False)
    environment_used = result.constants["max_samples_per_arm"]
    assert result.answer == expected_answer
    assert result.pulls == expected_samples.sum() <= budget
    assert environment_used == expected_samples.max()


def test_sar_phases_use_at_most_the_budget_and_nearly_all_of_it():
    for n in range(2, 40):
        for budget in (n + 1, 2 * n, 10 * n, 97 * n + 3):
            lengths = sar_phase_lengths(n, budget)
            used = sum(lengths) + lengths[-1]  # phase k samples n + 1 - k arms up to n_k
            assert used <= budget


@pytest.mark.parametrize("n, k, budget", [(5, 2, 203), (9, 4, 1000), (7, 3, 7)])
def test_uniform_splits_the_budget_evenly(n, k, budget):
    environment = fb.GaussianArms(np.linspace(0, 1, n), sigma=0.2, feedback="semi", seed=1)
    algorithm = Uniform(fb.TopK(n, k), budget=budget, seed=0)
    result = fb.run(algorithm, environment, progress=False)
    assert result.pulls == budget and str(result.stop_reason) == "budget exhausted"
    assert algorithm.samples.max() - algorithm.samples.min() <= 1
    means = algorithm.means()
    assert result.answer == tuple(sorted(np.argsort(-means, kind="stable")[:k]))


@pytest.mark.slow
def test_sar_misidentification_falls_with_the_budget():
    # Two top arms 0.1 above the rest (Bernoulli), 60 seeded runs per budget: a budget of
    # n + 1 (one sample per phase) errs in most runs, 1,500 samples in some, 20,000 (about
    # 2,500 per arm: the gap is 10 standard errors) in almost none.
    means = np.array([0.6, 0.6, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5])
    errors = {}
    for budget in (9, 1500, 20000):
        wrong = 0
        for seed in range(60):
            environment = fb.BernoulliTeam(means, feedback="semi", seed=seed)
            result = fb.run(SAR(fb.TopK(8, 2), budget=budget, seed=seed), environment, progress=False)
            wrong += result.answer != (0, 1)
        errors[budget] = wrong
    assert errors[20000] <= 2 < errors[1500] < errors[9]


def test_a_round_is_planned_only_once_the_previous_one_is_told():
    algorithm = SAR(fb.TopK(4, 2), budget=100)
    environment = fb.GaussianArms([0.9, 0.8, 0.1, 0.0], sigma=0.1, feedback="semi", seed=0)
    first = algorithm.ask(max_count=1 << 20)  # the whole first phase: every arm 16 times
    assert first.arms == (0, 1, 2, 3) and first.count == 16 and algorithm.cost(first) == 64
    with pytest.raises(fb.ProtocolError, match="round 1"):
        algorithm.ask(max_count=1 << 20)
    algorithm.tell(first, environment.pull(first.arms, count=first.count))
    second = algorithm.ask(max_count=1 << 20)
    assert len(second.arms) == 3  # one arm left the active set


def test_save_and_load_between_phases_resume_exactly(tmp_path):
    means = np.array([0.7, 0.6, 0.55, 0.5, 0.4, 0.3])
    algorithm = SAR(fb.TopK(6, 3), budget=3000)
    environment = fb.BernoulliTeam(means, feedback="semi", seed=5)
    for _ in range(2):
        pull = algorithm.ask(max_count=50)
        algorithm.tell(pull, environment.pull(pull.arms, count=pull.count))
    pending = algorithm.ask(max_count=50)
    algorithm.save(tmp_path / "sar.json")
    copy = fb.load(tmp_path / "sar.json")
    results = []
    for run in (algorithm, copy):
        replay = fb.BernoulliTeam(means, feedback="semi", seed=9)
        run.tell(pending, replay.pull(pending.arms, count=pending.count))
        results.append(fb.run(run, replay, progress=False))
    assert results[0].answer == results[1].answer and results[0].pulls == results[1].pulls
    assert results[0].constants == results[1].constants


@pytest.mark.parametrize("make, floor", [(lambda budget: SAR(fb.TopK(8, 3), budget=budget), 9),
                                         (lambda budget: Uniform(fb.TopK(8, 3), budget=budget, seed=0), 8)])
def test_a_budget_below_the_schedules_floor_is_refused_before_any_sample(make, floor):
    # SAR's first phase gives each arm ceil((T - n) / (logbar(n) n)) samples: none unless T > n; Uniform
    # gives floor(T / n). Below that the "team" would be picked among arms never sampled.
    for budget in (1, floor - 1):
        algorithm = make(budget)
        with pytest.raises(InvalidParameterError, match=rf"budget={budget} must be at least {floor} \(.*n=8 arms"):
            fb.run(algorithm, fb.BernoulliTeam(np.linspace(0.1, 0.9, 8), feedback="semi", seed=0), progress=False)
        assert not algorithm.is_set_up and algorithm.budget == budget
    assert make(floor).minimum_budget() == floor
    result = fb.run(make(floor), fb.BernoulliTeam(np.linspace(0.1, 0.9, 8), feedback="semi", seed=0), progress=False)
    assert 0 < result.pulls <= floor
