"""The protocol every algorithm shares: stored parameters, the ask/tell/abandon lifecycle with
pull handles and blocks, stop reasons, the stopping diagnostic and results.

Saving and loading are :mod:`fullbandit.core.persistence` (:class:`Algorithm` inherits them)
and the checks of told rewards are :mod:`fullbandit.core.rewards`.

An algorithm's constructor only stores its parameters, verbatim, under their own names.
The first call that needs them (``ask``, ``tell``, ``result``, ``save``, or
:meth:`Algorithm.setup`) validates them against the class's declared
``parameter_constraints`` (:mod:`fullbandit.core.params`) and builds the working state. Work
never writes a parameter.

Driving an algorithm (by a simulation or by a person) is a loop::

    pull = algorithm.ask()                 # a Pull: what to try, an id, and a count
    reward = ...                           # observe it (summed over pull.count trials)
    algorithm.tell(pull, reward)           # or tell(pull.arms, reward)

Several pulls may be outstanding at once (a crowd works in parallel) and may be told in
any order, but they are *recorded* in the order they were handed out: a pull told before
an older one is held until every older pull is told or abandoned. The data a stopping
check reads are then exactly the first pulls handed out, whatever order the answers come
back in (an answer's latency may depend on the answer), so the guarantees proved for a
fixed or predictably chosen design hold as stated (see :meth:`Algorithm.tell`).
``ask(max_count=m)`` lets the algorithm hand out a *block* of up to ``m``
identical pulls, told with the sum of their rewards (a simulation then pays once per
block, not once per pull). An algorithm whose pulls are fixed in advance (a static design)
also hands out everything up to its next stopping check at once: ``ask_blocks()`` and
``tell_blocks(blocks, rewards)``, drawn by ``environment.pull_blocks`` (a simulation then
costs one call per check). An algorithm that estimates the rewards' variances
(:attr:`Algorithm.needs_square_sums`, e.g. ``confidence="bernstein"``) is also told a
block's sum of squared rewards: ``tell(pull, reward, sum_of_squares=...)`` (a single pull's
is ``reward ** 2``, implied). :func:`fullbandit.run` is exactly this loop.

Writing an algorithm: subclass :class:`Algorithm` (or
:class:`fullbandit.full.static.StaticFullBandit` for a static full-bandit design), declare
``parameter_constraints``, ``feedback``, ``setting`` and ``decision_classes``, and implement
the hooks ``_build``, ``_next_pull``, ``_record``, ``_release``, ``_due_for_check`` and
``_evaluate``. Its saved state is its record (:mod:`fullbandit.core.journal`): parameters, seed
and every call, replayed on load (:mod:`fullbandit.core.persistence`), so no algorithm writes
state code. Register it in :mod:`fullbandit.core.registry` and it is found by the command line,
the experiment runner and the conformance suite.
"""

from __future__ import annotations

import functools
import inspect
import math
import numbers
import operator
from abc import ABC, abstractmethod
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, ClassVar, Self

import numpy as np

from fullbandit.core.journal import Journal
from fullbandit.core.params import validate_parameters
from fullbandit.core.persistence import Persistent, build_header, json_float, seeded_generator
from fullbandit.core.priors import PriorObservations
from fullbandit.core.result import BUDGET_EXHAUSTED, RUNNING, STOPPING_RULE, Result, StopReason
from fullbandit.core.rewards import check_block_rewards, check_reward, check_square_sum, largest_per_pull
from fullbandit.problems.classes import DecisionClass, SuperArm
from fullbandit.util.blas import limited_blas
from fullbandit.util.validation import InvalidParameterError, check_reward_range

FEEDBACK_KINDS = ("full", "semi")
SETTINGS = ("fixed-confidence", "fixed-budget")


class ProtocolError(InvalidParameterError):
    """An ask/tell call out of order: a double tell, a pull never asked, a tell after the stop.

    Examples
    --------
    >>> import fullbandit as fb
    >>> algorithm = fb.ICB(fb.TopK(4, 2), noise_scale=1.0, seed=0)
    >>> algorithm.tell((0, 1), 1.0)
    Traceback (most recent call last):
    ...
    fullbandit.core.algorithm.ProtocolError: super_arm=(0, 1) has no outstanding pull: tell only what ask() handed out
    """


class WaitingForRewards(ProtocolError):
    """The algorithm cannot hand out another pull until outstanding ones are told or abandoned.

    Not a mistake of the caller but a state of the run: a round-based algorithm plans its
    next round from the whole of the current one (:class:`fullbandit.semi.PerArmRounds`), and
    any algorithm has handed out its whole budget while pulls are out. ``ask`` refuses and
    changes nothing; once the outstanding pulls are told (or abandoned, which gives their
    samples back) it hands out again. A front end that asks for several pulls at once stops
    at this refusal and hands out those it has (:meth:`fullbandit.sessions.Session.next`).

    Examples
    --------
    >>> import fullbandit as fb
    >>> algorithm = fb.SAR(fb.TopK(4, 2), budget=20, seed=0)
    >>> first = algorithm.ask(max_count=100)           # SAR's first phase: every arm, 3 times
    >>> first.arms, first.count
    ((0, 1, 2, 3), 3)
    >>> try:
    ...     algorithm.ask(max_count=100)
    ... except fb.WaitingForRewards as waiting:
    ...     print(waiting)
    sar: round 1 is handed out; tell (or abandon) its 12 outstanding sample(s) before the next round is planned
    >>> algorithm.tell(first, [3.0, 2.0, 1.0, 0.0])     # each member's sum of its 3 rewards
    >>> algorithm.ask(max_count=100).arms               # phase 2, planned from phase 1: arm 0 is accepted
    (1, 2, 3)
    """


