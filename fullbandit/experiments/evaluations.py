"""What one run of a grid measures.

An :class:`Evaluation` turns (algorithm, instance) into a row. The default,
:data:`BANDIT`, runs an identification algorithm against an :class:`Instance`'s environment
with :func:`fullbandit.run`; other suites (e.g. densest-k-subgraph oracles) bring their own.
A grid (:mod:`fullbandit.experiments.grid`) holds its evaluation; this module knows nothing
of grids.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from fullbandit.core.loop import run

METRICS_COLUMN = "metrics"


@dataclass(frozen=True)
class Instance:
    """What an instance factory returns: the decision class and a seeded environment."""

    problem: Any
    environment: Any
    description: dict = field(default_factory=dict)


@dataclass(frozen=True)
class Evaluation:
    """``evaluate(algorithm, instance) -> dict`` filling ``columns`` (plus optional ``"metrics"``, a dict).

    ``sweepable`` names result columns that an instance factory may also sweep as a
    parameter (their values then agree, e.g. ``n``).
    """

    columns: tuple[str, ...]
    evaluate: Callable
    sweepable: frozenset = field(default_factory=frozenset)


def _team(arms) -> str:
    return "-".join(str(i) for i in arms)


def _is_scalar(value) -> bool:
    return isinstance(value, (bool, int, float, str)) and not (isinstance(value, int) and abs(value) > 2**53)


def evaluate_bandit(algorithm, instance: Instance) -> dict:
    """Run ``algorithm`` on ``instance.environment`` and describe the result."""
    if not isinstance(instance, Instance):
        raise TypeError(f"a bandit instance factory must return an Instance, got {type(instance).__name__}")
    result = run(algorithm, instance.environment, progress=False)
    problem, means = instance.problem, instance.environment.means
    metrics = {name: value for name, value in result.constants.items() if _is_scalar(value)}
    metrics.update(instance.description)
    answer, best = result.answer, result.best or ()
    # A run that ended before its data identified the means has no answer: wrong, gap unknown.
    return {"n": problem.n, "k": problem.k, "answer": "" if answer is None else _team(answer), "best": _team(best),
            "correct": answer is not None and problem.is_optimal(answer, means),
            "epsilon_optimal": bool(result.epsilon_optimal),
            "gap": math.nan if result.gap is None else result.gap,
            "precision": 0.0 if answer is None else len(set(answer) & set(best)) / len(best),
            "pulls": result.pulls, "stop_reason": str(result.stop_reason), "checks": result.checks,
            "wall_time": result.wall_time, METRICS_COLUMN: metrics, "_result": result}


#: Identification runs: one row per run of an algorithm on a simulated environment.
BANDIT = Evaluation(
    columns=("n", "k", "answer", "best", "correct", "epsilon_optimal", "gap", "precision", "pulls",
             "stop_reason", "checks", "wall_time"),
    evaluate=evaluate_bandit, sweepable=frozenset({"n", "k"}))
