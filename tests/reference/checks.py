"""The stopping checks and builds of the static full-bandit algorithms as they were before issue 13.

A verbatim copy (commit 01111fa) of every computation issue 13 changed, kept outside the
package (it was ``benchmarks/_core_reference.py``): the benchmark (``benchmarks/bench_core.py``)
times it side by side with the optimised code, and the tests (``tests/test_check_exactness.py``)
check that the optimised check returns the same statistic, threshold and answer on random
states. Nothing here is optimised, and nothing here calls the code it is the reference for:
the least-squares estimate from a dense ``float64`` design matrix (Cholesky, then the inverse of
the factor), each rule as it was (SAQM's eigen-decomposition and validated QP, SA-FOA's
surrogate steps with one eigen-decomposition each, SwapBound's and phased's spectra of
``P A^-1 P``), and the build (``make_support`` with one-at-a-time rank tests and dense condition
numbers, the SVD rank check of the support, the dense design matrix).

What the reference shares with the package is what issue 13 did not change: the confidence
radii, the decision classes, the densest-k-subgraph oracles, :func:`~fullbandit.full.qp.dks_weights`,
the graded bound's coupled terms, ICB's and the triangle bound, the matching, and (since issue 27,
which changed SwapBound's and phased's rules) the directed radii and the per-swap-size team bound.
It reads an algorithm through its public API only (its parameters, ``design``, ``radius``, ``directed_radii``,
``n_pulls``; PhasedSwap's ``phase_arms``, ``accepted``, ``rejected``, ``phase_radius``,
``phase_level``, ``graded_radii``), never a private attribute.
"""

from __future__ import annotations

import heapq
import math

import numpy as np

from fullbandit.core.algorithm import StoppingCheck
from fullbandit.design.conditioning import cyclic_condition_number, min_condition_number, optimal_swap_variance
from fullbandit.design.support import (
    AUTO_CONDITION_FACTOR,
    RANDOM_SUPPORT_FACTOR,
    SUPPORT_ENTRY_CAP,
    SWAP_OPTIMAL_FACTOR,
    cyclic_windows,
)
from fullbandit.full.gap_objective import exact_maximum, triangle_bound
from fullbandit.full.qp import (
    approximate_qp,
    cauchy_schwarz_bound,
    oracle_ratio_bound,
    spectral_bound,
    theorem1_bound,
)
from fullbandit.full.swap_bounds import max_swaps, max_weight_matching, team_bound
from fullbandit.linalg.least_squares import LeastSquaresEstimate, SingularDesignError
from fullbandit.util.validation import as_generator, check_int, check_k

SINGULAR_TOLERANCE = 1e-10


# --- the estimate ------------------------------------------------------------------------------

def dense_matrix(n: int, support) -> np.ndarray:
    """The support's 0/1 indicators as the old design kept them: ``m x n`` float64."""
    matrix = np.zeros((len(support), n))
    for row, arm in enumerate(support):
        matrix[row, list(arm)] = 1.0
    return matrix


def reference_estimate(matrix: np.ndarray, counts, reward_sums, prior_gram, prior_vector,
                       pulls: int) -> LeastSquaresEstimate:
    """The old ``StaticDesign.estimate``: dense Gram matrix, Cholesky, ``inv(L)``, ``L^-T L^-1``."""
    counts = np.asarray(counts)
    gram = matrix.T @ (counts[:, None] * matrix) + prior_gram
    b = matrix.T @ np.asarray(reward_sums) + prior_vector
    try:
        lower = np.linalg.cholesky(gram)
        if np.min(np.diag(lower)) ** 2 <= SINGULAR_TOLERANCE * np.max(np.diag(gram)):
            raise np.linalg.LinAlgError
    except np.linalg.LinAlgError:
        raise SingularDesignError("the pulled super-arms do not span R^n") from None
    lower_inverse = np.linalg.inv(lower)
    inverse = lower_inverse.T @ lower_inverse
    inverse = (inverse + inverse.T) / 2.0
    return LeastSquaresEstimate(theta=inverse @ b, gram=gram, gram_inverse=inverse, pulls=pulls)


