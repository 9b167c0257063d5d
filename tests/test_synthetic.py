"""Tests for fullbandit.datasets.synthetic: the synthetic instances of the five seed papers.

Expected values are typed in from the papers' experiment sections (location cited at
each test) or computed here from the papers' formulas, never taken from the module.
"""

from __future__ import annotations

import dataclasses
import doctest
import inspect
import itertools
from fractions import Fraction

import numpy as np
import pytest

from fullbandit.datasets import synthetic
from fullbandit.datasets.synthetic import (
    SYNTHETIC_INSTANCES,
    SyntheticInstance,
    chen_synthetic_p,
    chen_twogroup,
    chen_uniform,
    kuroki_planted_gap,
    make_instance,
    nsar_budget,
    nsar_gaps,
    nsar_setup1,
    nsar_setup2,
    nsar_setup3,
    nsar_setup4,
    nsar_setup5,
    nsar_setup6,
    tao_setup1,
    tao_setup2,
    tao_setup3,
    zhou_two_level,
    zhou_uniform,
)
from fullbandit.util.validation import InvalidParameterError

# Minimal arguments that build every registered instance (k where the paper sweeps it).
EXAMPLE_PARAMS = {
    "kuroki-planted-gap": {"n": 8, "k": 3, "gap": 0.1},
    "chen-twogroup": {"k": 100},
    "chen-uniform": {"k": 100},
    "chen-synthetic-p": {"k": 100, "p": 6},
    "zhou-uniform": {"k": 10},
    "zhou-two-level": {"k": 10},
    "tao-setup1": {},
    "tao-setup2": {},
    "tao-setup3": {},
    "nsar-setup1": {"k": 2},
    "nsar-setup2": {"k": 2},
    "nsar-setup3": {"k": 2},
    "nsar-setup4": {"k": 2},
    "nsar-setup5": {"k": 2},
    "nsar-setup6": {"k": 2},
}
RANDOM_NAMES = ("kuroki-planted-gap", "zhou-uniform", "nsar-setup5")


# ----------------------------------------------------------------------- Kuroki et al.


def _sorted_desc(x):
    return np.sort(np.asarray(x))[::-1]


@pytest.mark.parametrize("seed", range(20))
def test_kuroki_structure(seed):
    # Kuroki et al. 2020, sec. 5 "Synthetic datasets": top-k uniform, (k+1)-th = min(top) - gap,
    # rest uniform below it.  Intervals lost in conversion; defaults [0.5, 1] and [0, m - gap].
    n, k, gap = 12, 4, 0.1
    inst = kuroki_planted_gap(n, k, gap, seed=seed)
    m = inst.means
    assert isinstance(inst, SyntheticInstance)
    assert inst.name == "kuroki-planted-gap" and inst.k == k and inst.n == n
    assert m.shape == (n,) and m.dtype == float
    np.testing.assert_array_equal(m, _sorted_desc(m))  # returned best first
    assert np.all((m[:k] >= 0.5) & (m[:k] <= 1.0))
    kth, nxt = m[k - 1], m[k]
    # the computed planted gap is never below gap and above it by at most rounding
    assert kth - nxt >= gap
    assert kth - nxt <= gap + 2 * np.spacing(kth)
    assert np.all(m[k + 1:] <= nxt) and np.all(m[k + 1:] >= 0.0)
    assert inst.params["gap"] == gap


@pytest.mark.parametrize("gap", [0.25, 0.125, 0.5])
def test_kuroki_dyadic_gap_is_exact(gap):
    # for a gap with few binary digits m - gap is representable: the planted gap is exact
    for seed in range(10):
        m = kuroki_planted_gap(7, 3, gap, seed=seed).means
        assert m[2] - m[3] == gap


