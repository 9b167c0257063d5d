"""Many independent runs of the round-based fixed-budget top-k algorithms (NSAR, SAR, Uniform), advanced together.

A misidentification probability is a mean over thousands of runs (Shahrampour and Tarokh,
section IV: 4000 per bar). :func:`simulate_rounds` keeps every run's samples, sums, active
and accepted arms as ``(runs, n)`` arrays; each round is one
:meth:`fullbandit.semi.batch.BatchArms.sample_sums` call for all runs, and the schedule,
the accept/reject decision and the final answer are the functions of
:mod:`fullbandit.semi.accept_reject` that the ask/tell classes call with one row, so a
batched run and an ask/tell run fed the same rewards make the same decisions.

Every ``sample_sums`` call covers all ``runs`` rows in order (a finished run's row asks
for zero samples), so a sampler may treat row ``r`` as run ``r``.

Examples
--------
>>> import fullbandit as fb
>>> from fullbandit.semi import NSAR, Uniform
>>> from fullbandit.semi.batch import BernoulliBatch
>>> from fullbandit.semi.rounds import simulate_rounds
>>> arms = BernoulliBatch([0.7, 0.7, 0.5, 0.5, 0.5, 0.5])
>>> batch = simulate_rounds(NSAR(fb.TopK(6, 2), budget=600, p=0.7), arms, runs=2000, seed=0)
>>> batch.answers.shape, int(batch.counts.sum(axis=1).max()) <= 600
((2000, 6), True)
>>> nsar_error = batch.misidentification([0, 1])
>>> uniform = simulate_rounds(Uniform(fb.TopK(6, 2), budget=600), arms, runs=2000, seed=0)
>>> uniform_error = uniform.misidentification([0, 1])
>>> 0.0 < nsar_error < uniform_error < 0.5
True
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from fullbandit.semi.accept_reject import phase_plan, sar_decisions, top_k_mask
from fullbandit.semi.base import empirical_means
from fullbandit.semi.batch import BatchArms
from fullbandit.semi.sar import NSAR, Uniform
from fullbandit.util.validation import InvalidParameterError, as_generator


@dataclass(frozen=True)
class RoundsRun:
    """What :func:`simulate_rounds` returns.

    Attributes
    ----------
    answers : numpy.ndarray of bool
        Every run's answer (its ``k`` chosen arms) as a ``(runs, n)`` mask.
    counts : numpy.ndarray of int
        Samples per run and arm at the end, shape ``(runs, n)``.
    """

    answers: np.ndarray
    counts: np.ndarray

    def misidentification(self, top) -> float:
        """The fraction of runs whose answer is not exactly the arms ``top`` (indices)."""
        wanted = np.zeros(self.answers.shape[1], dtype=bool)
        wanted[list(top)] = True
        return float(np.mean(np.any(self.answers != wanted, axis=1)))


def simulate_rounds(algorithm: NSAR | Uniform, arms: BatchArms, *, runs: int, seed=None) -> RoundsRun:
    """``runs`` independent runs of ``algorithm`` (NSAR, SAR or Uniform), one ``sample_sums`` call per round.

    The algorithm's parameters (validated here) fix the rule; it is not driven itself.
    Rewards come from ``arms`` and a generator seeded by ``seed`` (the same seed gives the
    same runs, but not the rewards an ask/tell run with the environment's own seed sees).
    Uniform's leftover ``budget mod n`` samples pick their distinct random arms from this
    generator too (not from the algorithm's seed).

    Parameters
    ----------
    algorithm : NSAR, SAR or Uniform
    arms : BatchArms
        The reward law (:func:`fullbandit.semi.batch.batch_arms` converts an environment).
    runs : int
        ``>= 1``.
    seed : None, int, SeedSequence or Generator

    Returns
    -------
    RoundsRun
    """
    if not isinstance(algorithm, NSAR | Uniform):
        raise TypeError(f"algorithm must be NSAR, SAR or Uniform, got {type(algorithm).__name__}")
    if not isinstance(arms, BatchArms):
        raise TypeError(f"arms must be a BatchArms sampler, got {type(arms).__name__}")
    algorithm = algorithm.clone().setup(noise_scale=arms.noise_scale)  # validates the parameters
    n, k, budget = algorithm.problem.n, algorithm.problem.k, int(algorithm.budget)
    if arms.n != n:
        raise InvalidParameterError(f"arms has n={arms.n} arms but the problem has n={n}")
    if isinstance(runs, bool) or not isinstance(runs, int) or runs < 1:
        raise InvalidParameterError(f"runs={runs!r} must be an integer >= 1")
    rng = as_generator(seed)
    if isinstance(algorithm, Uniform):
        counts = np.full((runs, n), budget // n, dtype=np.int64) + _distinct_random_arms(rng, runs, n, budget % n)
    else:  # NSAR's budget is above n (refused otherwise when validated)
        return _accepts_and_rejects(algorithm, arms, runs, rng)
    sums = arms.sample_sums(counts, rng)
    return RoundsRun(top_k_mask(empirical_means(counts, sums), k), counts)


def _distinct_random_arms(rng: np.random.Generator, runs: int, n: int, size: int) -> np.ndarray:
    """A ``(runs, n)`` 0/1 array with ``size`` ones per row at uniformly random distinct arms."""
    ranks = np.argsort(rng.random((runs, n)), axis=1)
    return (ranks < size).astype(np.int64)  # the arms whose random key ranks among the ``size`` smallest


def _accepts_and_rejects(algorithm: NSAR, arms: BatchArms, runs: int, rng: np.random.Generator) -> RoundsRun:
    n, k, budget = algorithm.problem.n, algorithm.problem.k, int(algorithm.budget)
    lengths = algorithm.phase_lengths()
    counts = np.zeros((runs, n), dtype=np.int64)
    sums = np.zeros((runs, n))
    active = np.ones((runs, n), dtype=bool)
    accepted = np.zeros((runs, n), dtype=bool)
    wanted = np.full(runs, k, dtype=np.intp)
    for phase in range(1, n):
        live = (wanted > 0) & (wanted < active.sum(axis=1))  # settled runs decide nothing more
        if not live.any():
            break
        plan = phase_plan(counts, active & live[:, None], phase=phase, lengths=lengths, budget=budget)
        if plan.any():
            sums += arms.sample_sums(plan, rng)
            counts += plan
        rows = np.flatnonzero(live)
        leaving, accept = sar_decisions(empirical_means(counts[rows], sums[rows]), active[rows], wanted[rows])
        active[rows, leaving] = False
        accepted[rows[accept], leaving[accept]] = True
        wanted[rows[accept]] -= 1
    # As NSAR._answer: the accepted arms and, if places are left, the empirical best of the active ones.
    answers = accepted | top_k_mask(empirical_means(counts, sums), wanted, among=active)
    return RoundsRun(answers, counts)