def design_estimate(design, matrix: np.ndarray | None = None) -> LeastSquaresEstimate:
    """:func:`reference_estimate` on a :class:`fullbandit.linalg.static_design.StaticDesign`'s counts and sums."""
    matrix = dense_matrix(design.n, design.support) if matrix is None else matrix
    return reference_estimate(matrix, design.counts, design.reward_sums, design.prior_gram, design.prior_vector,
                              design.pulls)


# --- the rules ------------------------------------------------------------------------------

def row_bound(Q, k: int) -> float:
    n = Q.shape[0]
    if k == 1:
        return float(np.max(np.diag(Q)))
    off = np.where(np.eye(n, dtype=bool), -np.inf, Q)
    largest = -np.sort(-off, axis=1)[:, : k - 1]
    rows = np.diag(Q) + np.clip(largest, 0.0, None).sum(axis=1)
    return float(np.sort(rows)[-k:].sum())


def certified_bounds(Q, k: int, solution) -> dict[str, float]:
    return {"theorem1": theorem1_bound(solution), "spectral": spectral_bound(Q, k, solution.eigenvalue_max),
            "cauchy-schwarz": cauchy_schwarz_bound(Q, k), "row": row_bound(Q, k),
            "oracle-ratio": oracle_ratio_bound(solution)}


def saqm_rule(algorithm, estimate: LeastSquaresEstimate, radius: float):
    theta = estimate.theta
    best, runner_up = algorithm.problem.best_and_runner_up(theta)
    empirical_gap = float(theta[list(best)].sum() - theta[list(runner_up)].sum())
    Q = estimate.gram_inverse
    eigenvalues = np.linalg.eigvalsh(Q)
    solution = approximate_qp(Q, algorithm.problem.k, algorithm.oracle, eigenvalues=eigenvalues)
    if algorithm.width_bound == "theorem1":
        bounds = {"theorem1": solution.value / solution.theorem1_ratio}
    else:
        bounds = certified_bounds(Q, algorithm.problem.k, solution)
    bound_name = min(bounds, key=bounds.__getitem__)
    width = math.sqrt(bounds[bound_name])
    gap_bound = 2.0 * radius * width - empirical_gap
    return gap_bound, best, {"C_t": radius, "U_t": width, "Z_t": solution.value, "alpha_t": solution.theorem1_ratio,
                             "empirical_gap": empirical_gap, "bound_used": bound_name}


def gap_values(theta, Q, best, radius, indicators) -> np.ndarray:
    x_best = np.zeros(len(theta))
    x_best[list(best)] = 1.0
    differences = indicators - x_best
    quadratic = np.einsum("ij,jk,ik->i", differences, Q, differences, optimize=True)
    return indicators @ theta - x_best @ theta + radius * np.sqrt(np.clip(quadratic, 0.0, None))


def gap_value(theta, Q, best, radius, super_arm) -> float:
    x = np.zeros(len(theta))
    x[list(super_arm)] = 1.0
    return float(gap_values(theta, Q, best, radius, x[None, :])[0])


def surrogate(theta, Q, best, radius, reference_value: float):
    x_best = np.zeros(len(theta))
    x_best[list(best)] = 1.0
    root = math.sqrt(reference_value)
    P = (radius / (2.0 * root)) * Q
    P[np.diag_indices_from(P)] += theta - (radius / root) * (Q @ x_best)
    constant = -float(theta @ x_best) + radius * (float(x_best @ Q @ x_best) + reference_value) / (2.0 * root)
    return P, constant


