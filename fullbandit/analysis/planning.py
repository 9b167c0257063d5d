"""Plan a campaign: what each certified algorithm would cost, estimated before paying for it.

:func:`plan` simulates a few seeded runs of every certified full-bandit algorithm (only the
team's summed reward is seen) and every certified per-arm one (each member's answer is seen
and graded) on independent Bernoulli workers whose accuracies are the *prior* ones given,
and reports their mean pulls, how often they certified and were epsilon-optimal, and their
wall time, with the instance lower bound beside them where it is affordable.

These are estimates from simulation on the prior accuracies, and only as good as the prior:
a prior from a small pilot, or workers whose accuracy drifts, make them wrong.

Forecasting a live campaign
---------------------------
A live campaign differs from independent Bernoulli workers in two ways, and each changes
its cost (a campaign on 18 workers of a quiz data set needed 3.5-4.7x the pulls the default
plan forecast; ``benchmarks/bench_forecast.py``):

* the members of a team trial answer the *same* question, so their answers are correlated
  through its difficulty: ``reward_model="joint"`` replays the graded answers that way
  (:class:`fullbandit.environments.models.JointReplay`; give the answers, not only the
  accuracies), and the simulation then offers the algorithms that model's honest noise
  scale ``k/2`` instead of the independent members' ``sqrt(k)/2``;
* a session declares the range of the rewards (``fullbandit session start --reward-range
  LOW HIGH``), and the algorithm then uses the noise scale ``(HIGH - LOW) / 2``, not the
  model's: ``reward_range=(low, high)`` offers exactly that, through
  ``setup(noise_scale=(high - low) / 2, reward_range=(low, high))`` as the session does
  (:func:`fullbandit.sessions.replay.build_algorithm`); a ``noise_scale`` given in
  ``parameters`` wins over it there as here.

With both, a plan made with the campaign's own declarations and the workers' graded answers
is a forecast of that campaign's pulls.

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

A forecast of a live campaign: the graded answers replayed jointly (two questions, four
workers), with the range the session will declare for a team of two:

>>> answers = [[1, 1, 0, 0], [1, 0, 1, 0]]
>>> forecast = plan(answers, k=2, epsilon=0.5, runs=1, algorithms=("phased",), reward_model="joint",
...                 reward_range=(0, 2))
>>> forecast.accuracies, forecast.noise_scale
((1.0, 0.5, 0.5, 0.0), 1.0)
"""

from __future__ import annotations

import math
import time
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field

import numpy as np
from tqdm.auto import tqdm

from fullbandit.analysis.sample_complexity import lower_bound as instance_lower_bound
from fullbandit.core import registry
from fullbandit.core.loop import run
from fullbandit.core.params import validate_parameters
from fullbandit.environments.models import BernoulliTeam, Environment, JointReplay
from fullbandit.problems.classes import TopK
from fullbandit.util.validation import (
    InvalidParameterError,
    check_choice,
    check_int,
    check_probability,
    check_real,
    check_reward_range,
)

__all__ = ["plan", "Plan", "PlanRow", "PlanLowerBound", "planned_algorithms", "run_seeds", "declared_setup",
           "check_declared_range", "REWARD_MODELS", "DEFAULT_RUNS", "DEFAULT_BUDGET", "LOWER_BOUND_LIMIT",
           "RELAXED_WORKERS"]

#: The reward models of a plan: ``"bernoulli"``, independent members with the prior accuracies
#: (:class:`fullbandit.environments.models.BernoulliTeam`); ``"joint"``, the graded answers replayed with
#: one question per team trial (:class:`fullbandit.environments.models.JointReplay`).
REWARD_MODELS = ("bernoulli", "joint")

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


BERNOULLI_CAVEAT = ("estimates from simulation on the prior accuracies (independent Bernoulli workers); "
                    "only as good as the prior")
JOINT_CAVEAT = ("estimates from simulation replaying the graded answers (every member of a team trial answers the "
                "same question, drawn at random; a member who did not answer it gives one of its own answers); only "
                "as good as these answers are of the campaign's")


