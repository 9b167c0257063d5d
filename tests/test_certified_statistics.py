"""Every certified statistic is at least the exact quantity it claims to bound (hypothesis + enumeration).

One place for all the certified stopping rules and the certified bounds behind them. Each
test draws random small instances (``3 <= n <= 8``, ``1 <= k < n``, top-k or a partition
matroid whose members span ``R^n``), a random estimate ``theta_hat``, a random positive
definite ``Q = A^-1`` (mostly the inverse Gram matrix of a random design of class members
with random counts, as the algorithms see it; also Wishart, ill-conditioned and diagonal
matrices) and a random radius ``C > 0``, calls the rule as the algorithm does
(``_rule(LeastSquaresEstimate(...), C)`` of an algorithm built with ``noise_scale=1.0`` and
set up, or the module's public function), and compares the statistic with the exact value
of what its docstring claims to bound, computed here from scratch by enumerating every
super-arm (and, for "largest gap over the confidence event", a linear programme per
competitor). Nothing from the library is used to compute a reference.

The claims checked, rule by rule:

============================  =====================================================================
statistic                      exact quantity it must dominate
============================  =====================================================================
ICB ``_rule``                  ``max_M theta_hat(M) - theta_hat(M_hat) + C sum_{M xor M_hat}
                               sqrt(Q_ii)``: the largest gap of ``M_hat`` over the box
                               ``|theta_i - theta_hat_i| <= C sqrt(Q_ii)`` (exact for a box)
Exhaustive ``_rule``           ``max_M f(M)``, ``f(M) = theta_hat(M) - theta_hat(M_hat) + C
                               ||x_M - x_M_hat||_Q`` (objective (5)), by enumeration
SAFOA certified ``_rule``      ``max_M f(M)``, by enumeration (every oracle)
SAQM ``_rule``                 ``U_t^2 >= max_M ||x_M||_Q^2`` (the CEM, by enumeration) and
                               ``gap_bound >= max_{M != M_hat} theta_hat(M) + C ||x_M||_Q -
                               (theta_hat(M_hat) - C ||x_M_hat||_Q)`` (every width bound, oracle)
SwapBound ``_rule``            the exact largest gap of its answer over the one-sided directed
                               events of every possible optimal team ``M*`` (LP per ``M*``); the
                               graded rule also ``max(0, max_m T_m)``, ``T_m = max_{m swaps}
                               theta_hat . y + C_m ||y||_Q``; radii recomputed here from
                               ``confidence_radius`` and direction counts obtained by enumeration
every rule, one LP test        the exact largest gap of its answer over its own confidence event
gap_objective                  ``triangle_bound`` and ``surrogate_step``'s bound ``>= max_M f(M)``;
                               the surrogate ``x^T P x + c >= f(M)`` at every member
qp.certified_bounds            each of theorem1, spectral, Cauchy-Schwarz, row, oracle-ratio
                               ``>= max_{|S| = k} x_S^T Q x_S`` (every oracle)
dks.bound / bound_matrix       each bound ``>= max_{|S| = k} w(S)`` on the graphs Algorithm 1
                               builds from ``A^-1``; each oracle reaches its proven ratio
lower_bound                    certified ``T_star`` (relaxed, cutting-plane, sdp) ``<=`` the value
                               ``max_{B bad} 2 sigma^2 ||x_M* - x_B||^2_{A(l)^-1} / (Delta_B + eps)^2``
                               of designs ``l`` over the enumerated class, an upper bound of
                               ``T_eps(theta)`` for every ``l`` (equal to it at the optimal ``l``
                               when ``M*`` is the only correct answer)
============================  =====================================================================

Negative controls at the end show the checks have teeth: the heuristic SA-FOA statistic
falls below ``max_M f(M)`` on seeded instances, and every rule run at half its radius
falls below the exact value at the full radius (hypothesis finds such an instance).
"""

from __future__ import annotations

import functools
import itertools
import math
from dataclasses import dataclass

import networkx as nx
import numpy as np
import pytest
from hypothesis import HealthCheck, Phase, find, given, settings
from hypothesis import strategies as st
from scipy.optimize import linprog

import fullbandit as fb
from fullbandit.analysis.sample_complexity import lower_bound
from fullbandit.dks import ORACLES, bound, bound_matrix, densest_k_subgraph_matrix
from fullbandit.full import SwapBound
from fullbandit.full.gap_objective import surrogate, surrogate_step, triangle_bound
from fullbandit.full.qp import approximate_qp, certified_bounds, dks_weights
from fullbandit.full.static import StaticFullBandit
from fullbandit.linalg.least_squares import LeastSquaresEstimate
from fullbandit.linalg.radius import confidence_radius
from fullbandit.problems.classes import DecisionClass

#: Relative slack for closed-form comparisons (both sides are float sums of a few dozen terms).
RELATIVE = 1e-9
#: Relative slack for comparisons with a linear programme (HiGHS's tolerances are ~1e-7).
LP_RELATIVE = 1e-6

ORACLE_NAMES = tuple(sorted(ORACLES))
FAMILIES = ("design", "design", "design", "wishart", "ill-conditioned", "diagonal")
SCALES = (0.01, 0.1, 1.0, 10.0)


