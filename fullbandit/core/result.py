"""What a run returns: the answer and everything a user needs to trust it."""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field
from enum import StrEnum


class StopReason(StrEnum):
    """Why a run ended (a ``str``: compares equal to its value).

    ``RUNNING``: it has not ended. ``STOPPING_RULE``: the algorithm's stopping rule fired
    (for a certified rule, the answer is epsilon-optimal with probability at least
    ``1 - delta``). ``BUDGET_EXHAUSTED``: the pull budget ran out first; the answer is only
    the algorithm's current best guess, with no guarantee (for a fixed-budget algorithm
    this is how every run ends, once it has spent what its schedule allots of the budget:
    the budget, or a little less when its per-arm shares are rounded down).
    ``TIME_LIMIT``: :func:`fullbandit.run`'s wall-clock limit ended the simulation first; the
    algorithm itself is still running (run it again to go on), and the answer is only its
    current best guess.

    Examples
    --------
    >>> from fullbandit import StopReason
    >>> StopReason("budget exhausted") is StopReason.BUDGET_EXHAUSTED, StopReason.RUNNING == "running"
    (True, True)
    """

    RUNNING = "running"
    STOPPING_RULE = "stopping rule"
    BUDGET_EXHAUSTED = "budget exhausted"
    TIME_LIMIT = "time limit"


STOPPING_RULE = StopReason.STOPPING_RULE
BUDGET_EXHAUSTED = StopReason.BUDGET_EXHAUSTED
RUNNING = StopReason.RUNNING
TIME_LIMIT = StopReason.TIME_LIMIT

#: Guarantee labels: a certified rule is proved (proof or reference in its docstring);
#: a heuristic rule is not; a fixed-budget algorithm makes no confidence claim.
GUARANTEES = ("certified", "heuristic", "fixed-budget")


@dataclass(frozen=True)
class Result:
    """Outcome of one identification run.

    Attributes
    ----------
    algorithm : str
        Name of the algorithm and its mode.
    answer : tuple of int or None
        The recommended super-arm (arm indices, increasing); ``None`` while the data do
        not identify the means (no pull yet, or fewer pulls than the design needs).
    pulls : int
        Number of pulls (samples) told to the algorithm.
    stop_reason : StopReason
        See :class:`StopReason`.
    guarantee : str
        ``"certified"``, ``"heuristic"`` or ``"fixed-budget"`` (:data:`GUARANTEES`).
    gap_bound : float
        The stopping diagnostic of every algorithm: an upper bound on
        ``theta(M*) - theta(answer)`` from the last stopping check (``inf`` before one).
        For a certified rule it holds on the confidence event (probability at least
        ``1 - delta``); a heuristic rule's value is only an estimate of such a bound. The
        rule fires when ``gap_bound <= epsilon``.
    epsilon : float or None
        The tolerance the rule compares ``gap_bound`` with.
    constants : dict
        Confidence constants, noise scale, union-bound size and the details of the last
        check (names in :meth:`describe`).
    parameters : dict
        The algorithm's constructor parameters (JSON-friendly).
    wall_time : float
        Seconds spent in the run.
    checks : int
        Number of stopping-rule evaluations.
    best : tuple of int or None
        Filled when the truth is known (a simulation): an optimal super-arm.
    gap : float or None
        Filled when the truth is known: ``theta(M*) - theta(answer)``.
    epsilon_optimal : bool or None
        Filled when the truth is known: whether ``gap <= epsilon``.
    labels : tuple of str, optional
        Names of the members of ``answer`` (e.g. worker ids).

    Examples
    --------
    >>> from fullbandit import Result
    >>> result = Result("icb", (0, 2), 120, "stopping rule", guarantee="certified", gap_bound=0.05, epsilon=0.1)
    >>> result.certified, result.stop_reason == "stopping rule"
    (True, True)
    """

    algorithm: str
    answer: tuple[int, ...] | None
    pulls: int
    stop_reason: str
    guarantee: str = "certified"
    gap_bound: float = math.inf
    epsilon: float | None = None
    constants: dict = field(default_factory=dict)
    parameters: dict = field(default_factory=dict)
    wall_time: float = 0.0
    checks: int = 0
    best: tuple[int, ...] | None = None
    gap: float | None = None
    epsilon_optimal: bool | None = None
    labels: tuple[str, ...] | None = None

    def __post_init__(self):
        object.__setattr__(self, "stop_reason", StopReason(self.stop_reason))

    @property
    def certified(self) -> bool:
        """Whether a *certified* stopping rule ended the run (so the answer carries its guarantee)."""
        return self.stop_reason == STOPPING_RULE and self.guarantee == "certified"

    def as_dict(self) -> dict:
        """A flat, JSON-friendly dictionary (for tables and files)."""
        data = asdict(self)
        data["stop_reason"] = str(self.stop_reason)
        return data

    def describe(self) -> str:
        """A human-readable multi-line summary."""
        if self.answer is None:
            members = "none yet (the pulls so far do not identify the means)"
        else:
            members = ", ".join(self.labels) if self.labels else ", ".join(map(str, self.answer))
        verdict = {"certified": "certified", "heuristic": "heuristic rule, no guarantee",
                   "fixed-budget": "fixed budget, no confidence claim"}.get(self.guarantee, self.guarantee)
        lines = [f"algorithm     {self.algorithm} ({verdict})",
                 f"team          {members}",
                 f"pulls         {self.pulls:,}",
                 f"stop reason   {self.stop_reason}",
                 f"gap bound     {_short(self.gap_bound)} against epsilon {_short(self.epsilon)}",
                 f"time          {self.wall_time:.3f} s ({self.checks} stopping checks)"]
        constant_text = ", ".join(f"{name}={_short(value)}" for name, value in self.constants.items())
        lines.append(f"constants     {constant_text}")
        if self.best is not None and self.gap is not None:
            lines.append(f"best team     {', '.join(map(str, self.best))} (indices)")
            lines.append(f"gap           {self.gap:.6g} "
                         f"({'epsilon-optimal' if self.epsilon_optimal else 'NOT epsilon-optimal'})")
        return "\n".join(lines)


def _short(value) -> str:
    if isinstance(value, float):
        return f"{value:.6g}"
    if isinstance(value, int) and value > 10**9:
        return f"{float(value):.3e}"
    return str(value)
