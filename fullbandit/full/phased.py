"""PhasedSwap: an adaptive, certified top-k algorithm that accepts and rejects arms and
re-designs its pulls around the arms still in doubt."""

from __future__ import annotations

import math
from typing import ClassVar

import numpy as np

from fullbandit.core.algorithm import Algorithm, StoppingCheck
from fullbandit.core.params import SEED, Interval, Options
from fullbandit.core.priors import PriorObservations, check_prior_noise, round_index
from fullbandit.design.conditioning import optimal_swap_variance, swap_variance
from fullbandit.design.support import make_support
from fullbandit.design.tracking import Handout, Tracker
from fullbandit.full.static import DEFAULT_BUDGET, next_check_after
from fullbandit.full.swap_bounds import (
    graded_deltas,
    largest_pair_width,
    max_swaps,
    n_directed_swaps,
    pair_beats,
    team_bound,
)
from fullbandit.linalg.least_squares import LeastSquaresEstimate, SingularDesignError
from fullbandit.linalg.radius import confidence_radius
from fullbandit.linalg.static_design import StaticDesign
from fullbandit.linalg.time_uniform import confidence_with_prior
from fullbandit.problems.classes import TopK

PHASED_CONFIDENCE = ("auto", "time-uniform", "stitched", "tight")
#: The most kept arms whose own ``lambda_max(P Q P)`` a check computes (above it, the phase's serves).
EXACT_SPECTRUM_LIMIT = 2000