def at_least(statistic: float, exact: float, *, scale: float = 0.0, relative: float = RELATIVE) -> bool:
    """``statistic >= exact`` up to rounding relative to the magnitudes involved."""
    return statistic >= exact - relative * (1.0 + abs(exact) + abs(statistic) + scale)


# --- instances ---------------------------------------------------------------------------------
def _members(problem) -> list[tuple[int, ...]]:
    """Every super-arm of the class, by enumeration (membership checked here, not by the class)."""
    subsets = itertools.combinations(range(problem.n), problem.k)
    if isinstance(problem, fb.TopK):
        return list(subsets)
    groups, capacities = problem.groups, problem.capacities
    return [s for s in subsets
            if all(sum(groups[i] == g for i in s) <= c for g, c in enumerate(capacities))]


def _indicators(subsets, n: int) -> np.ndarray:
    X = np.zeros((len(subsets), n))
    for row, subset in enumerate(subsets):
        X[row, list(subset)] = 1.0
    return X


def _partition_matroid(rng: np.random.Generator, n: int) -> fb.PartitionMatroid:
    """A random partition matroid on ``n`` arms whose members span ``R^n`` (so a design can identify theta)."""
    while True:
        n_groups = int(rng.integers(2, n + 1))
        groups = tuple(int(g) for g in rng.permutation(np.concatenate([np.arange(n_groups),
                                                                       rng.integers(0, n_groups, n - n_groups)])))
        sizes = [groups.count(g) for g in range(n_groups)]
        capacities = tuple(int(rng.integers(1, size + 1)) for size in sizes)
        room = min(sum(capacities), n - 1)
        problem = fb.PartitionMatroid(groups, capacities, int(rng.integers(1, room + 1)))
        if np.linalg.matrix_rank(_indicators(_members(problem), n)) == n:
            return problem


def _inverse(gram: np.ndarray) -> np.ndarray:
    """``A^-1`` as :meth:`fullbandit.linalg.static_design.StaticDesign.estimate` forms it (Cholesky,
    exactly symmetric)."""
    lower_inverse = np.linalg.inv(np.linalg.cholesky(gram))
    inverse = lower_inverse.T @ lower_inverse
    return (inverse + inverse.T) / 2.0


def _gram(rng: np.random.Generator, problem, family: str) -> tuple[np.ndarray, int]:
    """A Gram matrix and a number of pulls. ``"design"``: random members with random counts."""
    n = problem.n
    if family == "design":
        while True:
            support = [problem.random_member(rng) for _ in range(int(rng.integers(n, 3 * n + 1)))]
            X = _indicators(support, n)
            counts = rng.integers(1, 50, size=len(support))
            gram = X.T @ (counts[:, None] * X)
            if np.linalg.matrix_rank(gram) == n:
                return gram, int(counts.sum())
    if family == "wishart":
        B = rng.normal(size=(n, n + 2))
        gram = B @ B.T + 1e-3 * np.eye(n)
    elif family == "ill-conditioned":
        U, _ = np.linalg.qr(rng.normal(size=(n, n)))
        gram = (U * np.exp(rng.normal(0.0, 2.0, n))) @ U.T * 100.0
    else:
        gram = np.diag(rng.uniform(0.1, 100.0, n))
    return (gram + gram.T) / 2.0, int(rng.integers(n, 10 ** 6))


@dataclass(frozen=True, eq=False)
class Instance:
    """A decision class, an estimate and a radius, with the enumerated class."""

    problem: fb.TopK | fb.PartitionMatroid
    estimate: LeastSquaresEstimate
    radius: float

    def __repr__(self) -> str:  # what hypothesis prints for a falsifying example
        return (f"Instance({self.problem}, theta={self.theta.tolist()}, radius={self.radius!r}, "
                f"pulls={self.estimate.pulls}, gram={self.estimate.gram.tolist()})")

    @property
    def theta(self) -> np.ndarray:
        return self.estimate.theta

    @property
    def Q(self) -> np.ndarray:
        return self.estimate.gram_inverse

    @functools.cached_property
    def X(self) -> np.ndarray:
        return _indicators(_members(self.problem), self.problem.n)

    @functools.cached_property
    def best(self) -> tuple[int, ...]:
        """An empirical best: a member of largest ``theta_hat(M)`` (the first in lexicographic order)."""
        values = self.X @ self.theta
        return tuple(int(i) for i in np.flatnonzero(self.X[int(np.argmax(values))]))

    def is_empirical_best(self, answer) -> bool:
        """``theta_hat(answer) = max_M theta_hat(M)`` up to rounding, and ``answer`` in the class (ties allowed)."""
        top = float(np.max(self.X @ self.theta))
        return tuple(answer) in set(_members(self.problem)) and \
            float(self.theta[list(answer)].sum()) >= top - RELATIVE * (1.0 + np.abs(self.theta).sum())

    def challengers(self, best) -> np.ndarray:
        """``x_M - x_best`` for every member ``M`` (one row each, ``best`` itself included)."""
        return self.X - _indicators([best], self.problem.n)[0]


