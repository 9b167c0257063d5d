"""Grids whose cells are batches of runs advanced together as arrays.

A paper's figure averages thousands of independent runs of a per-arm algorithm. The
batched suites (``tao-fig1``, ``shahrampour-fig2``, ``shahrampour-fig3``) make a cell of the
grid one *batch*: an algorithm, an instance and a batch index (an instance parameter, ``split``, so
the cells spread over the runner's processes and a killed bench resumes by batch). The
algorithm factory returns a :class:`Contender` (a registry entry, its options and the
cell's seed), and the suite's :class:`fullbandit.experiments.evaluations.Evaluation`
simulates the batch with :func:`simulate_batch`: the one-sample-per-step policies through
:func:`fullbandit.semi.sequential.simulate`, the round-based ones (NSAR, SAR, Uniform)
through :func:`fullbandit.semi.rounds.simulate_rounds`, both calling the same code as the
algorithms' ask/tell form. A row holds the sums over its runs; summaries add the batches.
``--runs`` is the number of independent runs per point, split by :func:`batch_sizes`.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np

from fullbandit.core import registry
from fullbandit.semi.batch import BatchArms
from fullbandit.semi.rounds import simulate_rounds
from fullbandit.semi.sar import NSAR, Uniform
from fullbandit.semi.sequential import SequentialPerArm, simulate

#: Runs advanced together in one cell: large enough that numpy's per-call cost is amortised,
#: small enough that the cells keep two processes busy to the end.
BATCH_RUNS = 1000


@dataclass(frozen=True)
class Contender:
    """What an algorithm factory of a batched grid returns: a registry entry to simulate, and its seed."""

    name: str
    options: dict
    seed: np.random.SeedSequence


def contender(problem, seed, *, name: str, options: dict) -> Contender:
    """The factory of a batched grid's algorithms (module-level, so cells travel to processes)."""
    registry.get(name)  # an unknown name fails when the grid is built, not in a worker
    return Contender(name, dict(options), seed)


def batch_sizes(runs: int, batch: int = BATCH_RUNS) -> list[int]:
    """``runs`` split into ``ceil(runs / batch)`` batches whose sizes differ by at most one.

    >>> batch_sizes(5000), batch_sizes(2500), batch_sizes(7)
    ([1000, 1000, 1000, 1000, 1000], [834, 833, 833], [7])
    """
    count = math.ceil(runs / batch)
    return [runs // count + (index < runs % count) for index in range(count)]


def simulate_batch(contender: Contender, problem, arms: BatchArms, *, runs: int, budgets: Iterable[int],
                   rng: np.random.Generator, **options) -> dict[int, np.ndarray]:
    """Every run's answer mask ``(runs, n)`` after each budget, for the contender's algorithm.

    An anytime one-sample-per-step policy (class attribute ``anytime``) is simulated once,
    to the largest budget, and read at every budget; any other algorithm (its rule depends
    on the budget) is simulated once per budget. ``options`` are added to the contender's.
    """
    spec = registry.get(contender.name)
    chosen = {**contender.options, **options}
    budgets = sorted({int(budget) for budget in budgets})
    if getattr(spec.cls, "anytime", False):
        algorithm = spec.build(problem, budget=budgets[-1], **chosen)
        return simulate(_sequential(algorithm), arms, runs=runs, checkpoints=budgets, seed=rng,
                        progress=False).answers
    answers = {}
    for budget in budgets:
        algorithm = spec.build(problem, budget=budget, **chosen)
        if isinstance(algorithm, SequentialPerArm):
            answers[budget] = simulate(algorithm, arms, runs=runs, seed=rng, progress=False).answers[budget]
        elif isinstance(algorithm, NSAR | Uniform):
            answers[budget] = simulate_rounds(algorithm, arms, runs=runs, seed=rng).answers
        else:
            raise TypeError(f"{type(algorithm).__name__} has no batched simulation (a SequentialPerArm policy, "
                            "NSAR, SAR or Uniform)")
    return answers


def _sequential(algorithm) -> SequentialPerArm:
    if not isinstance(algorithm, SequentialPerArm):
        raise TypeError(f"{type(algorithm).__name__} is not a SequentialPerArm policy: simulate cannot run it")
    return algorithm
