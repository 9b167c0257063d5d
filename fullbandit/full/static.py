"""The static-design layer of the full-bandit algorithms: support, tracking, statistics,
and stopping schedule, on top of :class:`fullbandit.core.algorithm.Algorithm`.

A subclass supplies its stopping rule (:meth:`StaticFullBandit._rule`) and the size of its
union bound (:meth:`StaticFullBandit._n_directions`); optionally its own support
(:meth:`StaticFullBandit.design_support`, with :data:`DESIGN_CONSTRAINTS` for a signature
without ``support`` and ``support_size``) and checks at setup
(:meth:`StaticFullBandit._setup_checks`). What the hooks may read once the parameters are
resolved is public: :attr:`StaticFullBandit.noise_scale_in_use`,
:attr:`StaticFullBandit.reward_range_in_use`, :attr:`StaticFullBandit.design`. Nothing else of
the base needs copying: ``examples/extending/`` holds a complete subclass in one module.
"""

from __future__ import annotations

import math
from abc import abstractmethod
from collections.abc import Sequence
from typing import ClassVar

import numpy as np

from fullbandit.core.algorithm import Algorithm, ProtocolError, StoppingCheck
from fullbandit.core.params import REWARD_RANGE, SEED, SUPERARMS, Instance, Interval, Options
from fullbandit.core.priors import PriorObservations, check_prior_noise, round_index
from fullbandit.design.goptimal import g_optimal_allocation
from fullbandit.design.support import SUPPORT_KINDS, make_support
from fullbandit.design.tracking import Handout, Tracker
from fullbandit.linalg.least_squares import LeastSquaresEstimate, SingularDesignError
from fullbandit.linalg.radius import CONFIDENCE_CONSTANTS, RANGE_CONFIDENCES, BernsteinTerms, confidence_radius
from fullbandit.linalg.static_design import StaticDesign
from fullbandit.linalg.time_uniform import confidence_with_prior
from fullbandit.problems.classes import SuperArm
from fullbandit.util.validation import InvalidParameterError, check_reward_range

DEFAULT_BUDGET = 10_000_000
RANGE_TOLERANCE = 1e-9  # relative slack of the checks that told rewards lie in the declared range
ALLOCATIONS = ("uniform", "g-optimal", "xy-optimal")
G_OPTIMAL_DROP = 1e-4  # optimal-design (G or XY) weights below this fraction of the largest are dropped

#: Constraints of the parameters every static algorithm shares.
STATIC_CONSTRAINTS: dict[str, list] = {
    "epsilon": [Interval(float, 0, None)],
    "delta": [Interval(float, 0, 1, closed="neither")],
    "noise_scale": [None, Interval(float, 0, None, closed="neither")],
    "reward_range": [None, REWARD_RANGE],
    "confidence": [Options(("auto", *CONFIDENCE_CONSTANTS))],
    "support": [Options(SUPPORT_KINDS), SUPERARMS],
    "support_size": [None, Interval(int, 1, None)],
    "allocation": [Options(ALLOCATIONS)],
    "budget": [Interval(int, 1, None)],
    "check_growth": [Interval(float, 0, None)],
    "stop_on_rule": [Instance(bool)],
    "seed": [SEED],
}
#: The constraints of a static algorithm whose support comes from its own :meth:`StaticFullBandit.design_support`
#: (its signature then has no ``support`` nor ``support_size``).
DESIGN_CONSTRAINTS: dict[str, list] = {name: forms for name, forms in STATIC_CONSTRAINTS.items()
                                       if name not in ("support", "support_size")}


