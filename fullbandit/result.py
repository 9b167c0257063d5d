"""What a run returns: the answer and everything a user needs to trust it."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field

STOPPING_RULE = "stopping rule"
BUDGET_EXHAUSTED = "budget exhausted"


@dataclass(frozen=True)
class Result:
    """Outcome of one identification run.

    Attributes
    ----------
    algorithm : str
        Name of the algorithm and its mode.
    answer : tuple of int
        The recommended super-arm (arm indices, increasing).
    pulls : int
        Number of pulls (samples) used.
    stop_reason : str
        ``"stopping rule"``: the algorithm certified ``answer`` as epsilon-optimal with
        probability at least ``1 - delta``; ``"budget exhausted"``: it ran out of pulls and
        ``answer`` is only its current empirical best, with no guarantee.
    constants : dict
        Confidence constants, noise scale, union-bound size and the last stopping
        statistic (names in :meth:`describe`).
    wall_time : float
        Seconds spent in the run.
    checks : int
        Number of stopping-rule evaluations.
    best, gap, epsilon_optimal :
        Filled when the truth is known (a simulation): an optimal super-arm, the gap
        ``theta(M*) - theta(answer)``, and whether ``gap <= epsilon``.
    labels : tuple of str, optional
        Names of the members of ``answer`` (e.g. worker ids).
    """

    algorithm: str
    answer: tuple[int, ...]
    pulls: int
    stop_reason: str
    constants: dict = field(default_factory=dict)
    wall_time: float = 0.0
    checks: int = 0
    best: tuple[int, ...] | None = None
    gap: float | None = None
    epsilon_optimal: bool | None = None
    labels: tuple[str, ...] | None = None

    @property
    def certified(self) -> bool:
        """Whether the stopping rule, not the budget, ended the run."""
        return self.stop_reason == STOPPING_RULE

    def as_dict(self) -> dict:
        """A flat, JSON-friendly dictionary (for tables and files)."""
        return asdict(self)

    def describe(self) -> str:
        """A human-readable multi-line summary."""
        members = ", ".join(self.labels) if self.labels else ", ".join(map(str, self.answer))
        lines = [f"algorithm     {self.algorithm}",
                 f"team          {members}",
                 f"pulls         {self.pulls:,}",
                 f"stop reason   {self.stop_reason}",
                 f"time          {self.wall_time:.3f} s ({self.checks} stopping checks)"]
        constant_text = ", ".join(f"{name}={_short(value)}" for name, value in self.constants.items())
        lines.append(f"constants     {constant_text}")
        if self.best is not None:
            lines.append(f"best team     {', '.join(map(str, self.best))} (indices)")
            lines.append(f"gap           {self.gap:.6g} ({'epsilon-optimal' if self.epsilon_optimal else 'NOT epsilon-optimal'})")
        return "\n".join(lines)


def _short(value) -> str:
    if isinstance(value, float):
        return f"{value:.6g}"
    if isinstance(value, int) and value > 10**9:
        return f"{float(value):.3e}"
    return str(value)