def surrogate_step(theta, Q, best, radius, reference_value: float, oracle: str) -> tuple[tuple, float, str]:
    k = len(best)
    P, constant = surrogate(theta, Q, best, radius, reference_value)
    eigenvalues = np.linalg.eigvalsh(P)
    bounds = {"surrogate-spectral": k * float(eigenvalues[-1]), "surrogate-row": row_bound(P, k)}
    name = min(bounds, key=lambda key: bounds[key])
    shift = max(0.0, -eigenvalues[0]) + 1e-9 * max(1.0, abs(eigenvalues[-1])) + 1e-12
    candidate = approximate_qp(P + shift * np.eye(P.shape[0]), k, oracle, eigenvalues=eigenvalues + shift).subset
    return candidate, bounds[name] + constant, name


def safoa_references(algorithm, theta, Q, best, radius) -> list[tuple[int, ...]]:
    beta = radius * np.sqrt(np.clip(np.diag(Q), 0.0, None))
    inside = sorted(best)
    outside = [j for j in range(algorithm.problem.n) if j not in set(best)]
    scores = [((theta[j] + beta[j]) - (theta[i] - beta[i]), i, j) for i in inside for j in outside]
    scores.sort(key=lambda item: (-item[0], item[1], item[2]))
    return [tuple(sorted((set(best) - {i}) | {j})) for _, i, j in scores[: algorithm.n_references]]


def safoa_search(algorithm, theta, Q, best, radius) -> dict:
    x_best = np.zeros(algorithm.problem.n)
    x_best[list(best)] = 1.0
    best_value, best_arm = 0.0, tuple(best)
    surrogate_bounds = []
    for reference in safoa_references(algorithm, theta, Q, best, radius):
        current, current_value = reference, gap_value(theta, Q, best, radius, reference)
        if current_value > best_value:
            best_value, best_arm = current_value, current
        for _ in range(algorithm.recentre_steps + 1):
            x = np.zeros(algorithm.problem.n)
            x[list(current)] = 1.0
            difference = x - x_best
            f0 = float(difference @ Q @ difference)
            if f0 <= 0:
                break
            candidate, bound, bound_name = surrogate_step(theta, Q, best, radius, f0, algorithm.oracle)
            surrogate_bounds.append((bound, bound_name))
            value = gap_value(theta, Q, best, radius, candidate)
            if value > best_value:
                best_value, best_arm = value, candidate
            if value <= current_value or candidate == current:
                break
            current, current_value = candidate, value
    return {"value": best_value, "maximiser": best_arm, "surrogate_bounds": surrogate_bounds}


def safoa_rule(algorithm, estimate: LeastSquaresEstimate, radius: float):
    theta, Q = estimate.theta, estimate.gram_inverse
    best = algorithm.problem.best(theta)
    found = safoa_search(algorithm, theta, Q, best, radius)
    details = {"C_t": radius, "found_value": found["value"],
               "found_maximiser": "-".join(map(str, found["maximiser"]))}
    if algorithm.mode == "heuristic":
        return found["value"], best, details
    bounds = {"triangle": triangle_bound(algorithm.problem, theta, Q, best, radius)}
    for bound, name in found["surrogate_bounds"]:
        bounds[name] = min(bound, bounds.get(name, np.inf))
    bound_name = min(bounds, key=bounds.__getitem__)
    details.update({"certified_bound": bounds[bound_name], "bound_used": bound_name})
    return bounds[bound_name], best, details


def icb_rule(algorithm, estimate: LeastSquaresEstimate, radius: float):
    theta = estimate.theta
    beta = radius * np.sqrt(np.clip(np.diag(estimate.gram_inverse), 0.0, None))
    best = algorithm.problem.best(theta)
    inside = np.zeros(algorithm.problem.n, dtype=bool)
    inside[list(best)] = True
    weights = np.where(inside, theta - beta, theta + beta)
    challenger = algorithm.problem.maximize(weights)
    objective = float(weights[list(challenger)].sum() - weights[list(best)].sum())
    return objective, best, {"C_t": radius, "challenger": "-".join(map(str, challenger)),
                             "max_beta": float(beta.max())}


