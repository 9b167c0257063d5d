"""The machinery every static full-bandit algorithm shares: support, tracking, statistics,
stopping schedule, budget, ask/tell, and saved state.

A subclass supplies the stopping rule (:meth:`StaticFullBandit._evaluate_stopping`) and the
size of its union bound (:meth:`StaticFullBandit._n_directions`).
"""

from __future__ import annotations

import json
import math
import os
import tempfile
from abc import ABC, abstractmethod
from dataclasses import dataclass, field

import numpy as np

from fullbandit._validation import (InvalidParameterError, as_generator, check_choice, check_finite_reward,
                                    check_int, check_probability, check_real)
from fullbandit.allocation import Tracker, g_optimal_allocation, make_support
from fullbandit.estimation import (CONFIDENCE_CONSTANTS, LeastSquaresEstimate, SingularDesignError, StaticDesign,
                                   confidence_radius)
from fullbandit.problem import DecisionClass, SuperArm, decision_class_from_dict
from fullbandit.result import BUDGET_EXHAUSTED, STOPPING_RULE, Result

DEFAULT_BUDGET = 10_000_000
ALLOCATIONS = ("uniform", "g-optimal")
G_OPTIMAL_DROP = 1e-4  # G-optimal weights below this fraction of the largest are dropped
STATE_VERSION = 3


@dataclass
class StoppingCheck:
    """One evaluation of a stopping rule: stop when ``statistic >= threshold``."""

    pulls: int
    stop: bool
    statistic: float
    threshold: float
    answer: SuperArm
    details: dict = field(default_factory=dict)


