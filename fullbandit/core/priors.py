"""Start a search from history: earlier *real* observations, counted as such.

A campaign rarely starts from nothing: the workers answered gold questions before, or an
earlier campaign pulled teams. :class:`PriorObservations` holds such observations, each an
arm set (a single worker, or a team) observed ``count`` times with a summed reward, and an
algorithm takes them at setup (``algorithm.setup(prior=...)`` or
``fullbandit.run(algorithm, environment, prior=...)``).

**What keeps the guarantee honest.** Prior observations enter the estimate exactly as pulls
would: a full-bandit algorithm adds each observed set's indicator ``x`` to its Gram matrix
``A`` and ``x * reward`` to ``b`` (least squares over all observations), a per-arm algorithm
adds them to each arm's samples and sum. The confidence bounds then still hold provided

1. they are **real observations** of the same arms' rewards (the same workers on tasks drawn
   from the same distribution as the campaign's), independent of the campaign's pulls, and
2. each is sub-Gaussian with a scale at most the algorithm's ``noise_scale`` (checked: a
   set of ``s`` members with rewards in ``[0, 1]`` has scale ``sqrt(s) / 2``, which a team
   of ``k >= s`` covers), and
3. they were chosen without looking at the campaign's rewards (they precede it).

Under 1-3 the fixed-design argument of :func:`fullbandit.linalg.radius.confidence_radius` is
unchanged: the observation sequence (prior rows, then the tracked pulls) is fixed in
advance, each estimate is a least-squares estimate of a fixed design, and the union bound
runs over the campaign's pulls. Known accuracies **without** the number of answers behind
them are not observations and are refused here: they say nothing about their own error.
Use them with :func:`fullbandit.analysis.planning.plan` to estimate a campaign's cost instead.

Prior observations are reported separately (``Result.constants["prior_observations"]``):
the pull count and the budget are the campaign's own.

Examples
--------
Three workers' earlier gold answers, as a crowd table would give them:

>>> import numpy as np
>>> import fullbandit as fb
>>> from fullbandit.core.priors import PriorObservations
>>> prior = PriorObservations.from_accuracies([0.9, 0.6, 0.7], answers=[50, 50, 20])
>>> prior.arms, prior.counts.tolist(), prior.reward_sums.tolist(), prior.n_observations
(((0,), (1,), (2,)), [50, 50, 20], [45.0, 30.0, 14.0], 120)
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

from fullbandit.util.validation import InvalidParameterError, check_int, check_real, read_csv_text

__all__ = ["PriorObservations", "WHOLE_TOLERANCE", "check_prior_noise", "round_index"]

#: How far ``accuracy * answers`` may lie from a whole number of right answers (rounding of a printed accuracy).
WHOLE_TOLERANCE = 1e-6


@dataclass(frozen=True, eq=False)
class PriorObservations:
    """Earlier real observations of arm sets: ``counts[j]`` observations of ``arms[j]`` summing to ``reward_sums[j]``.

    Parameters
    ----------
    n : int
        Number of arms of the problem they belong to (indices ``0 .. n-1``).
    arms : sequence of sequences of int
        The observed arm sets, distinct, each non-empty with distinct indices (stored sorted).
    counts : sequence of int
        Observations of each set, ``>= 1``.
    reward_sums : sequence of float
        Sum of each set's observed rewards (finite).
    noise_scale : float
        A sub-Gaussian scale of one observation of any of the sets (for members with
        rewards in ``[0, 1]``: ``sqrt(largest set size) / 2``, the default).
    source : str
        Where they come from, for reports.

    Raises
    ------
    InvalidParameterError
        Naming the argument and the entry at fault.

    Examples
    --------
    Two earlier team pulls of an earlier campaign and one worker's answers:

    >>> prior = PriorObservations(4, [(0, 1), (2, 3), (1,)], counts=[10, 10, 5], reward_sums=[15.0, 9.0, 4.0])
    >>> prior.noise_scale, prior.n_observations
    (0.7071067811865476, 25)
    """

    n: int
    arms: tuple[tuple[int, ...], ...]
    counts: np.ndarray = field(repr=False)
    reward_sums: np.ndarray = field(repr=False)
    noise_scale: float = -1.0  # -1: the default for members with rewards in [0, 1]
    source: str = "prior"

    def __post_init__(self) -> None:
        n = check_int("n", self.n, low=1)
        arms = []
        for j, arm in enumerate(self.arms):
            members = tuple(sorted(int(i) for i in arm))
            if not members or len(set(members)) != len(members) or not all(0 <= i < n for i in members):
                raise InvalidParameterError(
                    f"arms[{j}] = {tuple(arm)!r} must be a non-empty set of distinct arm indices in 0..{n - 1}")
            arms.append(members)
        if len(set(arms)) != len(arms):
            raise InvalidParameterError("arms must be distinct: sum the counts and rewards of a repeated set")
        counts = np.asarray(self.counts)
        if counts.size == 0:
            counts = counts.astype(np.int64)  # no observation: an empty list reads as floats
        if counts.shape != (len(arms),) or not np.issubdtype(counts.dtype, np.integer) or np.any(counts < 1):
            raise InvalidParameterError(f"counts must hold {len(arms)} integers >= 1 (one per arm set), got "
                                        f"{self.counts!r}")
        sums = np.asarray(self.reward_sums, dtype=float)
        if sums.shape != (len(arms),) or not np.all(np.isfinite(sums)):
            raise InvalidParameterError(f"reward_sums must hold {len(arms)} finite numbers, got {self.reward_sums!r}")
        largest = max((len(arm) for arm in arms), default=1)
        scale = math.sqrt(largest) / 2.0 if self.noise_scale == -1.0 else \
            check_real("noise_scale", self.noise_scale, low=0.0, low_inclusive=False)
        counts, sums = counts.astype(np.int64), sums.copy()
        counts.flags.writeable = sums.flags.writeable = False
        object.__setattr__(self, "n", n)
        object.__setattr__(self, "arms", tuple(arms))
        object.__setattr__(self, "counts", counts)
        object.__setattr__(self, "reward_sums", sums)
        object.__setattr__(self, "noise_scale", float(scale))

    @property
    def n_observations(self) -> int:
        """Total number of earlier observations."""
        return int(self.counts.sum())

    @property
    def singletons(self) -> bool:
        """``True`` when every observed set is a single arm (what a per-arm algorithm can take)."""
        return all(len(arm) == 1 for arm in self.arms)

    @classmethod
    def from_accuracies(cls, accuracies: Sequence[float], answers: Sequence[int], *,
                        source: str = "accuracies") -> PriorObservations:
        """Per-arm observations from accuracies and the number of graded answers behind each.

        ``accuracies[i] * answers[i]`` must be a whole number of right answers (within
        :data:`WHOLE_TOLERANCE`): an accuracy is a count of real answers, not a belief.
        Arms with ``answers[i] = 0`` get no observation.

        Examples
        --------
        >>> PriorObservations.from_accuracies([0.5, 0.25], answers=[4, 0]).arms
        ((0,),)
        >>> PriorObservations.from_accuracies([0.33], answers=[10])  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        fullbandit.util.validation.InvalidParameterError: accuracies[0] * answers[0] = 3.3 is not a whole number of ...
        """
        accuracy = np.asarray(accuracies, dtype=float)
        counts = np.asarray(answers)
        if accuracy.ndim != 1 or counts.shape != accuracy.shape:
            raise InvalidParameterError(f"accuracies and answers must be two sequences of one length, got shapes "
                                        f"{accuracy.shape} and {counts.shape}")
        if not np.issubdtype(counts.dtype, np.integer) or np.any(counts < 0):
            raise InvalidParameterError(f"answers must be integers >= 0, got {answers!r}")
        if not np.all((accuracy >= 0) & (accuracy <= 1)):
            raise InvalidParameterError(f"accuracies must lie in [0, 1], got {accuracies!r}")
        right = accuracy * counts
        off = np.flatnonzero(np.abs(right - np.round(right)) > WHOLE_TOLERANCE)
        if off.size:
            i = int(off[0])
            raise InvalidParameterError(
                f"accuracies[{i}] * answers[{i}] = {right[i]:g} is not a whole number of right answers: give "
                "the accuracies the answers were graded on")
        kept = np.flatnonzero(counts > 0)
        return cls(accuracy.size, tuple((int(i),) for i in kept), counts[kept], np.round(right[kept]), source=source)

    @classmethod
    def from_table(cls, table, workers: Sequence[str] | None = None) -> PriorObservations:
        """Each worker's graded gold answers of a :class:`fullbandit.datasets.CrowdTable`, one observation each.

        Parameters
        ----------
        table : CrowdTable
        workers : sequence of str, optional
            The campaign's workers, in the campaign's arm order; workers absent from the
            table get no observation, and workers of the table not listed are left out.
            ``None``: the table's own workers and order.

        Examples
        --------
        >>> from fullbandit.datasets import CrowdTable
        >>> table = CrowdTable(("a", "b"), ("q1", "q2"), [[1, float("nan")], [0, 1]])
        >>> prior = PriorObservations.from_table(table, workers=["b", "c", "a"])
        >>> prior.n, prior.arms, prior.counts.tolist(), prior.reward_sums.tolist()
        (3, ((0,), (2,)), [1, 2], [1.0, 1.0])
        """
        ids = list(table.worker_ids) if workers is None else [str(w) for w in workers]
        if len(set(ids)) != len(ids):
            raise InvalidParameterError("workers must be distinct")
        column = {w: j for j, w in enumerate(table.worker_ids)}
        present = [(i, column[w]) for i, w in enumerate(ids) if w in column]
        columns = [j for _, j in present]
        return cls(len(ids), tuple((i,) for i, _ in present), table.n_answered[columns].astype(np.int64),
                   table.n_correct[columns].astype(float), source=f"gold answers of {table.name}")

    @classmethod
    def from_pulls(cls, n: int, arms: Sequence[Sequence[int]], rewards: Sequence[float],
                   counts: Sequence[int] | None = None, *, noise_scale: float = -1.0,
                   source: str = "earlier pulls") -> PriorObservations:
        """Earlier observations of arm sets (one row per pull or block of pulls), summed per set.

        ``rewards[j]`` is the summed reward of ``counts[j]`` pulls of ``arms[j]`` (one pull
        each when ``counts`` is ``None``), as in a session's exported journal.

        Examples
        --------
        >>> prior = PriorObservations.from_pulls(3, [(0, 1), (1, 0), (1, 2)], [1.0, 2.0, 1.0])
        >>> prior.arms, prior.counts.tolist(), prior.reward_sums.tolist()
        (((0, 1), (1, 2)), [2, 1], [3.0, 1.0])
        """
        counts = [1] * len(arms) if counts is None else counts
        if not len(arms) == len(rewards) == len(counts):
            raise InvalidParameterError(f"arms, rewards and counts must have one length, got {len(arms)}, "
                                        f"{len(rewards)} and {len(counts)}")
        totals: dict[tuple[int, ...], list] = {}
        for arm, reward, count in zip(arms, rewards, counts, strict=True):
            tally = totals.setdefault(tuple(sorted(int(i) for i in arm)), [0, 0.0])
            tally[0] += int(count)
            tally[1] += float(reward)
        return cls(n, tuple(totals), np.array([c for c, _ in totals.values()], dtype=np.int64),
                   np.array([s for _, s in totals.values()]), noise_scale=noise_scale, source=source)

    @classmethod
    def read_export(cls, path, workers: Sequence[str], *, noise_scale: float = -1.0) -> PriorObservations:
        """The observations of an earlier session's export (``fullbandit session export``), by worker name.

        Teams are matched to ``workers`` (the new campaign's names) by the export's
        ``workers`` column; a team with a worker not in ``workers`` is refused, naming the
        line. Per-arm (semi-bandit) rewards are refused: they are lists, not sums.
        ``noise_scale`` as for the constructor (default: members' rewards in ``[0, 1]``).

        Examples
        --------
        >>> import tempfile, pathlib
        >>> path = pathlib.Path(tempfile.mkdtemp()) / "old.csv"
        >>> _ = path.write_text("observation,pull,arms,workers,count,reward,recorded_at\\n"
        ...                     "1,0,0 1,ann;bo,1,1.0,0\\n2,1,0 1,ann;bo,1,2.0,0\\n")
        >>> prior = PriorObservations.read_export(path, ["bo", "cy", "ann"])
        >>> prior.arms, prior.counts.tolist(), prior.reward_sums.tolist()
        (((0, 2),), [2], [3.0])
        """
        import csv

        index = {str(name): i for i, name in enumerate(workers)}
        arms, rewards, counts = [], [], []
        with read_csv_text(path) as handle:
            reader = csv.DictReader(handle)
            missing = {"workers", "count", "reward"} - set(reader.fieldnames or ())
            if missing:
                raise InvalidParameterError(f"{path}: columns {sorted(missing)} are missing: not a session export")
            for row in reader:
                where = f"{path}, line {reader.line_num}"
                names = [name for name in (row["workers"] or "").split(";") if name]
                unknown = [name for name in names if name not in index]
                if not names or unknown:
                    raise InvalidParameterError(f"{where}, column 'workers': {unknown or 'no worker'} not among the "
                                                "workers of this campaign")
                try:
                    reward, count = float(row["reward"]), int(row["count"])
                except (TypeError, ValueError):
                    raise InvalidParameterError(f"{where}: reward {row['reward']!r} and count {row['count']!r} must be "
                                                "a number and an integer (per-arm rewards cannot be a prior of sums)"
                                                ) from None
                if not math.isfinite(reward) or count < 1:
                    raise InvalidParameterError(f"{where}: reward must be finite and count >= 1")
                arms.append([index[name] for name in names])
                rewards.append(reward)
                counts.append(count)
        return cls.from_pulls(len(index), arms, rewards, counts, noise_scale=noise_scale, source=f"export {path}")

    def to_dict(self) -> dict:
        """JSON-friendly form (saved with an algorithm's state); :meth:`from_dict` reads it back."""
        return {"n": self.n, "arms": [list(arm) for arm in self.arms], "counts": self.counts.tolist(),
                "reward_sums": self.reward_sums.tolist(), "noise_scale": self.noise_scale, "source": self.source}

    @classmethod
    def from_dict(cls, data: Mapping) -> PriorObservations:
        """Inverse of :meth:`to_dict` (the same checks as the constructor).

        Examples
        --------
        >>> prior = PriorObservations.from_accuracies([0.5], answers=[2])
        >>> PriorObservations.from_dict(prior.to_dict()).to_dict() == prior.to_dict()
        True
        """
        try:
            return cls(data["n"], data["arms"], data["counts"], data["reward_sums"],
                       noise_scale=float(data["noise_scale"]), source=str(data.get("source", "prior")))
        except (KeyError, TypeError, ValueError) as error:
            raise InvalidParameterError(f"prior observations are malformed ({error!r})") from None


def check_prior_noise(prior: PriorObservations, noise_scale: float, owner: str) -> None:
    """Refuse prior observations noisier than the algorithm's ``noise_scale`` (its bounds would not cover them).

    Examples
    --------
    >>> prior = PriorObservations(3, [(0, 1, 2)], [4], [6.0])   # a sum of 3 answers: scale sqrt(3)/2
    >>> check_prior_noise(prior, 0.5, "icb")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    fullbandit.util.validation.InvalidParameterError: icb: the prior observations have noise_scale 0.866 > the ...
    """
    if prior.noise_scale > noise_scale * (1.0 + 1e-12):
        raise InvalidParameterError(
            f"{owner}: the prior observations have noise_scale {prior.noise_scale:.3g} > the algorithm's noise_scale "
            f"{noise_scale:.3g}, so its confidence bounds would not cover them; set the algorithm's noise_scale to "
            f"at least {prior.noise_scale:.3g}")


def round_index(pulls: int, prior: PriorObservations | None) -> int:
    """The index of the union bound over rounds for an estimate after ``pulls`` pulls.

    Without a prior the rounds are ``t = 1, 2, ...``; with one, the estimate before any
    pull (prior alone) is a round too, so round ``t`` takes index ``t + 1`` and the union
    ``sum_j delta_j = delta`` still covers every round at a cost of ``log((t + 1) / t)``.

    Examples
    --------
    >>> round_index(10, None), round_index(0, PriorObservations.from_accuracies([1.0], answers=[3]))
    (10, 1)
    """
    return pulls + 1 if prior is not None else pulls