class StaticFullBandit(Algorithm):
    """Base of the static full-bandit algorithms: a fixed allocation over a fixed support.

    Pulls follow a deterministic tracking rule (:class:`fullbandit.design.tracking.Tracker`)
    that never reads a reward, and a check reads exactly the first pulls handed out (the
    base records observations in handing-out order, holding any told early:
    :meth:`fullbandit.core.algorithm.Algorithm.tell`), so the design at every check is fixed and the
    confidence bounds of a fixed design hold (:func:`fullbandit.linalg.radius.confidence_radius`).
    An abandoned pull returns to the design; whether it is abandoned must not depend on its
    reward. Between two stopping checks the
    pulls are known in advance: ``ask(max_count=m)`` hands them out in blocks of up to
    ``m`` pulls of one super-arm, and the block's summed reward is told at once.

    Parameters
    ----------
    problem : DecisionClass
        The decision class (:class:`fullbandit.TopK`, :class:`fullbandit.PartitionMatroid`).
    epsilon : float
        Tolerance: the answer must be within ``epsilon`` of the best super-arm's value.
        ``epsilon = 0`` never stops when two super-arms tie.
    delta : float
        Error probability, ``0 < delta < 1``.
    noise_scale : float, optional
        Sub-Gaussian scale ``R`` of one observed sum. ``None``: :func:`fullbandit.run`
        takes the environment's declared scale (without writing this parameter); with
        ask/tell you must set it (except with ``confidence="bernstein"``, which does not
        use it: it then defaults to the range's ``(high - low) / 2``).
    reward_range : (float, float), optional
        The interval ``(low, high)`` every observed pull lies in (for ``k`` members each
        in ``[0, 1]``: ``(0, k)``), needed by ``confidence="bernstein"`` only. ``None``:
        :func:`fullbandit.run` takes the environment's declared range (``Replay`` and
        ``BernoulliTeam`` declare ``(0, k)``; ``GaussianSum`` none), without writing this
        parameter. With ``"bernstein"`` a told reward outside ``count * [low, high]`` is
        refused.
    confidence : {"tight", "paper", "stitched", "bernstein", "time-uniform", "auto"}
        Which constant ``C_t`` (:func:`fullbandit.linalg.radius.confidence_radius`):
        ``"stitched"`` unions over the stopping checks of the fixed geometric schedule
        rather than over every round (smaller, same guarantee at the checks).
        ``"time-uniform"``: a mixture boundary valid at every whole pass at once
        (:mod:`fullbandit.linalg.time_uniform`; needs ``allocation="uniform"`` and no prior): no
        union over the checks. ``"auto"``: ``"time-uniform"`` where the design allows it,
        else ``"stitched"`` (results report the one in use). ``"bernstein"``: for bounded rewards, a
        variance-adaptive (empirical Bernstein)
        radius on the same schedule, ``sigma_bar sqrt(2 L) + (1/3) B L h`` with
        ``sigma_bar`` an upper confidence bound on the members' reward standard deviations
        (Maurer and Pontil 2009) instead of the range's ``R = B / 2``: far smaller when the
        rewards vary little (replayed answers of accurate workers), without assuming the
        members independent. ``tell`` then needs a block's sum of squared rewards
        (``sum_of_squares=``; :func:`fullbandit.run` provides it).
    support : {"auto", "swap-optimal", "cyclic", "random"} or sequence of super-arms
        The support of the allocation (:func:`fullbandit.design.support.make_support`), or an
        explicit list of distinct super-arms spanning R^n. ``"auto"`` (top-k) takes the
        first of the cyclic windows, then seeded random supports of ``4 n``, ``8 n``, ...
        members whose condition number is within 3 times the smallest possible,
        ``k (n-1) / (n-k)`` (usually ``8 n`` random members; the windows only when they
        are the whole class); ``"swap-optimal"`` (top-k) grows random supports from ``8 n``
        members until their largest swap variance is within 10% of the best possible (the
        default of :class:`fullbandit.full.SwapBound`); ``"cyclic"`` and ``"random"``
        (``4 n`` members) are explicit.
    support_size : int, optional
        Size of a random support (default ``4 n`` with ``support="random"``; with
        ``"auto"`` or ``"swap-optimal"``, given a size, a random support of that size
        without the check).
    allocation : {"uniform", "g-optimal", "xy-optimal"}
        Proportions over the support: equal; the G-optimal design over it
        (:func:`fullbandit.design.goptimal.g_optimal_allocation`, Appendix D); or the
        XY-optimal design for the swap directions ``e_j - e_i``, which minimises the
        largest ``||e_j - e_i||^2_{A^-1}`` (:func:`fullbandit.design.xy.xy_optimal_allocation`,
        Soare et al. 2014; a certified relative gap of ``1e-3``; on one core about 1 s at
        ``n = 111`` with ``4 n`` members, 4 s with the ``8 n`` that ``"auto"`` usually
        takes). For both optimal designs, members whose weight is below ``1e-4`` of the
        largest are dropped when the rest still span R^n.
    budget : int
        Pull cap: the run ends with ``"budget exhausted"`` (no guarantee) if the stopping
        rule has not fired after ``budget`` pulls. A budget below the support size ends
        the run before the means are identified (the answer is then ``None``).
    check_growth : float
        Stopping-check schedule: after a check at ``t`` pulls the next is at
        ``max(t + 1, ceil((1 + check_growth) t))``, with uniform allocation rounded up to a
        whole pass over the support (:func:`next_check_after`: every member then has the same
        count, and the check reuses the support's factorisation, ``O(n^2)``). The confidence
        bound holds for all ``t`` at once, so skipping checks keeps the guarantee; it costs at
        most a factor ``1 + check_growth`` in pulls, plus one pass, and makes the number of
        checks O(log(T) / check_growth).
    stop_on_rule : bool
        ``False`` keeps pulling until the budget although the rule fired (for experiments
        that trace the rule over a fixed horizon; the pulls at which it first fired are
        reported as ``first_stop``).
    seed : None, int, SeedSequence or Generator
        The one source of randomness (a random support).

    Examples
    --------
    Every pull up to the next stopping check is known in advance, so a simulation asks
    for blocks (:func:`fullbandit.run` does):

    >>> import fullbandit as fb
    >>> algorithm = fb.ICB(fb.TopK(5, 2), noise_scale=1.0, seed=0, support="cyclic")
    >>> [algorithm.ask(max_count=10**6).count for _ in range(5)]   # the first pass: each member once
    [1, 1, 1, 1, 1]
    """

    name = "static"
    parameter_constraints: ClassVar[dict[str, list]] = STATIC_CONSTRAINTS
    takes_prior: ClassVar[bool] = True  # any arm sets join the least-squares design (not with bernstein)

    def __init__(self, problem, *, epsilon: float = 0.0, delta: float = 0.05, noise_scale: float | None = None,
                 reward_range=None, confidence: str = "tight", support="auto", support_size: int | None = None,
                 allocation: str = "uniform", budget: int = DEFAULT_BUDGET, check_growth: float = 0.05,
                 stop_on_rule: bool = True, seed=None):
        self.problem = problem
        self.epsilon = epsilon
        self.delta = delta
        self.noise_scale = noise_scale
        self.reward_range = reward_range
        self.confidence = confidence
        self.support = support
        self.support_size = support_size
        self.allocation = allocation
        self.budget = budget
        self.check_growth = check_growth
        self.stop_on_rule = stop_on_rule
        self.seed = seed

    # --- what subclasses provide -----------------------------------------------------
    @abstractmethod
    def _rule(self, estimate: LeastSquaresEstimate, radius: float) -> tuple[float, SuperArm, dict]:
        """``(gap_bound, answer, details)`` of the stopping rule with confidence radius ``C_t``."""

    @abstractmethod
    def _n_directions(self) -> int:
        """Size ``|X|`` of the union bound behind ``C_t``."""

    def _setup_checks(self) -> None:  # noqa: B027 - optional hook
        """Checks a subclass makes once the parameters are valid (e.g. a size limit)."""

    def design_support(self, rng: np.random.Generator) -> Sequence[SuperArm]:
        """The support of the static design: the distinct super-arms it pulls (an extension hook).

        Called once, at setup, after the parameters are validated and :meth:`_setup_checks`
        has passed, with :attr:`noise_scale_in_use` and :attr:`reward_range_in_use` already
        resolved. The default is the ``support`` parameter: a named kind made by
        :func:`fullbandit.design.support.make_support` (drawn from ``rng``) or the explicit
        list. A subclass with a support of its own overrides this method and leaves
        ``support`` and ``support_size`` out of its signature (its constraints are then
        :data:`DESIGN_CONSTRAINTS`).

        What a subclass returns is checked as an explicit list is: every member belongs to
        the problem's class (in any order of its arms), none repeats, and together they span
        ``R^n`` (else :class:`fullbandit.linalg.least_squares.SingularDesignError`). Any
        randomness must come from ``rng`` (the algorithm's seed), so that the same seed makes
        the same design and a saved run replays. The support may depend on the problem and
        the parameters, never on a reward (none is told yet): that keeps the design fixed,
        which the confidence bounds of every static rule assume.

        Parameters
        ----------
        rng : numpy.random.Generator
            The algorithm's seeded generator.

        Returns
        -------
        sequence of super-arms
            The members; the ``allocation`` parameter then weighs them (and may drop members
            of negligible optimal weight).

        Examples
        --------
        Four pairs of four arms that span ``R^4`` (a complete subclass, with its own signature,
        is ``examples/extending/star_icb.py``):

        >>> import fullbandit as fb
        >>> class FourPairs(fb.ICB):
        ...     def design_support(self, rng):
        ...         return [(0, 1), (0, 2), (0, 3), (2, 1)]
        >>> algorithm = FourPairs(fb.TopK(4, 2), noise_scale=1.0)
        >>> algorithm.support_arms, algorithm.constants()["support"]
        (((0, 1), (0, 2), (0, 3), (1, 2)), 'custom')
        """
        problem = self.problem
        if isinstance(self.support, str):
            return make_support(problem.n, problem.k, self.support, rng, self.support_size, problem=problem)
        return list(self.support)

    # --- building ----------------------------------------------------------------------
    def _build(self, rng: np.random.Generator, noise_scale: float | None) -> None:
        self._setup_checks()
        self.problem.require_spanning_design()  # before drawing a support: name the groups, not a rank
        self._reward_range = self._resolve_reward_range(self._offered_reward_range)  # what setup() was offered
        self._noise_scale = self._resolve_noise_scale(noise_scale)
        problem = self.problem
        members = self.design_support(rng)
        if type(self).design_support is StaticFullBandit.design_support and isinstance(self.support, str):
            # Spanning by construction: random supports track their rank, cyclic windows need gcd(n, k) = 1.
            arms, design = list(members), None
        else:  # an explicit list, or a subclass's own support
            arms = [problem.check_super_arm(arm, "support member") for arm in members]
            if len(set(arms)) != len(arms):
                raise InvalidParameterError("support must not repeat a super-arm")
            design = self._spanning_design(arms)
        kept, proportions = _proportions(problem.n, arms, self.allocation)
        self._start(kept, proportions, design=design if len(kept) == len(arms) else None)
        self._confidence = self.confidence
        if self.confidence == "auto":  # the sharpest constant the design allows (a prior may yet overrule it)
            self._confidence = "time-uniform" if self._pass is not None else "stitched"
        if self._confidence == "time-uniform" and self._pass is None:
            raise InvalidParameterError(
                f"{self.label()}: confidence='time-uniform' holds at whole passes of a repeated block, which needs "
                f"allocation='uniform' (got allocation={self.allocation!r}); or choose confidence='stitched'")

    def _uses_variances(self) -> bool:
        return self.confidence in RANGE_CONFIDENCES

    def _resolve_reward_range(self, fallback) -> tuple[float, float] | None:
        given = self.reward_range if self.reward_range is not None else fallback
        if given is None:
            if self._uses_variances():
                raise InvalidParameterError(
                    f"{type(self).__name__}: confidence={self.confidence!r} needs bounded rewards, but no "
                    "reward_range is known: pass reward_range=(low, high) (the interval one observed pull lies "
                    "in), run it on an environment that declares one (Replay, BernoulliTeam), or choose "
                    f"confidence among {', '.join(repr(c) for c in CONFIDENCE_CONSTANTS if c not in RANGE_CONFIDENCES)}"
                    " (GaussianSum's rewards are unbounded)")
            return None
        return check_reward_range("reward_range", given)

    def _resolve_noise_scale(self, fallback: float | None) -> float:
        scale = self.noise_scale if self.noise_scale is not None else fallback
        if scale is None and self._uses_variances() and self._reward_range is not None:
            low, high = self._reward_range
            scale = (high - low) / 2.0  # not used by the radius; the range's sub-Gaussian scale, for reports
        return self._noise_scale_in_use(scale)

    def _spanning_design(self, arms) -> StaticDesign:
        """The design over ``arms``, refused unless they span R^n (its support's Gram matrix is kept for the checks)."""
        design = StaticDesign(self.problem.n, arms, square_sums=self._uses_variances())
        if not design.spans():
            rank = np.linalg.matrix_rank(design.matrix)
            raise SingularDesignError(
                f"support spans rank {rank} < n={self.problem.n}: theta is not identifiable from it")
        return design

    def _start(self, arms, proportions, counts=None, design: StaticDesign | None = None) -> None:
        self._design = design if design is not None else StaticDesign(self.problem.n, arms,
                                                                       square_sums=self._uses_variances())
        self._terms: tuple[tuple[int, int], BernsteinTerms] | None = None  # this check's, once computed
        self._proportions = np.asarray(proportions, dtype=float)
        # Equal proportions are round robin: after a whole number of passes every member has the same count.
        self._pass = len(arms) if np.all(self._proportions == self._proportions[0]) else None
        self._handout = Handout(Tracker(self._proportions, counts=counts))
        self._next_check = len(arms)  # every member pulled once: A_t is invertible
        self._first_stop: int | None = None

    def _absorb_prior(self, prior: PriorObservations) -> None:
        # Any arm sets: their indicators join A and b (fullbandit.core.priors states why the bounds still hold).
        if self._uses_variances():
            raise InvalidParameterError(
                f"{self.label()}: confidence={self.confidence!r} bounds each support member's reward variance from "
                "its own pulls and cannot take prior observations; choose confidence='tight' or 'stitched'")
        self._confidence = confidence_with_prior(self.confidence, self._confidence, self.label())
        check_prior_noise(prior, self._noise_scale, self.label())
        self._design.add_prior(prior.arms, prior.counts, prior.reward_sums)

    @property
    def support_arms(self) -> tuple[SuperArm, ...]:
        """The super-arms of the design (after setup)."""
        self.setup()
        return self._design.support

    @property
    def noise_scale_in_use(self) -> float:
        """The sub-Gaussian scale ``R`` the confidence radius uses: the ``noise_scale`` parameter, else
        the scale :meth:`setup` was offered (the environment's), else with ``confidence="bernstein"``
        the range's ``(high - low) / 2``.

        Resolved at setup before :meth:`design_support` is called, so any hook may read it;
        unlike :attr:`effective_noise_scale` it never sets the algorithm up (before setup it
        raises :class:`fullbandit.core.algorithm.ProtocolError`).
        """
        return self._resolved("_noise_scale", "noise scale")

    @property
    def reward_range_in_use(self) -> tuple[float, float] | None:
        """The interval ``(low, high)`` one observed pull lies in: the ``reward_range`` parameter,
        else the range :meth:`setup` was offered (the environment's), else ``None`` (unbounded).

        Resolved at setup before :meth:`design_support` is called, as :attr:`noise_scale_in_use`.
        """
        return self._resolved("_reward_range", "reward range")

    @property
    def design(self) -> StaticDesign:
        """The design the stopping checks read: the support, and the pulls and reward sums per member.

        For inspection (and for a rule that needs more than the estimate): it changes through
        ``tell`` only. Available from the end of setup.
        """
        return self._resolved("_design", "design")

    def _resolved(self, attribute: str, what: str):
        try:
            return self.__dict__[attribute]
        except KeyError:
            raise ProtocolError(f"{self.label()}: the {what} is made at setup(); call setup() (or ask()) "
                                "first") from None

    def known_noise_scale(self) -> float | None:
        """The scale in use once set up (see :meth:`fullbandit.core.algorithm.Algorithm.known_noise_scale`)."""
        return getattr(self, "_noise_scale", None)  # resolved early in _build, before any check

    @property
    def effective_noise_scale(self) -> float:
        """The noise scale in use (:attr:`noise_scale_in_use`), after setting the algorithm up if need be."""
        self.setup()
        return self.noise_scale_in_use

    @property
    def effective_reward_range(self) -> tuple[float, float] | None:
        """The reward range in use (:attr:`reward_range_in_use`), after setting the algorithm up if need be."""
        self.setup()
        return self.reward_range_in_use

    @property
    def needs_square_sums(self) -> bool:
        """``True`` with ``confidence="bernstein"``: blocks are told with ``sum_of_squares=``."""
        return self._uses_variances()

    # --- pulls ---------------------------------------------------------------------------
    def _next_pull(self, max_count: int):
        member, count = self._handout.take(max_count, self._next_check, self.budget - self._told - self._outstanding)
        return self._design.support[member], count, member

    def _record(self, token, arms, count, reward) -> None:
        self._design.record(int(token), reward, count)

    def _observe(self, token, arms, count, reward, sum_of_squares) -> None:
        if self._design.square_sums is None:
            self._design.record(int(token), reward, count)
        else:
            squares = reward * reward if sum_of_squares is None else sum_of_squares
            self._design.record(int(token), reward, count, squares)

    def _check_observation(self, pull, reward, sum_of_squares) -> None:
        if self.confidence not in RANGE_CONFIDENCES:  # not self._uses_variances(), without the call (every tell)
            return
        count = pull.count
        if sum_of_squares is None and count > 1:
            raise InvalidParameterError(
                f"sum_of_squares is required for a block of count={count} pulls with confidence={self.confidence!r} "
                "(it estimates each member's reward variance): tell(pull, reward, sum_of_squares=...)")
        squares = reward * reward if sum_of_squares is None else sum_of_squares
        problem = _range_violation(reward, squares, count, self._reward_range)
        if problem:
            raise InvalidParameterError(
                f"reward refused: {problem} (reward_range={self._reward_range} bounds each pull; rewards outside "
                f"it void the guarantee of confidence={self.confidence!r})")

    def _release(self, token, count) -> None:
        self._handout.give_back(int(token), count)

    # Every pull up to the next check is known in advance: handed out at once as blocks.
    def _next_blocks(self, max_count: int):
        members, counts = self._handout.take_all(max_count, self._next_check,
                                                 self.budget - self._told - self._outstanding)
        support = self._design.support
        return [support[member] for member in members.tolist()], counts, members

    def _check_blocks(self, blocks, rewards, sums_of_squares) -> None:
        if not self._uses_variances():
            return
        if sums_of_squares is None and np.any(blocks.counts > 1):
            raise InvalidParameterError(
                f"sums_of_squares is required for blocks of more than one pull with confidence={self.confidence!r} "
                "(it estimates each member's reward variance): tell_blocks(blocks, rewards, sums_of_squares=...)")
        squares = rewards * rewards if sums_of_squares is None else sums_of_squares
        for index, (count, total, square) in enumerate(zip(blocks.counts.tolist(), rewards.tolist(),
                                                           squares.tolist(), strict=True)):
            problem = _range_violation(total, square, count, self._reward_range)
            if problem:
                raise InvalidParameterError(
                    f"rewards[{index}] refused: {problem} (reward_range={self._reward_range} bounds each pull; rewards "
                    f"outside it void the guarantee of confidence={self.confidence!r})")

    def _observe_blocks(self, token, counts, rewards, sums_of_squares) -> None:
        self._design.record_blocks(token, counts, rewards, sums_of_squares)

    def _release_blocks(self, token, counts) -> None:
        for member, count in zip(token.tolist(), counts.tolist(), strict=True):
            self._handout.give_back(member, count)

    def _due_for_check(self) -> bool:
        return self._design.pulls >= self._next_check

    def _after_check(self, check: StoppingCheck) -> None:
        if check.estimate is not None:  # kept as the last check, without its A^-1 (8 MB at n = 1000) when re-formable
            check.estimate.release_inverse()
        t = check.pulls
        if check.stop and self._first_stop is None:
            self._first_stop = t
        self._next_check = next_check_after(t, self.check_growth, self._pass)

    def _stops_on_rule(self) -> bool:
        return bool(self.stop_on_rule)

    def radius(self, t: int, *, delta: float | None = None, n_directions: int | None = None,
               one_sided: bool = False) -> float:
        """The confidence radius ``C_t`` of the check now being made, after ``t`` pulls.

        ``delta`` and ``n_directions`` default to the algorithm's ``delta`` and union bound;
        a rule that combines several bounds passes its share of ``delta`` and each bound's
        own number of directions. With ``confidence="stitched"`` or ``"bernstein"`` the
        union is over the stopping checks, and this check's index is the number of checks
        made plus one. With ``"bernstein"`` the radius also depends on the data told so far
        (:meth:`bernstein_terms`); its variance bounds take half of the algorithm's whole
        ``delta`` whatever share is passed, and the directions half of the share (see
        :func:`fullbandit.linalg.radius.confidence_radius`). With ``"time-uniform"`` the
        radius holds at whole passes of the support only (:mod:`fullbandit.linalg.time_uniform`):
        after a part of a pass (a budget that ends mid-pass) it is infinite. ``one_sided``:
        the rule's events bound each direction on one side only.
        """
        self.setup()
        if self._confidence == "time-uniform":
            passes = self._whole_passes(t)
            if passes is None:
                return math.inf
            return confidence_radius(t, self.delta if delta is None else delta, self._noise_scale,
                                     self._n_directions() if n_directions is None else n_directions, self._confidence,
                                     passes=passes, one_sided=one_sided)
        stitched = self._confidence in ("stitched", *RANGE_CONFIDENCES)
        t = round_index(t, self.prior)
        check = min(self._checks + 1, t) if stitched else None
        terms = self.bernstein_terms() if self._uses_variances() else None
        return confidence_radius(t, self.delta if delta is None else delta, self._noise_scale,
                                 self._n_directions() if n_directions is None else n_directions, self._confidence,
                                 check=check, bernstein=terms, one_sided=one_sided)

    def _whole_passes(self, t: int) -> int | None:
        """``p`` when the first ``t`` pulls are ``p >= 1`` whole passes of round robin over the support, else
        ``None``."""
        passes = self._design.whole_passes()
        return passes if self._pass and passes * self._pass == t else None

    def bernstein_terms(self, estimate: LeastSquaresEstimate | None = None) -> BernsteinTerms:
        """The variance bound and leverage of ``confidence="bernstein"`` for the check now being made.

        Computed once per check from the data told so far
        (:meth:`fullbandit.linalg.static_design.StaticDesign.bernstein_terms`, level ``delta / 2`` for
        the variance bounds, check index the number of checks made plus one).

        Raises
        ------
        InvalidParameterError
            Unless ``confidence="bernstein"``; :class:`SingularDesignError` before the data
            identify the means.
        """
        self.setup()
        if not self._uses_variances():
            raise InvalidParameterError(f"confidence={self.confidence!r} has no Bernstein terms: only "
                                        f"{', '.join(map(repr, RANGE_CONFIDENCES))}")
        assert self._reward_range is not None  # resolved at setup for these options
        t = self._design.pulls
        check = max(min(self._checks + 1, t), 1)
        key = (t, check)
        if self._terms is None or self._terms[0] != key:
            low, high = self._reward_range
            terms = self._design.bernstein_terms(estimate if estimate is not None else self._design.estimate(),
                                                 high - low, float(self.delta), check)
            self._terms = (key, terms)
        return self._terms[1]

    def _evaluate(self) -> StoppingCheck:
        t = self._design.pulls
        try:
            estimate = self._design.estimate()
        except SingularDesignError as error:
            return StoppingCheck(t, math.inf, float(self.epsilon), None, self.guarantee == "certified",
                                 {"singular": str(error)})
        terms = self.bernstein_terms(estimate) if self._uses_variances() else None
        gap_bound, answer, details = self._rule(estimate, self.radius(t))
        if terms is not None:
            details = {**details, "sigma_bar": terms.std_bound, "h_max": terms.leverage}
        return StoppingCheck(t, float(gap_bound), float(self.epsilon), answer, self.guarantee == "certified",
                             details, estimate)

    def constants(self) -> dict:
        """Confidence constants, noise scale, union bound, support and allocation."""
        self.setup()
        constants = {"confidence": self._confidence, "noise_scale": self._noise_scale, "delta": self.delta,
                     "epsilon": self.epsilon, "union_bound": self._n_directions(),
                     "support": self._support_label(),
                     "allocation": self.allocation, "support_size": len(self._design.support),
                     "first_stop": self._first_stop}
        if self._uses_variances() and self._reward_range is not None:
            constants["reward_range"] = list(self._reward_range)
        return constants

    def _support_label(self) -> str:
        """How results name the support: its kind, ``"explicit"``, or ``"custom"`` (made by a subclass's hook)."""
        if type(self).design_support is not StaticFullBandit.design_support:
            return "custom"
        return self.support if isinstance(self.support, str) else "explicit"