@dataclass(frozen=True)
class Pull:
    """A handle for one requested pull (or a block of identical pulls).

    Attributes
    ----------
    id : int
        Identity of the request within its algorithm (0, 1, 2, ...).
    arms : tuple of int
        The super-arm (sorted arm indices) to pull.
    count : int
        Number of identical pulls requested; tell the *sum* of their rewards (for
        semi-bandit feedback, each member's sum).

    Examples
    --------
    >>> import fullbandit as fb
    >>> algorithm = fb.ICB(fb.TopK(4, 2), noise_scale=1.0, seed=0)
    >>> algorithm.ask(max_count=100)        # a static design hands out whole blocks
    Pull(id=0, arms=(2, 3), count=1)
    """

    id: int
    arms: SuperArm
    count: int = 1


@dataclass(frozen=True, eq=False)
class PullBlocks:
    """Blocks of pulls handed out at once: super-arm ``arms[i]``, ``counts[i]`` times.

    What a static design hands out between two stopping checks (:meth:`Algorithm.ask_blocks`),
    told at once with each block's summed reward (:meth:`Algorithm.tell_blocks`); a simulation
    draws them with one call, :meth:`fullbandit.environments.models.Environment.pull_blocks`.

    Attributes
    ----------
    id : int
        Identity of the request within its algorithm (shared with the pulls' ids).
    arms : tuple of tuple of int
        The super-arm of each block.
    counts : numpy.ndarray of int
        The pulls of each block (read-only).

    Examples
    --------
    >>> import fullbandit as fb
    >>> algorithm = fb.ICB(fb.TopK(5, 2), noise_scale=1.0, seed=0, support="cyclic")
    >>> blocks = algorithm.ask_blocks()       # the first pass: every member once
    >>> blocks.arms, blocks.counts.tolist(), blocks.pulls
    (((0, 1), (1, 2), (2, 3), (3, 4), (0, 4)), [1, 1, 1, 1, 1], 5)
    """

    id: int
    arms: tuple[SuperArm, ...]
    counts: np.ndarray

    @property
    def pulls(self) -> int:
        """The pulls of all the blocks."""
        return int(self.counts.sum())


@dataclass
class StoppingCheck:
    """One evaluation of a stopping rule, in the form every algorithm shares.

    ``gap_bound`` bounds ``theta(M*) - theta(answer)`` from above (on the confidence
    event, for a certified rule); the rule fires when ``gap_bound <= epsilon``.
    ``details`` holds the algorithm's own constants (``C_t``, widths, ...) and
    ``estimate`` the estimate the rule was evaluated on (not saved with the state).

    Examples
    --------
    >>> from fullbandit.core.algorithm import StoppingCheck
    >>> check = StoppingCheck(pulls=500, gap_bound=0.04, epsilon=0.05, answer=(0, 2), certified=True)
    >>> check.stop
    True
    """

    pulls: int
    gap_bound: float
    epsilon: float
    answer: SuperArm | None
    certified: bool
    details: dict = field(default_factory=dict)
    estimate: Any = None

    @property
    def stop(self) -> bool:
        """Whether the rule fires: ``gap_bound <= epsilon``."""
        return self.gap_bound <= self.epsilon

    def to_dict(self) -> dict:
        return {"pulls": self.pulls, "gap_bound": json_float(self.gap_bound), "epsilon": self.epsilon,
                "answer": None if self.answer is None else list(self.answer), "certified": self.certified,
                "details": self.details}


@functools.cache
def constructor_parameters(cls: type[Any]) -> dict[str, inspect.Parameter]:
    """The parameters of ``cls.__init__`` but ``self`` and ``*args``/``**kwargs``, in signature order.

    Read once per class: the registry, the command line's options and every ``get_params`` ask for
    them, and reading a signature is slow.
    """
    return {name: p for name, p in inspect.signature(cls.__init__).parameters.items()
            if name != "self" and p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)}