class PhasedSwap(Algorithm):
    """Phased accept/reject over swap directions, (epsilon, delta)-PAC for top-k, adaptive.

    The run is a sequence of *phases*. Each phase is a static design over the arms still in
    doubt, ``U``: it pulls ``k``-subsets made of ``s`` arms of ``U`` and a fixed *filler* of
    ``k - s`` arms already decided, from a seeded random support over the ``s``-subsets of
    ``U`` (:func:`fullbandit.design.support.make_support` with ``"swap-optimal"`` on ``|U|`` arms,
    uniform proportions),
    with ``s`` as close to ``|U| / 2`` as the fillers allow (the balanced design: a swap's
    variance per pull is ``2 u (u - 1) / (s (u - s))`` for the uniform design over
    ``s``-subsets of ``u`` arms, 8 at ``s = u / 2`` against 24 at ``s = 10, u = 111``). Only
    the phase's own pulls enter its estimate: as every pull holds exactly ``s`` arms of ``U``,
    the filler's total ``theta(F) = (theta(F) / s) 1^T z`` is absorbed into a shift of all
    of ``U``'s means, and least squares over ``U`` alone identifies every difference
    ``theta_i - theta_j`` exactly.

    At each stopping check of the phase (the geometric schedule of the static
    algorithms, counted in the phase's pulls) with radius ``C`` and pair widths
    ``w_ij = ||e_i - e_j||_{A^-1}``, an arm ``i`` of the undecided set ``V`` *beats* ``j`` when
    ``theta_hat_i - theta_hat_j - C w_ij > 0``; with ``k'`` arms still to choose, ``i`` is
    *accepted* if it beats at least ``|V| - k'`` arms of ``V``, and ``j`` *rejected* if at
    least ``k'`` arms beat it. The answer is the accepted arms plus the top ``k'`` of
    ``theta_hat`` over ``V``; its gap is bounded over ``V`` by
    :func:`fullbandit.full.swap_bounds.team_bound` (per swap size, the smallest of the pair,
    graded and exact terms; then the largest over swap sizes), and the run stops when that
    bound is at most ``epsilon`` (or when every arm is decided: gap 0). When the decisions have shrunk ``V`` so
    much that
    a new balanced design over it would need at most ``restart_ratio`` times the pulls of
    the current one for the same swap precision (largest swap variance per pull, new
    against current), a new phase starts over ``V`` and the old pulls are set aside.

    Guarantee (proof). Fix before the run one optimal team ``M*``. Phase ``l`` uses the level
    ``delta_l = 6 delta / (pi^2 l^2)`` (these sum to less than ``delta``) for its *directed*
    events (:mod:`fullbandit.full.swap_bounds`): with ``U`` the phase's arms and ``k_U`` the
    arms still to choose when it starts, for each ``m`` up to ``min(k_U, |U| - k_U)`` a
    one-sided union over the ``C(k_U, m) C(|U| - k_U, m)`` directions ``e_J - e_I``
    (``J`` in ``M*``, ``I`` outside, both in ``U``) at level ``delta_l m^-2 / sum_i i^-2``; the
    pair terms and the accept/reject decisions read the ``m = 1`` event. Each is also
    uniform over the phase's checks: ``"time-uniform"`` (default) over its whole passes
    (:mod:`fullbandit.linalg.time_uniform`), ``"stitched"`` a union over its checks,
    ``"tight"`` over its rounds. Given everything before the phase, its support, fillers and
    check schedule are fixed before any of its rewards is drawn, and each check reads the
    first of the phase's pulls handed out (the base records observations in handing-out
    order, whatever order they are told in, :meth:`fullbandit.core.algorithm.Algorithm.tell`;
    a pull of an ended phase recorded late is set aside), so the fixed-design bound holds on
    its pulls. The counts are those of ``M*`` inside ``U`` if the earlier phases' events
    held (then, by the induction below, ``M* cap U`` has exactly ``k_U`` arms): so the
    probability that some phase's events fail while all earlier ones held is at most
    ``sum_l delta_l < delta``. On the events, by induction over the checks, every accepted
    arm is in ``M*`` and no rejected one: an arm ``i`` outside ``M*`` never *beats* an arm
    ``j`` of ``M*`` (that would give ``theta_j - theta_i <= theta_hat_j - theta_hat_i + C w_ij
    < 0``, and ``M* - j + i`` would beat ``M*``); an accepted ``i`` beats all but at most
    ``k' - 1`` other arms of ``V``, and the ``k'`` arms of ``M* cap V`` cannot all be among
    them, so ``i`` is in ``M*``; a rejected ``j`` is beaten by ``k'`` arms, which only the
    ``k' - 1`` others of ``M* cap V`` could do were ``j`` in ``M*``. The gap of the answer is
    then the gap of its part in ``V`` against ``M* cap V``, a direction of the phase's
    directed events, which :func:`fullbandit.full.swap_bounds.team_bound` bounds. So when the
    rule fires the answer is ``epsilon``-optimal. The phase ends are data-dependent, but the
    bound of a phase holds at all its checks at once, and a new phase's noise is
    independent of how it was chosen.

    Parameters
    ----------
    problem : TopK
    epsilon : float
        Tolerance on the answer's gap.
    delta : float
        Error probability, ``0 < delta < 1``.
    noise_scale : float, optional
        Sub-Gaussian scale ``R`` of one observed sum (``None``: :func:`fullbandit.run` takes
        the environment's).
    confidence : {"auto", "time-uniform", "stitched", "tight"}
        Time-uniform over a phase's whole passes (no prior observations then), a union over
        its checks, or over its every round; ``"auto"`` (default) is ``"time-uniform"``
        without a prior, else ``"stitched"``
        (:func:`fullbandit.linalg.radius.confidence_radius`).
    restart_ratio : float
        Start a new phase when the new design's largest swap variance per pull is at most
        this fraction of the current design's (both over the arms still in doubt).
        Smaller: fewer restarts. Any value keeps the guarantee.
    budget : int
        Pull cap (pulls of ended phases count).
    check_growth : float
        Stopping checks at ``max(t + 1, ceil((1 + check_growth) t))`` pulls of the phase,
        rounded up to a whole pass over the phase's support
        (:func:`fullbandit.full.static.next_check_after`: fixed in advance, and every member
        then has the same count, so the check reuses the phase's factorisation).
    seed : None, int, SeedSequence or Generator
        The one source of randomness (the phases' supports).

    Notes
    -----
    Choices of this implementation, which no paper fixes: exact accept/reject decisions
    (``epsilon`` enters only the final pair bound); the balanced subset size; the restart
    rule, derived from comparing the pulls needed to reach a swap precision below the
    current one by continuing (``v_cur / w^2 - T``) or restarting (``v_new / w^2``), which
    favours a restart for every target precision ``w`` below ``w_cur sqrt(1 - v_new / v_cur)``;
    and the fillers (accepted arms first, then rejected ones, in index order). Pulls of an
    ended phase that are told late are counted but not used.

    References
    ----------
    I. Rejwan, Y. Mansour. Top-k combinatorial bandits with full-bandit feedback. ALT 2020
    (CSAR: successive accepts and rejects with full-bandit feedback).
    T. Fiez, L. Jain, K. Jamieson, L. Ratliff. Sequential experimental design for
    transductive linear bandits. NeurIPS 2019 (RAGE: phased designs over the directions
    still in doubt, each phase on its own pulls).
    M. Soare, A. Lazaric, R. Munos. Best-arm identification in linear bandits. NeurIPS 2014,
    Proposition 1.

    Examples
    --------
    >>> import fullbandit as fb
    >>> from fullbandit.full import PhasedSwap
    >>> environment = fb.GaussianSum([1.0, 0.9, 0.8, 0.2, 0.1, 0.0, 0.0, 0.1], sigma=0.3, seed=1)
    >>> result = fb.run(PhasedSwap(fb.TopK(8, 3), epsilon=0.05, seed=2), environment, progress=False)
    >>> result.answer, result.certified, result.gap_bound <= 0.05
    ((0, 1, 2), True, True)
    >>> result.constants["phase"] >= 1
    True
    """

    name = "phased"
    summary = ('fullbandit (after CSAR and RAGE): adaptive phases that accept and reject arms and re-design around '
               'the undecided swaps, top-k')
    decision_classes = (TopK,)
    takes_prior: ClassVar[bool] = True  # counted by the first phase's least squares
    problem: TopK
    parameter_constraints: ClassVar[dict[str, list]] = {
        "epsilon": [Interval(float, 0, None)],
        "delta": [Interval(float, 0, 1, closed="neither")],
        "noise_scale": [None, Interval(float, 0, None, closed="neither")],
        "confidence": [Options(PHASED_CONFIDENCE)],
        "restart_ratio": [Interval(float, 0, 1, closed="right")],
        "budget": [Interval(int, 1, None)],
        "check_growth": [Interval(float, 0, None)],
        "seed": [SEED],
    }

    def __init__(self, problem, *, epsilon: float = 0.0, delta: float = 0.05, noise_scale: float | None = None,
                 confidence: str = "auto", restart_ratio: float = 0.5, budget: int = DEFAULT_BUDGET,
                 check_growth: float = 0.05, seed=None):
        self.problem = problem
        self.epsilon = epsilon
        self.delta = delta
        self.noise_scale = noise_scale
        self.confidence = confidence
        self.restart_ratio = restart_ratio
        self.budget = budget
        self.check_growth = check_growth
        self.seed = seed

    # --- phases ----------------------------------------------------------------------------
    def _build(self, rng: np.random.Generator, noise_scale: float | None) -> None:
        self._noise_scale = self._noise_scale_in_use(noise_scale)
        self._confidence = "time-uniform" if self.confidence == "auto" else self.confidence
        self._accepted: list[int] = []
        self._rejected: list[int] = []
        self._phase = 0
        self._set_aside = 0
        self._carry: tuple[tuple[int, ...] | None, float] = (None, math.inf)
        self._start_phase(*self._propose(list(range(self.problem.n))))

    def _propose(self, undecided: list[int]) -> tuple[list[int], int, list[int], list]:
        """A phase design over ``undecided``: ``(undecided, s, fillers, local support)``."""
        k, u = self.problem.k, len(undecided)
        decided = sorted(self._accepted) + sorted(self._rejected)
        size = self._subset_size(u)
        fillers = decided[:k - size]
        support = make_support(u, size, "swap-optimal", self._rng)
        return undecided, size, fillers, support

    def _subset_size(self, u: int) -> int:
        """How many of ``u`` undecided arms a pull holds: ``u / 2`` if the decided arms can fill the rest."""
        k = self.problem.k
        low, high = max(1, k - (self.problem.n - u)), min(k, u - 1)
        return int(min(max(round(u / 2), low), high))

    def _start_phase(self, undecided, size, fillers, support, counts=None) -> None:
        self._phase += 1
        self._undecided = tuple(int(i) for i in undecided)
        self._size = int(size)
        self._fillers = tuple(int(i) for i in fillers)
        self._design = StaticDesign(len(self._undecided), support)
        self._arms = [tuple(sorted(self._fillers + tuple(self._undecided[i] for i in member)))
                      for member in self._design.support]
        self._handout = Handout(Tracker(np.ones(len(support)), counts=counts))
        self._next_check = len(support)
        self._phase_checks = 0
        self._phase_wanted = self.problem.k - len(self._accepted)
        self._phase_swaps = max(1, max_swaps(len(self._undecided), self._phase_wanted))

    def _absorb_prior(self, prior: PriorObservations) -> None:
        # Only the first phase holds every arm without fillers, so only its plain least squares can take them;
        # like the phase's own pulls, they are set aside when a new phase starts.
        if self._phase == 1:
            self._confidence = confidence_with_prior(self.confidence, self._confidence, self.label())
            check_prior_noise(prior, self._noise_scale, self.label())
            self._design.add_prior(prior.arms, prior.counts, prior.reward_sums)

    def _live(self) -> tuple[np.ndarray, int]:
        """Local indices (in the phase's ``U``) of the arms still undecided, and how many to choose."""
        decided = set(self._accepted) | set(self._rejected)
        live = np.array([i for i, arm in enumerate(self._undecided) if arm not in decided], dtype=int)
        return live, self.problem.k - len(self._accepted)

    def phase_level(self) -> float:
        """``delta_l = 6 delta / (pi^2 l^2)`` of the current phase ``l``, shared by its directed events."""
        self.setup()
        return 6.0 * self.delta / (math.pi ** 2 * self._phase ** 2)

    def phase_radius(self, pulls: int, level: float, n_directions: int) -> float:
        """``C`` at the phase's next check after ``pulls`` of its pulls: a one-sided union over ``n_directions``
        at ``level`` (infinite with ``"time-uniform"`` after a part of a pass: a budget that ends mid-pass)."""
        self.setup()
        if self._confidence == "time-uniform":
            passes = self._design.whole_passes()
            if not passes or passes * len(self._design.support) != pulls:
                return math.inf
            return confidence_radius(pulls, level, self._noise_scale, n_directions, self._confidence,
                                     passes=passes, one_sided=True)
        index = round_index(pulls, self.prior if self._phase == 1 else None)
        return confidence_radius(index, level, self._noise_scale, n_directions, self._confidence,
                                 check=min(self._phase_checks + 1, index) if self._confidence == "stitched" else None,
                                 one_sided=True)

    def graded_radii(self, pulls: int) -> list[float]:
        """``C_m`` at the phase's next check after ``pulls`` of its pulls, ``m = 1, 2, ...`` up to the phase's
        largest swap size: a one-sided union over the directed m-swaps of its arms at level
        ``delta_l m^-2 / sum_i i^-2`` (``C_1`` is also the pair radius)."""
        self.setup()
        u, wanted = len(self._undecided), self._phase_wanted
        levels = graded_deltas(self.phase_level(), self._phase_swaps)
        return [self.phase_radius(pulls, float(levels[m - 1]), n_directed_swaps(u, wanted, m))
                for m in range(1, self._phase_swaps + 1)]

    # --- where the run stands ------------------------------------------------------------------
    @property
    def accepted(self) -> tuple[int, ...]:
        """The arms accepted so far (in every top-k on the phases' confidence events), in the order decided."""
        self.setup()
        return tuple(self._accepted)

    @property
    def rejected(self) -> tuple[int, ...]:
        """The arms rejected so far (in no top-k on the phases' confidence events), in the order decided."""
        self.setup()
        return tuple(self._rejected)

    @property
    def phase_arms(self) -> tuple[int, ...]:
        """The arms ``U`` the current phase was designed over (those in doubt when it started)."""
        self.setup()
        return self._undecided

    @property
    def design(self) -> StaticDesign:
        """The current phase's design, over local indices ``0 .. |U| - 1`` of :attr:`phase_arms`.

        Its support holds each pull's ``s`` arms of ``U`` (the fillers are left out); it changes
        through ``tell`` only. For inspection.
        """
        self.setup()
        return self._design

    # --- pulls -----------------------------------------------------------------------------
    def _next_pull(self, max_count: int):
        member, count = self._handout.take(max_count, self._next_check, self.budget - self._told - self._outstanding)
        return self._arms[member], count, [self._phase, member]

    def _record(self, token, arms, count, reward) -> None:
        phase, member = token
        if phase != self._phase:
            self._set_aside += count  # a pull of an ended phase, told late
            return
        self._design.record(int(member), reward, count)

    def _release(self, token, count) -> None:
        phase, member = token
        if phase == self._phase:
            self._handout.give_back(int(member), count)

    def _next_blocks(self, max_count: int):
        members, counts = self._handout.take_all(max_count, self._next_check,
                                                 self.budget - self._told - self._outstanding)
        return [self._arms[member] for member in members.tolist()], counts, (self._phase, members)

    def _observe_blocks(self, token, counts, rewards, sums_of_squares) -> None:
        phase, members = token
        if phase != self._phase:
            self._set_aside += int(counts.sum())  # blocks of an ended phase, told late
            return
        self._design.record_blocks(members, counts, rewards)

    def _release_blocks(self, token, counts) -> None:
        phase, members = token
        if phase == self._phase:
            for member, count in zip(members.tolist(), counts.tolist(), strict=True):
                self._handout.give_back(member, count)

    def _due_for_check(self) -> bool:
        return self._design.pulls >= self._next_check

    # --- the rule ----------------------------------------------------------------------------
    def _evaluate(self) -> StoppingCheck:
        t = self._design.pulls
        certified = True
        try:
            estimate = self._design.estimate()
        except SingularDesignError:
            answer, bound = self._carry
            return StoppingCheck(self._told, bound, float(self.epsilon), answer, certified, self._summary())
        radii = self.graded_radii(t)
        radius = radii[0]
        accept, reject, bound, answer, used = self._decide(estimate, radius, radii)
        summary = self._summary()  # counted after this check's decisions
        summary.update(accepted=summary["accepted"] + len(accept), rejected=summary["rejected"] + len(reject),
                       undecided=summary["undecided"] - len(accept) - len(reject))
        # Diagnostics only (reported in the result): the decisions themselves are made by _after_check.
        details = {**summary, "C_pair": radius, "phase_pulls": t, "accept": accept, "reject": reject,
                   "bound_used": used}
        return StoppingCheck(self._told, bound, float(self.epsilon), answer, certified, details, estimate)

    def _pair_radius(self, pulls: int) -> float:
        """``C_1`` at the phase's next check: the pair terms' and the decisions' radius."""
        return self.graded_radii(pulls)[0]

    def _verdicts(self, estimate: LeastSquaresEstimate, radius: float):
        """``(live, wanted, theta, Q, accept_local, reject_local)``: the undecided arms (local indices), the places
        left, their estimate and ``A^-1`` block, and which of them (positions in ``live``) the pair bounds at
        ``radius`` accept and reject."""
        live, wanted = self._live()
        theta = estimate.theta[live]
        Q = _block(estimate.gram_inverse, live)
        if math.isfinite(radius):
            wins, losses = pair_beats(theta, Q, radius)
        else:  # between whole passes the time-uniform bound says nothing
            wins = losses = np.zeros(len(live), dtype=np.int64)
        accept_local = np.flatnonzero(wins >= len(live) - wanted) if 0 < wanted else np.array([], int)
        reject_local = np.flatnonzero(losses >= wanted) if wanted < len(live) else np.array([], int)
        return live, wanted, theta, Q, accept_local, reject_local

    def _decisions(self, estimate: LeastSquaresEstimate, radius: float) -> tuple[list[int], list[int]]:
        """The arms (global indices) a check on ``estimate`` with pair radius ``radius`` accepts and rejects."""
        live, _, _, _, accept_local, reject_local = self._verdicts(estimate, radius)
        return ([self._undecided[live[i]] for i in accept_local], [self._undecided[live[j]] for j in reject_local])

    def _decide(self, estimate: LeastSquaresEstimate, radius: float, graded_radii: list[float]):
        """Accepted and rejected arms (global), the gap bound, the answer and the bound used, on the phase's events.

        Pure: the decisions are committed by :meth:`_after_check`, from the same estimate and radius.
        """
        live, wanted, theta, Q, accept_local, reject_local = self._verdicts(estimate, radius)
        accept = [self._undecided[live[i]] for i in accept_local]
        reject = [self._undecided[live[j]] for j in reject_local]
        keep = np.setdiff1d(np.arange(len(live)), np.concatenate([accept_local, reject_local]))
        still = wanted - len(accept)
        chosen = sorted(self._accepted + accept)
        if still <= 0 or still >= len(keep):
            members = [self._undecided[live[i]] for i in keep] if still > 0 else []
            return accept, reject, 0.0, tuple(sorted(chosen + members)), "decided"
        order = np.argsort(-theta[keep], kind="stable")[:still]
        best_local = tuple(int(i) for i in order)
        members = [self._undecided[live[keep[i]]] for i in best_local]
        theta_kept, Q_kept = theta[keep], _block(Q, keep)
        if not math.isfinite(radius):
            return accept, reject, math.inf, tuple(sorted(chosen + members)), "none"
        # While every arm of the phase is still in doubt the check's own spectrum serves (shared, or scaled). Past
        # EXACT_SPECTRUM_LIMIT arms it also bounds the kept block's: y on the kept arms with 1^T y = 0, padded with
        # zeros, is orthogonal to 1 in the whole phase, so y^T Q_kept y = y^T Q y <= lambda_max(P Q P) ||y||^2
        # (a larger, still valid, lambda; an eigen-decomposition of the block would cost O(|keep|^3) per check).
        whole = len(keep) == estimate.theta.size or len(keep) > EXACT_SPECTRUM_LIMIT
        lambda_max = estimate.spectrum.projected_lambda_max() if whole else None
        bound = team_bound(theta_kept, Q_kept, best_local, graded_radii[:max_swaps(len(keep), still)],
                           lambda_max=lambda_max)
        return accept, reject, bound.value, tuple(sorted(chosen + members)), bound.rule or "none"

    def _summary(self) -> dict:
        return {"phase": self._phase, "undecided": int(self._live()[0].size), "accepted": len(self._accepted),
                "rejected": len(self._rejected), "subset_size": self._size,
            "pulls_set_aside": self._set_aside}

    def _after_check(self, check: StoppingCheck) -> None:
        t = self._design.pulls
        # The check's decisions, from its estimate and its pair radius (before the check count moves on): the
        # working state follows from the tells alone, so replaying a saved run's tells rebuilds it.
        accept, reject = ([], []) if check.estimate is None else self._decisions(check.estimate, self._pair_radius(t))
        self._phase_checks += 1
        self._next_check = next_check_after(t, self.check_growth, len(self._design.support))
        self._accepted.extend(accept)
        self._rejected.extend(reject)
        if not (accept or reject) or check.stop or check.estimate is None:
            return
        live, wanted = self._live()
        if not 0 < wanted < len(live):
            return
        current = float(t * largest_pair_width(_block(check.estimate.gram_inverse, live)) ** 2)
        size = self._subset_size(len(live))
        if optimal_swap_variance(len(live), size) > self.restart_ratio * current:
            return  # no design over the live arms could be good enough: spare drawing one
        proposal = self._propose([self._undecided[i] for i in live])
        if swap_variance(len(live), proposal[3]) <= self.restart_ratio * current:
            self._carry = (check.answer, check.gap_bound)
            self._set_aside += self._design.pulls
            self._start_phase(*proposal)

    def known_noise_scale(self) -> float | None:
        """The scale in use once set up (see :meth:`fullbandit.core.algorithm.Algorithm.known_noise_scale`)."""
        return getattr(self, "_noise_scale", None)  # resolved early in _build, before any check

    def constants(self) -> dict:
        """Level, noise scale, restart ratio, and where the phases stand."""
        self.setup()
        return {"confidence": self._confidence, "noise_scale": self._noise_scale, "delta": self.delta,
                "epsilon": self.epsilon, "restart_ratio": self.restart_ratio, **self._summary()}


def _block(matrix: np.ndarray, indices: np.ndarray) -> np.ndarray:
    """``matrix[np.ix_(indices, indices)]``, or ``matrix`` itself when ``indices`` are all its rows in order (no
    copy of ``A^-1`` while every arm of the phase is in doubt: 800 MB at n = 10,000)."""
    if indices.size == matrix.shape[0] and np.array_equal(indices, np.arange(indices.size)):
        return matrix
    return matrix[np.ix_(indices, indices)]
