"""NSAR (Shahrampour and Tarokh, Fig. 1): its schedule against the paper's formula, p = 1 against SAR,
decisions against a direct simulation of Fig. 1, the hardness measures of equation (4), the batched
simulation against the ask/tell classes on the same rewards, and its misidentification rate."""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

import numpy as np
import pytest
from test_sar import Streams, direct_sar

import fullbandit as fb
import fullbandit.semi.rounds as rounds
from fullbandit.core import registry
from fullbandit.core.conformance import CHECKS
from fullbandit.core.registry import AlgorithmSpec
from fullbandit.datasets.synthetic import nsar_gaps
from fullbandit.semi import NSAR, SAR, Uniform
from fullbandit.semi.accept_reject import nsar_phase_lengths
from fullbandit.semi.batch import BatchArms, BernoulliBatch
from fullbandit.semi.difficulty import hardness_h1, hardness_h2, hardness_hp, top_m_gaps
from fullbandit.semi.rounds import simulate_rounds
from fullbandit.util.validation import InvalidParameterError


def paper_round_targets(n: int, budget: int, p) -> list[float]:
    """``(T - K) / (C_p (K - r + 1)^p)`` for r = 1..K-1, before the ceiling, from Fig. 1 as printed
    (exact fractions for integer p)."""
    if float(p).is_integer():
        p = int(p)
        c_p = Fraction(1, 2 ** p) + sum(Fraction(1, r ** p) for r in range(2, n + 1))
        return [Fraction(budget - n) / (c_p * (n - r + 1) ** p) for r in range(1, n)]
    c_p = 2.0 ** -p + math.fsum(r ** -p for r in range(2, n + 1))
    return [(budget - n) / (c_p * (n - r + 1) ** p) for r in range(1, n)]


def direct_nsar(streams: np.ndarray, k: int, budget: int, p: float) -> tuple[tuple[int, ...], np.ndarray]:
    """Fig. 1 one arm and one sample at a time, with NSAR's documented choices (SAR's: equal means
    by index, equal gaps to the lowest-ranked arm, the last round takes what the ceilings left)."""
    n = streams.shape[0]
    targets = [math.ceil(x) for x in paper_round_targets(n, budget, p)]
    active, accepted, pulled = list(range(n)), [], np.zeros(n, dtype=int)
    for r in range(1, n):
        wanted = k - len(accepted)
        if wanted in (0, len(active)):
            break
        target = targets[r - 1]
        if r == n - 1:
            target = max(pulled[i] for i in active) + (budget - pulled.sum()) // len(active)
        for arm in active:
            pulled[arm] = max(pulled[arm], target)
        means = {arm: streams[arm, :pulled[arm]].mean() for arm in active}
        order = sorted(active, key=lambda i: (-means[i], i))
        gaps = [means[a] - means[order[wanted]] if rank < wanted else means[order[wanted - 1]] - means[a]
                for rank, a in enumerate(order)]
        leaving = order[max(rank for rank, gap in enumerate(gaps) if gap == max(gaps))]
        if means[leaving] > means[order[wanted]]:
            accepted.append(leaving)
        active.remove(leaving)
    means = {arm: streams[arm, :pulled[arm]].mean() for arm in active}
    rest = sorted(active, key=lambda i: (-means[i], i))[:k - len(accepted)]
    return tuple(sorted(accepted + rest)), pulled


def trace(algorithm, environment, max_count: int) -> tuple:
    """Every pull (arms, count), the active and accepted arms after each, and the result."""
    algorithm.setup()
    steps = []
    while not algorithm.done:
        pull = algorithm.ask(max_count)
        algorithm.tell(pull, environment.pull(pull.arms, count=pull.count))
        steps.append((pull.arms, pull.count, tuple(algorithm._active), tuple(algorithm._accepted)))
    result = algorithm.result()
    return steps, result.answer, result.pulls, algorithm.constants()


# --- the schedule --------------------------------------------------------------------------------

