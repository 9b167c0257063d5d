"""Fixed-budget per-arm top-k: Uniform allocation, SAR (successive accepts and rejects) and NSAR (its
nonlinear-budget generalisation).

The schedule, the accept/reject decision and the final empirical answer are the array
functions of :mod:`fullbandit.semi.accept_reject`, called here with one row; the batched
simulation :func:`fullbandit.semi.rounds.simulate_rounds` calls the same functions with
many.
"""

from __future__ import annotations

import math
from typing import ClassVar

import numpy as np

from fullbandit.core.algorithm import StoppingCheck
from fullbandit.core.params import Interval
from fullbandit.semi.accept_reject import nsar_phase_lengths, phase_plan, sar_decisions, top_k_mask
from fullbandit.semi.base import FIXED_BUDGET_CONSTRAINTS, PerArmRounds


def empirical_top(means: np.ndarray, arms, k: int) -> list[int]:
    """The ``k`` of ``arms`` with the largest empirical means (ties to the lower index; ``nan`` last)."""
    among = np.zeros((1, len(means)), dtype=bool)
    among[0, np.asarray(arms, dtype=np.intp)] = True
    k = min(k, int(among.sum()))  # never fill up with arms outside ``arms``
    return np.flatnonzero(top_k_mask(np.asarray(means, dtype=float)[None], k, among)[0]).tolist()


class _FixedBudgetTopK(PerArmRounds):
    """What the fixed-budget baselines share: the budget check and the empirical answer."""

    setting = "fixed-budget"
    parameter_constraints: ClassVar[dict[str, list]] = FIXED_BUDGET_CONSTRAINTS

    def _answer(self) -> tuple[int, ...]:
        return tuple(empirical_top(np.nan_to_num(self.means(), nan=-np.inf), range(self.problem.n), self.problem.k))

    def _evaluate(self) -> StoppingCheck:
        answer = self._answer() if self.samples.any() else None
        return StoppingCheck(self._told, math.inf, 0.0, answer, False, {"rounds": self.round})