def _range_violation(total: float, squares: float, count: int, reward_range) -> str:
    """Why ``count`` values in ``[low, high]`` cannot sum to ``total`` with squares summing to ``squares``, or ''.

    Each value ``y`` in ``[low, high]`` has ``(y - low)(high - y) >= 0``, i.e.
    ``y^2 <= (low + high) y - low high``; summed: ``squares <= (low + high) total - count low high``.
    """
    low, high = reward_range
    scale = max(abs(low), abs(high))
    slack = RANGE_TOLERANCE * count * scale
    if not count * low - slack <= total <= count * high + slack:
        return f"a sum of {total!r} over {count} pull(s) is outside [{count * low!r}, {count * high!r}]"
    most = (low + high) * total - count * low * high
    if squares > most + slack * scale:
        return (f"a sum of squares of {squares!r} exceeds (low + high) sum - count low high = {most!r}, the most "
                f"that {count} value(s) in [{low!r}, {high!r}] summing to {total!r} can have")
    return ""


def _proportions(n: int, arms, allocation: str):
    """The support members kept and their proportions for the chosen allocation.

    An optimal design's members with weight below ``G_OPTIMAL_DROP`` of the largest are
    dropped (they would get almost no pulls) unless the rest no longer span R^n.
    """
    if allocation == "uniform":
        return arms, np.ones(len(arms))
    if allocation == "xy-optimal":
        from fullbandit.design.xy import xy_optimal_allocation
        weights = xy_optimal_allocation(n, arms)
    else:
        weights = g_optimal_allocation(n, arms)
    keep = weights >= G_OPTIMAL_DROP * weights.max()
    kept = [arm for arm, flag in zip(arms, keep, strict=True) if flag]
    if len(kept) < len(arms) and not StaticDesign(n, kept).spans():
        return arms, weights
    return kept, weights[keep]


def next_check_after(t: int, growth: float, whole_pass: int | None = None) -> int:
    """The stopping check after one at ``t`` pulls: ``max(t + 1, ceil((1 + growth) t))``, rounded up to
    a multiple of ``whole_pass`` when given.

    The schedule depends on ``t``, ``growth`` and the support size only, never on a reward, so the
    rounds at which the rule is checked are fixed before the run starts and the confidence
    bounds over the checks hold (:func:`fullbandit.linalg.radius.confidence_radius`). With a uniform
    allocation, round robin pulls every member equally often at every multiple of the support
    size ``m``: checking there (at most ``m`` pulls, one pass, later than the geometric schedule
    alone) makes ``A_t = q X^T X``, whose factorisation and spectrum the design computes once
    (:class:`fullbandit.linalg.static_design.StaticDesign`), so a check costs ``O(n^2)``.

    Examples
    --------
    >>> from fullbandit.full.static import next_check_after
    >>> next_check_after(100, 0.05), next_check_after(100, 0.05, whole_pass=40), next_check_after(10, 0.0)
    (105, 120, 11)
    """
    following = max(t + 1, math.ceil((1.0 + growth) * t))
    if whole_pass:
        following = -(-following // whole_pass) * whole_pass
    return following