def test_round_targets_follow_the_papers_formula_and_plan_at_most_the_budget():
    rng = np.random.default_rng(0)
    cases = [(n, budget, p) for n in (2, 3, 5, 50) for budget in (n + 1, 3 * n + 1, 3651) for p in (1, 2)]
    cases += [(int(rng.integers(2, 80)), 0, float(rng.uniform(0.05, 2.0))) for _ in range(400)]
    for n, budget, p in cases:
        budget = budget or n + 1 + int(rng.integers(0, 200 * n))
        lengths = nsar_phase_lengths(n, budget, p)
        for length, exact in zip(lengths, paper_round_targets(n, budget, p), strict=True):
            if isinstance(exact, float) and abs(exact - round(exact)) < 1e-9:  # rounding may decide the ceiling
                assert length in (round(exact), round(exact) + 1), (n, budget, p)
            else:
                assert length == math.ceil(exact), (n, budget, p)
        # The arm leaving in round r has n_r samples, the survivor n_{K-1}: at most T in all.
        assert sum(lengths) + lengths[-1] <= budget, (n, budget, p)
        assert all(a <= b for a, b in itertools.pairwise(lengths)) and lengths[0] >= 1


@pytest.mark.parametrize("p", [0.3, 0.7, 1.3, 2.0])
@pytest.mark.parametrize("n, k, budget, seed", [(6, 2, 600, 0), (10, 3, 2000, 1), (10, 7, 157, 2), (8, 1, 9, 3),
                                                (12, 6, 5000, 4), (5, 4, 6, 5)])
def test_nsar_matches_a_direct_simulation_of_fig_1(n, k, budget, seed, p):
    rng = np.random.default_rng(seed)
    means = rng.choice([0.3, 0.5, 0.55, 0.7], n)  # repeated means: ties in the sort and among the gaps
    streams = (rng.random((n, budget)) < means[:, None]).astype(float)
    expected_answer, expected_samples = direct_nsar(streams, k, budget, p)
    algorithm = NSAR(fb.TopK(n, k), budget=budget, p=p)
    result = fb.run(algorithm, Streams(streams), progress=False)
    assert result.answer == expected_answer
    assert algorithm.samples.tolist() == expected_samples.tolist()
    assert result.pulls <= budget


def test_the_direct_simulation_at_p_one_is_sars():
    # The reference above is the one of tests/test_sar.py with the schedule's exponent free.
    rng = np.random.default_rng(7)
    for n, k, budget in [(6, 2, 600), (9, 4, 50), (7, 3, 8)]:
        streams = (rng.random((n, budget)) < rng.uniform(0.2, 0.8, n)[:, None]).astype(float)
        answer, samples = direct_nsar(streams, k, budget, 1.0)
        expected_answer, expected_samples = direct_sar(streams, k, budget)
        assert answer == expected_answer and samples.tolist() == expected_samples.tolist()


@pytest.mark.parametrize("n, k, budget, max_count", [(6, 2, 600, 1 << 30), (10, 3, 2000, 7), (10, 7, 157, 1),
                                                     (8, 1, 9, 1 << 30), (12, 6, 5000, 50), (5, 2, 6, 1)])
@pytest.mark.parametrize("p", [1, 1.0])
def test_nsar_with_p_one_makes_sars_pulls_and_decisions(n, k, budget, max_count, p):
    means = np.random.default_rng(n + budget).choice([0.3, 0.5, 0.7], n)
    runs = [trace(cls(fb.TopK(n, k), budget=budget, seed=3, **extra), fb.BernoulliTeam(means, feedback="semi", seed=5),
                  max_count) for cls, extra in ((SAR, {}), (NSAR, {"p": p}))]
    assert runs[0] == runs[1]


# --- the registry and the conformance suite ---------------------------------------------------------

def test_registry_entry_and_the_range_of_p():
    spec = registry.get("nsar")
    assert spec.cls is NSAR and "p" in spec.options and spec.setting == "fixed-budget"
    assert "p" not in registry.get("sar").options
    for bad in (0, -0.5, 2.0001, float("nan"), True, "1"):
        with pytest.raises((ValueError, TypeError), match="p"):
            NSAR(fb.TopK(5, 2), budget=100, p=bad).setup()
    for good in (1e-3, 1, 2):
        NSAR(fb.TopK(5, 2), budget=100, p=good).setup()
    assert NSAR(fb.TopK(5, 2), p=0.85).label() == "nsar[p=0.85]" and SAR(fb.TopK(5, 2)).label() == "sar"