def exhaustive_rule(algorithm, estimate: LeastSquaresEstimate, radius: float):
    best = algorithm.problem.best(estimate.theta)
    challenger, value = exact_maximum(algorithm.problem, estimate.theta, estimate.gram_inverse, best, radius,
                                      algorithm.limit)
    return value, best, {"C_t": radius, "challenger": "-".join(map(str, challenger))}


def pair_widths(gram_inverse) -> np.ndarray:
    Q = np.asarray(gram_inverse, dtype=float)
    d = np.diag(Q)
    return np.sqrt(np.clip(d[:, None] + d[None, :] - 2.0 * Q, 0.0, None))


def pair_bound(theta, gram_inverse, best, radius: float) -> tuple[float, int]:
    theta = np.asarray(theta, dtype=float)
    inside_mask = np.zeros(theta.size, dtype=bool)
    inside_mask[list(best)] = True
    inside, outside = np.flatnonzero(inside_mask), np.flatnonzero(~inside_mask)
    widths = pair_widths(gram_inverse)[np.ix_(inside, outside)]
    gains = theta[outside][None, :] - theta[inside][:, None] + radius * widths
    value, edges = max_weight_matching(gains)
    return value, len(edges)


def projected_lambda_max(gram_inverse) -> float:
    Q = np.asarray(gram_inverse, dtype=float)
    centred = Q - Q.mean(axis=0)[None, :] - Q.mean(axis=1)[:, None] + Q.mean()
    centred = (centred + centred.T) / 2.0
    return max(float(np.linalg.eigvalsh(centred)[-1]), 0.0)


def swap_rule(algorithm, estimate: LeastSquaresEstimate, radius: float):
    """SwapBound's rule since issue 27 (directed events, the per-swap-size team bound) on the reference
    estimate and spectrum; the radii and the team bound are the package's (see the module docstring)."""
    theta, Q = estimate.theta, estimate.gram_inverse
    best = algorithm.problem.best(theta)
    radii = algorithm.directed_radii(estimate.pulls)
    if not math.isfinite(radii[0]):
        return math.inf, best, {"C_pair": radii[0], "bound_used": "none", "binding_swaps": 0,
                                "certified_team_is_empirical_best": True}
    rules = {"all": ("pair", "graded", "exact"), "pair": ("pair",), "graded": ("graded",)}[algorithm.rules]
    lam = projected_lambda_max(Q) if "graded" in rules else None
    bound = team_bound(theta, Q, best, radii, rules=rules, lambda_max=lam)
    assert algorithm.alternatives == 0, "the reference certifies the empirical best only"
    details = {"C_pair": radii[0], "bound_used": bound.rule or "none", "binding_swaps": bound.swaps,
               "certified_team_is_empirical_best": True}
    return bound.value, best, details


RULES = {"saqm": saqm_rule, "safoa": safoa_rule, "icb": icb_rule, "exhaustive": exhaustive_rule, "swap": swap_rule}


def reference_check(algorithm, matrix: np.ndarray | None = None) -> StoppingCheck:
    """The old ``StaticFullBandit._evaluate`` on ``algorithm``'s data (no Bernstein terms)."""
    design = algorithm.design
    t = design.pulls
    try:
        estimate = design_estimate(design, matrix)
    except SingularDesignError as error:
        return StoppingCheck(t, math.inf, float(algorithm.epsilon), None, algorithm.guarantee == "certified",
                             {"singular": str(error)})
    gap_bound, answer, details = RULES[algorithm.name](algorithm, estimate, algorithm.radius(t))
    return StoppingCheck(t, float(gap_bound), float(algorithm.epsilon), answer, algorithm.guarantee == "certified",
                         details, estimate)


