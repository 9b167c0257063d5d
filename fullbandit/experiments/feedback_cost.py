"""What sum-only feedback costs: the ``feedback-cost`` suite.

For the same workers, ``k``, ``epsilon`` and ``delta``, the best certified full-bandit
algorithms (``phased``, ``swap``: each pull shows only the team's summed score) against
the certified per-arm ones (``adaptive-topk``, ``lucb``, ``clucb-pac``: each pull of a
worker shows that worker's answer). Reported per run: pulls, the individual answers they
amount to (``k`` per team pull, one per per-arm sample), and whether the team is
epsilon-optimal. Instances: the six quiz data sets with independent Bernoulli workers
(``k = 10``, ``epsilon = 0.5`` on the team's summed accuracy, ``delta = 0.05``), and a
synthetic two-group instance (5 of 30 arms at 0.7, the rest at 0.3, ``k = 5``, the same
``epsilon``).

The tolerances are the same quantity for every algorithm: ``epsilon`` bounds
``theta(M*) - theta(answer)``; AdaptiveTopK's parameter is the paper's aggregate regret
(an average over the ``k`` members), so it gets ``epsilon / k``.
"""

from __future__ import annotations

from functools import partial

import numpy as np
import pandas as pd

from fullbandit.core import registry
from fullbandit.datasets.instances import team_environment
from fullbandit.datasets.quiz import DATASETS, load_dataset
from fullbandit.environments.models import BernoulliTeam
from fullbandit.experiments.evaluations import Instance
from fullbandit.experiments.figures.feedback_cost import plot
from fullbandit.experiments.grid import Factory, Grid
from fullbandit.experiments.suite import Suite
from fullbandit.problems.classes import TopK

QUIZ_K = 10
EPSILON = 0.5
DELTA = 0.05
TWO_GROUP = (30, 5, 0.7, 0.3)  # n, k, top mean, other mean
BUDGET = 50_000_000

FULL = ("phased", "swap")
SEMI = ("adaptive-topk", "lucb", "clucb-pac")


def _feedback(label: str) -> str:
    return label.rsplit("(", 1)[1].rstrip(")")


def same_feedback(algorithm: str, instance: str) -> bool:
    """Grid pairs: an algorithm meets the instances of its own feedback kind."""
    return _feedback(algorithm) == _feedback(instance)


def tolerance_factory(problem, seed, *, name: str, epsilon: float):
    """The registered ``name`` with the sum tolerance ``epsilon`` in its own units."""
    spec = registry.get(name)
    return spec.build(problem, seed=seed, epsilon=epsilon, delta=DELTA,
                      budget=BUDGET)


def quiz_instance(rng, *, dataset: str, feedback: str) -> Instance:
    data = load_dataset(dataset)
    return Instance(TopK(data.n_workers, QUIZ_K), team_environment(data, "bernoulli", feedback=feedback, seed=rng))


def two_group_instance(rng, *, feedback: str) -> Instance:
    n, k, top, other = TWO_GROUP
    means = rng.permutation(np.r_[np.full(k, top), np.full(n - k, other)])
    return Instance(TopK(n, k), BernoulliTeam(means, feedback=feedback, seed=rng))


def answer_metrics(result, instance: Instance) -> dict:
    """Individual answers: ``k`` per team pull (full feedback), one per sample (per-arm)."""
    per_pull = instance.problem.k if instance.environment.feedback == "full" else 1
    return {"answers": result.pulls * per_pull}


def build_grid(runs: int) -> Grid:
    available = set(registry.names())
    algorithms: dict[str, Factory] = {}
    for feedback, names in (("full", FULL), ("semi", SEMI)):
        for name in names:
            if name in available:
                algorithms[f"{name} ({feedback})"] = Factory(partial(tolerance_factory, name=name),
                                                             {"epsilon": [EPSILON]})
    instances: dict[str, Factory] = {}
    for feedback in ("full", "semi"):
        for dataset in DATASETS:
            instances[f"{dataset} ({feedback})"] = Factory(partial(quiz_instance, dataset=dataset, feedback=feedback))
        instances[f"two-group ({feedback})"] = Factory(partial(two_group_instance, feedback=feedback))
    return Grid(algorithms, instances, seeds=runs, metrics=answer_metrics, pairs=same_feedback)


def summarize(frame: pd.DataFrame) -> pd.DataFrame:
    """Per data set and algorithm: mean pulls, mean individual answers, epsilon-optimal rate, budget hits."""
    frame = frame.assign(data=frame["instance"].str.rsplit(" (", n=1).str[0])
    return frame.groupby(["data", "algorithm"]).agg(
        runs=("pulls", "size"), mean_pulls=("pulls", "mean"), mean_answers=("answers", "mean"),
        epsilon_optimal=("epsilon_optimal", "mean"),
        budget_hits=("stop_reason", lambda reasons: int((reasons == "budget exhausted").sum())))


FEEDBACK_COST_SUITE = Suite(
    "feedback-cost",
    "What sum-only feedback costs: individual answers to an epsilon-optimal team (epsilon = 0.5 on the sum, "
    "delta = 0.05) for the certified full-bandit phased and swap against the certified per-arm adaptive-topk, "
    "lucb and clucb-pac, on the six quiz data sets (k = 10, Bernoulli workers) and a two-group instance.",
    build_grid, plot, default_runs=3, summarize=summarize)

#: The suites this module declares (gathered by :mod:`fullbandit.experiments.suites`).
SUITES = (FEEDBACK_COST_SUITE,)