@pytest.mark.parametrize("seed", range(5))
def test_kuroki_best_team_beats_all_others_by_gap_brute_force(seed):
    # "expected rewards of the best super-arm is larger than those of the rest by at least gap"
    n, k, gap = 8, 3, 0.07
    m = kuroki_planted_gap(n, k, gap, seed=seed, shuffle=True).means
    values = {s: sum(m[list(s)]) for s in itertools.combinations(range(n), k)}
    best = max(values, key=values.get)
    top = set(np.argsort(-m)[:k].tolist())
    assert set(best) == top
    differences = [values[best] - v for s, v in values.items() if s != best]
    assert min(differences) >= gap - 1e-12
    assert min(differences) == pytest.approx(gap, abs=1e-12)  # the runner-up is exactly gap behind


def test_kuroki_custom_intervals_and_edge_sizes():
    inst = kuroki_planted_gap(30, 5, 0.3, seed=3, top_low=2.0, top_high=3.0, rest_low=-1.0)
    m = inst.means
    assert np.all((m[:5] >= 2.0) & (m[:5] <= 3.0))
    assert np.all(m[6:] >= -1.0) and np.all(m[6:] <= m[5])
    assert m[4] - m[5] == pytest.approx(0.3, abs=1e-15)
    # the rest really are spread over [rest_low, m - gap], not stuck at one value
    assert m[6:].min() < 0.5 and m[6:].max() > 1.0
    # n = k + 1: no "rest" arms; gap at the largest feasible value
    two = kuroki_planted_gap(2, 1, 0.5, seed=0).means
    assert two.shape == (2,) and two[0] - two[1] == 0.5


def test_kuroki_top_means_are_uniform_over_interval():
    # with k = n - 1 the top means are the whole sample: check they fill [0.5, 1] uniformly
    m = kuroki_planted_gap(4001, 4000, 0.1, seed=1).means[:4000]
    assert m.mean() == pytest.approx(0.75, abs=0.01)
    assert np.mean(m < 0.625) == pytest.approx(0.25, abs=0.03)


def test_kuroki_rest_uniform_below_the_k_plus_one_th():
    inst = kuroki_planted_gap(4002, 1, 0.1, seed=2)
    m = inst.means
    ceiling = m[1]
    rest = m[2:] / ceiling  # Uniform[0, 1] after scaling
    assert rest.mean() == pytest.approx(0.5, abs=0.02)
    assert np.mean(rest < 0.25) == pytest.approx(0.25, abs=0.03)


def test_kuroki_determinism_and_seeds():
    a = kuroki_planted_gap(10, 3, 0.1, seed=7).means
    b = kuroki_planted_gap(10, 3, 0.1, seed=7).means
    c = kuroki_planted_gap(10, 3, 0.1, seed=8).means
    d = kuroki_planted_gap(10, 3, 0.1, seed=np.random.default_rng(7)).means
    np.testing.assert_array_equal(a, b)
    np.testing.assert_array_equal(a, d)
    assert not np.array_equal(a, c)


@pytest.mark.parametrize(("kwargs", "exc", "argument"), [
    ({"n": 10, "k": 3, "gap": 0.0}, InvalidParameterError, "gap"),
    ({"n": 10, "k": 3, "gap": -0.1}, InvalidParameterError, "gap"),
    ({"n": 10, "k": 3, "gap": 0.6}, InvalidParameterError, "gap"),
    ({"n": 10, "k": 3, "gap": float("nan")}, InvalidParameterError, "gap"),
    ({"n": 10, "k": 0, "gap": 0.1}, InvalidParameterError, "k"),
    ({"n": 10, "k": 10, "gap": 0.1}, InvalidParameterError, "k"),
    ({"n": 1, "k": 1, "gap": 0.1}, InvalidParameterError, "n"),
    ({"n": 10.0, "k": 3, "gap": 0.1}, TypeError, "n"),
    ({"n": 10, "k": 3, "gap": "0.1"}, TypeError, "gap"),
    ({"n": 10, "k": 3, "gap": 0.1, "top_high": 0.4}, InvalidParameterError, "top_high"),
    ({"n": 10, "k": 3, "gap": 0.1, "rest_low": 0.5}, InvalidParameterError, "rest_low"),
    ({"n": 10, "k": 3, "gap": 0.1, "seed": -1}, InvalidParameterError, "seed"),
    ({"n": 10, "k": 3, "gap": 0.1, "seed": "x"}, TypeError, "seed"),
    ({"n": 10, "k": 3, "gap": 0.1, "shuffle": "yes"}, TypeError, "shuffle"),
])
def test_kuroki_bad_input(kwargs, exc, argument):
    with pytest.raises(exc, match=argument):
        kuroki_planted_gap(**kwargs)


