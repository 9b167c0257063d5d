"""Reward draws for many independent runs at once: the samplers of the batched simulations.

A paper's figure averages thousands of independent runs of a per-arm algorithm. Run one
at a time, a sequential index policy pays Python's overhead once per sample; advanced
together, the runs share every array operation. A :class:`BatchArms` draws, for ``runs``
independent copies of the same arms, either one reward per run (``sample_one``: the arm
each run chose this step) or the summed rewards of given numbers of samples per run and
arm (``sample_sums``: a round of a round-based algorithm). Draws come from the generator
passed in, so a batched simulation is reproducible from its seed.

Each law matches its environment (:mod:`fullbandit.environments.models`): Bernoulli arms
(:class:`fullbandit.BernoulliTeam`), Gaussian arms (:class:`fullbandit.GaussianArms`) and
categorical arms with a finite support (``support`` values with per-arm ``probabilities``).
:func:`batch_arms` picks the sampler for an environment.

Examples
--------
>>> import numpy as np
>>> from fullbandit.semi.batch import BernoulliBatch
>>> arms = BernoulliBatch([1.0, 0.0, 0.5])
>>> arms.sample_one(np.array([0, 1, 0]), np.random.default_rng(0)).tolist()   # three runs
[1.0, 0.0, 1.0]
>>> arms.sample_sums(np.array([[4, 4, 0], [1, 0, 0]]), np.random.default_rng(0)).tolist()
[[4.0, 0.0, 0.0], [1.0, 0.0, 0.0]]
"""

from __future__ import annotations

from abc import ABC, abstractmethod

import numpy as np

from fullbandit.util.validation import InvalidParameterError, check_vector