class Uniform(_FixedBudgetTopK):
    """Uniform allocation: every arm gets ``floor(Q / n)`` samples, then the empirical top-k.

    The ``Q mod n`` samples left over go to distinct arms drawn uniformly at random (seeded),
    so the run spends exactly ``Q``. The baseline "Uniform" of the fixed-budget top-k papers
    (Bubeck, Wang, Viswanathan 2013, section 5; Zhou, Chen, Li 2014, section 6).

    Parameters
    ----------
    problem : TopK
    budget : int
        ``Q``: single-arm samples, at least ``n`` (one sample of every arm; less is refused).
    seed : None, int, SeedSequence or Generator

    Examples
    --------
    >>> import fullbandit as fb
    >>> from fullbandit.semi import Uniform
    >>> environment = fb.GaussianArms([0.9, 0.8, 0.2, 0.1, 0.0], sigma=0.3, feedback="semi", seed=1)
    >>> result = fb.run(Uniform(fb.TopK(5, 2), budget=203, seed=0), environment, progress=False)
    >>> result.answer, result.pulls, str(result.stop_reason), result.guarantee
    ((0, 1), 203, 'budget exhausted', 'fixed-budget')
    >>> result.constants["max_samples_per_arm"]
    41
    """

    name = "uniform"
    summary = 'Per-arm baseline: the budget split evenly over the arms, then the empirical top-k (fixed budget)'

    def __init__(self, problem, *, budget: int = 10_000, seed=None):
        self.problem = problem
        self.budget = budget
        self.seed = seed

    def _budget_floor(self, noise_scale: float | None) -> tuple[int, str]:
        n = self.problem.n
        return n, f"one sample of each of the n={n} arms"

    def _plan_round(self) -> np.ndarray:
        n = self.problem.n
        plan = np.full(n, self.budget // n, dtype=np.int64)
        plan[self._rng.choice(n, size=self.budget % n, replace=False)] += 1
        return plan



def sar_phase_lengths(n: int, budget: int) -> list[int]:
    """``n_k = ceil((T - n) / (logbar(n) (n + 1 - k)))`` for ``k = 1..n-1``, ``logbar(n) = 1/2 + sum_{i=2}^n 1/i``.

    Bubeck, Wang, Viswanathan (2013), Algorithm 3: in phase ``k`` each of the ``n + 1 - k``
    active arms is sampled until it has ``n_k`` samples; the phases then use at most ``T``.
    It is :func:`fullbandit.semi.accept_reject.nsar_phase_lengths` with ``p = 1``.

    Examples
    --------
    >>> from fullbandit.semi.sar import sar_phase_lengths
    >>> sar_phase_lengths(4, 100)   # logbar(4) = 1/2 + 1/2 + 1/3 + 1/4 = 19/12
    [16, 21, 31]
    """
    return list(nsar_phase_lengths(n, budget, 1.0))


class NSAR(_FixedBudgetTopK):
    """Nonlinear Sequential Accepts and Rejects: fixed-budget top-k (Shahrampour and Tarokh, Fig. 1).

    ``n - 1`` rounds; in round ``r`` every active arm is sampled up to
    ``n_r = ceil((T - n) / (C_p (n - r + 1)^p))`` samples, ``C_p = 2^-p + sum_{r=2}^n r^-p``
    (:func:`fullbandit.semi.accept_reject.nsar_phase_lengths`). Then, with the active arms
    sorted by empirical mean and ``m`` arms still to accept, each active arm's empirical gap
    is its distance to the ``(m+1)``-th mean (for the first ``m``) or to the ``m``-th mean
    (for the others); the arm with the largest gap leaves the active set, accepted if its
    mean is strictly above the ``(m+1)``-th, rejected otherwise
    (:func:`fullbandit.semi.accept_reject.sar_decisions`). The answer is the accepted arms
    (plus the last active arm if one place is left). ``p = 1`` is SAR (:class:`SAR`, the
    same code with ``p`` fixed to 1); ``p < 1`` spends more in the early rounds (many
    competitive arms), ``p > 1`` in the late ones (a few competitive arms). Proposition 2
    bounds the misidentification probability by ``2 n^2 exp(-(T - n) / (8 C_p H^(M)(p)))``
    (:func:`fullbandit.semi.difficulty.hardness_hp`).

    Choices the paper leaves open (SAR's, kept for every ``p``): ties in the sort go to the
    lower arm index, and among equal largest gaps the lowest-ranked arm leaves (with few
    samples many arms tie, and all gaps can be 0: the strict acceptance test then rejects,
    and taking the lowest-ranked arm rejects the one the data favour least); once no place
    is left (``m = 0``) or every active arm is needed (``m`` = active arms) the rest is
    decided at once; a round whose target adds no sample (equal ceilings) is decided on the
    data it has; the final round samples its two arms with whatever the ceilings left of
    ``T`` (the rounds use at most ``T``), split evenly, so a run leaves at most one sample of
    ``T`` unspent unless the decisions end first.

    Parameters
    ----------
    problem : TopK
    budget : int
        ``T``: single-arm samples, at least ``n + 1`` (the first round's target
        ``n_1 = ceil((T - n) / ...)`` is one sample of every arm only when ``T > n``; less is
        refused).
    p : float
        The exponent of the nonlinearity, in ``(0, 2]`` as in the paper (Fig. 1 only asks
        ``p > 0``, but Proposition 2 and Corollary 3 are stated for ``(0, 2]``, and its
        experiments use ``0.7 .. 1.3``). The default ``1.0`` is SAR.
    seed : None, int, SeedSequence or Generator
        Unused by the rule (it is deterministic given the rewards).

    References
    ----------
    S. Shahrampour, V. Tarokh. Nonlinear sequential accepts and rejects for identification
    of top arms in stochastic bandits. Fig. 1 (NSAR), equations (3)-(4) and Proposition 2.
    S. Bubeck, T. Wang, N. Viswanathan. Multiple identifications in multi-armed bandits.
    ICML 2013, Algorithm 3 (SAR).

    Examples
    --------
    >>> import fullbandit as fb
    >>> from fullbandit.semi import NSAR
    >>> environment = fb.BernoulliTeam([0.9, 0.8, 0.7, 0.3, 0.2, 0.1], feedback="semi", seed=3)
    >>> result = fb.run(NSAR(fb.TopK(6, 3), budget=3000, p=0.7), environment, progress=False)
    >>> result.answer, result.pulls, result.algorithm
    ((0, 1, 2), 3000, 'nsar[p=0.7]')
    """

    name = "nsar"
    summary = ('Shahrampour and Tarokh, Fig. 1: SAR with round lengths ~ (T - n) / (C_p (n - r + 1)^p), p in '
               '(0, 2] (per-arm, fixed budget)')
    parameter_constraints: ClassVar[dict[str, list]] = {
        **FIXED_BUDGET_CONSTRAINTS, "p": [Interval(float, 0, 2, closed="right")]}

    def __init__(self, problem, *, budget: int = 10_000, p: float = 1.0, seed=None):
        self.problem = problem
        self.budget = budget
        self.p = p
        self.seed = seed

    @property
    def exponent(self) -> float:
        """The ``p`` of the schedule (:class:`SAR`: 1)."""
        return float(self.p)

    def label(self) -> str:
        return f"{self.name}[p={self.exponent:g}]"

    def phase_lengths(self) -> tuple[int, ...]:
        """The round targets ``n_1, ..., n_{n-1}`` (:func:`fullbandit.semi.accept_reject.nsar_phase_lengths`)."""
        return nsar_phase_lengths(self.problem.n, self.budget, self.exponent)

    def _build_rounds(self, rng: np.random.Generator) -> None:
        self._active = list(range(self.problem.n))
        self._accepted: list[int] = []
        self._phase = 0  # phases planned so far
        self._next_plan = self._advance()

    def _budget_floor(self, noise_scale: float | None) -> tuple[int, str]:
        n = self.problem.n
        return n + 1, f"n + 1 for n={n} arms: the first round's target ceil((T - n) / ...) gives every arm a " \
                      "sample only when T > n"

    def _plan_round(self) -> np.ndarray:
        return self._next_plan

    def _after_check(self, check) -> None:
        super()._after_check(check)
        self._decide()  # on the phase just sampled
        self._next_plan = self._advance()

    def _active_mask(self) -> np.ndarray:
        mask = np.zeros((1, self.problem.n), dtype=bool)
        mask[0, self._active] = True
        return mask

    def _advance(self) -> np.ndarray:
        """The plan of the next phase that samples anything (phases that add no sample are decided at once)."""
        plan = np.zeros(self.problem.n, dtype=np.int64)
        while not self._settled():
            self._phase += 1
            plan = phase_plan(self.samples[None], self._active_mask(), phase=self._phase,
                              lengths=self.phase_lengths(), budget=self.budget)[0]
            if plan.any():
                break
            self._decide()
        return plan

    def _decide(self) -> None:
        """The accept or reject of the phase just completed, from the empirical means."""
        if self._settled():
            return
        wanted = np.array([self.problem.k - len(self._accepted)])
        leaving, accepted = sar_decisions(self.means()[None], self._active_mask(), wanted)
        if accepted[0]:
            self._accepted.append(int(leaving[0]))
        self._active.remove(int(leaving[0]))

    def _settled(self) -> bool:
        wanted = self.problem.k - len(self._accepted)
        return wanted == 0 or wanted == len(self._active)

    def _spent_its_schedule(self) -> bool:
        return self._settled()

    def _answer(self) -> tuple[int, ...]:
        wanted = self.problem.k - len(self._accepted)
        rest = empirical_top(self.means(), self._active, wanted) if wanted > 0 else []
        return tuple(sorted(self._accepted + rest))

    def constants(self) -> dict:
        return {**super().constants(), "phases": self._phase, "accepted": len(self._accepted)}


class SAR(NSAR):
    """Successive Accepts and Rejects: fixed-budget top-k (Bubeck, Wang, Viswanathan 2013, Algorithm 3).

    :class:`NSAR` with ``p = 1``: ``n - 1`` phases; in phase ``k`` every active arm is
    sampled up to ``n_k = ceil((T - n) / (logbar(n) (n + 1 - k)))`` samples
    (:func:`sar_phase_lengths`). Then, with the active arms sorted by empirical mean and
    ``m`` arms still to accept, each active arm's empirical gap is its distance to the
    ``(m+1)``-th mean (for the first ``m``) or to the ``m``-th mean (for the others); the arm
    with the largest gap leaves the active set, accepted if its mean is strictly above the
    ``(m+1)``-th, rejected otherwise. The answer is the accepted arms (plus the last active arm if one
    place is left).

    Choices the paper leaves open: ties in the sort go to the lower arm index, and among
    equal largest gaps the lowest-ranked arm leaves (with few samples many arms tie, and all
    gaps can be 0: the strict acceptance test then rejects, and taking the lowest-ranked
    arm rejects the one the data favour least); once no place is left (``m = 0``) or every active arm is needed
    (``m`` = active arms) the rest is decided at once; the final phase samples its two arms
    with whatever the ceilings left of ``T`` (the phases use at most ``T``), split evenly, so
    a run leaves at most one sample of ``T`` unspent unless the decisions end first.

    Parameters
    ----------
    problem : TopK
    budget : int
        ``T``: single-arm samples, at least ``n + 1`` (the first phase's target
        ``n_1 = ceil((T - n) / (logbar(n) n))`` is one sample of every arm only when ``T > n``;
        less is refused).
    seed : None, int, SeedSequence or Generator
        Unused by the rule (it is deterministic given the rewards).

    References
    ----------
    S. Bubeck, T. Wang, N. Viswanathan. Multiple identifications in multi-armed bandits.
    ICML 2013, Algorithm 3 (SAR) and Theorem 2.

    Examples
    --------
    >>> import fullbandit as fb
    >>> from fullbandit.semi import SAR
    >>> environment = fb.BernoulliTeam([0.9, 0.8, 0.7, 0.3, 0.2, 0.1], feedback="semi", seed=3)
    >>> result = fb.run(SAR(fb.TopK(6, 3), budget=3000), environment, progress=False)
    >>> result.answer, result.pulls, result.constants["accepted"]
    ((0, 1, 2), 3000, 2)
    """

    name = "sar"
    summary = 'Bubeck, Wang, Viswanathan 2013, Algorithm 3: successive accepts and rejects (per-arm, fixed budget)'
    parameter_constraints: ClassVar[dict[str, list]] = FIXED_BUDGET_CONSTRAINTS

    def __init__(self, problem, *, budget: int = 10_000, seed=None):  # no p: SAR is NSAR with p = 1
        self.problem = problem
        self.budget = budget
        self.seed = seed

    @property
    def exponent(self) -> float:
        return 1.0

    def label(self) -> str:
        return self.name