# ------------------------------------------------------------------------ Chen et al.


def test_chen_twogroup_exact():
    # Chen, Chen, Zhang, Zhou 2017, sec. 3: TWOGROUP, 0.7 for the top K, 0.3 for the rest;
    # n = 1000, epsilon = 0.01, delta = 0.01, K in {100, 250, 500}
    inst = chen_twogroup(250)
    assert inst.n == 1000 and inst.k == 250 and inst.epsilon == 0.01
    np.testing.assert_array_equal(inst.means, [0.7] * 250 + [0.3] * 750)
    assert inst.params["delta"] == 0.01
    assert tuple(inst.params["k_values"]) == (100, 250, 500)
    np.testing.assert_array_equal(chen_twogroup(2, n=5).means, [0.7, 0.7, 0.3, 0.3, 0.3])


def test_chen_uniform_exact():
    # sec. 3 UNIFORM: theta_i = 1 - i/n; by hand for n = 5
    np.testing.assert_allclose(chen_uniform(2, n=5).means, [0.8, 0.6, 0.4, 0.2, 0.0], rtol=0, atol=1e-15)
    inst = chen_uniform(100)
    assert inst.n == 1000 and inst.k == 100 and inst.epsilon == 0.01
    assert inst.means[0] == pytest.approx(0.999) and inst.means[-1] == 0.0
    np.testing.assert_allclose(np.diff(inst.means), -0.001, atol=1e-12)


def test_chen_synthetic_p_hand_example():
    # sec. 3 SYNTHETIC-p, reconstructed formula with b = 1 - K/n; by hand for n = 10, K = 2, p = 2:
    # i <= 2: 0.8 + 0.2 ((2 - i)/2)^2;  i > 2: 0.8 - 0.8 ((i - 2)/8)^2
    expected = [0.85, 0.8, 0.7875, 0.75, 0.6875, 0.6, 0.4875, 0.35, 0.1875, 0.0]
    inst = chen_synthetic_p(2, 2, n=10)
    np.testing.assert_allclose(inst.means, expected, rtol=0, atol=1e-15)
    assert inst.k == 2 and inst.epsilon == 0.01 and inst.params["p"] == 2.0


def test_chen_synthetic_1_is_uniform_and_p_moves_arms_to_boundary():
    # "SYNTHETIC-1 is identical to UNIFORM"; p > 1 closer to the boundary 1 - K/n, p < 1 farther
    n, k = 1000, 250
    b = 1 - k / n
    uniform = chen_uniform(k).means
    np.testing.assert_allclose(chen_synthetic_p(k, 1).means, uniform, rtol=0, atol=1e-15)
    far = np.abs(chen_synthetic_p(k, 0.5).means - b)
    mid = np.abs(uniform - b)
    close = np.abs(chen_synthetic_p(k, 6).means - b)
    interior = (np.arange(1, n + 1) != k) & (np.arange(1, n + 1) != n)  # endpoints are fixed
    assert np.all(close[interior] < mid[interior]) and np.all(mid[interior] < far[interior])
    for p in (0.5, 1, 6):
        m = chen_synthetic_p(k, p).means
        assert m.shape == (n,)
        assert np.all(np.diff(m) <= 0)  # best first, non-increasing
        assert m[-1] == 0.0 and 0.99 < m[0] < 1.0  # spans [0, 1]
        assert m[k - 1] == pytest.approx(b)  # the K-th arm sits on the boundary


