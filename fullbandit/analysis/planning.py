"""Plan a campaign: what each certified algorithm would cost, estimated before paying for it.

:func:`plan` simulates a few seeded runs of every certified full-bandit algorithm (only the
team's summed reward is seen) and every certified per-arm one (each member's answer is seen
and graded) on independent Bernoulli workers whose accuracies are the *prior* ones given,
and reports their mean pulls, how often they certified and were epsilon-optimal, and their
wall time, with the instance lower bound beside them where it is affordable.

These are estimates from simulation on the prior accuracies, and only as good as the prior:
a prior from a small pilot, or workers whose accuracy drifts, make them wrong.

When is full-bandit feedback warranted? The sum-only search is for when individual answers
cannot be graded (only the team's outcome is observed). With per-worker gold answers,
ranking workers on their graded answers is far cheaper (on public crowd data sets, about
50-100 gold answers per worker was reported 100-1000x cheaper than a full-bandit search in
issue 12; the per-arm rows here are sequential such searches). Compare the ``answers``
column of both kinds in the plan.

Parameters: every planned algorithm gets the plan's ``epsilon`` (the question's tolerance on
the team's sum) and ``budget`` (the plan's cap on one simulated run), and the ``parameters``
given that it declares; every other parameter, ``delta`` included unless given, takes the
class's default, so a plan runs the algorithms as they run anywhere else.

Seeds: run ``i`` (``0 <= i < runs``) of every algorithm uses
``environment_seed, algorithm_seed = numpy.random.SeedSequence([seed, i]).spawn(2)``, so a
plan is reproducible and can be checked against :func:`fullbandit.run` directly.

Examples
--------
>>> from fullbandit.analysis.planning import plan
>>> result = plan([0.9, 0.85, 0.5, 0.45, 0.4, 0.35], k=2, epsilon=0.2, runs=2,
...               algorithms=("icb", "lucb"), budget=200_000)
>>> [row.algorithm for row in result.rows]
['icb', 'lucb']
>>> icb = result.rows[0]
>>> icb.answers_per_pull, icb.certified_fraction, icb.epsilon_optimal_fraction
(2, 1.0, 1.0)
>>> result.lower_bound.exact, result.lower_bound.samples > 0
(True, True)
"""

from __future__ import annotations

import math
import time
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field

import numpy as np

from fullbandit.analysis.sample_complexity import lower_bound as instance_lower_bound
from fullbandit.core import registry
from fullbandit.core.loop import run
from fullbandit.core.params import validate_parameters
from fullbandit.environments.models import BernoulliTeam
from fullbandit.problems.classes import TopK
from fullbandit.util.validation import InvalidParameterError, check_int, check_probability, check_real

__all__ = ["plan", "Plan", "PlanRow", "PlanLowerBound", "planned_algorithms", "run_seeds",
           "DEFAULT_RUNS", "DEFAULT_BUDGET", "LOWER_BOUND_LIMIT", "RELAXED_WORKERS"]

#: Seeded runs per algorithm.
DEFAULT_RUNS = 3
#: Pull cap of each run (team trials for full feedback, single answers for per-arm feedback).
DEFAULT_BUDGET = 1_000_000
#: Largest number of teams ``C(n, k)`` for which the exact lower bound is computed; beyond it
#: the relaxation (a smaller, still certified value) is used, up to :data:`RELAXED_WORKERS`.
LOWER_BOUND_LIMIT = 5_000
#: Most workers for which the relaxed lower bound is computed (it has a term per pair of
#: workers: 0.6 s for 55 workers here); beyond it the bound is skipped with a note.
RELAXED_WORKERS = 100


@dataclass(frozen=True)
class PlanRow:
    """The simulated cost of one algorithm.

    ``pulls`` are what the algorithm's budget counts: team trials for full feedback, single
    graded answers for per-arm ("semi") feedback. ``answers`` are the individual answers
    consumed: ``k`` per team trial, one per per-arm pull. ``certified_fraction``: runs whose
    certified stopping rule fired; ``epsilon_optimal_fraction``: runs whose answer was
    epsilon-optimal on the prior accuracies, however they stopped (a run at the budget may
    still have found a good team, without a guarantee). An algorithm that cannot run on the
    instance (e.g. ``exhaustive`` beyond its enumeration limit) has ``note`` set to the reason,
    no pulls, and ``None`` for its statistics.
    """

    algorithm: str
    feedback: str
    runs: int
    pulls: tuple[int, ...]
    mean_pulls: float | None
    answers_per_pull: int
    mean_answers: float | None
    certified_fraction: float | None
    epsilon_optimal_fraction: float | None
    budget_hits: int
    mean_seconds: float | None
    note: str | None = None


