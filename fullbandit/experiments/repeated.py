"""Grid cells that are batches of independent runs, for algorithms run one at a time.

A figure of failure probabilities needs hundreds of runs per point; a row per run would
store every run's answer (``K`` arm indices) for a number that is one bit. Here, as in the
batched suites (:mod:`fullbandit.experiments.batched`), a cell is a *batch*: the instance
factory draws a batch's instance seeds (``split`` indexes the batch, so cells spread over
processes and a killed bench resumes by batch), and :func:`evaluate_batch` builds and runs
every run of the batch one after the other, summing what a metric function returns. Each
run's instance comes from the batch's instance seeds, which do not depend on the algorithm,
so every algorithm meets the same instances (common random numbers); each run's algorithm
seed comes from the cell's algorithm seed.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from fullbandit.core.loop import run
from fullbandit.experiments.evaluations import METRICS_COLUMN, Evaluation, Instance


@dataclass(frozen=True)
class RepeatedRuns:
    """What an algorithm factory of a repeated grid returns: ``build(problem, seed)`` and the cell's seed."""

    build: Callable
    seed: np.random.SeedSequence
    runs_per_batch: int | None = None


def repeated(problem, seed, *, build: Callable, runs_per_batch: int | None = None, **options) -> RepeatedRuns:
    """The algorithm factory of a repeated grid (module-level, so cells travel to processes).

    ``build(problem, seed, **options)`` makes one run's algorithm; ``options`` are the cell's.
    ``runs_per_batch`` runs only the first that many runs of every batch (an algorithm too slow
    for the paper's run count: it meets the same instances as the first runs of the others).
    """
    return RepeatedRuns(_bound(build, options), seed, runs_per_batch)


@dataclass(frozen=True)
class _bound:
    build: Callable
    options: dict

    def __call__(self, problem, seed):
        return self.build(problem, seed, **self.options)


def batch_instance(rng: np.random.Generator, *, make: Callable, runs: int, **parameters) -> Instance:
    """A batch of ``runs`` instances of ``make(rng, **parameters)``, described by their seeds.

    The first instance is built here (its problem names the cell's ``n`` and ``k``); every run
    rebuilds its own from its seed in :func:`evaluate_batch`.
    """
    seeds = tuple(int(seed) for seed in rng.integers(0, 2**63 - 1, size=runs))
    first = make(np.random.default_rng(seeds[0]), **parameters)
    return Instance(first.problem, first.environment,
                    {**first.description, "runs": runs, "_make": make, "_parameters": parameters, "_seeds": seeds})


def evaluate_batch(contender: RepeatedRuns, instance: Instance, *, metric: Callable) -> dict:
    """Run every run of the batch; the row holds the sums of ``metric(result, instance)`` over the runs."""
    description = instance.description
    make, parameters, seeds = description["_make"], description["_parameters"], description["_seeds"]
    seeds = seeds[:contender.runs_per_batch]
    algorithm_seeds = contender.seed.spawn(len(seeds))
    totals: dict[str, float] = {}
    start = time.perf_counter()
    for instance_seed, algorithm_seed in zip(seeds, algorithm_seeds, strict=True):
        one = make(np.random.default_rng(instance_seed), **parameters)
        result = run(contender.build(one.problem, algorithm_seed), one.environment, progress=False)
        for name, value in metric(result, one).items():
            totals[name] = totals.get(name, 0.0) + float(value)
    shown = {name: value for name, value in description.items() if not name.startswith("_") and name != "runs"}
    return {"n": instance.problem.n, "k": instance.problem.k, "runs": len(seeds),
            "wall_time": time.perf_counter() - start, METRICS_COLUMN: {**shown, **totals}}


def repeated_evaluation(metric: Callable) -> Evaluation:
    """The :class:`Evaluation` of a repeated grid summing ``metric`` (a module-level function) over each batch."""
    return Evaluation(columns=("n", "k", "runs", "wall_time"), evaluate=_Evaluate(metric))


@dataclass(frozen=True)
class _Evaluate:
    metric: Callable

    def __call__(self, contender: RepeatedRuns, instance: Instance) -> dict:
        return evaluate_batch(contender, instance, metric=self.metric)
