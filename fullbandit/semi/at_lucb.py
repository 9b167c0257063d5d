"""AT-LUCB: anytime top-m identification from LUCB's confidence bounds at a shrinking confidence level.

Jun and Nowak (2016) answer *at every time* with a top-m guess whose error probability
decays with time, without knowing the budget. They run LUCB1's sampling rule (sample the
two critical arms) at a confidence level ``delta_s = delta1 * alpha^(s-1)`` of a *stage*
``s``: when LUCB1 would stop at the current level, the stage (and so the confidence)
increases until it would not, and the answer becomes the empirical top-m of that moment.
Shahrampour and Tarokh (NSAR, 2017, section IV) run it as a fixed-budget baseline "with
parameters as instructed in" the paper.

The policy is written once in array form over independent runs
(:class:`fullbandit.semi.sequential.SequentialPerArm`): the ask/tell algorithm drives one
run, :func:`fullbandit.semi.sequential.simulate` thousands at once with the same code.

References
----------
K.-S. Jun, R. Nowak. Anytime exploration for multi-armed bandits using confidence
information. ICML 2016, PMLR 48:974-982 (AT-LUCB, the paper's second algorithm; the first
is LUCB1 restated).
S. Kalyanakrishnan, A. Tewari, P. Auer, P. Stone. PAC subset selection in stochastic
multi-armed bandits. ICML 2012 (LUCB1, its radius and ``k1 = 5/4``).
S. Shahrampour, V. Tarokh. Nonlinear sequential accepts and rejects for identification of
top arms in stochastic bandits. 2017 (AT-LUCB as a fixed-budget baseline, K = 50 arms).
"""

from __future__ import annotations

import math
from typing import ClassVar

import numpy as np

from fullbandit.core.params import SEED, Interval
from fullbandit.semi.accept_reject import top_k_mask
from fullbandit.semi.base import empirical_means
from fullbandit.semi.lucb import LUCB1_K1
from fullbandit.semi.sequential import SequentialPerArm

#: Defaults of the confidence schedule ``delta_s = delta1 * alpha^(s-1)`` (see ATLUCB's Notes).
DEFAULT_DELTA1 = 0.5
DEFAULT_ALPHA = 0.99

CONSTRAINTS: dict[str, list] = {
    "epsilon": [Interval(float, 0, None)],
    "delta1": [Interval(float, 0, 1, closed="neither")],
    "alpha": [Interval(float, 0, 1, closed="neither")],
    "noise_scale": [None, Interval(float, 0, None, closed="neither")],
    "budget": [Interval(int, 1, None)],
    "seed": [SEED],
}