def build_instance(seed: int, kind: str, n: int, k: int | None, family: str, scale: float, ties: bool,
                   radius: float) -> Instance:
    rng = np.random.default_rng(seed)
    problem = fb.TopK(n, k if k is not None else int(rng.integers(1, n))) if kind == "topk" \
        else _partition_matroid(rng, n)
    theta = rng.normal(0.0, scale, n)
    if ties:  # a coarse grid: ties and near-ties in theta_hat and between super-arms
        theta = np.round(2.0 * theta / scale) * scale / 2.0
    gram, pulls = _gram(rng, problem, family)
    return Instance(problem, LeastSquaresEstimate(theta, gram, _inverse(gram), pulls), radius)


@st.composite
def instances(draw, classes=("topk", "pm"), min_n: int = 3, max_n: int = 8) -> Instance:
    n = draw(st.integers(min_n, max_n))
    kind = draw(st.sampled_from(classes))
    k = draw(st.integers(1, n - 1)) if kind == "topk" else None
    radius = 10.0 ** draw(st.floats(-3.0, 1.0))
    return build_instance(draw(st.integers(0, 2 ** 32 - 1)), kind, n, k, draw(st.sampled_from(FAMILIES)),
                          draw(st.sampled_from(SCALES)), draw(st.booleans()), radius)


def seeded_instances(count: int, seed: int, classes=("topk",), min_n: int = 3, max_n: int = 8) -> list[Instance]:
    """A fixed list of instances (the negative controls must not depend on hypothesis's luck)."""
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(count):
        n = int(rng.integers(min_n, max_n + 1))
        kind = str(rng.choice(classes))
        k = int(rng.integers(1, n)) if kind == "topk" else None
        out.append(build_instance(int(rng.integers(2 ** 32)), kind, n, k, str(rng.choice(FAMILIES)),
                                  float(rng.choice(SCALES)), bool(rng.random() < 0.5),
                                  float(10.0 ** rng.uniform(-3.0, 1.0))))
    return out


# --- algorithms, built once per class and options -----------------------------------------------
CLASSES: dict[str, type[StaticFullBandit]] = {
    "icb": fb.ICB, "exhaustive": fb.Exhaustive, "saqm": fb.SAQM, "safoa": fb.SAFOA, "swap": SwapBound}


@functools.cache
def algorithm(name: str, problem, **options):
    """An algorithm with ``noise_scale=1.0``, set up on the whole class as its support."""
    built = CLASSES[name](problem, noise_scale=1.0, support=_members(problem), **options)
    assert isinstance(problem, built.decision_classes)
    built.setup()
    return built


# --- exact quantities, by enumeration -------------------------------------------------------------
def _norms(rows: np.ndarray, Q: np.ndarray) -> np.ndarray:
    """``||y||_Q`` for every row ``y``, with the rounding below 0 clipped."""
    return np.sqrt(np.clip(np.einsum("ij,jk,ik->i", rows, Q, rows), 0.0, None))


def gap_objective_max(inst: Instance, best, radius: float) -> float:
    """``max_M theta_hat(M) - theta_hat(best) + C ||x_M - x_best||_Q`` over the class (objective (5))."""
    D = inst.challengers(best)
    return float(np.max(D @ inst.theta + radius * _norms(D, inst.Q)))


def box_worst_gap(inst: Instance, best, radius: float) -> float:
    """Largest ``theta(M) - theta(best)`` over the box ``|theta_i - theta_hat_i| <= C sqrt(Q_ii)``.

    For a fixed ``M`` the maximum over a box is attained coordinate-wise: ``+C sqrt(Q_ii)`` on
    ``M \\ best``, ``-C sqrt(Q_ii)`` on ``best \\ M``, so it is exact.
    """
    D = inst.challengers(best)
    beta = radius * np.sqrt(np.diag(inst.Q))
    return float(np.max(D @ inst.theta + np.abs(D) @ beta))


def largest_width_squared(inst: Instance) -> float:
    """``max_M ||x_M||_Q^2``: the confidence-ellipsoid maximisation, by enumeration."""
    return float(np.max(_norms(inst.X, inst.Q) ** 2))


def interval_worst_gap(inst: Instance, best, radius: float) -> float:
    """``max_{M != best} (theta_hat(M) + C ||x_M||_Q) - (theta_hat(best) - C ||x_best||_Q)``.

    The largest ``theta(M) - theta(best)`` over ``M != best`` when each super-arm's value may
    be anywhere in its own interval ``|theta(M) - theta_hat(M)| <= C ||x_M||_Q`` (SAQM's event,
    arm by arm); it is at least the largest gap over the event itself (:func:`worst_gap_lp`).
    """
    widths = _norms(inst.X, inst.Q)
    own = np.all(inst.X == _indicators([best], inst.problem.n)[0], axis=1)
    return float(np.max((inst.X @ inst.theta + radius * widths)[~own])
                 - (inst.theta[list(best)].sum() - radius * widths[own][0]))