class BatchArms(ABC):
    """``n`` arms drawn for many independent runs at once (see the module docstring)."""

    means: np.ndarray

    @property
    def n(self) -> int:
        return int(self.means.size)

    @property
    @abstractmethod
    def noise_scale(self) -> float:
        """The sub-Gaussian scale ``R`` of one reward (as the matching environment declares it)."""

    @abstractmethod
    def sample_one(self, arms: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        """One reward of arm ``arms[r]`` for every run ``r`` (shape ``(runs,)``)."""

    @abstractmethod
    def sample_sums(self, counts: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        """The sum of ``counts[r, i]`` independent rewards of arm ``i`` for every run ``r`` and arm ``i``."""

    def _check_counts(self, counts: np.ndarray) -> np.ndarray:
        counts = np.asarray(counts)
        if counts.ndim != 2 or counts.shape[1] != self.n or not np.issubdtype(counts.dtype, np.integer) \
                or np.any(counts < 0):
            raise InvalidParameterError(f"counts must be a (runs, {self.n}) array of non-negative integers, "
                                        f"got shape {counts.shape} and dtype {counts.dtype}")
        return counts


class BernoulliBatch(BatchArms):
    """Bernoulli arms: one reward is ``1`` with probability ``means[i]``; a sum of ``m`` is binomial."""

    def __init__(self, means):
        self.means = check_vector("means", means)
        if np.any(self.means < 0) or np.any(self.means > 1):
            raise InvalidParameterError("means of Bernoulli arms must lie in [0, 1]")

    @property
    def noise_scale(self) -> float:
        return 0.5

    def sample_one(self, arms, rng):
        return (rng.random(len(arms)) < self.means[arms]).astype(float)

    def sample_sums(self, counts, rng):
        counts = self._check_counts(counts)
        return rng.binomial(counts, self.means).astype(float)


class GaussianBatch(BatchArms):
    """Gaussian arms ``N(means[i], sigma^2)``; a sum of ``m`` is one normal draw of variance ``m sigma^2``."""

    def __init__(self, means, sigma: float = 1.0):
        self.means = check_vector("means", means)
        if not (np.isfinite(sigma) and sigma >= 0):
            raise InvalidParameterError(f"sigma={sigma!r} must be a finite number >= 0")
        self.sigma = float(sigma)

    @property
    def noise_scale(self) -> float:
        return self.sigma

    def sample_one(self, arms, rng):
        return self.means[arms] + self.sigma * rng.standard_normal(len(arms))

    def sample_sums(self, counts, rng):
        counts = self._check_counts(counts)
        return counts * self.means + self.sigma * np.sqrt(counts) * rng.standard_normal(counts.shape)


class CategoricalBatch(BatchArms):
    """Arms with a finite support: arm ``i`` returns ``support[j]`` with probability ``probabilities[i, j]``.

    A sum of ``m`` rewards is a multinomial draw of how often each value came up (the
    caption contest's votes "not funny", "somewhat funny", "funny" are the support
    ``(0, 0.5, 1)``; Shahrampour and Tarokh, section IV.B).

    Examples
    --------
    >>> import numpy as np
    >>> from fullbandit.semi.batch import CategoricalBatch
    >>> arms = CategoricalBatch([0.0, 0.5, 1.0], [[0.5, 0.5, 0.0], [0.0, 0.0, 1.0]])
    >>> arms.means.tolist()
    [0.25, 1.0]
    >>> arms.sample_sums(np.array([[0, 3]]), np.random.default_rng(1)).tolist()
    [[0.0, 3.0]]
    """

    def __init__(self, support, probabilities):
        self.support = check_vector("support", support)
        table = np.asarray(probabilities, dtype=float)
        if table.ndim != 2 or table.shape[1] != self.support.size or table.shape[0] < 1:
            raise InvalidParameterError(f"probabilities must be an (n, {self.support.size}) array, "
                                        f"got shape {table.shape}")
        if not np.all(np.isfinite(table)) or np.any(table < 0) or not np.allclose(table.sum(axis=1), 1.0):
            raise InvalidParameterError("every row of probabilities must be non-negative and sum to 1")
        self.probabilities = table / table.sum(axis=1, keepdims=True)
        self.means = self.probabilities @ self.support
        self._cumulative = np.cumsum(self.probabilities, axis=1)
        self._cumulative[:, -1] = 1.0  # no draw may fall past the last value through rounding

    @property
    def noise_scale(self) -> float:
        """Half the support's range (Hoeffding's lemma)."""
        return float(self.support.max() - self.support.min()) / 2

    def sample_one(self, arms, rng):
        draws = rng.random(len(arms))
        value = (draws[:, None] >= self._cumulative[arms]).sum(axis=1)
        return self.support[value]

    def sample_sums(self, counts, rng):
        counts = self._check_counts(counts)
        tallies = rng.multinomial(counts, self.probabilities)  # (runs, n, values)
        return tallies @ self.support


def batch_arms(environment) -> BatchArms:
    """The batch sampler with the same reward law as a per-arm ``environment``.

    Supported: :class:`fullbandit.BernoulliTeam`, :class:`fullbandit.GaussianArms` and any
    environment with ``support`` and ``probabilities`` attributes (categorical arms).

    Examples
    --------
    >>> import fullbandit as fb
    >>> from fullbandit.semi.batch import batch_arms
    >>> type(batch_arms(fb.BernoulliTeam([0.2, 0.7], feedback="semi"))).__name__
    'BernoulliBatch'
    """
    from fullbandit.environments.models import BernoulliTeam, GaussianArms
    if isinstance(environment, BatchArms):
        return environment
    if isinstance(environment, BernoulliTeam):
        return BernoulliBatch(environment.means)
    if isinstance(environment, GaussianArms):
        return GaussianBatch(environment.means, environment.sigma)
    if hasattr(environment, "support") and hasattr(environment, "probabilities"):
        return CategoricalBatch(environment.support, environment.probabilities)
    raise InvalidParameterError(f"environment={type(environment).__name__} has no batch sampler: use BernoulliTeam, "
                                "GaussianArms or categorical arms (support, probabilities)")
