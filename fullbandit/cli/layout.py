"""What ``fullbandit solve`` prints: one layout per problem kind, names everywhere names exist.

A top-k search prints its team, what it cost, why it stopped (and whether that stop carries
the guarantee), and, since a simulation knows the truth, the best team and the gap. A
thresholding run prints the arms it classified at or above the threshold and how many it
got wrong. Lines that mean nothing for the run are left out (no gap bound for a
fixed-budget algorithm, which has none); ``--verbose`` adds the algorithm's internals.
Arms are printed by name (worker ids, item ids); ``--json`` keeps indices for programs.
"""

from __future__ import annotations

import math

import numpy as np

from fullbandit.analysis.metrics import misclassified
from fullbandit.analysis.tolerance import Tolerance
from fullbandit.core.result import BUDGET_EXHAUSTED, STOPPING_RULE, TIME_LIMIT, Result
from fullbandit.problems.classes import Thresholding

__all__ = ["Arms", "line", "print_result"]

WIDTH = 14  # the label column


class Arms:
    """The arms as a reader knows them: their names, the word for them, and their true means.

    ``groups`` (a label per arm, or ``None``) is printed beside each name under group caps.
    """

    def __init__(self, names, means, *, kind: str = "workers", mean: str = "accuracy",
                 per: str = "correct answers per question", groups=None):
        self.names, self.means, self.kind, self.mean, self.per = tuple(names), np.asarray(means), kind, mean, per
        self.groups = groups

    def of(self, team) -> str:
        """``"w1, w2"``, or ``"w1 (fr), w2 (jp)"`` under group caps."""
        if self.groups is None:
            return ", ".join(self.names[i] for i in team)
        return ", ".join(f"{self.names[i]} ({self.groups[i]})" for i in team)


def print_result(result: Result, problem, arms: Arms, *, feedback: str, tolerance: Tolerance | None = None,
                 verbose: bool = False) -> None:
    """Print ``result`` of a search on ``problem`` (top-k, group caps or thresholding) for a reader."""
    lines = [line("algorithm", f"{result.algorithm} ({_guarantee(result)})")]
    if tolerance is not None:
        lines.append(tolerance.describe(arms.per))
    if isinstance(problem, Thresholding):
        lines += _classification(result, problem, arms)
    else:
        lines.append(line("team", "none yet (the pulls so far do not identify the means)" if result.answer is None
                           else arms.of(result.answer)))
    lines += [line("cost", _cost(result, feedback, problem)), line("stop reason", _stop(result)),
              line("time", f"{result.wall_time:.2f} s")]
    if verbose:
        lines += [line("checks", f"{result.checks:,} stopping checks"),
                  line("constants", ", ".join(f"{name}={_short(value)}" for name, value in result.constants.items()))]
    lines += _truth(result, problem, arms, None if tolerance is None else tolerance.epsilon)
    print("\n".join(lines))


def line(label: str, text: str) -> str:
    """``text`` under ``label`` in the label column every line of ``fullbandit solve`` shares."""
    return f"{label:<{WIDTH - 1}} {text}"


def _guarantee(result: Result) -> str:
    if result.guarantee == "certified":
        delta = result.parameters.get("delta")
        level = f" with probability at least {1 - delta:g}" if isinstance(delta, float | int) else ""
        return f"certified: when its rule stops, the answer is within epsilon of the best{level}"
    if result.guarantee == "heuristic":
        return "heuristic rule: no guarantee"
    return "fixed budget: no confidence claim"


def _cost(result: Result, feedback: str, problem) -> str:
    if feedback == "full":
        return f"{result.pulls:,} team trials ({result.pulls * problem.k:,} answers, {problem.k} per trial)"
    return f"{result.pulls:,} single graded answers"


def _stop(result: Result) -> str:
    bound = f"gap bound {_short(result.gap_bound)} <= epsilon {_short(result.epsilon)}"
    if result.stop_reason == STOPPING_RULE:
        if result.guarantee == "certified":
            return f"stopping rule, certified ({bound})"
        if result.guarantee == "heuristic":
            return f"stopping rule, heuristic (estimated {bound}; no guarantee)"
        return "stopping rule (the schedule decided every arm early; no confidence claim)"
    if result.stop_reason == BUDGET_EXHAUSTED:
        if result.guarantee == "fixed-budget":
            return "budget spent (a fixed-budget answer: no confidence claim)"
        return "budget exhausted before the rule stopped: the answer is a best guess, with no guarantee"
    if result.stop_reason == TIME_LIMIT:
        return "time limit: the answer is the current best guess, with no guarantee"
    return str(result.stop_reason)


def _classification(result: Result, problem: Thresholding, arms: Arms) -> list[str]:
    if result.answer is None:
        return [line("at or above", "none yet (the pulls so far classify no arm)")]
    return [line("at or above", f"{arms.of(result.answer) or 'none'} ({len(result.answer)} of {len(arms.names)} "
                                 f"{arms.kind} at or above {problem.threshold:g})")]


def _truth(result: Result, problem, arms: Arms, epsilon: float | None) -> list[str]:
    """What the simulation knows: the arms truly above, or the best team and the gap (judged against the
    question's ``epsilon``, when the algorithm took one)."""
    if isinstance(problem, Thresholding):
        above = problem.best(arms.means)
        if result.answer is None:
            return [line("truly above", f"{len(above)} {arms.kind}")]
        wrong = misclassified(arms.means, result.answer, problem.threshold)
        names = sorted(set(above) ^ set(result.answer))
        detail = f": {', '.join(arms.names[i] for i in names)}" if names else ""
        return [line("truly above", f"{len(above)} {arms.kind}; misclassified {wrong} of {len(arms.names)}{detail}")]
    best = list(problem.best(arms.means))
    best_sum = float(arms.means[best].sum())
    lines = [line("best team", f"{arms.of(best)} (the simulation's truth)")]
    if result.answer is None:
        return lines
    team_sum = float(arms.means[list(result.answer)].sum())
    gap = best_sum - team_sum
    verdict = "" if epsilon is None else (", within epsilon" if gap <= epsilon + 1e-12
                                            else f", NOT within epsilon {_short(epsilon)}")
    lines.append(line(f"team {arms.mean}", f"{team_sum:.4f} (best {best_sum:.4f}): {gap:.4g} below the best{verdict}"))
    return lines


def _short(value) -> str:
    if isinstance(value, float):
        return "inf" if math.isinf(value) else f"{value:.4g}"
    return str(value)