@dataclass(frozen=True)
class PlanLowerBound:
    """The instance lower bound on team trials (full feedback), or why it was skipped."""

    computed: bool
    note: str
    exact: bool = False
    method: str | None = None
    samples: float | None = None
    T_star: float | None = None
    sigma: float | None = None
    seconds: float | None = None


@dataclass(frozen=True)
class Plan:
    """Inputs and results of :func:`plan`.

    ``delta`` is the one the lower bound uses: the one given, else the smallest the planned
    algorithms use by default; ``parameters`` the other algorithm parameters given.
    """

    accuracies: tuple[float, ...]
    k: int
    epsilon: float
    delta: float
    runs: int
    budget: int
    seed: int
    rows: tuple[PlanRow, ...]
    lower_bound: PlanLowerBound
    parameters: dict = field(default_factory=dict)
    caveat: str = field(default=(
        "estimates from simulation on the prior accuracies (independent Bernoulli workers); "
        "only as good as the prior"))

    def as_dict(self) -> dict:
        """A JSON-ready dictionary."""
        return asdict(self)

    def table(self) -> str:
        """The plan as a text table, with the lower bound and the caveat below it."""
        lines = [f"plan          {len(self.accuracies)} workers, k={self.k}, epsilon={self.epsilon:g} (team sum), "
                 f"delta={self.delta:g}, {self.runs} run(s) each, budget {self.budget:,} pulls per run",
                 f"{'algorithm':<15}{'feedback':<10}{'mean pulls':>14}{'answers':>16}{'certified':>11}"
                 f"{'eps-optimal':>13}{'at budget':>11}{'seconds':>10}"]
        for row in self.rows:
            if row.mean_pulls is None:
                lines.append(f"{row.algorithm:<15}{row.feedback:<10}skipped: {row.note}")
                continue
            lines.append(f"{row.algorithm:<15}{row.feedback:<10}{row.mean_pulls:>14,.0f}{row.mean_answers:>16,.0f}"
                         f"{row.certified_fraction:>11.0%}{row.epsilon_optimal_fraction:>13.0%}"
                         f"{row.budget_hits:>7}/{row.runs:<3}{row.mean_seconds:>10.3f}")
        bound = self.lower_bound
        if bound.computed and bound.samples is not None:
            kind = "exact (enumerated)" if bound.exact else "relaxed (too many teams to enumerate: a smaller value)"
            lines.append(f"lower bound   {bound.samples:,.0f} team trials ({bound.samples * self.k:,.0f} answers), "
                         f"{kind}; {bound.note}")
        else:
            lines.append(f"lower bound   skipped: {bound.note}")
        lines.append("pulls: team trials for full feedback (k answers each), single graded answers for semi")
        lines.append(f"note: {self.caveat}")
        hits = sum(row.budget_hits for row in self.rows)
        if hits:
            lines.append(f"note: {hits} run(s) hit the budget of {self.budget:,} pulls; their mean pulls are "
                         f"truncated at the budget (raise --budget, or epsilon)")
        return "\n".join(lines)


def planned_algorithms() -> tuple[str, ...]:
    """The certified full-bandit algorithms, then the certified per-arm ones (registry names)."""
    return (registry.names(feedback="full", guarantee="certified", setting="fixed-confidence")
            + registry.names(feedback="semi", guarantee="certified", setting="fixed-confidence"))


def run_seeds(seed: int, run_index: int) -> tuple[np.random.SeedSequence, np.random.SeedSequence]:
    """``(environment_seed, algorithm_seed)`` of run ``run_index``: ``SeedSequence([seed, run_index]).spawn(2)``.

    >>> environment_seed, algorithm_seed = run_seeds(0, 1)
    >>> environment_seed.entropy, environment_seed.spawn_key
    ([0, 1], (0,))
    """
    environment_seed, algorithm_seed = np.random.SeedSequence([seed, run_index]).spawn(2)
    return environment_seed, algorithm_seed