class Algorithm(Persistent, ABC):
    """Base of every identification algorithm (see the module docstring for the protocol).

    Class attributes a subclass declares
    ------------------------------------
    name : str
        Short name (the registry key of its default configuration).
    summary : str
        One line for listings: the paper, the algorithm number, what it does.
    feedback : {"full", "semi"}
        What a pull returns: the sum of the members' rewards, or each member's reward.
    setting : {"fixed-confidence", "fixed-budget"}
        The identification setting: stop when confident, or when the budget is spent.
    decision_classes : tuple of type
        The decision classes (:mod:`fullbandit.problems.classes`) it supports.
    parameter_constraints : dict
        For every constructor parameter but ``problem``, the list of allowed forms
        (:mod:`fullbandit.core.params`).
    epsilon, delta, seed, budget
        The shared vocabulary of the parameters: ``epsilon`` is always a tolerance on the team's
        *sum* (a class whose paper measures something else, e.g. an average per member,
        converts inside), ``delta`` the error probability, ``seed`` every random choice, and
        ``budget`` counts what :meth:`budget_unit` says.
    takes_prior : bool
        Whether :meth:`setup` counts earlier observations (``prior=``, via ``_absorb_prior``);
        ``False`` (the default) refuses them before any work. A configuration may still refuse a prior with its reason.

    Examples
    --------
    A campaign driven by hand: two pulls handed out at once, told in the other order.

    >>> import fullbandit as fb
    >>> algorithm = fb.ICB(fb.TopK(4, 2), epsilon=0.1, noise_scale=0.5, seed=0)
    >>> first, second = algorithm.ask(), algorithm.ask()
    >>> first.arms != second.arms, algorithm.pending == (first, second)
    (True, True)
    >>> algorithm.tell(second, 1.25)
    >>> algorithm.tell(tuple(reversed(first.arms)), 0.5)   # by its arms, in any order
    >>> algorithm.n_pulls, algorithm.done, str(algorithm.stop_reason)
    (2, False, 'running')
    >>> algorithm.tell(first, 1.0)
    Traceback (most recent call last):
    ...
    fullbandit.core.algorithm.ProtocolError: pull id=0 arms=(2, 3) is already told or abandoned
    """

    name: ClassVar[str] = "algorithm"
    summary: ClassVar[str] = ""
    feedback: ClassVar[str] = "full"
    setting: ClassVar[str] = "fixed-confidence"
    decision_classes: ClassVar[tuple[type, ...]] = (DecisionClass,)
    parameter_constraints: ClassVar[dict[str, list]] = {}
    takes_prior: ClassVar[bool] = False

    # Parameters every algorithm has (subclasses list them in their signatures).
    problem: DecisionClass
    budget: int
    seed: Any
    # Working state, built by setup() or restored by load().
    _rng: np.random.Generator
    _told: int
    _next_id: int
    _pending: dict[int, tuple[Pull, Any]]
    _by_arms: dict[SuperArm, list[int]] | None  # outstanding ids by arms, made at the first tell by arms
    _outstanding: int  # pulls handed out and not yet told or abandoned
    _checks: int
    _last: StoppingCheck | None
    _stop_reason: StopReason
    _blocks: dict[int, tuple[PullBlocks, Any]]  # blocks handed out and not yet told or abandoned
    _held: dict[int, Callable[[], None]]  # told before an older pull: their recording, waiting
    _order: deque[int]  # ids handed out and neither recorded nor abandoned, oldest first
    _journal: Journal
    _largest_reward: float  # largest |reward| per pull (per member) recorded: see _meaningful
    _header: dict  # how the run was made: class, parameters, seed record, what setup was offered
    # True once setup() has built the working state (a class default, read directly by the hot paths).
    _set_up: bool = False

    # --- parameters ---------------------------------------------------------------------
    @classmethod
    def parameter_names(cls) -> tuple[str, ...]:
        """Constructor parameters, in signature order (``problem`` first)."""
        return tuple(constructor_parameters(cls))

    @classmethod
    def parameter_defaults(cls) -> dict:
        """The default of every parameter that has one, from the signature (the only place defaults are written).

        >>> import fullbandit as fb
        >>> fb.PhasedSwap.parameter_defaults()["restart_ratio"], "problem" in fb.PhasedSwap.parameter_defaults()
        (0.5, False)
        """
        return {name: p.default for name, p in constructor_parameters(cls).items() if p.default is not p.empty}

    def get_params(self) -> dict:
        """The constructor parameters as stored (scikit-learn's ``get_params``)."""
        return {name: getattr(self, name) for name in self.parameter_names()}

    def clone(self) -> Self:
        """A new algorithm with the same parameters and no working state (scikit-learn's ``clone``).

        Examples
        --------
        >>> import fullbandit as fb
        >>> algorithm = fb.ICB(fb.TopK(4, 2), epsilon=0.1, noise_scale=1.0).setup()
        >>> copy = algorithm.clone()
        >>> copy.get_params() == algorithm.get_params(), copy.is_set_up
        (True, False)
        """
        factory: Any = type(self)  # a concrete subclass, whose signature mypy cannot see here
        return factory(**self.get_params())

    def __repr__(self) -> str:
        defaults = self.parameter_defaults()
        shown = [f"{name}={value!r}" for name, value in self.get_params().items()
                 if name == "problem" or not _same(value, defaults.get(name, inspect.Parameter.empty))]
        return f"{type(self).__name__}({', '.join(shown)})"

    @property
    def guarantee(self) -> str:
        """``"certified"``, ``"heuristic"`` or ``"fixed-budget"`` for the configured mode."""
        return "fixed-budget" if self.setting == "fixed-budget" else "certified"

    def label(self) -> str:
        """Name and mode, as results report it (e.g. ``"saqm[certified]"``)."""
        return self.name

    def _validate(self) -> None:
        if not isinstance(self.problem, self.decision_classes):
            allowed = ", ".join(c.__name__ for c in self.decision_classes)
            raise TypeError(f"{type(self).__name__}: problem must be an instance of {allowed}, "
                            f"got {type(self.problem).__name__}")
        values = {name: getattr(self, name) for name in self.parameter_names() if name != "problem"}
        validate_parameters(self.parameter_constraints, values, owner=type(self).__name__)

    # --- lifecycle ----------------------------------------------------------------------
    @property
    def is_set_up(self) -> bool:
        return self._set_up

    def setup(self, *, noise_scale: float | None = None, reward_range=None, prior=None) -> Self:
        """Validate the parameters and build the working state (the first ``ask`` does it too).

        Parameters
        ----------
        noise_scale : float, optional
            The noise scale to use when the algorithm's own ``noise_scale`` parameter is
            ``None``; :func:`fullbandit.run` passes the environment's declared scale. The
            parameter itself is never written.
        reward_range : (float, float), optional
            The range ``(low, high)`` of one observed pull, to use when the algorithm's own
            ``reward_range`` parameter (if it has one) is ``None``; :func:`fullbandit.run`
            passes the environment's declared range (``None`` for unbounded rewards). Read
            by ``_build`` as ``self._offered_reward_range``; no parameter is written.
        prior : fullbandit.core.priors.PriorObservations, optional
            Earlier real observations to count before the first pull (see
            :mod:`fullbandit.core.priors` for what keeps the guarantee honest). Only at the
            first setup; an algorithm that cannot take them (or these) refuses them with
            the reason, and is then left as it was (not set up).

        Returns
        -------
        Algorithm
            ``self``.

        Examples
        --------
        Workers' earlier gold answers identify the means before the first pull:

        >>> import fullbandit as fb
        >>> from fullbandit.core.priors import PriorObservations
        >>> prior = PriorObservations.from_accuracies([0.9, 0.5, 0.8], answers=[100, 100, 100])
        >>> algorithm = fb.ICB(fb.TopK(3, 2), epsilon=0.3, noise_scale=1.0, seed=0).setup(prior=prior)
        >>> algorithm.stopping_check().answer, algorithm.n_pulls
        ((0, 2), 0)
        """
        if self.is_set_up:
            if prior is not None:
                raise ProtocolError(f"{self.label()}: prior observations are taken at the first setup, before any "
                                    "pull; this algorithm is already set up")
            return self
        if prior is not None:
            if not self.takes_prior:  # the declaration, read by the front ends too
                raise InvalidParameterError(f"{self.label()} does not take prior observations (its class declares "
                                            "takes_prior = False; `fullbandit solve --list` shows which algorithms do)")
            _check_prior(prior, self.problem.n)
        offered = None if reward_range is None else check_reward_range("reward_range", reward_range)
        self._validate()
        self._offered_reward_range = offered
        rng, seed_record = seeded_generator(self.seed)
        self._rng = rng
        self._told = 0
        self._next_id = 0
        self._pending = {}
        self._by_arms = None
        self._blocks = {}
        self._held = {}
        self._order = deque()
        self._largest_reward = 0.0
        self._outstanding = 0
        self._journal = Journal()
        self._header = build_header(type(self), self.get_params(), seed_record, noise_scale=noise_scale,
                                    reward_range=offered, prior=prior)
        self._checks = 0
        self._last: StoppingCheck | None = None
        self._stop_reason = RUNNING
        self._prior = None
        with limited_blas():
            self._build(rng, noise_scale)
            if prior is not None:
                self._absorb_prior(prior)  # may refuse: the algorithm then stays not set up
        if prior is not None:
            self._prior = prior
        self._set_up = True
        return self

    def _absorb_prior(self, prior: PriorObservations) -> None:
        """Count earlier real observations into the working state (a class that declares ``takes_prior``)."""
        raise NotImplementedError(f"{type(self).__name__} declares takes_prior = True but implements no _absorb_prior")

    @property
    def prior(self) -> PriorObservations | None:
        """The prior observations taken at setup (``None`` without)."""
        return getattr(self, "_prior", None)

    @abstractmethod
    def _build(self, rng: np.random.Generator, noise_scale: float | None) -> None:
        """Build the working state from the validated parameters."""

    @abstractmethod
    def _next_pull(self, max_count: int) -> tuple[SuperArm, int, Any]:
        """The next request: ``(arms, count, token)`` with ``1 <= count <= max_count``.

        ``token`` is the algorithm's own note (kept with the pending pull, saved with the
        state, so it must be JSON-serialisable) handed back to ``_record`` or ``_release``.
        """

    @abstractmethod
    def _record(self, token: Any, arms: SuperArm, count: int, reward) -> None:
        """Record a validated observation of a pull handed out with ``token``."""

    def _check_observation(self, pull: Pull, reward, sum_of_squares) -> None:  # noqa: B027 - optional hook
        """Refuse an observation the algorithm cannot use (raise; nothing has changed yet).

        ``reward`` and ``sum_of_squares`` (``None`` when not told) are already checked to be
        finite, and the squares to be consistent with the reward (Cauchy-Schwarz).
        """

    def _observe(self, token: Any, arms: SuperArm, count: int, reward, sum_of_squares) -> None:
        """Record a validated observation with its sum of squares (``None`` when not told).

        The default forgets the squares and calls :meth:`_record`; an algorithm that
        estimates variances overrides it.
        """
        self._record(token, arms, count, reward)

    @property
    def hands_out_blocks(self) -> bool:
        """Whether :meth:`ask_blocks` can hand out every pull up to the next check at once."""
        return type(self)._next_blocks is not Algorithm._next_blocks

    @property
    def needs_square_sums(self) -> bool:
        """Whether ``tell`` must be given a block's sum of squared rewards (``sum_of_squares=``).

        :func:`fullbandit.run` then draws blocks with
        :meth:`fullbandit.environments.models.Environment.pull_moments`. ``False`` by default.
        """
        return False

    @abstractmethod
    def _release(self, token: Any, count: int) -> None:
        """Forget a pull handed out with ``token`` that will never be told."""

    def _next_blocks(self, max_count: int) -> tuple[list[SuperArm], np.ndarray, Any] | None:
        """Every pull up to the next stopping check as blocks: ``(arms, counts, token)``, or ``None``.

        Optional: an algorithm that knows its pulls in advance (a static design) hands them
        out at once; ``None`` (the default) means one pull at a time (:meth:`ask`). The token
        goes back to :meth:`_observe_blocks` or, block by block, to :meth:`_release_blocks`.
        """
        return None

    def _check_blocks(self, blocks: PullBlocks, rewards: np.ndarray, sums_of_squares) -> None:  # noqa: B027
        """Refuse observations of blocks the algorithm cannot use (raise; nothing has changed yet)."""

    def _observe_blocks(self, token: Any, counts: np.ndarray, rewards: np.ndarray, sums_of_squares) -> None:
        """Record the validated observations of blocks handed out with ``token`` (with :meth:`_next_blocks`)."""
        raise NotImplementedError(f"{type(self).__name__} hands out no blocks")

    def _release_blocks(self, token: Any, counts: np.ndarray) -> None:
        """Forget blocks handed out with ``token`` that will never be told."""
        raise NotImplementedError(f"{type(self).__name__} hands out no blocks")

    @abstractmethod
    def _due_for_check(self) -> bool:
        """Whether the stopping rule is to be checked now (after a tell)."""

    @abstractmethod
    def _evaluate(self) -> StoppingCheck:
        """Evaluate the stopping rule on the data told so far, without changing any state."""

    def _after_check(self, check: StoppingCheck) -> None:  # noqa: B027 - optional hook
        """Update the check schedule after ``check`` (optional)."""

    def _stops_on_rule(self) -> bool:
        return True

    # --- ask / tell ---------------------------------------------------------------------
    @property
    def n_pulls(self) -> int:
        """Pulls told so far, in units of :meth:`cost` (a block of ``m`` counts ``m``; semi: samples)."""
        return self._told if self.is_set_up else 0

    @property
    def n_checks(self) -> int:
        """Stopping-rule evaluations so far."""
        return self._checks if self.is_set_up else 0

    @property
    def pending(self) -> tuple[Pull, ...]:
        """Pulls handed out by ``ask`` and not yet told or abandoned, oldest first."""
        return tuple(pull for pull, _ in self._pending.values()) if self.is_set_up else ()

    @property
    def held(self) -> tuple[int, ...]:
        """Ids of pulls (or blocks) told before an older one: recorded once every older one is told or abandoned."""
        return tuple(sorted(self._held)) if self.is_set_up else ()

    @property
    def journal(self) -> Journal:
        """The record of every accepted call since setup (:mod:`fullbandit.core.journal`)."""
        self.setup()
        return self._journal

    def outstanding_pull(self, pull_id: int) -> Pull | None:
        """The outstanding pull with id ``pull_id`` (handed out, not told or abandoned), or ``None``."""
        known = self._pending.get(pull_id) if self._set_up else None
        return None if known is None else known[0]

    def outstanding_blocks(self, blocks_id: int) -> PullBlocks | None:
        """The outstanding blocks with id ``blocks_id``, or ``None``."""
        known = self._blocks.get(blocks_id) if self.is_set_up else None
        return None if known is None else known[0]

    @property
    def done(self) -> bool:
        """Whether the stopping rule fired or the budget is spent."""
        return self.stop_reason != RUNNING

    @property
    def stop_reason(self) -> StopReason:
        return self._stop_reason if self.is_set_up else RUNNING

    @property
    def last_check(self) -> StoppingCheck | None:
        """The most recent evaluation of the stopping rule."""
        return self._last if self.is_set_up else None

    def ask(self, max_count: int = 1) -> Pull:
        """The next pull to make, as a :class:`Pull` handle.

        Parameters
        ----------
        max_count : int
            The largest block the caller accepts: the algorithm may ask for up to this
            many identical pulls at once, to be told with the sum of their rewards. It
            bounds the pull's *cost* (:meth:`cost`): for semi-bandit feedback, the number
            of single-arm samples (``max_count=1``: one arm, once).
        """
        remaining = self._check_askable(max_count)
        limit = min(int(max_count), remaining)
        arms, count, token = self._next_pull(limit)
        pull = Pull(self._next_id, tuple(arms), int(count))
        cost = self.cost(pull)
        if not 1 <= cost <= limit:  # an algorithm's bug, not the caller's
            raise RuntimeError(f"{type(self).__name__}._next_pull returned a pull of cost {cost} "
                               f"outside 1..{limit}")
        self._next_id += 1
        self._pending[pull.id] = (pull, token)
        self._order.append(pull.id)
        if self._by_arms is not None:
            self._by_arms.setdefault(pull.arms, []).append(pull.id)
        self._outstanding += cost
        self._journal.ask(max_count)
        return pull

    def _check_askable(self, max_count) -> int:
        """Set up if needed, refuse a bad ``max_count``, a stopped run or a spent budget; the budget left."""
        if not self._set_up:
            self.setup()
        if type(max_count) is not int and (isinstance(max_count, bool) or not isinstance(max_count, numbers.Integral)) \
                or max_count < 1:
            raise InvalidParameterError(f"max_count={max_count!r} must be an integer >= 1")
        if self._stop_reason is not RUNNING:
            raise ProtocolError(f"{self.label()} has stopped ({self.stop_reason}): call result()")
        remaining = self.budget - self._told - self._outstanding
        if remaining <= 0:
            raise WaitingForRewards(
                f"all budget={self.budget} {self.budget_unit()} are handed out: tell (or abandon) the "
                f"{len(self._pending) + len(self._blocks)} outstanding pull(s) first")
        return remaining

    @classmethod
    def budget_unit(cls) -> str:
        """What ``budget`` counts: team ``"pulls"`` (full feedback) or single-arm ``"samples"`` (semi feedback).

        >>> import fullbandit as fb
        >>> fb.ICB.budget_unit(), fb.SAR.budget_unit()
        ('pulls', 'samples')
        """
        return "pulls" if cls.feedback == "full" else "samples"

    def cost(self, pull: Pull) -> int:
        """What ``pull`` spends of the budget: its count of team pulls (full feedback), or of
        single-arm samples, ``count * len(arms)`` (semi feedback: each member's reward is a
        sample, the unit of the semi-bandit papers' budgets). ``n_pulls`` counts the same.

        Examples
        --------
        >>> import fullbandit as fb
        >>> from fullbandit.core.algorithm import Pull
        >>> fb.ICB(fb.TopK(4, 2)).cost(Pull(0, (0, 1), count=3))
        3
        """
        return pull.count if self.feedback == "full" else pull.count * len(pull.arms)

    def tell(self, pull, reward, *, sum_of_squares=None) -> None:
        """Record the observed ``reward`` of ``pull`` (a :class:`Pull`, or the pulled arms).

        Given arms (in any order), the oldest outstanding pull of that super-arm is meant.
        The reward is a real number (full feedback) or one number per member in the order
        of ``pull.arms`` (semi feedback), summed over the pull's ``count``. A refused call
        changes nothing.

        ``sum_of_squares`` is the sum of the ``count`` squared rewards (per member for semi
        feedback), at least ``reward ** 2 / count`` (Cauchy-Schwarz). An algorithm with
        :attr:`needs_square_sums` requires it for a block of more than one pull (for a
        single pull it is ``reward ** 2``); the others may ignore it.

        Observations are recorded in the order the pulls were handed out. A pull told while
        an older one is still outstanding is *held* (:attr:`held`): it is recorded, and any
        stopping check that falls due is made, once every older pull is told or abandoned.
        Why: a crowd's answers may come back in an order that depends on their values (a
        worker who finds the task hard answers later, and wrongly). A check on whatever was
        told first would read a sample selected by the rewards themselves, which no
        confidence bound covers (measured: 85% errors at 50 outstanding pulls for a rule
        certified at 10%). Recorded in handing-out order, the data of the ``j``-th check are
        the first pulls handed out, chosen by a rule that reads no reward after them: the
        design is fixed (static algorithms) or predictable (adaptive ones) exactly as the
        proofs assume. Abandoning a pull must not depend on its (unseen) reward.

        Examples
        --------
        >>> import fullbandit as fb
        >>> algorithm = fb.ICB(fb.TopK(4, 2), noise_scale=1.0, seed=0)
        >>> first, second = algorithm.ask(), algorithm.ask()
        >>> algorithm.tell(second, 1.0)
        >>> algorithm.n_pulls, algorithm.held        # second waits for first
        (0, (1,))
        >>> algorithm.abandon(first)                 # first will never be told
        >>> algorithm.n_pulls, algorithm.held
        (1, ())
        """
        if not self._set_up:
            self.setup()
        if self._stop_reason is not RUNNING:
            raise ProtocolError(f"{self.label()} has stopped ({self.stop_reason}); it takes no more rewards")
        known = self._pending.get(pull.id) if type(pull) is Pull else None
        if known is not None and known[0] is pull:  # the handle ask() handed out (what _resolve accepts first)
            pull_id = pull.id
        else:
            pull_id = self._resolve(pull)
            known = self._pending[pull_id]
        handle, token = known
        feedback = self.feedback
        # The common case without the general checks' calls: a finite Python float for a team's reward
        # (x - x is 0.0 exactly for a finite x, NaN for an infinite or NaN one, which check_reward refuses).
        if type(reward) is float and feedback == "full" and reward - reward == 0.0:
            value = reward
        else:
            value = check_reward(feedback, reward, handle.arms)
        squares = None if sum_of_squares is None \
            else check_square_sum(feedback, sum_of_squares, value, handle.arms, handle.count)
        self._check_observation(handle, value, squares)
        del self._pending[pull_id]
        if self._by_arms is not None:
            self._forget_arms(handle)
        self._journal.tell(pull_id, value, squares)
        order = self._order
        if order[0] == pull_id and type(self)._record_in_order is Algorithm._record_in_order:
            # The oldest pull out (the usual case): recorded now, exactly as _record_in_order would record it
            # first, without holding it; then whatever it held back (younger tells, abandons) follows.
            order.popleft()
            self._record_told(handle, token, value, squares)
            self._check_if_due()
            if not order or order[0] in self._pending:
                return  # what _record_in_order would find: nothing left, or the next oldest still out
        else:
            self._held[pull_id] = functools.partial(self._record_told, handle, token, value, squares)
        self._record_in_order()

    def _record_told(self, handle: Pull, token: Any, value, squares) -> None:
        """Record the checked observation of the told pull ``handle`` (its turn in handing-out order)."""
        cost = self.cost(handle)
        self._outstanding -= cost
        count = handle.count
        self._observe(token, handle.arms, count, value, squares)
        self._told += cost
        # largest_per_pull's own arithmetic for a float, without the call
        largest = abs(value) / count if type(value) is float else largest_per_pull(value, count)
        self._largest_reward = max(self._largest_reward, largest)

    def _record_in_order(self) -> None:
        """Record the held observations whose older pulls are all told or abandoned, oldest first,
        checking the stopping rule after each as it falls due; stop at the first outstanding pull."""
        order, held = self._order, self._held
        while order and self._stop_reason is RUNNING:
            oldest = order[0]
            if oldest in self._pending or oldest in self._blocks:
                return  # still out: everything younger waits for it
            order.popleft()
            record = held.pop(oldest, None)
            if record is not None:  # else it was abandoned
                record()
                self._check_if_due()

    def ask_blocks(self, max_count: int = 1 << 30) -> PullBlocks | None:
        """Every pull up to the next stopping check, as blocks of identical pulls, or ``None``.

        An algorithm whose pulls are fixed in advance (a static design) hands out at once
        what :meth:`ask` would hand out block by block until its next check, at most
        ``max_count`` pulls per block; tell them with :meth:`tell_blocks`. ``None``: the
        algorithm hands out one pull at a time (use :meth:`ask`). A simulation then costs
        one call per check (:func:`fullbandit.run` does it), not one per block.

        Examples
        --------
        >>> import fullbandit as fb
        >>> algorithm = fb.ICB(fb.TopK(5, 2), noise_scale=1.0, seed=0, support="cyclic", check_growth=1.0)
        >>> environment = fb.GaussianSum([0.9, 0.8, 0.3, 0.2, 0.1], seed=1)
        >>> blocks = algorithm.ask_blocks()
        >>> algorithm.tell_blocks(blocks, environment.pull_blocks(blocks.arms, blocks.counts))
        >>> algorithm.n_pulls, algorithm.n_checks, algorithm.ask_blocks().counts.tolist()   # next check at 10
        (5, 1, [1, 1, 1, 1, 1])
        """
        remaining = self._check_askable(max_count)
        planned = self._next_blocks(int(max_count))
        if planned is None:
            return None
        arms, counts, token = planned
        counts = np.array(counts, dtype=np.int64)
        counts.flags.writeable = False
        if counts.ndim != 1 or counts.size != len(arms) or not counts.size or counts.min() < 1 \
                or counts.max() > max_count or counts.sum() > remaining:  # an algorithm's bug, not the caller's
            raise RuntimeError(f"{type(self).__name__}._next_blocks returned blocks outside 1..{max_count} pulls "
                               f"each or more than the {remaining} pulls left")
        blocks = PullBlocks(self._next_id, tuple(arms), counts)
        self._next_id += 1
        self._blocks[blocks.id] = (blocks, token)
        self._order.append(blocks.id)
        self._outstanding += blocks.pulls
        self._journal.ask(max_count, blocks=True)
        return blocks

    def tell_blocks(self, blocks: PullBlocks, rewards, *, sums_of_squares=None) -> None:
        """Record the summed reward of each block of ``blocks`` (from :meth:`ask_blocks`).

        ``rewards[i]`` is the sum of the ``counts[i]`` rewards of block ``i``;
        ``sums_of_squares[i]`` the sum of their squares (required by an algorithm with
        :attr:`needs_square_sums`). A refused call changes nothing.
        """
        if not self.is_set_up:
            self.setup()
        if self._stop_reason is not RUNNING:
            raise ProtocolError(f"{self.label()} has stopped ({self.stop_reason}); it takes no more rewards")
        known = self._blocks.get(blocks.id) if isinstance(blocks, PullBlocks) else None
        if known is None or known[0] is not blocks:
            raise ProtocolError(f"blocks={blocks!r} are not outstanding: tell only what ask_blocks() handed out")
        values, squares = check_block_rewards(rewards, sums_of_squares, blocks.counts)
        self._check_blocks(blocks, values, squares)
        del self._blocks[blocks.id]
        self._journal.tell(blocks.id, values, squares, blocks=True)

        def record() -> None:
            self._outstanding -= blocks.pulls
            self._observe_blocks(known[1], blocks.counts, values, squares)
            self._told += blocks.pulls
            self._largest_reward = max(self._largest_reward, largest_per_pull(values, blocks.counts))

        self._held[blocks.id] = record
        self._record_in_order()

    def abandon(self, pull) -> None:
        """Give up an outstanding pull (or :class:`PullBlocks`) that will never be told (it returns to the design).

        Younger pulls told while it was out are then recorded (see :meth:`tell`). Whether a
        pull is abandoned must not depend on its reward, which is never seen.
        """
        self.setup()
        if isinstance(pull, PullBlocks):
            known = self._blocks.get(pull.id)
            if known is None or known[0] is not pull:
                raise ProtocolError(f"blocks={pull!r} are not outstanding")
            del self._blocks[pull.id]
            self._outstanding -= pull.pulls
            self._release_blocks(known[1], pull.counts)
            self._journal.abandon(pull.id, blocks=True)
        else:
            pull_id = self._resolve(pull)
            handle, token = self._pending.pop(pull_id)
            self._outstanding -= self.cost(handle)
            self._forget_arms(handle)
            self._release(token, handle.count)
            self._journal.abandon(pull_id)
        self._record_in_order()

    def _forget_arms(self, handle: Pull) -> None:
        if self._by_arms is not None:
            ids = self._by_arms[handle.arms]
            ids.remove(handle.id)
            if not ids:
                del self._by_arms[handle.arms]

    def _resolve(self, pull) -> int:
        if isinstance(pull, Pull):
            known = self._pending.get(pull.id)
            if known is None or (known[0] is not pull and known[0] != pull):
                state = "already told or abandoned" if 0 <= pull.id < self._next_id else "never asked"
                raise ProtocolError(f"pull id={pull.id} arms={pull.arms} is {state}")
            return pull.id
        arms = _as_arms(pull)
        if self._by_arms is None:  # the pull path hashes no super-arm until someone tells by arms
            self._by_arms = {}
            for outstanding, _ in self._pending.values():
                self._by_arms.setdefault(outstanding.arms, []).append(outstanding.id)
        ids = self._by_arms.get(arms)
        if not ids:
            raise ProtocolError(f"super_arm={arms} has no outstanding pull: tell only what ask() handed out")
        return ids[0]

    def _check_if_due(self) -> None:
        at_budget = self._told >= self.budget
        if not (at_budget or self._due_for_check()):
            return
        with limited_blas():
            check = self._meaningful(self._evaluate())
            self._last = check
            self._checks += 1
            self._after_check(check)
        if check.stop and self._stops_on_rule():
            self._stop_reason = STOPPING_RULE
        elif at_budget or self._spent_its_schedule():
            self._stop_reason = BUDGET_EXHAUSTED

    def _noise_scale_in_use(self, offered: float | None, *, of: str = "an observed sum") -> float:
        """The ``noise_scale`` parameter, else the scale :meth:`setup` was offered (the environment's).

        Refused, naming the parameter, when neither is set or the value is not a positive
        finite number; ``of`` says what the scale is of, for the message.
        """
        scale = getattr(self, "noise_scale", None)
        scale = scale if scale is not None else offered
        if scale is None:
            raise InvalidParameterError(
                f"{type(self).__name__}: noise_scale is not set: pass noise_scale=R (the sub-Gaussian scale of {of}) "
                "or use fullbandit.run(), which takes it from the environment")
        value = float(scale) if isinstance(scale, numbers.Real) and not isinstance(scale, bool) else math.nan
        if not (math.isfinite(value) and value > 0):
            raise InvalidParameterError(f"noise_scale={scale!r} must be a positive finite number")
        return value

    def known_noise_scale(self) -> float | None:
        """The sub-Gaussian scale of one observation as far as the algorithm knows it (``None``: unknown).

        A hook: an algorithm that resolves a noise scale in :meth:`setup` returns it, and the
        stopping checks then refuse to certify from sums whose rounding reaches a thousandth of
        it (:meth:`_meaningful`). The default knows none.
        """
        return None

    def _spent_its_schedule(self) -> bool:
        """Whether a fixed-budget algorithm has spent what its schedule allots of the budget
        (which may be a little less than ``budget``: e.g. rounded per-arm shares); its run
        then ends as ``"budget exhausted"``. Optional; checked after each evaluation."""
        return False

    def stopping_check(self) -> StoppingCheck:
        """Evaluate the stopping rule now, on the data told so far, without changing any state."""
        self.setup()
        return self._evaluate_limited()

    def _evaluate_limited(self) -> StoppingCheck:
        with limited_blas():
            return self._meaningful(self._evaluate())

    def _meaningful(self, check: StoppingCheck) -> StoppingCheck:
        """``check`` with a gap bound that is an upper bound on a gap: at least 0, and infinite
        (nothing certified) when it is NaN or the data are numerically meaningless.

        Meaningless: the rounding of the told sums can reach a thousandth of one observation's
        noise scale (``2^-52 * largest |reward per pull| * pulls > noise / 1000``, the worst
        case of summing that many rewards): the estimate no longer resolves the noise the
        confidence bounds are about (e.g. one reward of 1e300 among rewards near 1).
        """
        bound = check.gap_bound
        noise = self.known_noise_scale()
        resolution = math.ulp(1.0) * self._largest_reward * max(self._told, 1)
        if math.isnan(bound) or (noise is not None and resolution > noise / 1000.0):
            check.details = {**check.details, "numerically_meaningless": not math.isnan(bound)}
            check.gap_bound = math.inf
        elif bound < 0.0:
            check.details = {**check.details, "unclipped_gap_bound": bound}
            check.gap_bound = 0.0
        return check

    def recommend(self) -> SuperArm | None:
        """The answer: the last check's when it is current or the run is over, else a fresh evaluation.

        ``None`` while the data do not identify the means.
        """
        self.setup()
        if self._last is not None and (self.done or self._last.pulls == self._told):
            return self._last.answer
        return self._evaluate_limited().answer

    def constants(self) -> dict:
        """Constants of the configuration and of the last check (scalars, JSON-friendly)."""
        return {}

    def result(self) -> Result:
        """A :class:`fullbandit.Result` for the run so far (no truth, no wall time)."""
        self.setup()
        check = self._last if self._last is not None and (self.done or self._last.pulls == self._told) \
            else self._evaluate_limited()
        constants = {**self.constants(), **check.details}
        if self.prior is not None:
            constants["prior_observations"] = self.prior.n_observations
        return Result(algorithm=self.label(), answer=check.answer, pulls=self._told, stop_reason=self.stop_reason,
                      guarantee=self.guarantee, gap_bound=check.gap_bound, epsilon=check.epsilon,
                      constants=constants, parameters=dict(self._header["parameters"]), checks=self._checks)


def _check_prior(prior, n: int) -> None:
    if not isinstance(prior, PriorObservations):
        raise TypeError(f"prior must be a fullbandit.core.priors.PriorObservations, got {type(prior).__name__}")
    if prior.n != n:
        raise InvalidParameterError(f"prior observations are of {prior.n} arms but the problem has n={n}")


def _as_arms(arms) -> SuperArm:
    if isinstance(arms, str | bytes) or not hasattr(arms, "__iter__"):
        raise TypeError(f"super_arm={arms!r} must be a sequence of integer arm indices")
    try:
        return tuple(sorted(operator.index(i) for i in arms))
    except TypeError:
        raise TypeError(f"super_arm={tuple(arms)!r} must hold integer arm indices") from None


def _same(a, b) -> bool:
    try:
        return bool(a == b) if type(a) is type(b) or b is None or a is None else False
    except (TypeError, ValueError):
        return False


Callback = Callable[[StoppingCheck], None]