def worst_gap_lp(theta: np.ndarray, challengers: np.ndarray, directions: np.ndarray, limits: np.ndarray,
                 upper: np.ndarray) -> float:
    """``max_y max {y . theta : |z . (theta - theta_hat)| <= limit_z for every direction z}``.

    One linear programme per challenger ``y`` (rows of ``challengers``; the zero row counts 0),
    in decreasing order of ``upper`` (a valid upper bound of each programme's value), stopping
    once no remaining challenger can beat the best value found. The programmes are solved
    in units of the largest limit, so HiGHS's absolute tolerances stay relative.
    """
    scale = float(limits.max()) if limits.size and limits.max() > 0 else 1.0
    A_ub = np.vstack([directions, -directions])
    b_ub = np.concatenate([limits, limits]) / scale
    best = -math.inf
    for index in np.argsort(-upper, kind="stable"):
        y = challengers[index]
        if upper[index] <= best:
            break
        if not y.any():
            best = max(best, 0.0)
            continue
        solution = linprog(-y, A_ub=A_ub, b_ub=b_ub, bounds=(None, None), method="highs")
        assert solution.status == 0, solution.message  # bounded: y is in the span of the directions
        best = max(best, float(y @ theta) - scale * float(solution.fun))
    return best


# --- SwapBound's directed events, rebuilt from scratch ----------------------------------------------
def directed_counts(n: int, k: int) -> dict[int, int]:
    """``|D_m|``: the directions ``x_M* - x_M`` with ``|M* \\ M| = m`` from one team ``M*``, enumerated."""
    star, counts = set(range(k)), {}
    for members in itertools.combinations(range(n), k):
        m = len(star - set(members))
        if m:
            counts[m] = counts.get(m, 0) + 1
    return counts


def swap_radii(n: int, k: int, pulls: int, delta: float, rules: str, confidence: str) -> list[float]:
    """``C_m`` of SwapBound's one-sided directed events, from ``confidence_radius`` and enumerated counts."""
    counts = directed_counts(n, k)
    sizes = [1] if rules == "pair" else sorted(counts)
    total = math.fsum(1.0 / (m * m) for m in sizes)  # the levels delta m^-2 / sum_m m^-2 share delta
    levels = [delta] if rules == "pair" else [delta / (m * m) / total for m in sizes]
    return [confidence_radius(pulls, level, 1.0, counts[m], confidence, one_sided=True)
            for m, level in zip(sizes, levels, strict=True)]