def test_chen_bad_input():
    with pytest.raises(InvalidParameterError, match="p"):
        chen_synthetic_p(10, 0)
    with pytest.raises(InvalidParameterError, match="k"):
        chen_uniform(1000)
    with pytest.raises(TypeError, match="k"):
        chen_twogroup(2.5)
    with pytest.raises(InvalidParameterError, match="n"):
        chen_twogroup(1, n=1)


# ------------------------------------------------------------------------ Zhou et al.


def test_zhou_two_level_exact():
    # Zhou, Chen, Li 2014, sec. 6.1 setting 2: 0.6 for i = 1..K, 0.5 for i = K+1..n; n = 1000
    inst = zhou_two_level(40)
    assert inst.n == 1000 and inst.k == 40 and inst.epsilon is None
    np.testing.assert_array_equal(inst.means, [0.6] * 40 + [0.5] * 960)
    assert tuple(inst.params["budgets"]) == (20_000, 50_000, 100_000)  # Q = 20n, 50n, 100n
    assert tuple(inst.params["betas"]) == (0.8, 0.9)
    assert tuple(inst.params["k_values"]) == tuple(range(10, 501, 10))
    assert inst.reward == "bernoulli"


def test_zhou_uniform_draws():
    # sec. 6.1 setting 1: theta_i ~ Unif[0, 1] i.i.d., n = 1000
    inst = zhou_uniform(10, seed=11)
    m = inst.means
    assert inst.n == 1000 and inst.k == 10
    assert np.all((m >= 0) & (m <= 1))
    assert m.mean() == pytest.approx(0.5, abs=0.04)
    assert np.mean(m < 0.25) == pytest.approx(0.25, abs=0.05)
    assert np.any(np.diff(m) < 0) and np.any(np.diff(m) > 0)  # draw order, not sorted
    np.testing.assert_array_equal(m, zhou_uniform(10, seed=11).means)
    assert not np.array_equal(m, zhou_uniform(10, seed=12).means)
    with pytest.raises(InvalidParameterError, match="k"):
        zhou_uniform(0, seed=1)


# ------------------------------------------------------------------------- Tao et al.


def test_tao_setups_exact():
    # Tao, Blanco, Peng, Zhou 2019, sec. 5, threshold theta = 0.5 in all setups.
    # Setup 1: theta_{1:4} = 0.2 + (0:3) 0.05, theta_5 = 0.45, theta_6 = 0.55,
    #          theta_{7:10} = 0.65 + (0:3) 0.05
    s1 = tao_setup1()
    np.testing.assert_allclose(s1.means, [0.2, 0.25, 0.3, 0.35, 0.45, 0.55, 0.65, 0.7, 0.75, 0.8],
                               rtol=0, atol=1e-15)
    # Setup 2: K = 20, theta_i = 0.405 + (i - 1)/100
    s2 = tao_setup2()
    np.testing.assert_allclose(
        s2.means,
        [0.405, 0.415, 0.425, 0.435, 0.445, 0.455, 0.465, 0.475, 0.485, 0.495,
         0.505, 0.515, 0.525, 0.535, 0.545, 0.555, 0.565, 0.575, 0.585, 0.595],
        rtol=0, atol=1e-15)
    # Setup 3: K = 10, theta_{1:5} = 0.45, theta_{6:10} = 0.505
    s3 = tao_setup3()
    np.testing.assert_array_equal(s3.means, [0.45] * 5 + [0.505] * 5)
    for inst, name in ((s1, "tao-setup1"), (s2, "tao-setup2"), (s3, "tao-setup3")):
        assert inst.name == name
        assert inst.threshold == 0.5 and inst.k is None and inst.epsilon is None
        assert inst.params["alpha"] == 1.35
        assert tuple(inst.params["apt_epsilons"]) == (0.0, 0.025, 0.05, 0.1)
    # no arm sits on the threshold, and each setup has arms on both sides
    for inst in (s1, s2, s3):
        assert np.all(inst.means != 0.5)
        assert np.any(inst.means > 0.5) and np.any(inst.means < 0.5)


