"""Sequential per-arm policies: one arm per step, written once in array form over independent runs.

Index policies (LSA, APT, UCBE, Opt-KG for thresholding; AT-LUCB for top-m) make one
decision per sample. A :class:`SequentialPerArm` subclass writes that decision as array
code whose rows are independent runs:

* ``_policy_start(runs)``: the policy's own state beyond samples and sums (arrays with a
  leading axis of ``runs``; optional);
* ``_choose(counts, sums, t, state)``: the arm each run samples next, from the samples
  ``counts`` and reward sums ``sums`` per run and arm (shape ``(runs, n)``) after ``t``
  samples;
* ``_policy_update(counts, sums, t, state)``: the state after the step's sample is
  recorded (optional);
* ``_decide(counts, sums, state)``: each run's answer as a ``(runs, n)`` mask (the arms
  declared above the threshold, or chosen for the top-m).

The ask/tell algorithm (:class:`fullbandit.core.algorithm.Algorithm` through
:class:`fullbandit.semi.PerArmRounds`, one sample per round) calls these with one row;
:func:`simulate` calls the *same methods* with ``runs`` rows, drawing every run's reward
for the step in one vectorised draw (:mod:`fullbandit.semi.batch`), so the papers' figures
(thousands of runs) cost one array operation per step instead of one Python loop per run.
An anytime policy is recorded at several horizons (``checkpoints``) in one pass.

Examples
--------
Round-robin sampling, declared in array form, run once by ask/tell and 1000 times at once:

>>> import numpy as np
>>> import fullbandit as fb
>>> from fullbandit.semi.batch import BernoulliBatch
>>> from fullbandit.semi.sequential import SequentialPerArm, simulate
>>> class RoundRobin(SequentialPerArm):
...     decision_classes = (fb.Thresholding,)
...     def __init__(self, problem, *, budget=100, seed=None):
...         self.problem, self.budget, self.seed = problem, budget, seed
...     def _choose(self, counts, sums, t, state):
...         return np.full(counts.shape[0], t % self.problem.n)
...     def _decide(self, counts, sums, state):
...         return sums >= self.problem.threshold * counts
>>> problem = fb.Thresholding(3, 0.5)
>>> result = fb.run(RoundRobin(problem, budget=30), fb.BernoulliTeam([0.1, 0.5, 0.9], feedback="semi", seed=0),
...                 progress=False)
>>> result.pulls, result.constants["max_samples_per_arm"]
(30, 10)
>>> batch = simulate(RoundRobin(problem, budget=30), BernoulliBatch([0.1, 0.5, 0.9]), runs=100_000, seed=1,
...                  checkpoints=(3, 30))
>>> batch.counts[0].tolist(), sorted(batch.answers)
([10, 10, 10], [3, 30])
>>> batch.answers[30].mean(axis=0).round(2).tolist()   # declared above: P(Bin(10, 1/2) >= 5) = 0.623 for arm 1
[0.0, 0.62, 1.0]
"""

from __future__ import annotations

import math
from abc import abstractmethod
from collections.abc import Iterable
from dataclasses import dataclass
from typing import ClassVar

import numpy as np
from tqdm.auto import tqdm

from fullbandit.core.algorithm import StoppingCheck
from fullbandit.semi.base import FIXED_BUDGET_CONSTRAINTS, PerArmRounds
from fullbandit.semi.batch import BatchArms
from fullbandit.util.validation import InvalidParameterError, as_generator


def lowest_argmin(values: np.ndarray) -> np.ndarray:
    """Row-wise argmin, ties towards the lower arm index (``nan`` never wins unless a row is all ``nan``)."""
    return np.argmin(np.where(np.isnan(values), np.inf, values), axis=-1)


class SequentialPerArm(PerArmRounds):
    """Base of the one-sample-per-step per-arm policies (see the module docstring).

    Every round of :class:`fullbandit.semi.PerArmRounds` is one sample of the arm
    ``_choose`` names; the answer after every sample is ``_decide``'s. The policy's own
    state is saved and restored with the algorithm.
    """

    setting: ClassVar[str] = "fixed-budget"
    parameter_constraints: ClassVar[dict[str, list]] = FIXED_BUDGET_CONSTRAINTS
    #: Whether the rule ignores the budget, so that one run to ``T`` gives the answers at every
    #: ``t <= T`` (:func:`simulate` with checkpoints).
    anytime: ClassVar[bool] = False

    # --- the policy, in array form (rows: independent runs) -------------------------------
    def _policy_start(self, runs: int) -> dict[str, np.ndarray]:
        """The policy's own state for ``runs`` runs (arrays with a leading axis of ``runs``)."""
        return {}

    @abstractmethod
    def _choose(self, counts: np.ndarray, sums: np.ndarray, t: int, state: dict) -> np.ndarray:
        """The arm each run samples next (shape ``(runs,)``), after ``t`` samples per run."""

    def _policy_update(self, counts: np.ndarray, sums: np.ndarray, t: int, state: dict) -> None:  # noqa: B027
        """Update ``state`` in place once the ``t``-th sample of every run is recorded (optional)."""

    @abstractmethod
    def _decide(self, counts: np.ndarray, sums: np.ndarray, state: dict) -> np.ndarray:
        """Each run's answer as a boolean mask over the arms (shape ``(runs, n)``)."""

    def _details(self, counts: np.ndarray, sums: np.ndarray, state: dict) -> dict:
        """Scalars reported with each check of the single-run algorithm (optional)."""
        return {}

    # --- the PerArmRounds hooks: one row ---------------------------------------------------
    # Each step is planned when it is asked for, from the data told so far: several samples may
    # be out at once and told in any order (a crowd answers in parallel), each told sample
    # updates the policy state and is followed by a check. ``round`` counts the steps asked.
    def _build_rounds(self, rng: np.random.Generator) -> None:
        self._policy = self._policy_start(1)

    def _next_arm(self) -> int:
        return int(self._choose(self.samples[None], self.sums[None], self._told, self._policy)[0])

    def _plan_round(self) -> np.ndarray:
        # Required by PerArmRounds; _next_pull below plans each step itself, without rounds.
        plan = np.zeros(self.problem.n, dtype=np.int64)
        plan[self._next_arm()] = 1
        return plan

    def _next_pull(self, max_count: int):
        arm = self._next_arm()
        self.round += 1
        return (arm,), 1, [self.round, [arm]]

    def _record(self, token, arms, count, reward) -> None:
        members = list(arms)
        self.samples[members] += count
        self.sums[members] += reward
        self._policy_update(self.samples[None], self.sums[None], int(self.samples.sum()), self._policy)
        self._round_complete = True  # a check after every told sample

    def _release(self, token, count) -> None:
        pass  # an abandoned step is simply not taken: the next ask chooses afresh


    def _evaluate(self) -> StoppingCheck:
        details = {"rounds": self.round}
        if not self.samples.any():
            return StoppingCheck(self._told, math.inf, 0.0, None, False, details)
        counts, sums = self.samples[None], self.sums[None]
        mask = self._decide(counts, sums, self._policy)[0]
        details.update(self._details(counts, sums, self._policy))
        return StoppingCheck(self._told, math.inf, 0.0, tuple(int(i) for i in np.flatnonzero(mask)), False, details)