@dataclass(frozen=True)
class Plan:
    """Inputs and results of :func:`plan`.

    ``delta`` is the one the lower bound uses: the one given, else the smallest the planned
    algorithms use by default; ``parameters`` the other algorithm parameters given.
    ``reward_model`` and ``reward_range`` are :func:`plan`'s; ``noise_scale`` is the scale
    the declared range offered the algorithms, ``(high - low) / 2`` (``None``: no range
    declared, each run was offered its reward model's own scale).
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
    caveat: str = field(default=BERNOULLI_CAVEAT)
    reward_model: str = "bernoulli"
    reward_range: tuple[float, float] | None = None
    noise_scale: float | None = None

    def as_dict(self) -> dict:
        """A JSON-ready dictionary."""
        return asdict(self)

    def table(self) -> str:
        """The plan as a text table, with the lower bound and the caveat below it."""
        model = ("joint (one question per team trial, the graded answers replayed)" if self.reward_model == "joint"
                 else "bernoulli (independent members)")
        declared = ("the model's own noise scale offered" if self.reward_range is None else
                    f"declared reward range [{self.reward_range[0]:g}, {self.reward_range[1]:g}]: noise scale "
                    f"{self.noise_scale:g} offered")
        lines = [f"plan          {len(self.accuracies)} workers, k={self.k}, epsilon={self.epsilon:g} (team sum), "
                 f"delta={self.delta:g}, {self.runs} run(s) each, budget {self.budget:,} pulls per run",
                 f"rewards       {model}; {declared}",
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


def declared_setup(reward_range, name: str = "reward_range") -> dict:
    """What a session declaring ``reward_range`` offers its algorithm at setup, as keyword arguments of ``setup``.

    ``{"noise_scale": (high - low) / 2, "reward_range": (low, high)}``, the offer of
    :meth:`fullbandit.sessions.Session.start` (``fullbandit session start --reward-range LOW HIGH``);
    empty for ``None`` (no range declared: a simulation then offers its reward model's own). The
    algorithm's own ``noise_scale`` or ``reward_range`` parameter, when given, wins over the offer
    (:meth:`fullbandit.core.algorithm.Algorithm.setup`). ``name`` names the argument in a refusal.

    >>> declared_setup((0, 5))
    {'noise_scale': 2.5, 'reward_range': (0.0, 5.0)}
    >>> declared_setup(None)
    {}
    """
    if reward_range is None:
        return {}
    low, high = check_reward_range(name, reward_range)
    return {"noise_scale": (high - low) / 2, "reward_range": (low, high)}


def check_declared_range(reward_range, environment: Environment, k: int, name: str = "reward_range") -> None:
    """Refuse a declared ``reward_range`` that does not hold every reward ``environment`` returns for a team of ``k``.

    A session refuses a reward outside its declared range, so a campaign declaring it could not
    record what this simulation draws: the forecast would be of a campaign that cannot happen.
    The range is the team's for full feedback, each member's for per-arm feedback (the session's
    meaning); ``name`` names the argument in the message.

    >>> from fullbandit.environments.models import JointReplay
    >>> check_declared_range((0, 1), JointReplay([[1, 0, 1]]), 2, name="--reward-range")
    Traceback (most recent call last):
    ...
    fullbandit.util.validation.InvalidParameterError: --reward-range [0, 1] does not hold every reward this \
simulation draws, [0, 2] (the team's summed reward, k=2 members, full feedback): a session declaring it would \
refuse them; declare a range that holds every observed reward, e.g. 0 2
    """
    low, high = check_reward_range(name, reward_range)
    drawn = environment.reward_range(k)
    if drawn is not None and low <= drawn[0] and drawn[1] <= high:
        return
    what = (f"the team's summed reward, k={k} members, full feedback" if environment.feedback == "full"
            else "each member's reward, per-arm feedback")
    held = "unbounded rewards" if drawn is None else f"[{drawn[0]:g}, {drawn[1]:g}]"
    example = "" if drawn is None else f", e.g. {drawn[0]:g} {drawn[1]:g}"
    raise InvalidParameterError(f"{name} [{low:g}, {high:g}] does not hold every reward this simulation draws, "
                                f"{held} ({what}): a session declaring it would refuse them; declare a range that "
                                f"holds every observed reward{example}")


def plan_environment(reward_model: str, accuracies, answers, *, feedback: str, seed) -> Environment:
    """The simulated campaign of one run: independent Bernoulli members, or the graded ``answers`` replayed jointly."""
    if reward_model == "joint":
        return JointReplay(answers, feedback=feedback, seed=seed)
    return BernoulliTeam(accuracies, feedback=feedback, seed=seed)


def _answers(accuracies):
    """The graded answers given as ``accuracies`` (a 2-D table, a CrowdTable or QuizData) and their accuracies.

    ``(answers, accuracies)``, the table checked by :class:`JointReplay`; ``None`` for anything
    else (per-worker accuracies, or input :func:`check_accuracies` refuses naming the argument).
    """
    if not (hasattr(accuracies, "correct") and hasattr(accuracies, "worker_ids")):
        try:
            if np.ndim(accuracies) != 2:
                return None
        except ValueError:  # a ragged list
            return None
    return accuracies, JointReplay(accuracies, seed=0).means


def plan(accuracies, k: int, *, epsilon: float, delta: float | None = None, runs: int = DEFAULT_RUNS,
         budget: int = DEFAULT_BUDGET, seed: int = 0, algorithms: Sequence[str] | None = None,
         lower_bound_limit: int = LOWER_BOUND_LIMIT, relaxed_workers: int = RELAXED_WORKERS,
         parameters: Mapping | None = None, reward_model: str = "bernoulli", reward_range=None,
         progress: bool | None = None) -> Plan:
    """Estimate what a campaign would cost, by simulation on prior per-worker accuracies or graded answers.

    These are estimates from simulation on the prior accuracies, only as good as the prior.
    Full-bandit feedback (only a team's summed reward is seen) is warranted when individual
    answers cannot be graded; with per-worker gold answers, ranking workers on graded
    answers (the per-arm rows) is far cheaper. To forecast a live campaign, give the graded
    answers with ``reward_model="joint"`` and the ``reward_range`` the session will declare
    (see the module docstring).

    Parameters
    ----------
    accuracies : array_like
        Prior accuracy of every worker, in [0, 1]; at least ``k + 1`` workers. Or the workers'
        graded answers: a (questions x workers) table of 1 (right), 0 (wrong) and NaN (no
        answer), or an object with ``correct`` and ``worker_ids`` (a
        :class:`fullbandit.datasets.crowd.CrowdTable` or :class:`fullbandit.datasets.QuizData`);
        the prior is then each worker's accuracy over the questions it answered.
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
        Most workers for which the relaxed lower bound is computed; above it, the bound is skipped.
    parameters : mapping, optional
        Other algorithm parameters by name, each passed to every planned algorithm that declares
        it (and checked against its declaration first); one that none declares is refused.
        ``noise_scale`` here is the algorithm's own, as ``fullbandit session start --noise-scale``.
    reward_model : {"bernoulli", "joint"}
        ``"bernoulli"`` (default): independent members, worker ``i`` right with probability its
        accuracy (:class:`fullbandit.environments.models.BernoulliTeam`); the algorithms are
        offered its scale ``sqrt(k)/2``. ``"joint"``: the graded answers replayed, every member
        of a team trial answering the same question
        (:class:`fullbandit.environments.models.JointReplay`, scale ``k/2``); needs the answers
        as ``accuracies``.
    reward_range : (float, float), optional
        The range a live session declares (``fullbandit session start --reward-range LOW HIGH``):
        the team's reward for full feedback, each member's for per-arm feedback. Offered to every
        algorithm as the session offers it, with the noise scale ``(high - low) / 2``
        (:func:`declared_setup`); refused unless it holds every reward the simulation draws
        (:func:`check_declared_range`). ``None``: each run is offered its reward model's own scale
        and range, as :func:`fullbandit.run` does.

    progress : bool, optional
        A progress bar over the simulated runs, named by algorithm (default: shown once the
        plan has taken over a second; ``False``: never).

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
    reward_model = check_choice("reward_model", reward_model, REWARD_MODELS)
    given_answers = _answers(accuracies)
    if given_answers is None and reward_model == "joint":
        raise InvalidParameterError("reward_model='joint' replays the graded answers, one question per team trial: "
                                    "give them as accuracies (a questions x workers table of 1, 0 and NaN, or a "
                                    "CrowdTable or QuizData), not per-worker accuracies")
    answers, prior = (None, accuracies) if given_answers is None else given_answers
    values = check_accuracies(prior, k)
    epsilon = check_real("epsilon", epsilon, low=0.0)
    if delta is not None:
        delta = check_probability("delta", delta)
    runs = check_int("runs", runs, low=1)
    budget = check_int("budget", budget, low=1)
    seed = check_int("seed", seed, low=0)
    lower_bound_limit = check_int("lower_bound_limit", lower_bound_limit, low=0)
    relaxed_workers = check_int("relaxed_workers", relaxed_workers, low=0)
    offered = declared_setup(reward_range)
    names = planned_algorithms() if algorithms is None else tuple(registry.get(name).name for name in algorithms)
    problem = TopK(values.size, k)
    specs = [registry.get(name) for name in names]
    given = _given_parameters(specs, parameters, delta)
    for spec in specs:
        if not spec.supports(problem):
            raise InvalidParameterError(f"algorithm {spec.name!r} does not handle a top-k team")
        if offered:  # before any run: a range a session would refuse the rewards of forecasts nothing
            check_declared_range(offered["reward_range"], plan_environment(
                reward_model, values, answers, feedback=spec.feedback, seed=0), k)
    rows = []
    bar = tqdm(total=len(specs) * runs, unit=" runs", delay=0.0 if progress else 1.0, disable=progress is False,
               leave=False, dynamic_ncols=True)
    for spec in specs:
        name = spec.name
        bar.set_description(name)
        chosen = {"epsilon": epsilon, "budget": budget, **given}
        chosen = {key: value for key, value in chosen.items() if key in spec.options}
        per_pull = k if spec.feedback == "full" else 1
        pulls, certified, optimal, hits, seconds = [], 0, 0, 0, 0.0
        for index in range(runs):
            environment_seed, algorithm_seed = run_seeds(seed, index)
            environment = plan_environment(reward_model, values, answers, feedback=spec.feedback,
                                           seed=environment_seed)
            algorithm = spec.build(problem, seed=algorithm_seed, **chosen)
            started = time.perf_counter()
            try:
                if offered:  # what the session offers; run() then finds the algorithm set up
                    algorithm.setup(**offered)
                result = run(algorithm, environment, progress=False)
            except InvalidParameterError as error:  # e.g. too many teams for an enumerating algorithm
                rows.append(PlanRow(algorithm=name, feedback=spec.feedback, runs=0, pulls=(), mean_pulls=None,
                                    answers_per_pull=per_pull, mean_answers=None, certified_fraction=None,
                                    epsilon_optimal_fraction=None, budget_hits=0, mean_seconds=None,
                                    note=str(error)))
                break
            seconds += time.perf_counter() - started
            bar.update()
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
    bar.close()
    if delta is None:  # the lower bound's: the smallest delta the planned algorithms run with
        deltas = [spec.defaults()["delta"] for spec in specs if "delta" in spec.defaults()]
        delta = min(deltas) if deltas else 0.05
    sigma = plan_environment(reward_model, values, answers, feedback="full", seed=0).noise_scale(k)
    return Plan(accuracies=tuple(float(v) for v in values), k=k, epsilon=epsilon, delta=delta, runs=runs,
                budget=budget, seed=seed, rows=tuple(rows),
                lower_bound=_lower_bound(problem, values, epsilon, delta, lower_bound_limit, relaxed_workers,
                                         sigma, reward_model),
                parameters={name: value for name, value in given.items() if name != "delta"},
                caveat=JOINT_CAVEAT if reward_model == "joint" else BERNOULLI_CAVEAT, reward_model=reward_model,
                reward_range=offered.get("reward_range"), noise_scale=offered.get("noise_scale"))


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
                 relaxed_workers: int, sigma: float, reward_model: str) -> PlanLowerBound:
    """The instance lower bound for Gaussian noise of scale ``sigma`` on the sum: the reward model's declared scale."""
    size = math.comb(problem.n, problem.k)
    if size <= limit:
        method = "cutting-plane"
    elif problem.n <= relaxed_workers:
        method = "relaxed"
    else:
        return PlanLowerBound(computed=False, note=f"C({problem.n}, {problem.k}) = {size:,} teams > "
                                                   f"lower_bound_limit={limit:,} and {problem.n} workers > "
                                                   f"relaxed_workers={relaxed_workers}: too large here")
    bound = instance_lower_bound(problem, values, sigma, delta=delta, epsilon=epsilon, method=method,
                                 limit=max(limit, 1))
    if reward_model == "joint":
        scale = (f"sigma = k/2 = {sigma:.3g} on the sum (the joint replay's sub-Gaussian scale: members answer the "
                 "same question)")
        rewards = "replayed answers"
    else:
        scale = f"sigma = sqrt(k)/2 = {sigma:.3g} on the sum (the Bernoulli team's sub-Gaussian scale)"
        rewards = "Bernoulli rewards"
    return PlanLowerBound(computed=True, exact=bound.exact, method=bound.method, samples=bound.samples,
                          T_star=bound.T_star, sigma=sigma, seconds=bound.seconds,
                          note=f"team trials for Gaussian noise of {scale}: a reference for the full-bandit rows, "
                               f"not a strict bound for {rewards}")