def phased_decide(algorithm, estimate: LeastSquaresEstimate, radius: float, graded_radii: list[float]):
    """The old ``PhasedSwap._decide``: ``(accept, reject, bound, answer, used)``."""
    live, wanted = live_arms(algorithm)
    undecided = algorithm.phase_arms
    theta = estimate.theta[live]
    Q = estimate.gram_inverse[np.ix_(live, live)]
    if math.isfinite(radius):
        beats = theta[:, None] - theta[None, :] - radius * pair_widths(Q) > 0.0
        np.fill_diagonal(beats, False)
    else:
        beats = np.zeros((len(live), len(live)), dtype=bool)
    accept_local = np.flatnonzero(beats.sum(axis=1) >= len(live) - wanted) if 0 < wanted else np.array([], int)
    reject_local = np.flatnonzero(beats.sum(axis=0) >= wanted) if wanted < len(live) else np.array([], int)
    accept = [undecided[live[i]] for i in accept_local]
    reject = [undecided[live[j]] for j in reject_local]
    keep = np.setdiff1d(np.arange(len(live)), np.concatenate([accept_local, reject_local]))
    still = wanted - len(accept)
    chosen = sorted(list(algorithm.accepted) + accept)
    if still <= 0 or still >= len(keep):
        members = [undecided[live[i]] for i in keep] if still > 0 else []
        return accept, reject, 0.0, tuple(sorted(chosen + members)), "decided"
    order = np.argsort(-theta[keep], kind="stable")[:still]
    best_local = tuple(int(i) for i in order)
    members = [undecided[live[keep[i]]] for i in best_local]
    if not math.isfinite(radius):
        return accept, reject, math.inf, tuple(sorted(chosen + members)), "none"
    theta_kept, Q_kept = theta[keep], Q[np.ix_(keep, keep)]
    bound = team_bound(theta_kept, Q_kept, best_local, graded_radii[:max_swaps(len(keep), still)],
                       lambda_max=projected_lambda_max(Q_kept))
    return accept, reject, bound.value, tuple(sorted(chosen + members)), bound.rule or "none"


def live_arms(algorithm) -> tuple[np.ndarray, int]:
    """The old ``PhasedSwap._live``: local indices (in the phase's arms) of the arms still undecided, and how
    many of them to choose."""
    decided = set(algorithm.accepted) | set(algorithm.rejected)
    live = np.array([i for i, arm in enumerate(algorithm.phase_arms) if arm not in decided], dtype=int)
    return live, algorithm.problem.k - len(algorithm.accepted)


def phased_check(algorithm, matrix: np.ndarray | None = None, *, carried=(None, math.inf)) -> StoppingCheck:
    """The old ``PhasedSwap._evaluate`` (its details reduced to the decisions and the bound).

    ``carried``: the answer and bound a check returns while the phase's pulls do not identify
    the means (the package carries them from the check that ended the previous phase).
    """
    design = algorithm.design
    t = design.pulls
    try:
        estimate = design_estimate(design, matrix)
    except SingularDesignError:
        answer, bound = carried
        return StoppingCheck(algorithm.n_pulls, bound, float(algorithm.epsilon), answer, True, {})
    radii = algorithm.graded_radii(t)
    radius = radii[0]
    accept, reject, bound, answer, used = phased_decide(algorithm, estimate, radius, radii)
    details = {"C_pair": radius, "phase_pulls": t, "accept": accept, "reject": reject, "bound_used": used}
    return StoppingCheck(algorithm.n_pulls, bound, float(algorithm.epsilon), answer, True, details, estimate)


# --- the build ------------------------------------------------------------------------------