def directed_worst_gap(inst: Instance, answer, radii: list[float]) -> float:
    """``max over M* of max {theta(M*) - theta(answer)}`` over the directed events of ``M*`` (one LP per ``M*``):
    ``(x_M* - x_M) . (theta - theta_hat) <= C_m ||x_M* - x_M||_Q`` for every ``M`` with ``m = |M* \\ M|``
    covered by ``radii``."""
    X, Q = inst.X, inst.Q
    own = _indicators([answer], inst.problem.n)[0]
    swaps_from = (np.abs(X[:, None, :] - X[None, :, :]).sum(axis=2) // 2).astype(int)
    best = 0.0
    for star in range(len(X)):
        y = X[star] - own
        m_answer = int(np.abs(y).sum()) // 2
        if m_answer == 0 or m_answer > len(radii):
            continue
        directions = X[star][None, :] - X
        m = swaps_from[star]
        keep = (m >= 1) & (m <= len(radii))
        C = np.array([radii[i - 1] for i in m[keep]])
        limits = directions[keep] @ inst.theta + C * _norms(directions[keep], Q)
        upper = float(y @ inst.theta + radii[m_answer - 1] * _norms(y[None, :], Q)[0])
        if upper <= best:
            continue
        scale = float(np.abs(limits).max()) or 1.0
        solution = linprog(-y, A_ub=directions[keep] / scale, b_ub=limits / scale, bounds=(None, None),
                           method="highs")
        assert solution.status == 0, solution.message  # bounded: y itself is one of the constraints
        best = max(best, -float(solution.fun))
    return best


def graded_terms(inst: Instance, best, radii: list[float]) -> np.ndarray:
    """``theta_hat . y + C_m ||y||_Q`` per challenger with ``m`` swaps (0 for ``best`` itself)."""
    D = inst.challengers(best)
    swaps = (np.abs(D).sum(axis=1) // 2).astype(int)
    C = np.array([radii[m - 1] if m else 0.0 for m in swaps])
    return D @ inst.theta + C * _norms(D, inst.Q)


# ======================================================================================
# ICB (top-k and partition matroids)
# ======================================================================================
def check_icb(inst: Instance) -> None:
    statistic, answer, _ = algorithm("icb", inst.problem)._rule(inst.estimate, inst.radius)
    assert inst.is_empirical_best(answer)
    exact = box_worst_gap(inst, answer, inst.radius)
    assert at_least(statistic, exact), (statistic, exact)


@pytest.mark.slow
@settings(max_examples=400, deadline=None)
@given(instances())
def test_icb_statistic_is_at_least_the_largest_gap_over_its_box(inst):
    """ICB's objective >= the exact largest gap of ``M_hat`` over ``|theta_i - theta_hat_i| <= C sqrt(Q_ii)``."""
    check_icb(inst)


# ======================================================================================
# Exhaustive (top-k and partition matroids)
# ======================================================================================
def check_exhaustive(inst: Instance) -> None:
    statistic, answer, _ = algorithm("exhaustive", inst.problem)._rule(inst.estimate, inst.radius)
    assert inst.is_empirical_best(answer)
    exact = gap_objective_max(inst, answer, inst.radius)
    assert at_least(statistic, exact), (statistic, exact)


@pytest.mark.slow
@settings(max_examples=300, deadline=None)
@given(instances())
def test_exhaustive_statistic_is_at_least_the_maximum_of_the_gap_objective(inst):
    """Exhaustive's statistic >= ``max_M f(M)`` (objective (5)), by enumeration of the class."""
    check_exhaustive(inst)


# ======================================================================================
# SA-FOA, certified mode (top-k)
# ======================================================================================
def check_safoa(inst: Instance, oracle: str, references: int, steps: int) -> None:
    safoa = algorithm("safoa", inst.problem, mode="certified", oracle=oracle, n_references=references,
                      recentre_steps=steps)
    statistic, answer, details = safoa._rule(inst.estimate, inst.radius)
    assert inst.is_empirical_best(answer)
    exact = gap_objective_max(inst, answer, inst.radius)
    assert at_least(statistic, exact), (statistic, exact, details["bound_used"])
    assert details["found_value"] <= exact + RELATIVE * (1.0 + abs(exact))  # a value of f: never above the max


@pytest.mark.slow
@settings(max_examples=300, deadline=None)
@given(instances(classes=("topk",)), st.sampled_from(ORACLE_NAMES), st.integers(1, 6), st.integers(0, 3))
def test_certified_safoa_statistic_is_at_least_the_maximum_of_the_gap_objective(inst, oracle, references, steps):
    """SA-FOA (certified) statistic >= ``max_M f(M)``, for every oracle and search size."""
    check_safoa(inst, oracle, references, steps)


# ======================================================================================
# SAQM (top-k)
# ======================================================================================
def check_saqm(inst: Instance, width_bound: str, oracle: str) -> None:
    statistic, answer, details = algorithm("saqm", inst.problem, width_bound=width_bound,
                                           oracle=oracle)._rule(inst.estimate, inst.radius)
    assert inst.is_empirical_best(answer)
    exact_width = largest_width_squared(inst)
    assert at_least(details["U_t"] ** 2, exact_width), (details["U_t"] ** 2, exact_width, details["bound_used"])
    exact = interval_worst_gap(inst, answer, inst.radius)
    assert at_least(statistic, exact), (statistic, exact)


@pytest.mark.slow
@settings(max_examples=300, deadline=None)
@given(instances(classes=("topk",)), st.sampled_from(("certified", "theorem1")), st.sampled_from(ORACLE_NAMES))
def test_saqm_width_and_statistic_dominate_the_enumerated_ellipsoid_and_intervals(inst, width_bound, oracle):
    """SAQM: ``U_t^2 >= max_M ||x_M||_Q^2`` and ``gap_bound >= max_{M != M_hat} theta_hat(M) + C ||x_M||_Q
    - theta_hat(M_hat) + C ||x_M_hat||_Q`` (each super-arm in its own interval), by enumeration."""
    check_saqm(inst, width_bound, oracle)


# ======================================================================================
# SwapBound (top-k): pair, graded, icb and their minimum
# ======================================================================================
def check_swap_bound(inst: Instance, rules: str, delta: float, confidence: str = "tight") -> None:
    """SwapBound's statistic against the exact largest gap of its answer over its directed events.

    ``confidence`` is passed explicitly (``"stitched"`` would need the index of the check, which
    depends on the run; the bounds given the radii are the same)."""
    n, k = inst.problem.n, inst.problem.k
    statistic, answer, details = algorithm("swap", inst.problem, rules=rules, delta=delta,
                                           confidence=confidence)._rule(inst.estimate, inst.radius)
    assert inst.is_empirical_best(answer)
    radii = swap_radii(n, k, inst.estimate.pulls, delta, rules, confidence)
    assert details["C_pair"] == pytest.approx(radii[0], rel=1e-12)
    exact = directed_worst_gap(inst, answer, radii)
    assert at_least(statistic, exact, relative=LP_RELATIVE), (statistic, exact, details["bound_used"])
    if rules == "graded":  # the graded terms bound T_m = max over m-swaps of gain + C_m width, exactly
        assert at_least(statistic, max(0.0, float(graded_terms(inst, answer, radii).max()))), statistic


@pytest.mark.slow
@settings(max_examples=200, deadline=None)
@given(instances(classes=("topk",)), st.sampled_from(("all", "pair", "graded")), st.sampled_from((0.01, 0.05, 0.5)),
       st.sampled_from(("tight", "paper")))
def test_swap_bounds_dominate_the_exact_worst_case_of_their_events(inst, rules, delta, confidence):
    """SwapBound against the exact largest gap of its answer over the one-sided directed events of every
    possible optimal team (an LP per team, radii rebuilt here from enumerated counts)."""
    check_swap_bound(inst, rules, delta, confidence)


# ======================================================================================
# Every rule, one statement: the statistic covers the real gap on the rule's own event
# ======================================================================================
def _event_of(name: str, inst: Instance, answer) -> tuple[np.ndarray, np.ndarray, np.ndarray, bool]:
    """(directions, limits, upper bounds per challenger, whether ``answer`` itself competes)."""
    X, Q, C, theta = inst.X, inst.Q, inst.radius, inst.theta
    D = inst.challengers(answer)
    if name == "icb":  # n directions e_i
        beta = C * np.sqrt(np.diag(Q))
        return np.eye(inst.problem.n), beta, D @ theta + np.abs(D) @ beta, True
    if name == "saqm":  # the C(n, k) super-arms x_M; M_hat does not compete (the statistic may be < 0)
        widths = C * _norms(X, Q)
        own = np.all(D == 0, axis=1)
        return X, widths, D @ theta + widths + widths[own][0], False
    # exhaustive, safoa: the pairwise directions x_M - x_M'
    pairs = np.array([X[i] - X[j] for i, j in itertools.combinations(range(len(X)), 2)])
    return pairs, C * _norms(pairs, Q), D @ theta + C * _norms(D, Q), True


def check_rule_on_its_event(name: str, inst: Instance) -> None:
    statistic, answer, _ = algorithm(name, inst.problem)._rule(inst.estimate, inst.radius)
    assert inst.is_empirical_best(answer)
    directions, limits, upper, competes = _event_of(name, inst, answer)
    D = inst.challengers(answer)
    if not competes:
        keep = np.any(D != 0, axis=1)
        D, upper = D[keep], upper[keep]
    exact = worst_gap_lp(inst.theta, D, directions, limits, upper)
    assert at_least(statistic, exact, relative=LP_RELATIVE), (statistic, exact)


def _classes_of(name: str) -> tuple[str, ...]:
    """The decision classes a rule accepts (its ``decision_classes``): ICB and Exhaustive take any."""
    accepted = CLASSES[name].decision_classes
    return ("topk", "pm") if fb.PartitionMatroid in accepted or DecisionClass in accepted else ("topk",)


@pytest.mark.slow
@pytest.mark.parametrize("name", ["icb", "exhaustive", "safoa", "saqm"])
@settings(max_examples=80, deadline=None)
@given(data=st.data())
def test_every_rule_covers_the_largest_gap_of_its_answer_over_its_confidence_event(name, data):
    """``statistic >= max {theta(M) - theta(M_hat) : theta on the rule's event, M in the class}``, by LP.

    The events: ICB ``|e_i . (theta - theta_hat)| <= C ||e_i||_Q``; SAQM ``|x_M . (...)| <= C ||x_M||_Q``
    (``M != M_hat`` only: SAQM's statistic bounds the best challenger and may be negative);
    Exhaustive and SA-FOA ``|(x_M - x_M') . (...)| <= C ||x_M - x_M'||_Q``. SwapBound's events are
    in :func:`test_swap_bounds_dominate_the_exact_worst_case_of_their_events`.
    """
    check_rule_on_its_event(name, data.draw(instances(classes=_classes_of(name), max_n=6)))


# ======================================================================================
# gap_objective: triangle bound, surrogate, surrogate step
# ======================================================================================
def check_gap_objective(inst: Instance, log_reference: float, oracle: str) -> None:
    """``triangle_bound`` and ``surrogate_step``'s bound >= ``max_M f(M)``; the surrogate >= ``f(M)`` at every member.

    The tangent point ``f0`` is drawn anywhere around the member widths; the surrogate's claim
    holds for every ``f0 > 0``. For a partition matroid the surrogate is maximised over all
    ``k``-subsets, a superset of the class: its bound must still dominate the class's maximum.
    """
    best, theta, Q, C = inst.best, inst.theta, inst.Q, inst.radius
    exact = gap_objective_max(inst, best, C)
    assert at_least(triangle_bound(inst.problem, theta, Q, best, C), exact)
    D = inst.challengers(best)
    f0 = float(np.max(_norms(D, Q)) ** 2 * 10.0 ** log_reference) or 1e-12
    P, constant = surrogate(theta, Q, best, C, f0)
    values = D @ theta + C * _norms(D, Q)
    surrogate_values = np.einsum("ij,jk,ik->i", inst.X, P, inst.X) + constant
    scale = float(np.abs(P).sum() + abs(constant))
    assert np.all(surrogate_values >= values - RELATIVE * (1.0 + np.abs(values) + scale))
    _, step_bound, _ = surrogate_step(theta, Q, best, C, f0, oracle)
    assert at_least(step_bound, exact, scale=scale), (step_bound, exact)


@pytest.mark.slow
@settings(max_examples=300, deadline=None)
@given(instances(), st.floats(-4.0, 2.0), st.sampled_from(ORACLE_NAMES))
def test_gap_objective_bounds_dominate_the_enumerated_maximum(inst, log_reference, oracle):
    """``triangle_bound``, ``surrogate_step``'s bound >= ``max_M f(M)``; the surrogate >= ``f(M)`` at every member."""
    check_gap_objective(inst, log_reference, oracle)


# ======================================================================================
# qp: every certified bound on the QP optimum, every oracle
# ======================================================================================
def check_qp(inst: Instance, oracle: str) -> None:
    n, k, Q = inst.problem.n, inst.problem.k, inst.Q
    everything = _indicators(list(itertools.combinations(range(n), k)), n)
    optimum = float(np.max(np.einsum("ij,jk,ik->i", everything, Q, everything)))
    solution = approximate_qp(Q, k, oracle)
    assert solution.value <= optimum * (1 + RELATIVE)
    for name, value in certified_bounds(Q, k, solution).items():
        assert at_least(value, optimum), (name, value, optimum)


@pytest.mark.slow
@settings(max_examples=300, deadline=None)
@given(instances(), st.sampled_from(ORACLE_NAMES))
def test_qp_certified_bounds_dominate_the_enumerated_optimum(inst, oracle):
    """Each of :func:`fullbandit.full.qp.certified_bounds` >= ``max_{|S| = k} x_S^T Q x_S`` (all k-subsets)."""
    check_qp(inst, oracle)


# ======================================================================================
# dks: certified upper bounds on the DkS optimum and the oracles' proven ratios
# ======================================================================================
def _dks_optimum(W: np.ndarray, k: int) -> float:
    """``max_{|S| = k} sum_{i < j in S} W_ij``, by enumeration."""
    return max((sum(W[i, j] for i, j in itertools.combinations(S, 2))
                for S in itertools.combinations(range(W.shape[0]), k)), default=0.0)


@pytest.mark.slow
@settings(max_examples=100, deadline=None)
@given(instances(), st.integers(0, 2 ** 32 - 1))
def test_dks_bounds_dominate_the_optimum_on_algorithm1_graphs(inst, seed):
    """``bound_matrix`` and ``bound`` (networkx) >= the DkS optimum of the graph Algorithm 1 builds from ``A^-1``.

    Also each oracle's answer reaches its proven ratio ``w(S) >= alpha OPT_k``, the premise of
    the oracle-ratio and Theorem 1 bounds. ``k`` is drawn over ``1..n`` (the bounds allow ``k = n``).
    """
    W = dks_weights(inst.Q)
    n = W.shape[0]
    k = int(np.random.default_rng(seed).integers(1, n + 1))
    optimum = _dks_optimum(W, k)
    methods = ("spectral", "degree", "edge", "sdp") if n <= 6 else ("spectral", "degree", "edge")
    for name, value in bound_matrix(W, k, methods).items():
        assert at_least(value, optimum), (name, value, optimum)
    G = nx.Graph()
    G.add_nodes_from(range(n))
    G.add_weighted_edges_from((i, j, W[i, j]) for i, j in itertools.combinations(range(n), 2))
    for name, value in bound(G, k, methods=("spectral", "degree", "edge")).items():
        assert at_least(value, optimum), (name, value, optimum)
    for oracle in ORACLE_NAMES:
        found = densest_k_subgraph_matrix(W, k, method=oracle)
        assert found.weight >= found.proven_ratio * optimum * (1 - RELATIVE) - 1e-15, (oracle, found, optimum)


# ======================================================================================
# lower_bound: certified lower values below the value of any design (hence below T_eps)
# ======================================================================================
def design_value(X: np.ndarray, theta: np.ndarray, weights: np.ndarray, sigma: float, epsilon: float) -> float:
    """``max_{B : Delta_B > eps} 2 sigma^2 ||x_M* - x_B||^2_{A^-1} / (Delta_B + eps)^2``, ``A = sum_M l_M x_M x_M^T``.

    An upper bound of ``T_eps(theta)`` for every design ``l`` (``A`` invertible): the
    alternatives whose best super-arm is ``B`` lie in the half-space where ``B`` beats ``M*`` by
    more than ``epsilon``, so ``inf`` over them is at least the half-space's, in closed form.
    With one correct answer it is the objective itself.
    """
    values = X @ theta
    star = int(np.argmax(values))
    gaps = values[star] - values
    bad = gaps > epsilon + 1e-12 * (1.0 + np.abs(theta).sum())
    if not bad.any():
        return 0.0
    A = X.T @ (weights[:, None] * X)
    Y = X[star] - X[bad]
    quadratic = np.einsum("ij,jk,ik->i", Y, np.linalg.inv(A), Y)
    return float(np.max(2.0 * sigma ** 2 * quadratic / (gaps[bad] + epsilon) ** 2))


def _lower_bound_check(problem, theta, sigma, epsilon, methods):
    X = _indicators(_members(problem), problem.n)
    uniform = np.full(len(X), 1.0 / len(X))
    references = [design_value(X, theta, uniform, sigma, epsilon)]
    results = {method: lower_bound(problem, theta, sigma, epsilon=epsilon, method=method) for method in methods}
    for result in results.values():
        if result.design:  # the solver's design, mixed with a little uniform weight (invertible)
            weights = np.array([dict(result.design).get(tuple(int(i) for i in np.flatnonzero(x)), 0.0) for x in X])
            references.append(design_value(X, theta, 0.999 * weights + 0.001 * uniform, sigma, epsilon))
    upper = min(references)
    for method, result in results.items():
        assert result.T_star <= upper * (1 + 1e-7) + 1e-12, (method, result.T_star, upper)
    return results, upper


@st.composite
def lower_bound_instances(draw, max_n: int):
    n = draw(st.integers(3, max_n))
    seed = draw(st.integers(0, 2 ** 32 - 1))
    rng = np.random.default_rng(seed)
    problem = fb.TopK(n, draw(st.integers(1, n - 1))) if draw(st.booleans()) else _partition_matroid(rng, n)
    theta = np.round(rng.uniform(0.0, 1.0, n), draw(st.sampled_from((1, 3))))  # one decimal: ties
    return problem, theta, draw(st.sampled_from((0.3, 1.0, 2.0))), draw(st.sampled_from((0.0, 0.0, 0.05, 0.2)))


@pytest.mark.slow
@settings(max_examples=12, deadline=None)
@given(lower_bound_instances(max_n=5))
def test_lower_bound_certificates_are_below_the_value_of_every_design(case):
    """``T_star`` of the relaxation (certified for classes too large to enumerate) and of the exact
    cutting planes is at most the value of designs over the enumerated class, an upper bound of
    ``T_eps(theta)`` (:func:`design_value`); the relaxation is also below the exact bracket's top."""
    problem, theta, sigma, epsilon = case
    results, upper = _lower_bound_check(problem, theta, sigma, epsilon, ("relaxed", "cutting-plane"))
    assert results["relaxed"].T_star <= results["cutting-plane"].upper * (1 + 1e-7) + 1e-12
    if results["cutting-plane"].n_correct == 1:  # the reference is sharp: within 1% of T_eps itself
        assert upper <= results["cutting-plane"].upper * 1.01 + 1e-12


@pytest.mark.slow
@settings(max_examples=200, deadline=None)
@given(lower_bound_instances(max_n=8))
def test_lower_bound_certificates_are_below_the_value_of_every_design_larger(case):
    """As above on up to 8 arms, with the cvxpy method (``"sdp"``) too on classes of at most 20 members."""
    problem, theta, sigma, epsilon = case
    methods = ("relaxed", "cutting-plane") + (("sdp",) if problem.size <= 20 else ())
    _lower_bound_check(problem, theta, sigma, epsilon, methods)


# ======================================================================================
# Heavier variants
# ======================================================================================
@pytest.mark.slow
@settings(max_examples=1500, deadline=None)
@given(instances(classes=("topk",)), st.sampled_from(("all", "pair", "graded")), st.sampled_from((0.01, 0.5)))
def test_swap_bounds_dominate_the_exact_worst_case_of_their_events_more(inst, rules, delta):
    """More examples of :func:`test_swap_bounds_dominate_the_exact_worst_case_of_their_events`."""
    check_swap_bound(inst, rules, delta)


@pytest.mark.slow
@pytest.mark.parametrize("name", ["icb", "exhaustive", "safoa", "saqm"])
@settings(max_examples=500, deadline=None)
@given(data=st.data())
def test_every_rule_covers_the_largest_gap_over_its_event_up_to_8_arms(name, data):
    """The LP statement of :func:`test_every_rule_covers_the_largest_gap_of_its_answer_over_its_confidence_event`
    on up to 8 arms (7 for the pairwise events of SA-FOA and Exhaustive: up to 595 directions)."""
    max_n = 7 if name in ("exhaustive", "safoa") else 8
    check_rule_on_its_event(name, data.draw(instances(classes=_classes_of(name), max_n=max_n)))


@pytest.mark.slow
@settings(max_examples=3000, deadline=None)
@given(instances(), st.sampled_from(ORACLE_NAMES), st.sampled_from(("certified", "theorem1")), st.floats(-4.0, 2.0))
def test_every_closed_form_check_on_many_more_instances(inst, oracle, width_bound, log_reference):
    """The enumeration checks above (ICB, Exhaustive, SA-FOA, SAQM, gap objective, QP) on 3,000 more instances."""
    check_icb(inst)
    check_exhaustive(inst)
    check_gap_objective(inst, log_reference, oracle)
    check_qp(inst, oracle)
    if isinstance(inst.problem, fb.TopK):
        check_safoa(inst, oracle, 4, 3)
        check_saqm(inst, width_bound, oracle)


# ======================================================================================
# Negative controls: the same checks catch a rule that is not certified
# ======================================================================================
def test_heuristic_safoa_falls_below_the_maximum_it_estimates():
    """The published (heuristic) SA-FOA statistic is the value of ``f`` at a found super-arm, a lower
    bound of ``max_M f(M)``: on seeded instances it misses the maximum, so the property fails."""
    violations = []
    for inst in seeded_instances(150, seed=2024, min_n=7, max_n=8):
        statistic, answer, _ = algorithm("safoa", inst.problem, mode="heuristic")._rule(inst.estimate, inst.radius)
        exact = gap_objective_max(inst, answer, inst.radius)
        assert statistic <= exact + RELATIVE * (1.0 + abs(exact))
        if not at_least(statistic, exact):
            violations.append((statistic, exact))
    assert violations, "the heuristic SA-FOA never fell below max f: the check cannot tell it from a certified rule"


HALVED = {
    "icb": box_worst_gap,
    "exhaustive": gap_objective_max,
    "safoa": gap_objective_max,
    "saqm": interval_worst_gap,
}


@pytest.mark.parametrize("name", sorted(HALVED))
def test_hypothesis_finds_a_counterexample_for_a_halved_radius(name):
    """Each rule run at ``C / 2`` but compared with its exact quantity at ``C``: hypothesis must find a violation."""

    def violated(inst: Instance) -> bool:
        statistic, answer, _ = algorithm(name, inst.problem)._rule(inst.estimate, inst.radius / 2)
        return not at_least(statistic, HALVED[name](inst, answer, inst.radius))

    example = find(instances(classes=_classes_of(name)), violated,
                   settings=settings(max_examples=200, deadline=None, database=None, derandomize=True,
                                     phases=[Phase.generate], suppress_health_check=list(HealthCheck)))
    assert violated(example)