class ATLUCB(SequentialPerArm):
    """AT-LUCB: LUCB1's critical arms at a stage-wise confidence level; the answer changes with the stage.

    With ``u`` samples of an arm after ``t`` rounds, the radius at confidence ``delta`` is
    LUCB1's

        ``beta(u, t, delta) = R sqrt(2 log(k1 n t^4 / delta) / u)``,  ``k1 = 5/4``,

    (for ``R = 1/2``, rewards in ``[0, 1]``, the paper's ``sqrt(log(k1 n t^4 / delta) / (2u))``),
    with ``U_a = theta_hat_a + beta`` and ``L_a = theta_hat_a - beta``. With ``High_t`` the
    empirical top-m (ties towards lower indices) and, at confidence ``delta``,

        ``h(delta) = argmin_{a in High_t} L_a``,   ``l(delta) = argmax_{b not in High_t} U_b``

    (ties towards lower indices), LUCB1's termination test is
    ``TERM_t(delta): U_l - L_h < epsilon'``. Stages ``s = 1, 2, ...`` have confidence
    ``delta_s = delta1 * alpha^(s-1)``; ``S(0) = 1``. At each round ``t``:

    1. if ``TERM_t(delta_{S(t-1)})``: increase ``s`` from ``S(t-1)`` until ``TERM_t(delta_s)``
       fails, set ``S(t) = s`` and the answer ``J(t) = High_t``;
    2. otherwise ``S(t) = S(t-1)``, and ``J(t) = High_t`` while ``S(t) = 1``, else
       ``J(t) = J(t-1)``;
    3. sample ``h(delta_{S(t)})`` and ``l(delta_{S(t)})``.

    The answer at any time is the current ``J(t)``.

    **Rounds as single samples.** Round 1 samples every arm once, one arm per step in index
    order (LUCB1's first stage; the answer meanwhile is the empirical top-m of the arms
    sampled, unsampled arms last). Every later round is two steps of the engine: at
    the round boundary (after ``n + 2(t - 1)`` samples; ``t`` rounds complete) steps 1-3
    run on that data and fix the pair ``(h, l)``; the next two samples are ``h`` then
    ``l``, both chosen on the same data as in the paper (not recomputed in between). The
    answer changes only at round boundaries; a budget that ends mid-round leaves the
    second sample of the pair untaken. The radius uses ``t`` = rounds complete, so no
    arm has more than ``t`` samples (LUCB1's union bound over ``u <= t``).

    **The stage search.** As ``delta_s`` decreases, every radius grows, so
    ``U_l - L_h = max_b U_b - min_a L_a`` grows with ``s`` and ``TERM_t(delta_s)`` holds for
    ``s`` below some ``s*`` and fails from ``s*`` on: the first ``s`` of the paper's
    "increase until it fails" is found by doubling then bisecting the increment
    (``O(log(s* - S(t-1)))`` vectorised tests, not one per increment: with ``alpha = 0.99``
    a stage change is typically 4 to 30 increments, median 12, on the Bernoulli means
    ``(0.9, 0.8, 0.5, 0.3, 0.2)``, ``m = 2``).

    **When the stage moves.** With ``epsilon = 0`` the stage leaves 1 only once LUCB1 at
    confidence ``delta1`` separates the top-m, which may take longer than the budget (on
    the Bernoulli means ``(0.9, 0.7, 0.3, 0.2, 0.1)``: half the runs by 1000 samples, all
    but 0.05% by 1500; on 50 arms with gaps of 0.1 to 0.2: none within 3000 samples).
    Until then the rule is LUCB1's sampling at ``delta1`` with the empirical top-m as its
    answer.

    Parameters
    ----------
    problem : TopK
        ``m`` = ``problem.k``.
    epsilon : float
        Tolerance on the sum gap ``theta(top-m) - theta(answer)``, ``>= 0``; as for
        :class:`fullbandit.semi.LUCB`, the paper's per-arm tolerance in ``TERM`` is
        ``epsilon' = epsilon / min(m, n - m)``.
    delta1 : float
        Confidence of stage 1, ``0 < delta1 < 1``.
    alpha : float
        Factor of the confidence from one stage to the next, ``0 < alpha < 1``.
    noise_scale : float, optional
        Sub-Gaussian scale ``R`` of one arm's reward (``1/2`` for rewards in ``[0, 1]``);
        ``None`` takes the environment's declared scale (:func:`fullbandit.run`, or the
        batch sampler in :func:`fullbandit.semi.sequential.simulate`).
    budget : int
        Single-arm samples; the algorithm is anytime, the budget only ends the run.
    seed : None, int, SeedSequence or Generator
        Unused by the rule (it is deterministic given the rewards); kept for the protocol.

    Notes
    -----
    What was checked, and against what. The paper's text was not available to us (only its
    abstract: anytime Explore-m, the name AT-LUCB); the following were checked against three
    independent public implementations of AT-LUCB (read, not copied):

    * the schedule ``delta_s = delta1 alpha^(s-1)``, ``S(0) = 1``, and the stage increase
      "while ``TERM`` holds" with ``J(t)`` reset to the empirical top-m on a change and
      tracking it while in stage 1 (all three);
    * LUCB1's radius ``sqrt(log(k1 n t^4 / delta) / (2u))`` with ``k1 = 5/4`` (all three);
    * the defaults ``delta1 = 1/2``, ``alpha = 0.99`` (two of them, one of which is the code
      of the experiments of a later paper comparing with AT-LUCB; the third defaults to
      ``delta1 = 0.01, alpha = 0.5`` with no source given). Whether the paper's own
      experiments used these values is not verified. A docstring in one of them gives the theory's ranges as
      ``1/50 <= alpha < 1`` and a condition on ``delta1`` we could not read unambiguously;
      we accept any ``0 < delta1, alpha < 1``.

    Reconstructed (choices the sources disagree on or leave open):

    * ``h`` and ``l`` are taken with respect to ``High_t`` (LUCB1's definition; two of the
      three implementations); one implementation takes them with respect to ``J(t)``;
    * the pair sampled at round ``t`` uses the new stage's confidence ``delta_{S(t)}``
      (two of three; one uses ``delta_{S(t-1)}``);
    * ``t`` in the radius counts rounds, the initial round (every arm once) being round 1,
      as in LUCB1 (the implementations count either rounds or samples, with or without
      the initial round);
    * the order ``h`` then ``l`` within a round, ties towards lower indices (the paper:
      arbitrary), the sub-Gaussian scale ``R`` in place of Hoeffding's ``[0, 1]``, and the
      tolerance on the sum (as :class:`fullbandit.semi.LUCB`).

    Examples
    --------
    >>> import fullbandit as fb
    >>> from fullbandit.semi import ATLUCB
    >>> arms = fb.BernoulliTeam([0.9, 0.8, 0.5, 0.3, 0.2], feedback="semi", seed=1)
    >>> result = fb.run(ATLUCB(fb.TopK(5, 2), budget=600), arms, progress=False)
    >>> result.answer, result.pulls, str(result.stop_reason)
    ((0, 1), 600, 'budget exhausted')
    >>> result.constants["k1"], result.constants["noise_scale"]
    (1.25, 0.5)

    Two thousand runs at once, answers recorded at three budgets:

    >>> from fullbandit.semi.batch import BernoulliBatch
    >>> from fullbandit.semi.sequential import simulate
    >>> batch = simulate(ATLUCB(fb.TopK(5, 2), budget=600), BernoulliBatch([0.9, 0.8, 0.5, 0.3, 0.2]),
    ...                  runs=2000, checkpoints=(50, 200, 600), seed=3)
    >>> errors = {T: float((batch.answers[T] != [1, 1, 0, 0, 0]).any(axis=1).mean()) for T in batch.answers}
    >>> errors[600] < errors[50] and errors[600] < 0.05
    True
    """

    name = "at-lucb"
    summary = ("Jun and Nowak 2016, AT-LUCB: LUCB1's critical arms at a stage-wise confidence delta1 "
               'alpha^(s-1), anytime top-k (run to a budget)')
    anytime: ClassVar[bool] = True  # the budget only ends the run
    parameter_constraints: ClassVar[dict[str, list]] = CONSTRAINTS

    epsilon: float
    delta1: float
    alpha: float
    noise_scale: float | None
    noise_scale_in_use: float  # resolved in _build_rounds

    def __init__(self, problem, *, epsilon: float = 0.0, delta1: float = DEFAULT_DELTA1,
                 alpha: float = DEFAULT_ALPHA, noise_scale: float | None = None, budget: int = 10_000, seed=None):
        self.problem = problem
        self.epsilon = epsilon
        self.delta1 = delta1
        self.alpha = alpha
        self.noise_scale = noise_scale
        self.budget = budget
        self.seed = seed

    # --- setup, state, reports ----------------------------------------------------------------
    def _build_rounds(self, rng: np.random.Generator) -> None:
        self.noise_scale_in_use = self._noise_scale_in_use(self.offered_noise_scale,
                                                           of="one arm's reward, 1/2 in [0, 1]")
        super()._build_rounds(rng)


    @property
    def per_arm_epsilon(self) -> float:
        """``epsilon' = epsilon / min(m, n - m)``, the tolerance in the paper's ``TERM``."""
        return float(self.epsilon) / min(self.problem.k, self.problem.n - self.problem.k)

    def constants(self) -> dict:
        return {**super().constants(), "noise_scale": self.noise_scale_in_use, "delta1": self.delta1,
                "alpha": self.alpha, "k1": LUCB1_K1, "per_arm_epsilon": self.per_arm_epsilon}

    def _details(self, counts, sums, state) -> dict:
        return {"stage": int(state["stage"][0])}

    # --- the confidence bounds ------------------------------------------------------------------
    def log_term(self, rounds, stage) -> np.ndarray:
        """``log(k1 n t^4 / delta_s)`` for ``t = rounds`` and stage ``s`` (arrays broadcast).

        Computed as ``log(k1 n t^4 / delta1) + (s - 1) log(1 / alpha)``, which does not
        underflow ``delta_s`` at large stages.
        """
        t = np.asarray(rounds, dtype=float)
        s = np.asarray(stage, dtype=float)
        return np.log(LUCB1_K1 * self.problem.n * t ** 4 / self.delta1) + (s - 1.0) * -math.log(self.alpha)

    def _unit(self, samples) -> np.ndarray:
        """``R sqrt(2 / u)``: the radius per unit of ``sqrt(log(k1 n t^4 / delta))``."""
        return self.noise_scale_in_use * np.sqrt(2.0 / np.asarray(samples, dtype=float))

    def radius(self, samples, rounds, stage) -> np.ndarray:
        """``beta(u, t, delta_s) = R sqrt(2 log(k1 n t^4 / delta_s) / u)`` (arrays broadcast).

        Examples
        --------
        >>> import math
        >>> import fullbandit as fb
        >>> from fullbandit.semi import ATLUCB
        >>> algorithm = ATLUCB(fb.TopK(4, 1), delta1=0.5, alpha=0.9, noise_scale=0.5).setup()
        >>> delta_3 = 0.5 * 0.9 ** 2
        >>> math.isclose(float(algorithm.radius(10, 7, 3)), math.sqrt(math.log(1.25 * 4 * 7 ** 4 / delta_3) / 20))
        True
        """
        self.setup()
        return np.sqrt(self.log_term(rounds, stage)) * self._unit(samples)

    def _bounds(self, means, unit, high, rounds, stage) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``h``, ``l`` and ``U_l - L_h`` per run at ``delta_s`` (rows of the arrays; ``stage`` per row).

        ``h`` has the smallest lower bound in ``High_t``, ``l`` the largest upper bound
        outside it, ties towards lower indices (the first extremum).
        """
        beta = np.sqrt(self.log_term(rounds, stage))[:, None] * unit
        lower = np.where(high, means - beta, np.inf)
        upper = np.where(high, -np.inf, means + beta)
        h = np.argmin(lower, axis=1)
        l_arm = np.argmax(upper, axis=1)
        rows = np.arange(means.shape[0])
        return h, l_arm, upper[rows, l_arm] - lower[rows, h]

    def _gap(self, means, unit, high, rounds, stage) -> np.ndarray:
        return self._bounds(means, unit, high, rounds, stage)[2]

    def _data(self, counts, sums):
        self.setup()
        counts = np.asarray(counts)
        means = empirical_means(counts, np.asarray(sums, dtype=float))
        return means, self._unit(counts), top_k_mask(means, self.problem.k)

    def critical(self, counts, sums, rounds: int, stage) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``High_t`` (mask), ``h`` and ``l`` per run after ``rounds`` rounds at stage ``stage`` (per run).

        ``counts`` and ``sums`` have shape ``(runs, n)``, every arm sampled.
        """
        means, unit, high = self._data(counts, sums)
        h, l_arm, _ = self._bounds(means, unit, high, rounds, np.asarray(stage))
        return high, h, l_arm

    def next_stage(self, counts, sums, rounds: int, stage) -> np.ndarray:
        """``S(t)`` per run after ``rounds`` rounds, from ``S(t-1) = stage`` (per run); every arm sampled.

        The first ``s >= S(t-1)`` at which ``TERM_t(delta_s)`` fails (``S(t-1)`` itself when
        it fails there).
        """
        means, unit, high = self._data(counts, sums)
        return self._step(means, unit, high, rounds, stage)[0]

    def _step(self, means, unit, high, rounds: int, stage):
        """The paper's step at time ``t = rounds``: ``S(t)``, ``h`` and ``l`` at ``delta_{S(t)}``, the runs that moved.

        ``TERM`` at ``S(t-1)`` comes with the pair at ``S(t-1)``, which stands when it fails
        (most runs); only the runs where it holds are searched and their pair recomputed.
        """
        stage = np.array(stage, dtype=np.int64)
        h, l_arm, gap = self._bounds(means, unit, high, rounds, stage)
        moved = np.flatnonzero(gap < self.per_arm_epsilon)
        if moved.size:
            stage[moved] = self._first_failing(means[moved], unit[moved], high[moved], rounds, stage[moved])
            h[moved], l_arm[moved], _ = self._bounds(means[moved], unit[moved], high[moved], rounds, stage[moved])
        return stage, h, l_arm, moved

    def _first_failing(self, means, unit, high, rounds: int, holds) -> np.ndarray:
        """Per row, the first stage after ``holds`` (where ``TERM`` holds) at which it fails.

        ``TERM`` is monotone in ``s`` (see the class docstring): the increment is doubled until
        ``TERM`` fails, then bisected.
        """
        epsilon = self.per_arm_epsilon
        holds = np.array(holds, dtype=np.int64)
        fails = np.zeros_like(holds)              # set once found
        step = np.ones_like(holds)
        open_ = np.arange(holds.size)
        while open_.size:                          # doubling: holds + 1, + 2, + 4, ...
            trial = holds[open_] + step[open_]
            held = self._gap(means[open_], unit[open_], high[open_], rounds, trial) < epsilon
            holds[open_[held]] = trial[held]
            step[open_[held]] *= 2
            fails[open_[~held]] = trial[~held]
            open_ = open_[held]
        wide = np.flatnonzero(fails - holds > 1)
        while wide.size:                           # bisection between a stage that holds and one that fails
            middle = (holds[wide] + fails[wide]) // 2
            held = self._gap(means[wide], unit[wide], high[wide], rounds, middle) < epsilon
            holds[wide[held]] = middle[held]
            fails[wide[~held]] = middle[~held]
            wide = wide[fails[wide] - holds[wide] > 1]
        return fails

    # --- the policy in array form ---------------------------------------------------------------
    def _policy_start(self, runs: int) -> dict[str, np.ndarray]:
        return {"stage": np.ones(runs, dtype=np.int64),
                "answer": np.zeros((runs, self.problem.n), dtype=bool),
                "pair": np.zeros((runs, 2), dtype=np.int64)}

    def _choose(self, counts, sums, t, state) -> np.ndarray:
        n = self.problem.n
        unsampled = counts == 0
        if t < n or unsampled.any():
            # Round 1: the lowest unsampled arm (arm t when samples are told as they are asked for;
            # with several asked before any is told, the data told so far decide).
            pair = state["pair"][:, (t - n) % 2] if t >= n else 0
            return np.where(unsampled.any(axis=1), np.argmax(unsampled, axis=1), pair)
        return state["pair"][:, (t - n) % 2].copy()

    def _policy_update(self, counts, sums, t, state) -> None:
        n = self.problem.n
        if t < n or (t - n) % 2 or not counts.all():
            return  # round 1 under way, or between the two samples of a later round
        rounds = 1 + (t - n) // 2
        means = sums / counts
        unit = self._unit(counts)
        high = top_k_mask(means, self.problem.k)
        stage, state["pair"][:, 0], state["pair"][:, 1], moved = self._step(means, unit, high, rounds,
                                                                           state["stage"])
        state["stage"][...] = stage
        follow = stage == 1
        follow[moved] = True
        state["answer"][follow] = high[follow]

    def _decide(self, counts, sums, state) -> np.ndarray:
        unsampled = (counts == 0).any(axis=1)
        if not unsampled.any():
            return state["answer"]
        # Round 1 under way: the empirical top-m of the arms sampled so far (unsampled arms last).
        early = top_k_mask(empirical_means(counts, sums), self.problem.k)
        return np.where(unsampled[:, None], early, state["answer"])