def random_support(n: int, k: int, seed=None, size: int | None = None) -> list[tuple[int, ...]]:
    """The old top-k ``random_support``: one rank test (Gram-Schmidt) per draw."""
    rng = as_generator(seed)
    total = math.comb(n, k)
    if size is None:
        size = min(RANDOM_SUPPORT_FACTOR * n, total)
    max_draws = 100 * size + 10_000
    chosen: list[tuple[int, ...]] = []
    seen: set[tuple[int, ...]] = set()
    basis = np.zeros((n, n))
    rank = 0
    for _ in range(max_draws):
        if rank == n and len(chosen) >= size:
            return chosen
        arm = tuple(sorted(int(i) for i in rng.choice(n, size=k, replace=False)))
        if arm in seen:
            continue
        adds_rank = False
        if rank < n:
            x = np.zeros(n)
            x[list(arm)] = 1.0
            residual = x - basis[:rank].T @ (basis[:rank] @ x)
            norm = float(np.linalg.norm(residual))
            adds_rank = norm > 1e-9 * math.sqrt(k)
            if adds_rank:
                basis[rank] = residual / norm
                rank += 1
        if adds_rank or len(chosen) < size - (n - rank):
            chosen.append(arm)
            seen.add(arm)
    raise RuntimeError("no spanning support")


def design_condition_number(n: int, support) -> float:
    matrix = dense_matrix(n, support)
    weights = np.full(len(support), 1.0 / len(support))
    eigenvalues = np.linalg.eigvalsh(matrix.T @ (weights[:, None] * matrix))
    return float("inf") if eigenvalues[0] <= 1e-12 * eigenvalues[-1] else float(eigenvalues[-1] / eigenvalues[0])


def swap_variance(n: int, support) -> float:
    matrix = dense_matrix(n, support)
    weights = np.full(len(matrix), 1.0 / len(matrix))
    gram = matrix.T @ (weights[:, None] * matrix)
    try:
        inverse = np.linalg.inv(gram)
    except np.linalg.LinAlgError:
        return math.inf
    if not np.all(np.isfinite(inverse)) or np.linalg.matrix_rank(gram) < n:
        return math.inf
    d = np.diag(inverse)
    return float(np.max(d[:, None] + d[None, :] - 2.0 * inverse))


def make_support(n: int, k: int, kind: str, seed=None, size: int | None = None) -> list[tuple[int, ...]]:
    """The old top-k ``make_support`` for the kinds "auto", "swap-optimal", "random", "cyclic"."""
    rng = as_generator(seed)
    if kind == "cyclic":
        return cyclic_windows(n, k)
    if kind == "random" or size is not None:
        return random_support(n, k, rng, size)
    total = math.comb(n, k)
    if kind == "auto":
        threshold = AUTO_CONDITION_FACTOR * min_condition_number(n, k)
        if cyclic_condition_number(n, k) <= threshold:
            return cyclic_windows(n, k)
        size = min(RANDOM_SUPPORT_FACTOR * n, total)
        while True:
            support = random_support(n, k, rng, size)
            if size == total or design_condition_number(n, support) <= threshold:
                return support
            size = min(2 * size, total)
    target = SWAP_OPTIMAL_FACTOR * optimal_swap_variance(n, k)
    largest = min(total, max(n, SUPPORT_ENTRY_CAP // n))
    size = min(2 * RANDOM_SUPPORT_FACTOR * n, largest)
    while True:
        support = random_support(n, k, rng, size)
        if size == largest or swap_variance(n, support) <= target:
            return support
        size = min(2 * size, largest)


def reference_build(n: int, k: int, kind: str, seed=None, size: int | None = None):
    """The old build of a static algorithm with a uniform allocation: support, SVD rank check, dense
    design matrix, round-robin tracker. Returns ``(support, dense matrix)``."""
    check_int("n", n, low=2)
    check_k(k, n)
    support = make_support(n, k, kind, seed, size)
    support = [tuple(int(i) for i in arm) for arm in support]
    if np.linalg.matrix_rank(dense_matrix(n, support)) < n:  # the old _check_spanning
        raise SingularDesignError("support does not span R^n")
    matrix = dense_matrix(n, support)  # the old StaticDesign
    heap = [(0.0, j) for j in range(len(support))]  # the old Tracker
    heapq.heapify(heap)
    return support, matrix
