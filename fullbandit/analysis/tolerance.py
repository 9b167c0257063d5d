"""The question's tolerance: a default epsilon that means something on the data given, and what any epsilon means.

An epsilon-optimal team is one whose summed mean is within ``epsilon`` of the best team's. A
fixed default says nothing on its own: on data where the workers' accuracies lie close
together, most *random* teams are within 0.5 of the best, and a certificate at 0.5 tells a
user nothing a coin would not. The default here is a share of the spread that matters, the
gap between a random team and the best one:

``epsilon = max(GAP_SHARE * (best - random), FLOOR_PER_MEMBER * k)``

where ``best`` is the summed mean of the best ``k`` arms and ``random = k * mean(means)``
is the expected summed mean of a team drawn uniformly at random. With ``GAP_SHARE = 1/5``
a certified team closes at least four fifths of the way from a random team to the best;
the floor (a hundredth per member) keeps epsilon positive when every arm has the same
mean, where no certified rule could stop on the ties. This is a convention of this
package, not a rule of the papers, which take epsilon as given.

``fullbandit solve`` and ``fullbandit plan`` both take their default from
:func:`tolerance` on the means they are given (the simulated truth, or the prior), so
the same data give the same epsilon, and both print :meth:`Tolerance.describe`, which
says what the epsilon means on those data: how many random teams it would also accept.

Examples
--------
>>> means = [0.9, 0.8, 0.7, 0.6, 0.5, 0.4, 0.3, 0.2]
>>> t = tolerance(means, 2, seed=0)
>>> round(t.best, 2), round(t.random_mean, 2), round(t.epsilon, 2)   # (1.7 - 1.1) / 5
(1.7, 1.1, 0.12)
>>> t.source, t.within < 0.1
('default', True)
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from fullbandit.util.validation import InvalidParameterError, check_int, check_real

__all__ = ["FLOOR_PER_MEMBER", "GAP_SHARE", "RANDOM_TEAMS", "Tolerance", "default_epsilon", "random_teams_seed",
           "tolerance"]

#: The default epsilon's share of the gap between a random team's expected summed mean and the best team's.
GAP_SHARE = 0.2
#: The default epsilon's floor, per team member (on means in [0, 1]: a hundredth of a correct answer).
FLOOR_PER_MEMBER = 0.01
#: Random teams drawn to estimate how many an epsilon accepts.
RANDOM_TEAMS = 10_000
_CHUNK = 1_000  # teams drawn at once (memory: CHUNK x n floats)


@dataclass(frozen=True)
class Tolerance:
    """An epsilon on the team's summed mean, with what it means on the means it was judged on.

    Attributes
    ----------
    epsilon : float
    k : int
    best : float
        Summed mean of the best team.
    random_mean : float
        Expected summed mean of a uniformly random team, ``k * mean(means)``.
    within : float
        Share of :data:`RANDOM_TEAMS` uniformly random teams whose summed mean is within
        ``epsilon`` of the best (an estimate from the seeded draw).
    source : str
        ``"default"``, or the option that set epsilon.
    """

    epsilon: float
    k: int
    best: float
    random_mean: float
    within: float
    source: str

    def describe(self, per: str = "correct answers per question") -> str:
        """Two lines: epsilon and its meaning in ``per`` units, then how it was chosen and what it excludes.

        >>> first, second = tolerance([0.9, 0.8, 0.7, 0.6, 0.5], 2, seed=0).describe().splitlines()
        >>> first.split(":")[0], first.split("(")[1]
        ('epsilon       0.06', '0.03 per member)')
        >>> second.split(";")[0].strip()
        'default: a fifth of the gap from a random team (1.4) to the best (1.7)'
        """
        how = (f"default: a fifth of the gap from a random team ({self.random_mean:.3g}) to the best ({self.best:.3g})"
               if self.source == "default" else f"set by {self.source}")
        if self.source == "default" and self.epsilon > GAP_SHARE * (self.best - self.random_mean) + 1e-12:
            how = f"default: the floor of {FLOOR_PER_MEMBER:g} per member (the best team is barely above a random one)"
        return (f"epsilon       {self.epsilon:.3g}: the team found is within {self.epsilon:.3g} {per} of the best "
                f"team ({self.epsilon / self.k:.3g} per member)\n"
                f"              {how}; {_close(self.within)}")


def default_epsilon(means, k: int) -> float:
    """``max(GAP_SHARE * (best - random), FLOOR_PER_MEMBER * k)`` on ``means`` (see the module docstring).

    >>> default_epsilon([0.5] * 6, 3)     # no spread: the floor
    0.03
    """
    values, k = _checked(means, k)
    best = float(np.sort(values)[::-1][:k].sum())
    return max(GAP_SHARE * (best - k * float(values.mean())), FLOOR_PER_MEMBER * k)


def tolerance(means, k: int, epsilon: float | None = None, *, source: str = "default", seed=None) -> Tolerance:
    """``epsilon`` (default: :func:`default_epsilon`) with its meaning on ``means``.

    Parameters
    ----------
    means : array_like
        The arms' means the answer is judged on (at least ``k + 1``).
    k : int
        Team size.
    epsilon : float, optional
        A given tolerance (``source`` names the option that gave it); ``None``: the default.
    source : str
    seed : None, int, SeedSequence or Generator
        Seeds the random teams of :attr:`Tolerance.within`.
    """
    values, k = _checked(means, k)
    if epsilon is None:
        epsilon, source = default_epsilon(values, k), "default"
    epsilon = check_real("epsilon", epsilon, low=0.0)
    best = float(np.sort(values)[::-1][:k].sum())
    return Tolerance(epsilon, k, best, k * float(values.mean()), _within(values, k, best - epsilon, seed), source)


def random_teams_seed(seed: int) -> np.random.SeedSequence:
    """The random teams' seed of a command run with ``--seed seed``: the third child of its seed sequence.

    The first two seed the environment and the algorithm (``fullbandit solve``), so describing
    an epsilon draws nothing from the run's own streams.
    """
    return np.random.SeedSequence(seed).spawn(3)[2]


def _within(values: np.ndarray, k: int, floor: float, seed) -> float:
    """Share of uniformly random ``k``-teams whose summed mean is at least ``floor`` (seeded draw)."""
    rng = np.random.default_rng(seed)
    accepted = 0
    for start in range(0, RANDOM_TEAMS, _CHUNK):
        size = min(_CHUNK, RANDOM_TEAMS - start)
        teams = rng.random((size, values.size)).argpartition(k - 1, axis=1)[:, :k]  # k distinct arms per row
        accepted += int(np.count_nonzero(values[teams].sum(axis=1) >= floor - 1e-12))
    return accepted / RANDOM_TEAMS


def _checked(means, k) -> tuple[np.ndarray, int]:
    values = np.asarray(means, dtype=float)
    if values.ndim != 1 or not np.all(np.isfinite(values)):
        raise InvalidParameterError(f"means must be a 1-d array of finite numbers, got shape {values.shape}")
    return values, check_int("k", k, low=1, high=values.size - 1)


def _close(share: float) -> str:
    if share == 0:
        return f"none of {RANDOM_TEAMS:,} random teams is that close"
    return f"{100 * share:.2g}% of random teams are that close"