# ------------------------------------------------------------ Shahrampour and Tarokh


def test_nsar_gaps_and_budget_hand_example():
    # eq. (4): Delta_i = mu_i - mu_(M+1) in the top M, mu_(M) - mu_i otherwise
    gaps = nsar_gaps([0.9, 0.5, 0.7, 0.1], 2)
    np.testing.assert_allclose(gaps, [0.4, 0.2, 0.2, 0.6], atol=1e-15)
    # H_1 = 1/0.16 + 2/0.04 + 1/0.36 = 6.25 + 50 + 2.777... = 59.03 -> 60
    assert nsar_budget([0.9, 0.5, 0.7, 0.1], 2) == 60
    with pytest.raises(InvalidParameterError, match="gap"):
        nsar_budget([0.7, 0.7, 0.5], 1)


# (setup, M): (means typed in from sec. IV-A, budget ceil(H_1) computed by hand)
NSAR_EXPECTED = {
    # setup 1: 0.7 (M), 0.5 (rest): 50 gaps of 0.2 -> 50 * 25
    (1, 2): ([0.7] * 2 + [0.5] * 48, 1250),
    (1, 4): ([0.7] * 4 + [0.5] * 46, 1250),
    # setup 2: 0.7 (M), 0.66 (M), 0.5: 2M gaps of 0.04 (625 each) + (50 - 2M) gaps of 0.2
    (2, 2): ([0.7] * 2 + [0.66] * 2 + [0.5] * 46, 4 * 625 + 46 * 25),
    (2, 4): ([0.7] * 4 + [0.66] * 4 + [0.5] * 42, 8 * 625 + 42 * 25),
    # setup 3: + 0.62 (M): gaps 0.04 (2M arms), 0.08 (M arms, 156.25 each), 0.2 (rest)
    (3, 2): ([0.7] * 2 + [0.66] * 2 + [0.62] * 2 + [0.5] * 44, 3913),  # 2500 + 312.5 + 1100
    (3, 4): ([0.7] * 4 + [0.66] * 4 + [0.62] * 4 + [0.5] * 38, 5000 + 625 + 950),
    # setup 6: 0.7 (M), 0.68, 0.5: M + 1 gaps of 0.02 (2500 each), rest 0.2
    (6, 2): ([0.7] * 2 + [0.68] + [0.5] * 47, 3 * 2500 + 47 * 25),
    (6, 4): ([0.7] * 4 + [0.68] + [0.5] * 45, 5 * 2500 + 45 * 25),
}
NSAR_FUNCS = {1: nsar_setup1, 2: nsar_setup2, 3: nsar_setup3, 4: nsar_setup4, 5: nsar_setup5,
              6: nsar_setup6}


@pytest.mark.parametrize(("setup", "m"), sorted(NSAR_EXPECTED))
def test_nsar_deterministic_setups_exact(setup, m):
    expected_means, expected_budget = NSAR_EXPECTED[(setup, m)]
    inst = NSAR_FUNCS[setup](m)
    assert inst.name == f"nsar-setup{setup}"
    assert inst.n == 50 and inst.k == m and inst.reward == "bernoulli"
    np.testing.assert_array_equal(inst.means, expected_means)
    assert inst.params["budget"] == expected_budget
    assert tuple(inst.params["p_values"]) == (0.7, 0.85, 1.1, 1.2, 1.3)