class StaticFullBandit(ABC):
    """Base of the static full-bandit algorithms (uniform allocation over a fixed support).

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
        takes it from the environment; with ask/tell you must set it.
    confidence : {"tight", "paper"}
        Which constant ``C_t`` (:func:`fullbandit.estimation.confidence_radius`).
    support : {"auto", "cyclic", "random"} or sequence of super-arms
        The support of the uniform allocation (:func:`fullbandit.allocation.make_support`),
        or an explicit list of super-arms spanning R^n.
    support_size : int, optional
        Size of a random support (default ``4 n``).
    allocation : {"uniform", "g-optimal"}
        Proportions over the support: equal, or the G-optimal design over it
        (:func:`fullbandit.allocation.g_optimal_allocation`, Appendix D; members whose
        optimal weight is below ``1e-4`` of the largest are dropped when the rest still
        span R^n).
    budget : int
        Pull cap: the run ends with ``"budget exhausted"`` (no guarantee) if the stopping
        rule has not fired after ``budget`` pulls.
    check_growth : float
        Stopping-check schedule: after a check at ``t`` pulls the next is at
        ``max(t + 1, ceil((1 + check_growth) t))``. The confidence bound holds for all ``t``
        at once, so skipping checks keeps the guarantee; it costs at most a factor
        ``1 + check_growth`` in pulls and makes the number of checks O(log(T) / check_growth).
    seed : None, int, SeedSequence or Generator
        The one source of randomness (a random support).
    """

    name = "static"

    def __init__(self, problem: DecisionClass, *, epsilon: float = 0.0, delta: float = 0.05,
                 noise_scale: float | None = None, confidence: str = "tight", support="auto",
                 support_size: int | None = None, budget: int = DEFAULT_BUDGET,
                 check_growth: float = 0.05, seed=None, allocation: str = "uniform", proportions=None):
        if not isinstance(problem, DecisionClass):
            raise TypeError(f"problem must be a DecisionClass such as TopK, got {type(problem).__name__}")
        self.problem = problem
        self.epsilon = check_real("epsilon", epsilon, low=0.0)
        self.delta = check_probability("delta", delta)
        self.noise_scale = None if noise_scale is None else check_real(
            "noise_scale", noise_scale, low=0.0, low_inclusive=False)
        self.confidence = check_choice("confidence", confidence, CONFIDENCE_CONSTANTS)
        self.budget = check_int("budget", budget, low=1)
        self.check_growth = check_real("check_growth", check_growth, low=0.0)
        self.support_size = support_size
        self.allocation = check_choice("allocation", allocation, ALLOCATIONS)
        self._rng = as_generator(seed)
        n, k = problem.n, problem.k
        if isinstance(support, str):
            self.support = support
            arms = make_support(n, k, support, self._rng, support_size, problem=problem)
        else:
            self.support = "explicit"
            arms = [problem.check_super_arm(arm, "support member") for arm in support]
            if len(set(arms)) != len(arms):
                raise InvalidParameterError("support must not repeat a super-arm")
        rank = np.linalg.matrix_rank(StaticDesign(n, arms).matrix)
        if rank < n:
            raise SingularDesignError(f"support spans rank {rank} < n={n}: theta is not identifiable from it")
        if proportions is None:
            arms, proportions = _proportions(n, arms, self.allocation)
        self._design = StaticDesign(n, arms)
        self._member_of = {arm: j for j, arm in enumerate(self._design.support)}
        self._proportions = np.asarray(proportions, dtype=float)
        self._tracker = Tracker(self._proportions)
        self._next_check = len(arms)  # every member pulled once: A_t is invertible
        self._last: StoppingCheck | None = None
        self._stop_reason: str | None = None
        self.checks = 0

    # --- what subclasses provide -----------------------------------------------------
    @abstractmethod
    def _evaluate_stopping(self, estimate: LeastSquaresEstimate, radius: float) -> StoppingCheck:
        """Evaluate the stopping rule on the current estimate with confidence radius ``C_t``."""

    @abstractmethod
    def _n_directions(self) -> int:
        """Size ``|X|`` of the union bound behind ``C_t``."""

    def _mode(self) -> dict:
        """Constants describing the algorithm's mode, recorded in every result."""
        return {}

    # --- ask / tell --------------------------------------------------------------------
    @property
    def n_pulls(self) -> int:
        """Rewards told so far."""
        return self._design.pulls

    @property
    def done(self) -> bool:
        """Whether the stopping rule fired or the budget is spent."""
        return self._stop_reason is not None

    @property
    def stop_reason(self) -> str | None:
        return self._stop_reason

    @property
    def last_check(self) -> StoppingCheck | None:
        """The most recent evaluation of the stopping rule."""
        return self._last

    @property
    def support_arms(self) -> tuple[SuperArm, ...]:
        """The super-arms of the design."""
        return self._design.support

    def _require_noise_scale(self) -> float:
        if self.noise_scale is None:
            raise InvalidParameterError(
                "noise_scale is not set: pass noise_scale=R (the sub-Gaussian scale of an observed sum) "
                "or use fullbandit.run(), which takes it from the environment")
        return self.noise_scale

    def ask(self) -> SuperArm:
        """The next super-arm to pull (a sorted tuple of arm indices)."""
        if self.done:
            raise RuntimeError(f"{self.name} has stopped ({self._stop_reason}); call recommend()")
        self._require_noise_scale()
        return self._design.support[self._tracker.advance()]

    def tell(self, super_arm, reward) -> None:
        """Record the observed summed ``reward`` of ``super_arm`` (a member of the support)."""
        if self.done:
            raise RuntimeError(f"{self.name} has stopped ({self._stop_reason}); it takes no more rewards")
        member = self._member_of.get(super_arm if type(super_arm) is tuple else
                                     tuple(sorted(int(i) for i in super_arm)))
        if member is None:
            raise InvalidParameterError(
                f"super_arm={tuple(super_arm)!r} is not in the design's support; a static algorithm "
                "only learns from the super-arms it was built with (see support_arms)")
        reward = check_finite_reward(reward)
        self._design.record(member, reward)
        t = self._design.pulls
        if t >= self._next_check or t >= self.budget:
            self._check(t)

    def _check(self, t: int) -> None:
        estimate = self._design.estimate()
        radius = _radius(self, t)
        self._last = self._evaluate_stopping(estimate, radius)
        self.checks += 1
        if self._last.stop:
            self._stop_reason = STOPPING_RULE
        elif t >= self.budget:
            self._stop_reason = BUDGET_EXHAUSTED
        self._next_check = max(t + 1, math.ceil((1.0 + self.check_growth) * t))

    def recommend(self) -> SuperArm:
        """The answer: the stopped answer, else the current empirical best super-arm."""
        if self._last is not None and (self.done or self._last.pulls == self.n_pulls):
            return self._last.answer
        return self.problem.best(self._design.estimate().theta)

    def constants(self) -> dict:
        """Confidence constants, noise scale, union bound and the last stopping statistic."""
        constants = {"confidence": self.confidence, "noise_scale": self.noise_scale,
                     "delta": self.delta, "epsilon": self.epsilon,
                     "union_bound": self._n_directions(), "support": self.support, "allocation": self.allocation,
                     "support_size": len(self._design.support), **self._mode()}
        if self._last is not None:
            constants.update({"statistic": self._last.statistic, "threshold": self._last.threshold,
                              **self._last.details})
        return constants

    def result(self) -> Result:
        """A :class:`fullbandit.Result` for the run so far (no truth, no wall time)."""
        return Result(algorithm=self.name, answer=self.recommend(), pulls=self.n_pulls,
                      stop_reason=self._stop_reason or "running", constants=self.constants(),
                      checks=self.checks)

    # --- saved state -------------------------------------------------------------------
    def _parameters(self) -> dict:
        return {"epsilon": self.epsilon, "delta": self.delta, "noise_scale": self.noise_scale,
                "confidence": self.confidence, "budget": self.budget, "check_growth": self.check_growth,
                "allocation": self.allocation}

    def get_state(self) -> dict:
        """Everything needed to resume this run exactly (JSON-serialisable)."""
        return {
            "version": STATE_VERSION, "class": type(self).__name__, "name": self.name,
            "problem": self.problem.to_dict(),
            "parameters": self._parameters(), "support_kind": self.support,
            "support": [list(arm) for arm in self._design.support],
            "proportions": self._proportions.tolist(), "allocated": self._tracker.counts.tolist(), "counts": self._design.counts.tolist(),
            "reward_sums": [float(x) for x in self._design.reward_sums], "pulls": self._design.pulls,
            "next_check": self._next_check, "checks": self.checks, "stop_reason": self._stop_reason,
            "last_check": None if self._last is None else {
                "pulls": self._last.pulls, "stop": self._last.stop, "statistic": self._last.statistic,
                "threshold": self._last.threshold, "answer": list(self._last.answer),
                "details": self._last.details},
            "rng": self._rng.bit_generator.state,
        }

    @classmethod
    def from_state(cls, state: dict):
        """Rebuild an algorithm from :meth:`get_state`'s output."""
        if state.get("version") != STATE_VERSION or state.get("class") != cls.__name__:
            raise InvalidParameterError(
                f"state is for {state.get('class')!r} version {state.get('version')!r}, "
                f"not {cls.__name__} version {STATE_VERSION}")
        algorithm = cls(decision_class_from_dict(state["problem"]), support=[tuple(a) for a in state["support"]],
                        proportions=state["proportions"], **state["parameters"])
        algorithm.support = state["support_kind"]
        algorithm._tracker = Tracker(algorithm._proportions, counts=state["allocated"])
        algorithm._design.counts[:] = state["counts"]
        algorithm._design.reward_sums[:] = state["reward_sums"]
        algorithm._design.pulls = state["pulls"]
        algorithm._next_check = state["next_check"]
        algorithm.checks = state["checks"]
        algorithm._stop_reason = state["stop_reason"]
        last = state["last_check"]
        if last is not None:
            algorithm._last = StoppingCheck(last["pulls"], last["stop"], last["statistic"], last["threshold"],
                                            tuple(last["answer"]), last["details"])
        bit_generator = getattr(np.random, state["rng"]["bit_generator"])()
        bit_generator.state = state["rng"]
        algorithm._rng = np.random.Generator(bit_generator)
        return algorithm

    def save(self, path) -> None:
        """Write the state to ``path`` atomically (a crash leaves the old file or the new one, never half)."""
        directory = os.path.dirname(os.path.abspath(path))
        state = self.get_state()
        handle = tempfile.NamedTemporaryFile("w", dir=directory, delete=False, suffix=".tmp")
        try:
            with handle:
                json.dump(state, handle)
                handle.flush()
                os.fsync(handle.fileno())
            os.replace(handle.name, path)
        except BaseException:
            os.unlink(handle.name)
            raise

    @classmethod
    def load(cls, path):
        """Read a state written by :meth:`save`."""
        with open(path) as handle:
            return cls.from_state(json.load(handle))


def _proportions(n: int, arms, allocation: str):
    """The support members kept and their proportions for the chosen allocation."""
    if allocation == "uniform":
        return arms, np.ones(len(arms))
    weights = g_optimal_allocation(n, arms)
    keep = weights >= G_OPTIMAL_DROP * weights.max()
    kept = [arm for arm, flag in zip(arms, keep) if flag]
    if np.linalg.matrix_rank(StaticDesign(n, kept).matrix) < n:
        return arms, weights
    return kept, weights[keep]


def _radius(algorithm: StaticFullBandit, t: int) -> float:
    return confidence_radius(t, algorithm.delta, algorithm._require_noise_scale(),
                             algorithm._n_directions(), algorithm.confidence)