def check_accuracies(accuracies, k: int, argument: str = "accuracies") -> np.ndarray:
    """``accuracies`` as a float vector in [0, 1] with at least ``k + 1`` entries, or an error naming ``argument``."""
    try:
        values = np.asarray(accuracies, dtype=float)
    except (TypeError, ValueError):
        raise InvalidParameterError(f"{argument} must be numbers in [0, 1], got {accuracies!r}") from None
    if values.ndim != 1:
        raise InvalidParameterError(f"{argument} must be a flat list of numbers in [0, 1]")
    if not np.all(np.isfinite(values)) or np.any(values < 0) or np.any(values > 1):
        bad = [float(v) for v in values if not (0.0 <= v <= 1.0)]
        raise InvalidParameterError(f"{argument} must lie in [0, 1]; got {bad[:5]}")
    if values.size < k + 1:
        raise InvalidParameterError(f"{argument} has {values.size} workers; a team of k={k} needs at least "
                                    f"k + 1 = {k + 1}")
    return values


def plan(accuracies, k: int, *, epsilon: float, delta: float | None = None, runs: int = DEFAULT_RUNS,
         budget: int = DEFAULT_BUDGET, seed: int = 0, algorithms: Sequence[str] | None = None,
         lower_bound_limit: int = LOWER_BOUND_LIMIT, relaxed_workers: int = RELAXED_WORKERS,
         parameters: Mapping | None = None) -> Plan:
    """Estimate what a campaign would cost, by simulation on prior per-worker accuracies.

    These are estimates from simulation on the prior accuracies, only as good as the prior.
    Full-bandit feedback (only a team's summed reward is seen) is warranted when individual
    answers cannot be graded; with per-worker gold answers, ranking workers on graded
    answers (the per-arm rows) is far cheaper.

    Parameters
    ----------
    accuracies : array_like of float
        Prior accuracy of every worker, in [0, 1]; at least ``k + 1`` workers.
    k : int
        Team size, ``>= 1``.
    epsilon : float
        Tolerance on the team's summed accuracy, ``>= 0`` (an algorithm whose tolerance is
        per member, e.g. ``adaptive-topk``, is given ``epsilon / k``).
    delta : float, optional
        Error probability in ``(0, 1)``, for every algorithm that takes one; ``None``: each
        algorithm's class default (the lower bound then uses the smallest of them).
    runs : int
        Seeded runs per algorithm (seeds: :func:`run_seeds`).
    budget : int
        Pull cap of every run (team trials for full feedback, single answers for per-arm
        feedback); a run that reaches it is counted in ``budget_hits``.
    seed : int
        Base seed, ``>= 0``.
    algorithms : sequence of str, optional
        Registry names or class names (default: :func:`planned_algorithms`).
    lower_bound_limit : int
        Largest ``C(n, k)`` for which the exact lower bound (enumeration) is computed; above
        it, the relaxation of :func:`fullbandit.lower_bound` (a smaller certified value).
    relaxed_workers : int
        Most workers for which the relaxation is computed; above it, the bound is skipped.
    parameters : mapping, optional
        Other algorithm parameters by name, each passed to every planned algorithm that declares
        it (and checked against its declaration first); one that none declares is refused.

    Returns
    -------
    Plan

    Examples
    --------
    >>> result = plan([0.9, 0.8, 0.4, 0.3], k=1, epsilon=0.1, runs=1, algorithms=("lucb",))
    >>> row = result.rows[0]
    >>> row.feedback, row.answers_per_pull, row.mean_pulls == row.mean_answers
    ('semi', 1, True)
    """
    k = check_int("k", k, low=1)
    values = check_accuracies(accuracies, k)
    epsilon = check_real("epsilon", epsilon, low=0.0)
    if delta is not None:
        delta = check_probability("delta", delta)
    runs = check_int("runs", runs, low=1)
    budget = check_int("budget", budget, low=1)
    seed = check_int("seed", seed, low=0)
    lower_bound_limit = check_int("lower_bound_limit", lower_bound_limit, low=0)
    relaxed_workers = check_int("relaxed_workers", relaxed_workers, low=0)
    names = planned_algorithms() if algorithms is None else tuple(registry.get(name).name for name in algorithms)
    problem = TopK(values.size, k)
    specs = [registry.get(name) for name in names]
    given = _given_parameters(specs, parameters, delta)
    for spec in specs:
        if not spec.supports(problem):
            raise InvalidParameterError(f"algorithm {spec.name!r} does not handle a top-k team")
    rows = []
    for spec in specs:
        name = spec.name
        chosen = {"epsilon": epsilon, "budget": budget, **given}
        chosen = {key: value for key, value in chosen.items() if key in spec.options}
        per_pull = k if spec.feedback == "full" else 1
        pulls, certified, optimal, hits, seconds = [], 0, 0, 0, 0.0
        for index in range(runs):
            environment_seed, algorithm_seed = run_seeds(seed, index)
            environment = BernoulliTeam(values, feedback=spec.feedback, seed=environment_seed)
            algorithm = spec.build(problem, seed=algorithm_seed, **chosen)
            started = time.perf_counter()
            try:
                result = run(algorithm, environment, progress=False)
            except InvalidParameterError as error:  # e.g. too many teams for an enumerating algorithm
                rows.append(PlanRow(algorithm=name, feedback=spec.feedback, runs=0, pulls=(), mean_pulls=None,
                                    answers_per_pull=per_pull, mean_answers=None, certified_fraction=None,
                                    epsilon_optimal_fraction=None, budget_hits=0, mean_seconds=None,
                                    note=str(error)))
                break
            seconds += time.perf_counter() - started
            pulls.append(int(result.pulls))
            certified += bool(result.certified)
            optimal += bool(result.epsilon_optimal)  # judged against the prior accuracies, whatever the stop
            hits += result.stop_reason == "budget exhausted"
        else:
            mean_pulls = float(np.mean(pulls))
            rows.append(PlanRow(algorithm=name, feedback=spec.feedback, runs=runs, pulls=tuple(pulls),
                                mean_pulls=mean_pulls, answers_per_pull=per_pull, mean_answers=mean_pulls * per_pull,
                                certified_fraction=certified / runs, epsilon_optimal_fraction=optimal / runs,
                                budget_hits=hits, mean_seconds=seconds / runs))
    if delta is None:  # the lower bound's: the smallest delta the planned algorithms run with
        deltas = [spec.defaults()["delta"] for spec in specs if "delta" in spec.defaults()]
        delta = min(deltas) if deltas else 0.05
    return Plan(accuracies=tuple(float(v) for v in values), k=k, epsilon=epsilon, delta=delta, runs=runs,
                budget=budget, seed=seed, rows=tuple(rows),
                lower_bound=_lower_bound(problem, values, epsilon, delta, lower_bound_limit, relaxed_workers),
                parameters={name: value for name, value in given.items() if name != "delta"})