@pytest.mark.slow
@pytest.mark.parametrize("check", CHECKS, ids=lambda check: check.__name__)
@pytest.mark.parametrize("p", [0.7, 2.0])
def test_nonlinear_nsar_conforms(p, check):
    # The registered entry uses the default p = 1 (SAR's schedule); the nonlinear paths too.
    check(AlgorithmSpec("nsar", NSAR, {"p": p}))


# --- hardness ------------------------------------------------------------------------------------

def test_hardness_by_hand():
    means = [0.9, 0.5, 0.7, 0.1]  # m = 2: top {0, 2}; gaps 0.4, 0.2, 0.2, 0.6; sorted 0.2, 0.2, 0.4, 0.6
    assert top_m_gaps(means, 2) == pytest.approx([0.4, 0.2, 0.2, 0.6])
    assert hardness_h1(means, 2) == pytest.approx(1 / 0.16 + 2 / 0.04 + 1 / 0.36)
    assert hardness_h2(means, 2) == pytest.approx(max(2 / 0.04, 3 / 0.16, 4 / 0.36)) == pytest.approx(50)
    assert hardness_hp(means, 2, 2.0) == pytest.approx(max(4 / 0.04, 9 / 0.16, 16 / 0.36))
    assert hardness_hp(means, 2, 0.5) == pytest.approx(max(2 ** 0.5 / 0.04, 3 ** 0.5 / 0.16, 2 / 0.36))
    assert hardness_hp(means, 2, 1.0) == hardness_h2(means, 2)
    # Fig. 2, setup 1 with M = 2: every gap is 0.2, so H_1 = 50 / 0.04.
    assert hardness_h1([0.7] * 2 + [0.5] * 48, 2) == pytest.approx(1250)


def brute_force_gaps(means: np.ndarray, m: int) -> list[float]:
    """Equation (4) from a best m-subset found by enumeration."""
    best = max(itertools.combinations(range(len(means)), m), key=lambda s: sum(means[i] for i in s))
    outside = [j for j in range(len(means)) if j not in best]
    return [means[i] - max(means[j] for j in outside) if i in best else min(means[j] for j in best) - means[i]
            for i in range(len(means))]


def test_hardness_against_brute_force():
    rng = np.random.default_rng(1)
    for _ in range(200):
        n = int(rng.integers(2, 8))
        m = int(rng.integers(1, n))
        means = rng.choice(np.linspace(0, 1, 11), n)  # repeated values: ties inside and at the boundary
        p = float(rng.uniform(0.1, 2.0))
        gaps = np.array(brute_force_gaps(means, m))
        assert top_m_gaps(means, m) == pytest.approx(gaps, abs=1e-12)
        assert top_m_gaps(means, m) == pytest.approx(nsar_gaps(means, m), abs=1e-12)
        if np.any(gaps < 1e-12):  # a tie at the boundary: no budget suffices
            assert hardness_h1(means, m) == hardness_h2(means, m) == hardness_hp(means, m, p) == math.inf
            continue
        assert hardness_h1(means, m) == pytest.approx(sum(g ** -2 for g in gaps))
        # Proposition 2's proof: 1 / H(p) = min over rounds r of Delta_(K+1-r)^2 / (K+1-r)^p.
        ascending = sorted(gaps)
        worst = min(ascending[n - r] ** 2 / (n + 1 - r) ** p for r in range(1, n))
        assert hardness_hp(means, m, p) == pytest.approx(1 / worst)


def test_hardness_refuses_invalid_input():
    for means, m in (([0.5, 0.4], 0), ([0.5, 0.4], 2), ([0.5], 1), ([0.5, np.nan, 0.1], 1), ([[0.5, 0.4]], 1)):
        with pytest.raises(ValueError):
            hardness_h1(means, m)
    with pytest.raises(TypeError, match="m"):
        top_m_gaps([0.5, 0.4], 1.5)
    with pytest.raises(ValueError, match="p"):
        hardness_hp([0.5, 0.4], 1, 0.0)


