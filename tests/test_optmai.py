"""OptMAI (Zhou, Chen, Li 2014, Algorithms 1-3): budget, samples per arm, the published rule, statistics, resume.

The conformance suite runs on the registered entry in ``test_conformance.py`` (``-k optmai``).
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

import fullbandit as fb
from fullbandit.analysis.metrics import aggregate_regret
from fullbandit.core import registry
from fullbandit.core.algorithm import Algorithm
from fullbandit.semi import OptMAI
from fullbandit.semi.optmai import PAPER_BETA
from fullbandit.util.validation import InvalidParameterError

BETAS = (0.76, 0.8, 0.9, PAPER_BETA, 0.99)


# --- helpers -------------------------------------------------------------------------------
def drive(algorithm: Algorithm, streams: np.ndarray, max_counts=(1 << 30,), until: int | None = None,
          positions: np.ndarray | None = None) -> np.ndarray:
    """Ask/tell against fixed per-arm reward streams (arm i's j-th sample is ``streams[i, j]``).

    ``max_counts`` cycles through the block sizes offered; returns the read positions.
    """
    positions = np.zeros(streams.shape[0], dtype=np.int64) if positions is None else positions
    step = 0
    while not algorithm.done and (until is None or algorithm.n_pulls < until):
        pull = algorithm.ask(max_counts[step % len(max_counts)])
        step += 1
        rewards = []
        for arm in pull.arms:
            rewards.append(float(streams[arm, positions[arm]:positions[arm] + pull.count].sum()))
            positions[arm] += pull.count
        algorithm.tell(pull, rewards)
    return positions


def set_sizes(n: int, k: int) -> list[int]:
    """The active-set sizes the rules imply: QE keeps ``m - floor(m/4)`` while ``m >= 4k``, AR ``floor(3m/4)``."""
    sizes, m = [], n
    while m > 0:
        sizes.append(m)
        m = m - m // 4 if m >= 4 * k else (3 * m) // 4
    return sizes


def theorem_43_bound(n: int, k: int, budget: float, beta: float) -> int:
    """Most samples any arm can get from the rounds (the proof of Theorem 4.3, with this rounding).

    Round ``r`` gives each of its ``|S_r|`` arms the share ``beta^r (1 - beta) Q / |S_r|``
    (Algorithms 2 and 3, line 2), here rounded with the carry of earlier rounds: at most
    ``max(1, floor(share + |S_(r-1)| / |S_r|))``. An arm is sampled only while active, so its
    total is at most the sum over the rounds. With ``|S_r| ~ (3/4)^r n`` this is
    ``(1 - beta) (Q / n) sum_r (4 beta / 3)^r = O(Q / n^0.3)`` for ``beta <= e^0.2 * 3/4``
    (``r <= log_{4/3} n`` rounds).
    """
    sizes = set_sizes(n, k)
    return sum(max(1, math.floor(beta ** r * (1 - beta) * budget / m + (sizes[r - 1] / m if r else 0.0) + 1e-9))
               for r, m in enumerate(sizes))


def planning_budget(budget: int, beta: float, n: int, adjusted: bool) -> float:
    return budget / (1 - beta ** (math.log(n) / math.log(4 / 3))) if adjusted else float(budget)


def random_configurations(count: int, seed: int):
    rng = np.random.default_rng(seed)
    for _ in range(count):
        n = int(rng.choice([2, 3, 5, 8, 12, 23, 40, 97, 150]))
        k = int(rng.integers(1, n))
        budget = int(rng.choice([1, 2, n - 1, n, 3 * n, 10 * n, 20 * n + 7, 50 * n]))
        yield (n, k, max(budget, n), float(rng.choice(BETAS)), bool(rng.integers(2)), bool(rng.integers(2)),
               int(rng.integers(1 << 30)))


# --- registry, tags ------------------------------------------------------------------------
def test_registered_with_its_tags():
    spec = registry.get("optmai")
    assert spec.cls is OptMAI and spec.feedback == "semi" and spec.setting == "fixed-budget"
    assert spec.guarantee == "fixed-budget" and spec.decision_classes == (fb.TopK,)
    assert set(spec.options) == {"budget", "beta", "adjusted_budget", "reuse_samples", "seed"}


# --- budget --------------------------------------------------------------------------------
@pytest.mark.slow
@pytest.mark.parametrize("chunk", range(3))
def test_never_exceeds_the_budget(chunk):
    """Over 300 random (n, K, Q, beta, options, seed): rounds + padding spend exactly Q, the rounds at most Q."""
    for n, k, budget, beta, adjusted, reuse, seed in random_configurations(100, seed=chunk):
        rng = np.random.default_rng(seed)
        streams = (rng.random((n, budget + 1)) < rng.random((n, 1))).astype(float)  # Bernoulli: many ties
        algorithm = OptMAI(fb.TopK(n, k), budget=budget, beta=beta, adjusted_budget=adjusted,
                           reuse_samples=reuse, seed=seed)
        drive(algorithm, streams, max_counts=(1 << 30, 3, 1))
        where = (n, k, budget, beta, adjusted, reuse, seed)
        assert algorithm.done and algorithm.n_pulls == budget, where
        assert str(algorithm.stop_reason) == "budget exhausted", where
        assert algorithm.samples_used <= budget, where
        assert algorithm.samples_used + int(algorithm.padding.sum()) == budget, where
        sizes, quotas = algorithm.round_sizes, algorithm.round_quotas
        assert sum(s * q for s, q in zip(sizes, quotas, strict=True)) == algorithm.samples_used, where
        assert sizes == set_sizes(n, k)[: len(sizes)], where  # the sets shrink exactly as the rules say
        assert len(algorithm.result().answer) == k, where


def test_adjusted_budget_spends_close_to_q():
    """With ``adjusted_budget`` the rounds spend ``(1 - beta^R) Q'`` up to the last round's rounding.

    Tolerance: ``(1 - beta^R) Q' - |S_(R-1)| <= used <= Q``, ``R`` the rounds actually run
    (so ``used >= Q (1 - beta^R) / (1 - beta^(ln n / ln(4/3))) - |S_(R-1)|``); in the paper's
    regime (n = 1000, Q = 20n, 50n) that is at least 0.99 Q for beta = 0.8 and 0.96 Q for
    beta = 0.9 (21 rounds, against ln n / ln(4/3) = 24).
    """
    for n, k, budget, beta, _, reuse, seed in random_configurations(150, seed=10):
        rng = np.random.default_rng(seed)
        streams = rng.normal(0.5, 0.3, size=(n, 2 * budget + 1))
        algorithm = OptMAI(fb.TopK(n, k), budget=budget, beta=beta, adjusted_budget=True, reuse_samples=reuse,
                           seed=seed)
        drive(algorithm, streams)
        rounds, used = len(algorithm.round_sizes), algorithm.samples_used
        if rounds == 0 or algorithm.result().constants["forced_decision"]:
            continue  # the budget ran out before the rule settled: no spend to compare
        target = (1 - beta ** rounds) * planning_budget(budget, beta, n, True)
        assert min(target, budget) - algorithm.round_sizes[-1] <= used <= budget, (n, k, budget, beta, seed)
    means = np.random.default_rng(0).uniform(size=1000)
    for beta, least in ((0.8, 0.99), (0.9, 0.96)):
        for factor in (20, 50):
            algorithm = OptMAI(fb.TopK(1000, 10), budget=factor * 1000, beta=beta, adjusted_budget=True, seed=0)
            fb.run(algorithm, fb.BernoulliTeam(means, feedback="semi", seed=1), progress=False)
            plain = OptMAI(fb.TopK(1000, 10), budget=factor * 1000, beta=beta, seed=0)
            fb.run(plain, fb.BernoulliTeam(means, feedback="semi", seed=1), progress=False)
            assert least * factor * 1000 <= algorithm.samples_used <= factor * 1000
            assert algorithm.samples_used > plain.samples_used


# --- Theorem 4.3: samples per arm ------------------------------------------------------------
def test_samples_per_arm_within_theorem_43():
    """Over 200 runs: every arm's round samples are within :func:`theorem_43_bound`, and the bound is O(Q/n^0.3)."""
    for n, k, budget, beta, adjusted, reuse, seed in random_configurations(200, seed=20):
        rng = np.random.default_rng(seed)
        streams = (rng.random((n, 2 * budget + 1)) < np.linspace(0.05, 0.95, n)[:, None]).astype(float)
        algorithm = OptMAI(fb.TopK(n, k), budget=budget, beta=beta, adjusted_budget=adjusted, reuse_samples=reuse,
                           seed=seed)
        drive(algorithm, streams)
        per_arm = algorithm.samples - algorithm.padding
        bound = theorem_43_bound(n, k, planning_budget(budget, beta, n, adjusted), beta)
        assert per_arm.max() <= bound, (n, k, budget, beta, adjusted, seed, per_arm.max(), bound)
    # The theorem's rate: with the paper's beta the bound is below 0.4 Q / n^0.3 for n up to 10^6, any K.
    for n in (10, 100, 1000, 10 ** 4, 10 ** 5, 10 ** 6):
        for k in sorted({1, 2, 10, n // 10, n // 4, n // 2} - {0}):
            assert theorem_43_bound(n, k, 100 * n, PAPER_BETA) <= 0.4 * 100 * n / n ** 0.3, (n, k)


def test_theorem_43_bound_is_tight_enough_to_fail():
    """Negative control: a run that gives every round's budget to the first active arm breaks the bound."""

    class Greedy(OptMAI):
        def _plan_round(self):
            plan = super()._plan_round()
            if self._stage in ("qe", "ar"):
                total = int(plan.sum())
                plan[:] = 0
                plan[self._active[0]] = total
            return plan

    n, k, budget, beta = 40, 5, 4000, 0.8
    algorithm = Greedy(fb.TopK(n, k), budget=budget, beta=beta, seed=0)
    streams = np.random.default_rng(0).random((n, 2 * budget)).round()
    drive(algorithm, streams)
    assert (algorithm.samples - algorithm.padding).max() > theorem_43_bound(n, k, budget, beta)


# --- the published rule, simulated independently ------------------------------------------------
def reference_optmai(streams: np.ndarray, k: int, budget: int, beta: float, seed: int, adjusted: bool,
                     reuse: bool) -> tuple[tuple[int, ...], np.ndarray]:
    """Algorithms 1-3 as a plain loop, with the completions the class documents (rounding with carry,
    exact quarters, rank-based acceptance, random keys for ties, forced decision, padding)."""
    n = streams.shape[0]
    rng = np.random.default_rng(seed)
    keys = dict(enumerate(rng.random(n)))
    big_q = budget / (1 - beta ** (math.log(n) / math.log(4 / 3))) if adjusted else budget
    counts, totals, position = [0] * n, [0.0] * n, [0] * n
    active, accepted, used, r = list(range(n)), [], 0, 0
    while True:
        if len(accepted) >= k:
            answer = accepted
            break
        if len(active) <= k - len(accepted):
            answer = accepted + active
            break
        size = len(active)
        quota = max(1, math.floor(((1 - beta ** (r + 1)) * big_q - used) / size + 1e-9))
        quota = min(quota, (budget - used) // size)
        if quota == 0:  # forced: the K' best active arms over all their samples
            def score(i):
                return (-(totals[i] / counts[i]) if counts[i] else math.inf, keys[i])
            answer = accepted + sorted(active, key=score)[: k - len(accepted)]
            break
        for i, key in zip(active, rng.random(size), strict=True):
            keys[i] = key
        estimate = {}
        for i in active:
            draw = streams[i, position[i]:position[i] + quota]
            position[i] += quota
            counts[i] += quota
            totals[i] += float(draw.sum())
            estimate[i] = totals[i] / counts[i] if reuse else float(draw.sum()) / quota
        used += quota * size
        if size >= 4 * k:  # Quartile-Elimination: drop the quarter with the lowest estimates
            dropped = set(sorted(active, key=lambda i: (estimate[i], keys[i]))[: size // 4])
            active = [i for i in active if i not in dropped]
        else:  # Accept-Reject
            places = k - len(accepted)
            ranked = sorted(active, key=lambda i: (-estimate[i], keys[i]))
            top_places = set(ranked[:places])
            upper, lower = estimate[ranked[places - 1]], estimate[ranked[places]]
            gap = {i: max(estimate[i] - lower, upper - estimate[i]) for i in active}
            remaining = list(active)
            for a in sorted(active, key=lambda i: (-gap[i], keys[i])):
                if len(accepted) >= k or len(remaining) <= 3 * size / 4:
                    break
                remaining.remove(a)
                if a in top_places:
                    accepted.append(a)
            active = remaining
        r += 1
    rest = budget - used
    padded = np.array(counts) + rest // n + (np.arange(n) < rest % n)
    return tuple(sorted(answer)), padded


@pytest.mark.slow
@pytest.mark.parametrize("kind", ["bernoulli", "dyadic-gaussian"])
def test_matches_an_independent_simulation(kind):
    """Same answer and samples per arm as the plain loop, on fixed per-arm reward streams.

    Bernoulli streams tie often (the keys decide); the Gaussian ones are rounded to 1/64 so
    that sums are exact in both implementations.
    """
    rng = np.random.default_rng(5)
    cases = [(40, 5, 4000), (40, 5, 900), (37, 9, 2000), (12, 1, 600), (8, 3, 50), (23, 11, 400), (6, 2, 157),
             (150, 10, 3000), (10, 9, 200), (30, 4, 30)]
    checked = 0
    for n, k, budget in cases:
        means = rng.uniform(0.1, 0.9, size=n)
        for beta in (0.8, PAPER_BETA):
            for adjusted in (False, True):
                for reuse in (False, True):
                    if kind == "bernoulli":
                        streams = (rng.random((n, 2 * budget + 1)) < means[:, None]).astype(float)
                    else:
                        streams = np.round(rng.normal(means[:, None], 0.5, size=(n, 2 * budget + 1)) * 64) / 64
                    seed = int(rng.integers(1 << 30))
                    algorithm = OptMAI(fb.TopK(n, k), budget=budget, beta=beta, adjusted_budget=adjusted,
                                       reuse_samples=reuse, seed=seed)
                    drive(algorithm, streams, max_counts=(1 << 30, 7, 1, 64))
                    answer, per_arm = reference_optmai(streams, k, budget, beta, seed, adjusted, reuse)
                    where = (n, k, budget, beta, adjusted, reuse)
                    assert algorithm.result().answer == answer, where
                    assert algorithm.samples.tolist() == per_arm.tolist(), where
                    checked += 1
    assert checked == 80


def test_the_simulation_comparison_can_fail():
    """Negative control: a variant that estimates from all samples despite ``reuse_samples=False``
    disagrees with the plain loop (answer or samples per arm) on some of these instances."""

    class AlwaysReuses(OptMAI):
        def _round_means(self):
            arms = self._active
            return self.sums[arms] / self.samples[arms]

    rng = np.random.default_rng(6)
    disagreements = 0
    for n, k, budget in ((40, 5, 900), (37, 9, 2000), (23, 11, 400), (150, 10, 3000)):
        means = rng.uniform(0.3, 0.7, size=n)
        streams = (rng.random((n, 2 * budget + 1)) < means[:, None]).astype(float)
        algorithm = AlwaysReuses(fb.TopK(n, k), budget=budget, seed=1)
        drive(algorithm, streams)
        answer, per_arm = reference_optmai(streams, k, budget, 0.8, 1, False, False)
        disagreements += algorithm.result().answer != answer or algorithm.samples.tolist() != per_arm.tolist()
    assert disagreements >= 2


# --- statistics ----------------------------------------------------------------------------
EASY_MEANS = np.r_[np.full(5, 0.9), np.full(35, 0.1)]


def success_rate(budget: int, runs: int, cls=OptMAI, **parameters) -> float:
    wins = 0
    for seed in range(runs):
        algorithm = cls(fb.TopK(40, 5), budget=budget, seed=seed, **parameters)
        result = fb.run(algorithm, fb.BernoulliTeam(EASY_MEANS, feedback="semi", seed=10_000 + seed), progress=False)
        wins += aggregate_regret(EASY_MEANS, result.answer) <= 0.05
    return wins / runs


@pytest.mark.slow
def test_easy_instance_has_small_regret():
    """5 Bernoulli arms at 0.9, 35 at 0.1, Q = 2000 = 50 n: regret <= 0.05 in at least 195 of N = 200 runs.

    (A mistake costs 0.16, so regret <= 0.05 means the exact top 5; measured: 200 of 200.)
    """
    assert success_rate(2000, 200) >= 0.975
    assert success_rate(2000, 100, beta=0.9, adjusted_budget=True, reuse_samples=True) >= 0.97


def test_negative_controls_fail():
    """A budget far too small (Q = n: one sample per arm, then a forced decision), and an
    elimination rule that keeps the worst arms, both fail on the easy instance."""
    assert success_rate(40, 200) <= 0.2  # measured 0.045

    class Inverted(OptMAI):  # ranks by minus the means: QE drops the best, AR accepts the worst
        def _round_means(self):
            return -super()._round_means()

    assert success_rate(2000, 50, cls=Inverted) == 0.0


# --- saved state ----------------------------------------------------------------------------
@pytest.mark.parametrize("options", [{}, {"reuse_samples": True, "adjusted_budget": True, "beta": 0.9}])
def test_save_and_load_mid_run_resume_identically(tmp_path: Path, options):
    n, k, budget = 40, 5, 3000
    rng = np.random.default_rng(3)
    streams = rng.normal(np.linspace(0, 1, n)[:, None], 1.0, size=(n, 2 * budget))
    reference = OptMAI(fb.TopK(n, k), budget=budget, seed=4, **options)
    drive(reference, streams, max_counts=(50,))
    expected = reference.result()
    for stop_at in (0, 1, 400, 1111, 2000, 2900, budget - 1):
        algorithm = OptMAI(fb.TopK(n, k), budget=budget, seed=4, **options)
        positions = drive(algorithm, streams, max_counts=(50,), until=stop_at)
        path = tmp_path / f"state-{stop_at}.json"
        algorithm.save(path)
        resumed = fb.Algorithm.load(path)
        assert isinstance(resumed, OptMAI) and resumed.get_state() == algorithm.get_state()
        drive(resumed, streams, max_counts=(50,), positions=positions)
        result = resumed.result()
        assert result.answer == expected.answer and result.pulls == budget
        assert resumed.samples.tolist() == reference.samples.tolist()
        assert resumed.round_sizes == reference.round_sizes and resumed.round_quotas == reference.round_quotas


# --- command line ---------------------------------------------------------------------------
def test_solve_runs_optmai_with_semi_feedback(capsys):
    import json

    from fullbandit.cli.main import main
    from fullbandit.datasets import load_dataset

    assert main(["solve", "--algorithm", "optmai", "--budget", "20000", "--no-progress", "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    accuracies = load_dataset("it").accuracies
    assert result["pulls"] == 20000 and result["stop_reason"] == "budget exhausted"
    assert result["constants"]["noise_scale_source"] == "declared by BernoulliTeam"
    # measured: the best team's accuracy up to the tie at the 10th worker (regret 0)
    assert aggregate_regret(accuracies, result["answer"]) <= 0.02
    # The Gaussian model gives per-arm algorithms N(0, 1) on each worker (GaussianArms).
    assert main(["solve", "--algorithm", "optmai", "--reward-model", "gaussian", "--no-progress", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["constants"]["noise_scale_source"] == "declared by GaussianArms"


@pytest.mark.parametrize("budget", [1, 19])
def test_a_budget_below_n_is_refused_before_any_sample(budget):
    # Below n the first round's quota is cut to zero: the answer would be forced before any sample.
    algorithm = OptMAI(fb.TopK(20, 5), budget=budget, seed=0)
    with pytest.raises(InvalidParameterError, match=rf"OptMAI: budget={budget} must be at least 20 \(.*n=20 arms"):
        fb.run(algorithm, fb.BernoulliTeam(np.linspace(0.1, 0.9, 20), feedback="semi", seed=0), progress=False)
    assert not algorithm.is_set_up and algorithm.budget == budget
    algorithm = OptMAI(fb.TopK(20, 5), budget=20, seed=0)
    fb.run(algorithm, fb.BernoulliTeam(np.linspace(0.1, 0.9, 20), feedback="semi", seed=0), progress=False)
    assert algorithm.samples.tolist() == [1] * 20 and algorithm.minimum_budget() == 20