def _given_parameters(specs, parameters: Mapping | None, delta: float | None) -> dict:
    """``parameters`` (and ``delta``), each refused unless a planned algorithm declares it, and checked against
    every declaration that takes it (so a bad value is refused, not turned into a skipped row)."""
    given = dict(parameters or {})
    for name in ("problem", "seed", "epsilon", "budget"):
        if name in given:
            raise InvalidParameterError(f"parameters may not hold {name!r}: plan sets it from its own argument")
    if delta is not None:
        given["delta"] = delta
    for name, value in given.items():
        takers = [spec for spec in specs if name in spec.options]
        if not takers:
            raise InvalidParameterError(f"parameter {name!r} applies to none of the planned algorithms "
                                        f"({', '.join(spec.name for spec in specs)})")
        for spec in takers:
            validate_parameters({name: spec.constraints(name)}, {name: value}, owner=spec.name)
    return given


def _lower_bound(problem: TopK, values: np.ndarray, epsilon: float, delta: float, limit: int,
                 relaxed_workers: int) -> PlanLowerBound:
    size = math.comb(problem.n, problem.k)
    if size <= limit:
        method = "cutting-plane"
    elif problem.n <= relaxed_workers:
        method = "relaxed"
    else:
        return PlanLowerBound(computed=False, note=f"C({problem.n}, {problem.k}) = {size:,} teams > "
                                                   f"lower_bound_limit={limit:,} and {problem.n} workers > "
                                                   f"relaxed_workers={relaxed_workers}: too large here")
    sigma = 0.5 * math.sqrt(problem.k)  # the sub-Gaussian scale of a sum of k Bernoulli members
    bound = instance_lower_bound(problem, values, sigma, delta=delta, epsilon=epsilon, method=method,
                                 limit=max(limit, 1))
    return PlanLowerBound(computed=True, exact=bound.exact, method=bound.method, samples=bound.samples,
                          T_star=bound.T_star, sigma=sigma, seconds=bound.seconds,
                          note=f"team trials for Gaussian noise of sigma = sqrt(k)/2 = {sigma:.3g} on the sum "
                               f"(the Bernoulli team's sub-Gaussian scale): a reference for the full-bandit rows, "
                               f"not a strict bound for Bernoulli rewards")
