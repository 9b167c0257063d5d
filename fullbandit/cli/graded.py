"""What ``fullbandit solve --data`` adds when the data hold per-worker gold answers.

Two things a practitioner must hear before acting on a full-bandit answer:

* **How well the team's members are known.** The simulation replays the gold answers, so
  its guarantee is about the replayed table, not the workers: a member graded on three
  answers is "certified" on those three. The output gives the fewest gold answers any
  member rests on, with that member's 95% Wilson interval, and flags members below
  ``fullbandit solve``'s default ``--min-answers`` (reachable only by lowering it).
* **The cheaper route.** Full-bandit feedback is for answers that cannot be graded one by
  one. With gold per answer, the data's graded answers already rank the workers: their
  number is printed beside the answers the full-bandit run consumed, with the command of a
  certified per-arm algorithm (:data:`PER_ARM_ALTERNATIVE`) as the route for a live
  campaign whose answers can be graded. (It is named, not simulated: per-arm
  fixed-confidence rules check after every sample, and on the data sets tried they took
  minutes where the full-bandit run took seconds.)
"""

from __future__ import annotations

import numpy as np
from scipy.stats import binomtest

from fullbandit.cli.layout import line
from fullbandit.core import registry
from fullbandit.problems.classes import Thresholding

__all__ = ["PER_ARM_ALTERNATIVE", "print_gold_notes"]

#: The certified per-arm algorithm offered as the alternative when answers can be graded.
PER_ARM_ALTERNATIVE = "clucb-pac"


def print_gold_notes(args, spec: registry.AlgorithmSpec, problem, table, result, *, least: int) -> None:
    """Print the members' gold support (flagging those below ``least`` answers) and, for a full-bandit team
    search, the graded route's cost."""
    if result.answer is None or isinstance(problem, Thresholding):
        return
    lines = _support(table, result.answer, least)
    if spec.feedback == "full":
        lines += _graded_route(args, problem, table, result)
    print("\n".join(lines))


def _support(table, team, least: int) -> list[str]:
    counts = table.n_answered[list(team)]
    weakest = int(team[int(np.argmin(counts))])
    n, correct = int(table.n_answered[weakest]), int(table.n_correct[weakest])
    low, high = binomtest(correct, n).proportion_ci(0.95, method="wilson")
    name = table.worker_ids[weakest]
    lines = [line("gold answers", f"the team's members rest on {int(counts.min())}-{int(counts.max())} gold answers "
                  f"each; the least known, {name}, has accuracy {correct / n:.2f} (95% interval {low:.2f}-{high:.2f})")]
    few = [int(member) for member in team if table.n_answered[member] < least]
    if few:
        listed = ", ".join(f"{table.worker_ids[m]} ({int(table.n_answered[m])})" for m in few)
        lines.append(line("caution", f"{len(few)} team member(s) rest on fewer than {least} gold answers: {listed}. "
                          "The guarantee is about their replayed answers, not about these workers"))
    return lines


def _graded_route(args, problem, table, result) -> list[str]:
    graded = int(table.n_answered.sum())
    spent = result.pulls * problem.k
    command = " ".join(["fullbandit solve --data", args.data, *(["--gold", args.gold] if args.gold else []),
                        *(["--columns", args.columns] if args.columns else [])])
    return [line("graded", f"the data's {graded:,} graded answers already rank the workers (the simulation's truth "
                           f"is that ranking): {spent / graded:,.0f}x fewer answers than this run's {spent:,}"),
            line("per-arm", "full-bandit feedback is for answers that cannot be graded one by one; if they can, a "
                            f"certified per-arm algorithm needs no team trials: `{command} --algorithm "
                            f"{PER_ARM_ALTERNATIVE}`, or `fullbandit plan --data ...` to compare the costs")]
