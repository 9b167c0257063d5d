"""The optimised stopping checks return what the old computation returns (issue 13).

The reference is :mod:`reference.checks` (``tests/reference/checks.py``): a verbatim copy of the checks as they were
before the optimisations (dense design matrix, Cholesky then ``inv(L)``, every rule's own
eigen-decompositions, SA-FOA's surrogate steps each from scratch). On seeded random states of
every static algorithm (SAQM in both width modes, SA-FOA certified and heuristic, ICB,
SwapBound, Exhaustive) and of PhasedSwap, the check must give the same answer, the same
threshold and the same statistic (to rounding), and the same details.

The states cover every path of :meth:`fullbandit.linalg.static_design.StaticDesign.estimate`:

* ``passes``: driven by the algorithm itself up to a check; checks fall at whole passes, so
  every member has the same count and ``A^-1 = (X^T X)^-1 / q`` comes from the cache;
* ``uneven``: then a few more pulls of random members: ``A`` from the most common count
  plus the members off it, factorised afresh;
* ``fresh``: random counts recorded on a new algorithm (no cached ``X^T X``);
* ``prior``: prior observations (``A`` gains their Gram matrix: never the cached path).
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from reference.checks import dense_matrix, design_estimate, phased_check, reference_check

import fullbandit as fb
from fullbandit.core.priors import PriorObservations
from fullbandit.full import PhasedSwap, SwapBound

RELATIVE = 1e-8  # rounding: the two computations order their sums differently

ALGORITHMS = {
    "saqm": lambda problem, **kw: fb.SAQM(problem, **kw),
    "saqm-theorem1": lambda problem, **kw: fb.SAQM(problem, width_bound="theorem1", **kw),
    "safoa": lambda problem, **kw: fb.SAFOA(problem, **kw),
    "safoa-heuristic": lambda problem, **kw: fb.SAFOA(problem, mode="heuristic", **kw),
    "safoa-fpk": lambda problem, **kw: fb.SAFOA(problem, oracle="fpk", **kw),
    "icb": lambda problem, **kw: fb.ICB(problem, **kw),
    "swap": lambda problem, **kw: SwapBound(problem, **kw),
    "exhaustive": lambda problem, **kw: fb.Exhaustive(problem, **kw),
}
STATES = ("passes", "uneven", "fresh", "prior")
CASES = [(12, 3, 0), (15, 4, 1), (20, 5, 2), (9, 3, 3), (30, 6, 4), (25, 3, 5)]


def _prior(n: int, seed: int) -> PriorObservations:
    rng = np.random.default_rng(seed)
    answers = rng.integers(20, 60, size=n)
    return PriorObservations.from_accuracies(rng.binomial(answers, 0.6) / answers, answers)


def _state(name: str, n: int, k: int, seed: int, state: str):
    """An algorithm set up and fed data of the kind ``state`` (see the module docstring)."""
    rng = np.random.default_rng(seed)
    means = rng.uniform(0.0, 1.0, n)
    options = dict(epsilon=0.0, support="random", budget=10**9, stop_on_rule=False, seed=seed)
    if name == "exhaustive":
        n, k, means = min(n, 10), min(k, 3), means[:10]
    algorithm = ALGORITHMS[name](fb.TopK(n, k), **options)
    algorithm.setup(noise_scale=1.0, prior=_prior(n, seed) if state == "prior" else None)
    environment = fb.GaussianSum(means, sigma=1.0, seed=seed + 100)
    members = len(algorithm.support_arms)
    if state == "fresh":
        counts = rng.integers(1, 30, size=members)
        for member, count in enumerate(counts.tolist()):
            algorithm._design.record(member, float(environment.pull(algorithm.support_arms[member], count)), count)
        return algorithm
    checks = int(rng.integers(1, 6))
    while algorithm.n_checks < checks:
        pull = algorithm.ask(max_count=1 << 30)
        algorithm.tell(pull, environment.pull(pull.arms, count=pull.count))
    if state == "uneven":
        algorithm.stopping_check()  # the support's Gram matrix is cached: the "common count" path
        for member in rng.choice(members, size=max(1, members // 3), replace=False).tolist():
            count = int(rng.integers(1, 4))
            algorithm._design.record(member, float(environment.pull(algorithm.support_arms[member], count)), count)
    return algorithm


def assert_same_check(new, old) -> None:
    assert new.answer == old.answer
    assert new.epsilon == old.epsilon and new.certified == old.certified and new.pulls == old.pulls
    assert new.gap_bound == pytest.approx(old.gap_bound, rel=RELATIVE, abs=RELATIVE)
    assert set(new.details) >= set(old.details)
    for key, value in old.details.items():
        if isinstance(value, float):
            assert new.details[key] == pytest.approx(value, rel=RELATIVE, abs=RELATIVE), key
        else:
            assert new.details[key] == value, key
    if old.estimate is not None:
        np.testing.assert_array_equal(new.estimate.gram, old.estimate.gram)
        scale = np.abs(old.estimate.gram_inverse).max()
        np.testing.assert_allclose(new.estimate.gram_inverse, old.estimate.gram_inverse, rtol=0, atol=1e-10 * scale)
        np.testing.assert_allclose(new.estimate.theta, old.estimate.theta, rtol=1e-9, atol=1e-9)
        np.testing.assert_allclose(new.estimate.spectrum.eigenvalues(), np.linalg.eigvalsh(old.estimate.gram_inverse),
                                   rtol=1e-9, atol=1e-12 * scale)


@pytest.mark.slow
@pytest.mark.parametrize("state", STATES)
@pytest.mark.parametrize("name", list(ALGORITHMS))
def test_the_optimised_check_is_the_reference_check(name, state):
    cases = CASES if name not in ("exhaustive", "safoa-fpk") else CASES[:3]
    for n, k, seed in cases:
        algorithm = _state(name, n, k, seed, state)
        assert_same_check(algorithm.stopping_check(), reference_check(algorithm))


def test_the_states_take_the_paths_they_are_meant_to():
    # Whole passes reuse the support's factorisation; the others factorise afresh.
    algorithm = _state("icb", 12, 3, 0, "passes")
    counts = algorithm._design.counts
    assert counts.min() == counts.max() > 0
    estimate = algorithm.stopping_check().estimate
    assert estimate.spectrum.base is algorithm._design._support_inverse.base
    assert estimate.spectrum.factor == pytest.approx(1.0 / counts[0])
    for state in ("uneven", "fresh", "prior"):
        algorithm = _state("icb", 12, 3, 0, state)
        estimate = algorithm.stopping_check().estimate
        support_inverse = algorithm._design._support_inverse
        assert support_inverse is None or estimate.spectrum.base is not support_inverse.base


@pytest.mark.slow
@pytest.mark.parametrize("state", ("passes", "uneven", "fresh"))
def test_phased_check_is_the_reference_check(state):
    for n, k, seed in CASES:
        rng = np.random.default_rng(seed)
        means = np.sort(rng.uniform(0.0, 1.0, n))[::-1]
        algorithm = PhasedSwap(fb.TopK(n, k), epsilon=0.0, seed=seed).setup(noise_scale=0.3)
        environment = fb.GaussianSum(means, sigma=0.3, seed=seed + 100)
        checks = int(rng.integers(2, 12))
        while not algorithm.done and algorithm.n_checks < checks:
            pull = algorithm.ask(max_count=1 << 30)
            algorithm.tell(pull, environment.pull(pull.arms, count=pull.count))
        design = algorithm._design
        if state == "fresh":
            design.counts[:] = 0
            design.reward_sums[:] = 0.0
            design.pulls = 0
        if state != "passes":  # fresh: every member once or more; uneven: a third of them once more or so
            members = range(len(design.support)) if state == "fresh" else \
                rng.choice(len(design.support), size=max(1, len(design.support) // 3)).tolist()
            for member in members:
                count = int(rng.integers(1, 4))
                design.record(member, float(rng.normal(count * 0.5, math.sqrt(count))), count)
        new, old = algorithm.stopping_check(), phased_check(algorithm)
        assert old.estimate is not None
        assert new.answer == old.answer and new.gap_bound == pytest.approx(old.gap_bound, rel=RELATIVE, abs=RELATIVE)
        for key in ("accept", "reject", "bound_used", "C_pair", "phase_pulls"):
            assert new.details[key] == old.details[key], key


def test_bernstein_leverages_are_the_dense_quadratic_forms():
    # confidence="bernstein" reads max_j x_j^T A^-1 x_j; at whole passes from the support's cache.
    for state in ("passes", "uneven"):
        rng = np.random.default_rng(7)
        n, k = 10, 3
        algorithm = fb.ICB(fb.TopK(n, k), confidence="bernstein", reward_range=(0, k), support="random", seed=3,
                           stop_on_rule=False, budget=10**9).setup()
        environment = fb.BernoulliTeam(rng.uniform(0.2, 0.8, n), seed=4)
        while algorithm.n_checks < 3:
            pull = algorithm.ask(max_count=1 << 30)
            total, squares = environment.pull_moments(pull.arms, count=pull.count)
            algorithm.tell(pull, total, sum_of_squares=squares)
        design = algorithm._design
        if state == "uneven":
            design.record(0, 1.0, 1, 1.0)
        estimate = design.estimate()
        terms = design.bernstein_terms(estimate, float(k), 0.05, check=3)
        matrix = dense_matrix(n, design.support)
        reference = design_estimate(design, matrix)
        leverages = np.einsum("ij,jk,ik->i", matrix, reference.gram_inverse, matrix)
        assert terms.leverage == pytest.approx(math.sqrt(leverages.max()), rel=1e-9)