@dataclass(frozen=True)
class BatchRun:
    """What :func:`simulate` returns.

    Attributes
    ----------
    answers : dict of int to numpy.ndarray
        For each checkpoint ``T``, every run's answer after ``T`` samples, a boolean
        ``(runs, n)`` mask.
    counts : numpy.ndarray
        Samples per run and arm at the end (shape ``(runs, n)``).
    """

    answers: dict[int, np.ndarray]
    counts: np.ndarray


def simulate(algorithm: SequentialPerArm, arms: BatchArms, *, runs: int, checkpoints: Iterable[int] | None = None,
             seed=None, progress: bool | None = None) -> BatchRun:
    """``runs`` independent runs of ``algorithm`` advanced together, one vectorised draw per step.

    The runs use the algorithm's own array methods (the code its ask/tell form uses), with
    the horizon ``algorithm.budget``; the answers are recorded after each checkpoint's
    number of samples (default: the budget only), so an anytime policy gives a whole
    budget curve in one pass. Rewards come from ``arms`` and a generator seeded by
    ``seed``: the same seed gives the same runs.

    Parameters
    ----------
    algorithm : SequentialPerArm
        Its parameters (validated here) fix the policy; it is not driven itself (a fresh
        copy, :meth:`fullbandit.core.algorithm.Algorithm.clone`, is set up with the sampler's noise scale).
    arms : BatchArms
        The reward law (:func:`fullbandit.semi.batch.batch_arms` converts an environment).
    runs : int
        Number of independent runs, ``>= 1``.
    checkpoints : iterable of int, optional
        Sample counts in ``1..budget`` at which to record the answers.
    seed : None, int, SeedSequence or Generator
    progress : bool, optional
        A progress bar over the steps (``None``: shown once the run has lasted 2 seconds).

    Returns
    -------
    BatchRun
    """
    if not isinstance(algorithm, SequentialPerArm):
        raise TypeError(f"algorithm must be a SequentialPerArm, got {type(algorithm).__name__}")
    if not isinstance(arms, BatchArms):
        raise TypeError(f"arms must be a BatchArms sampler, got {type(arms).__name__}")
    algorithm = algorithm.clone().setup(noise_scale=arms.noise_scale)
    n, horizon = algorithm.problem.n, int(algorithm.budget)
    if arms.n != n:
        raise InvalidParameterError(f"arms has n={arms.n} arms but the problem has n={n}")
    if isinstance(runs, bool) or not isinstance(runs, int) or runs < 1:
        raise InvalidParameterError(f"runs={runs!r} must be an integer >= 1")
    wanted = sorted({horizon} if checkpoints is None else {int(c) for c in checkpoints})
    if not wanted or wanted[0] < 1 or wanted[-1] > horizon:
        raise InvalidParameterError(f"checkpoints={checkpoints!r} must be sample counts in 1..budget={horizon}")
    rng = as_generator(seed)
    counts = np.zeros((runs, n), dtype=np.int64)
    sums = np.zeros((runs, n))
    state = algorithm._policy_start(runs)
    rows = np.arange(runs)
    answers: dict[int, np.ndarray] = {}
    last, recorded = wanted[-1], set(wanted)
    bar = tqdm(total=last, unit=" steps", unit_scale=True, delay=0.0 if progress else 2.0,
               disable=progress is False, leave=False, dynamic_ncols=True)
    try:
        for t in range(last):
            chosen = algorithm._choose(counts, sums, t, state)
            if chosen.min() < 0 or chosen.max() >= n:
                raise RuntimeError(f"{type(algorithm).__name__}._choose returned an arm outside 0..{n - 1}")
            rewards = arms.sample_one(chosen, rng)
            counts[rows, chosen] += 1
            sums[rows, chosen] += rewards
            algorithm._policy_update(counts, sums, t + 1, state)
            if t + 1 in recorded:
                answers[t + 1] = np.asarray(algorithm._decide(counts, sums, state), dtype=bool).copy()
            if t % 1024 == 1023:
                bar.update(1024)
    finally:
        bar.close()
    return BatchRun(answers, counts)