@pytest.mark.parametrize("m", [2, 4])
def test_nsar_setup4_arithmetic_progression(m):
    # sec. IV-A setup 4: Delta_i = 0.6 (i - 1)/(K - 1) from the best arm, best = 0.7 (our choice)
    inst = nsar_setup4(m)
    expected = [0.7 - 0.6 * (i - 1) / 49 for i in range(1, 51)]
    np.testing.assert_allclose(inst.means, expected, rtol=0, atol=1e-15)
    assert inst.means[0] == 0.7 and inst.means[-1] == pytest.approx(0.1)
    # H_1 by exact rational arithmetic: top arms i <= M have gap mu_i - mu_{M+1} = 0.6 (M + 1 - i)/49,
    # others mu_M - mu_i = 0.6 (i - M)/49
    step = Fraction(6, 10) / 49
    h1 = sum(1 / (step * (m + 1 - i)) ** 2 for i in range(1, m + 1))
    h1 += sum(1 / (step * (i - m)) ** 2 for i in range(m + 1, 51))
    assert inst.params["budget"] == -(-h1.numerator // h1.denominator)  # ceil
    with pytest.raises(InvalidParameterError, match="best"):
        nsar_setup4(m, best=0.5)


def test_nsar_setup5_beta_means():
    # sec. IV-A setup 5: means ~ Beta(5, 5): mean 1/2, variance 25 / (100 * 11) = 1/44
    inst = nsar_setup5(2, seed=5)
    assert inst.n == 50 and inst.k == 2
    assert np.all((inst.means > 0) & (inst.means < 1))
    assert inst.params["budget"] == nsar_budget(inst.means, 2)
    np.testing.assert_array_equal(inst.means, nsar_setup5(2, seed=5).means)
    assert not np.array_equal(inst.means, nsar_setup5(2, seed=6).means)
    big = nsar_setup5(2, n=5000, seed=9).means
    assert big.mean() == pytest.approx(0.5, abs=0.01)
    assert big.var() == pytest.approx(1 / 44, abs=0.003)


@pytest.mark.parametrize(("func", "kwargs"), [
    (nsar_setup2, {"k": 25}),  # needs 2M < K
    (nsar_setup3, {"k": 17}),  # needs 3M < K
    (nsar_setup6, {"k": 49}),  # needs M + 1 < K
    (nsar_setup1, {"k": 50}),
    (nsar_setup1, {"k": 0}),
])
def test_nsar_bad_k(func, kwargs):
    with pytest.raises(InvalidParameterError, match="k="):
        func(**kwargs)


def test_nsar_larger_valid_k_still_builds():
    assert nsar_setup3(16).means.tolist().count(0.5) == 2  # 3 * 16 = 48 < 50
    assert nsar_setup6(48).means[-1] == 0.5


# ---------------------------------------------------------------- common behaviour


GENERATORS = {
    "kuroki-planted-gap": kuroki_planted_gap, "chen-twogroup": chen_twogroup, "chen-uniform": chen_uniform,
    "chen-synthetic-p": chen_synthetic_p, "zhou-uniform": zhou_uniform, "zhou-two-level": zhou_two_level,
    "tao-setup1": tao_setup1, "tao-setup2": tao_setup2, "tao-setup3": tao_setup3, "nsar-setup1": nsar_setup1,
    "nsar-setup2": nsar_setup2, "nsar-setup3": nsar_setup3, "nsar-setup4": nsar_setup4,
    "nsar-setup5": nsar_setup5, "nsar-setup6": nsar_setup6,
}


def test_registry_names_and_make_instance():
    assert set(SYNTHETIC_INSTANCES) == set(EXAMPLE_PARAMS) == set(GENERATORS)
    for name, generator in GENERATORS.items():
        assert SYNTHETIC_INSTANCES[name] is generator
        inst = make_instance(name, seed=0, **EXAMPLE_PARAMS[name])
        assert isinstance(inst, SyntheticInstance) and inst.name == name
        np.testing.assert_array_equal(inst.means, generator(seed=0, **EXAMPLE_PARAMS[name]).means)
        assert inst.description


@pytest.mark.parametrize("name", sorted(GENERATORS))
def test_seed_is_the_first_keyword_only_parameter(name):
    # one name for randomness across the package, in the same place in every generator
    parameters = inspect.signature(GENERATORS[name]).parameters
    keyword_only = [p for p in parameters.values() if p.kind is inspect.Parameter.KEYWORD_ONLY]
    assert keyword_only[0].name == "seed" and keyword_only[0].default is None
    assert "rng" not in parameters
    with pytest.raises(TypeError, match="rng"):
        make_instance(name, rng=0, **EXAMPLE_PARAMS[name])
    assert list(inspect.signature(make_instance).parameters) == ["name", "seed", "params"]


def test_module_examples_run():
    failures, attempted = doctest.testmod(synthetic, verbose=False, report=False)
    assert attempted > 0 and failures == 0


def test_make_instance_unknown_name_lists_names():
    with pytest.raises(InvalidParameterError, match="name") as info:
        make_instance("chen-two-group", k=3)
    for name in SYNTHETIC_INSTANCES:
        assert repr(name) in str(info.value)
    with pytest.raises(TypeError, match="name"):
        make_instance(3)


def test_make_instance_missing_or_unknown_parameter():
    with pytest.raises(TypeError, match="'k'"):
        make_instance("chen-twogroup")
    with pytest.raises(TypeError, match="bogus"):
        make_instance("tao-setup1", bogus=1)


@pytest.mark.parametrize("name", sorted(EXAMPLE_PARAMS))
def test_shuffle_is_a_seeded_permutation(name):
    params = EXAMPLE_PARAMS[name]
    plain = make_instance(name, seed=4, **params).means
    shuffled = make_instance(name, seed=4, shuffle=True, **params)
    again = make_instance(name, seed=4, shuffle=True, **params).means
    other = make_instance(name, seed=5, shuffle=True, **params).means
    np.testing.assert_array_equal(shuffled.means, again)
    if name not in RANDOM_NAMES:  # same multiset of means as the unshuffled instance
        np.testing.assert_array_equal(np.sort(shuffled.means), np.sort(plain))
        assert not np.array_equal(shuffled.means, other)
    assert not np.array_equal(shuffled.means, plain)
    if shuffled.k is not None:  # the team is still the k largest means wherever they are
        top = np.sort(shuffled.means)[::-1][: shuffled.k]
        np.testing.assert_array_equal(np.sort(top), np.sort(np.sort(plain)[::-1][: shuffled.k]))


def test_deterministic_instances_ignore_seed_without_shuffle():
    for name in sorted(set(EXAMPLE_PARAMS) - set(RANDOM_NAMES)):
        a = make_instance(name, seed=1, **EXAMPLE_PARAMS[name]).means
        b = make_instance(name, seed=2, **EXAMPLE_PARAMS[name]).means
        np.testing.assert_array_equal(a, b)


def test_seed_validated_for_deterministic_instances():
    with pytest.raises(TypeError, match="seed"):
        tao_setup1(seed="x")
    with pytest.raises(InvalidParameterError, match="seed"):
        chen_twogroup(5, seed=-3)


def test_instance_is_frozen_and_read_only():
    inst = nsar_setup1(2)
    with pytest.raises(dataclasses.FrozenInstanceError):
        inst.k = 3
    with pytest.raises(ValueError):
        inst.means[0] = 0.0
    with pytest.raises(TypeError):
        inst.params["budget"] = 1
    # the instance owns its array: changing the caller's array does not change it
    source = np.array([0.3, 0.2, 0.1])
    own = SyntheticInstance(name="x", means=source, k=1)
    source[0] = 9.0
    assert own.means[0] == 0.3 and own.n == 3