# --- the batched simulation against the ask/tell classes ------------------------------------------------

class StreamBatch(BatchArms):
    """Per-run, per-arm reward streams drawn in advance: run r's i-th sample of an arm is streams[r, arm, i]."""

    def __init__(self, streams: np.ndarray):
        self.streams = streams
        self.means = streams.mean(axis=(0, 2))
        self._prefix = np.concatenate([np.zeros(streams.shape[:2] + (1,)), np.cumsum(streams, axis=2)], axis=2)
        self.used = np.zeros(streams.shape[:2], dtype=np.int64)
        self.calls = 0

    @property
    def noise_scale(self) -> float:
        return 0.5

    def sample_one(self, arms, rng):
        raise NotImplementedError

    def sample_sums(self, counts, rng):
        counts = self._check_counts(counts)
        assert counts.shape[0] == self.streams.shape[0], "every call covers all runs"
        start, end = self.used[..., None].copy(), (self.used + counts)[..., None]  # copy: used changes next
        self.used += counts
        self.calls += 1
        return (np.take_along_axis(self._prefix, end, axis=2) - np.take_along_axis(self._prefix, start, axis=2))[..., 0]


def _streams(seed: int, runs: int, n: int, length: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    means = rng.choice([0.3, 0.5, 0.55, 0.7], n)
    return (rng.random((runs, n, length)) < means[None, :, None]).astype(float)


@pytest.mark.slow
@pytest.mark.parametrize("make", [lambda problem, budget: NSAR(problem, budget=budget, p=0.7),
                                  lambda problem, budget: NSAR(problem, budget=budget, p=1.3),
                                  lambda problem, budget: NSAR(problem, budget=budget, p=2.0),
                                  lambda problem, budget: SAR(problem, budget=budget),
                                  lambda problem, budget: Uniform(problem, budget=budget)],
                         ids=["nsar-0.7", "nsar-1.3", "nsar-2", "sar", "uniform"])
@pytest.mark.parametrize("n, k, budget, seed", [(6, 2, 600, 0), (10, 3, 1000, 1), (10, 7, 150, 2), (8, 1, 16, 3),
                                                (5, 4, 60, 4), (7, 3, 70, 5)])
def test_batched_runs_equal_ask_tell_runs_on_the_same_rewards(make, n, k, budget, seed):
    runs = 25
    streams = _streams(seed, runs, n, budget)
    algorithm = make(fb.TopK(n, k), budget)
    arms = StreamBatch(streams)
    batch = simulate_rounds(algorithm, arms, runs=runs, seed=0)
    assert arms.calls <= max(n - 1, 1)  # one sample_sums call per round
    for run in range(runs):
        single = make(fb.TopK(n, k), budget)
        result = fb.run(single, Streams(streams[run]), progress=False)
        assert tuple(np.flatnonzero(batch.answers[run])) == result.answer, run
        assert batch.counts[run].tolist() == single.samples.tolist(), run
    assert np.all(batch.answers.sum(axis=1) == k) and np.all(batch.counts.sum(axis=1) <= budget)


def test_batched_uniform_leftovers_answer_from_what_they_sampled():
    # Uniform's leftover samples go to distinct random arms: from the batch's own generator, so runs
    # cannot be matched one to one; each answer is the empirical top-k of its samples.
    n, k, runs, budget = 6, 2, 200, 23
    streams = _streams(8, runs, n, budget)
    batch = simulate_rounds(Uniform(fb.TopK(n, k), budget=budget), StreamBatch(streams), runs=runs, seed=1)
    assert np.all(batch.counts.sum(axis=1) == budget)
    assert np.all(batch.counts.max(axis=1) - batch.counts.min(axis=1) <= 1)
    assert len({tuple(row) for row in batch.counts}) > 1  # the random arms differ between runs
    for run in range(runs):
        counts = batch.counts[run]
        means = [streams[run, i, :counts[i]].mean() if counts[i] else -np.inf for i in range(n)]
        expected = sorted(sorted(range(n), key=lambda i: (-means[i], i))[:k])
        assert np.flatnonzero(batch.answers[run]).tolist() == expected


@pytest.mark.parametrize("algorithm", [NSAR(fb.TopK(6, 2), budget=6, p=0.7), SAR(fb.TopK(6, 2), budget=3),
                                       Uniform(fb.TopK(6, 2), budget=5)])
def test_batched_runs_refuse_a_budget_below_the_schedules_floor(algorithm):
    # NSAR and SAR need T > n (a first round of one sample per arm), Uniform T >= n.
    with pytest.raises(InvalidParameterError, match=r"budget=\d+ must be at least"):
        simulate_rounds(algorithm, BernoulliBatch([0.1, 0.2, 0.3, 0.4, 0.5, 0.6]), runs=2)


def test_simulate_rounds_refuses_what_it_cannot_run():
    with pytest.raises(TypeError, match="NSAR, SAR or Uniform"):
        simulate_rounds(fb.semi.LUCB(fb.TopK(3, 1)), BernoulliBatch([0.1, 0.2, 0.3]), runs=2)
    with pytest.raises(ValueError, match="n=4"):
        simulate_rounds(SAR(fb.TopK(3, 1)), BernoulliBatch([0.1, 0.2, 0.3, 0.4]), runs=2)
    with pytest.raises(ValueError, match="runs"):
        simulate_rounds(SAR(fb.TopK(3, 1)), BernoulliBatch([0.1, 0.2, 0.3]), runs=0)
    with pytest.raises(ValueError, match="p"):
        simulate_rounds(NSAR(fb.TopK(3, 1), p=3.0), BernoulliBatch([0.1, 0.2, 0.3]), runs=2)


# --- misidentification ------------------------------------------------------------------------------

MEANS = np.array([0.7, 0.7, 0.6, 0.5, 0.5, 0.5, 0.5, 0.5, 0.4, 0.3])  # M = 2: H_1 = 442
BUDGET = 2000  # about 4.5 H_1: the observed error rate is 0.1 - 0.5 % for p in 0.7 .. 1.3
TOLERANCE = 0.02


SAR_DECISIONS = rounds.sar_decisions


def _flipped_decisions(means, active, wanted):
    leaving, accepted = SAR_DECISIONS(means, active, wanted)
    return leaving, ~accepted  # a broken rule: rejects what it should accept and the reverse


@pytest.mark.parametrize("p", [0.7, 1.3])
def test_nsar_misidentifies_rarely_with_a_budget_well_above_h1(p, monkeypatch):
    assert hardness_h1(MEANS, 2) < BUDGET / 4
    make = NSAR(fb.TopK(10, 2), budget=BUDGET, p=p)
    error = simulate_rounds(make, BernoulliBatch(MEANS), runs=4000, seed=11).misidentification([0, 1])
    assert error < TOLERANCE
    # Negative controls: the same test fails for a broken decision rule and for a small budget.
    monkeypatch.setattr(rounds, "sar_decisions", _flipped_decisions)
    broken = simulate_rounds(make, BernoulliBatch(MEANS), runs=4000, seed=11).misidentification([0, 1])
    assert broken > 10 * TOLERANCE
    monkeypatch.undo()
    small = NSAR(fb.TopK(10, 2), budget=250, p=p)
    assert simulate_rounds(small, BernoulliBatch(MEANS), runs=4000, seed=11).misidentification([0, 1]) > TOLERANCE


@pytest.mark.slow
def test_ask_tell_nsar_misidentifies_rarely_with_a_budget_well_above_h1():
    # The same bound for the ask/tell class (300 runs, about 1 s: 0.3 % expected, 6 errors fail).
    wrong = sum(fb.run(NSAR(fb.TopK(10, 2), budget=BUDGET, p=0.85), fb.BernoulliTeam(MEANS, feedback="semi", seed=seed),
                       progress=False).answer != (0, 1) for seed in range(300))
    assert wrong / 300 < TOLERANCE
