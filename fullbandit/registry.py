"""Every algorithm of the toolkit, with its tags: the command line, the experiment runner
and the conformance suite discover algorithms here.

An entry names a class and the constructor arguments that fix its configuration. The
tags (feedback kind, guarantee, setting, decision classes, options) are read from the class
and the configured instance, so they cannot disagree with the code.

Adding an algorithm is one module and one call::

    register(AlgorithmSpec("my-algorithm", MyAlgorithm, summary="what it does"))

Examples
--------
>>> from fullbandit import registry
>>> spec = registry.get("icb")
>>> spec.feedback, spec.guarantee, spec.setting
('full', 'certified', 'fixed-confidence')
>>> registry.names(guarantee="heuristic")
('safoa-heuristic',)
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

from fullbandit._validation import InvalidParameterError
from fullbandit.base import Algorithm
from fullbandit.full import ICB, SAFOA, SAQM, Exhaustive, PhasedSwap, SwapBound
from fullbandit.problem import DecisionClass
from fullbandit.semi import (
    APT,
    ATLUCB,
    CLUCB,
    LSA,
    LUCB,
    NSAR,
    SAR,
    UCBE,
    AdaptiveTopK,
    AdaptiveTopKBudget,
    OptKG,
    OptMAI,
    ThresholdUniform,
    Uniform,
)


@dataclass(frozen=True)
class AlgorithmSpec:
    """A registered algorithm configuration.

    Parameters
    ----------
    name : str
        Registry key (used by ``fullbandit solve --algorithm`` and experiment grids).
    cls : type
        A subclass of :class:`fullbandit.base.Algorithm`.
    fixed : mapping
        Constructor arguments that define this configuration (e.g. ``mode="heuristic"``);
        the key of a class's default configuration has none.
    summary : str
        One line for listings.

    Examples
    --------
    >>> from fullbandit import TopK, registry
    >>> spec = registry.get("safoa-heuristic")
    >>> spec.fixed["mode"], "mode" in spec.options
    ('heuristic', False)
    >>> spec.build(TopK(5, 2), epsilon=0.1)
    SAFOA(problem=TopK(n=5, k=2), mode='heuristic', epsilon=0.1)
    """

    name: str
    cls: type[Algorithm]
    fixed: Mapping = field(default_factory=dict)
    summary: str = ""

    def __post_init__(self):
        if not (isinstance(self.cls, type) and issubclass(self.cls, Algorithm)):
            raise TypeError(f"AlgorithmSpec {self.name!r}: cls must be an Algorithm subclass, got {self.cls!r}")
        unknown = set(self.fixed) - set(self.cls.parameter_names())
        if unknown:
            raise InvalidParameterError(f"AlgorithmSpec {self.name!r}: {sorted(unknown)} are not parameters "
                                        f"of {self.cls.__name__}")
        object.__setattr__(self, "fixed", MappingProxyType(dict(self.fixed)))

    def build(self, problem: DecisionClass, **parameters) -> Algorithm:
        """An instance for ``problem``; ``parameters`` may not override the fixed ones.

        A full-bandit algorithm is refused a class whose super-arms do not span ``R^n``
        (:meth:`fullbandit.problem.DecisionClass.require_spanning_design`), before any pull.
        """
        clash = set(parameters) & set(self.fixed)
        if clash:
            raise InvalidParameterError(f"{self.name} fixes {sorted(clash)}; choose another registry entry")
        unknown = set(parameters) - set(self.options)
        if unknown:
            raise InvalidParameterError(f"{self.name} takes no parameter(s) {sorted(unknown)}; its options are "
                                        f"{', '.join(self.options)}")
        if self.feedback == "full" and isinstance(problem, DecisionClass):
            problem.require_spanning_design()
        factory: Any = self.cls  # a concrete subclass, whose signature mypy cannot see here
        return factory(problem, **self.fixed, **parameters)

    def _example(self) -> Algorithm:
        # Constructors only store their arguments, so a placeholder problem is harmless here.
        factory: Any = self.cls
        return factory(None, **self.fixed)

    @property
    def feedback(self) -> str:
        """``"full"`` or ``"semi"``."""
        return self.cls.feedback

    @property
    def setting(self) -> str:
        """``"fixed-confidence"`` or ``"fixed-budget"``."""
        return self.cls.setting

    @property
    def guarantee(self) -> str:
        """``"certified"``, ``"heuristic"`` or ``"fixed-budget"`` for this configuration."""
        return self._example().guarantee

    @property
    def decision_classes(self) -> tuple[type, ...]:
        return self.cls.decision_classes

    def supports(self, problem: DecisionClass) -> bool:
        """Whether ``problem``'s decision class is one this algorithm handles."""
        return isinstance(problem, self.decision_classes)

    def epsilon_from_sum(self, epsilon: float, k: int) -> float:
        """The algorithm's ``epsilon`` for a tolerance ``epsilon`` on the team's sum of ``k`` members.

        The same number, except for an algorithm whose tolerance is per member (class attribute
        ``epsilon_per_member``, e.g. AdaptiveTopK's aggregate regret): ``epsilon / k``.

        >>> from fullbandit import registry
        >>> registry.get("adaptive-topk").epsilon_from_sum(0.5, 10), registry.get("lucb").epsilon_from_sum(0.5, 10)
        (0.05, 0.5)
        """
        return epsilon / k if getattr(self.cls, "epsilon_per_member", False) else epsilon

    @property
    def options(self) -> tuple[str, ...]:
        """The constructor parameters a user may set (all but ``problem`` and the fixed ones)."""
        return tuple(name for name in self.cls.parameter_names() if name != "problem" and name not in self.fixed)


_REGISTRY: dict[str, AlgorithmSpec] = {}


def register(spec: AlgorithmSpec, *, replace: bool = False) -> AlgorithmSpec:
    """Add ``spec`` to the registry (``replace=True`` to overwrite an entry of the same name)."""
    if not isinstance(spec, AlgorithmSpec):
        raise TypeError(f"register takes an AlgorithmSpec, got {type(spec).__name__}")
    if spec.name in _REGISTRY and not replace:
        raise InvalidParameterError(f"an algorithm named {spec.name!r} is already registered")
    _REGISTRY[spec.name] = spec
    return spec


def unregister(name: str) -> None:
    """Remove an entry (for plugins and tests)."""
    get(name)
    del _REGISTRY[name]


def get(name: str) -> AlgorithmSpec:
    """The entry called ``name``."""
    if name not in _REGISTRY:
        raise InvalidParameterError(f"algorithm={name!r} is not one of the registered algorithms: "
                                    f"{', '.join(sorted(_REGISTRY))}")
    return _REGISTRY[name]


def names(*, feedback: str | None = None, guarantee: str | None = None, setting: str | None = None,
          problem: DecisionClass | None = None) -> tuple[str, ...]:
    """Registered names, sorted, filtered by tags (and by support of ``problem``'s class)."""
    return tuple(sorted(name for name, spec in _REGISTRY.items()
                        if (feedback is None or spec.feedback == feedback)
                        and (guarantee is None or spec.guarantee == guarantee)
                        and (setting is None or spec.setting == setting)
                        and (problem is None or spec.supports(problem))))


def specs() -> tuple[AlgorithmSpec, ...]:
    """Every entry, sorted by name."""
    return tuple(_REGISTRY[name] for name in sorted(_REGISTRY))


def build(name: str, problem: DecisionClass, **parameters) -> Algorithm:
    """``get(name).build(problem, **parameters)``."""
    return get(name).build(problem, **parameters)


register(AlgorithmSpec("saqm", SAQM, summary="Kuroki et al. 2020, Algorithm 2: static allocation, "
                                             "confidence-ellipsoid maximisation through DkS"))
register(AlgorithmSpec("safoa", SAFOA, summary="Kuroki et al. 2020, Algorithm 3, stopping on a certified upper "
                                               "bound of the gap objective (5)"))
register(AlgorithmSpec("safoa-heuristic", SAFOA, {"mode": "heuristic"},
                       summary="Kuroki et al. 2020, Algorithm 3 as published: stops on a lower bound of (5), "
                               "no guarantee"))
register(AlgorithmSpec("icb", ICB, summary="Kuroki et al. 2020, Appendix A: independent confidence bounds, any "
                                           "class with a linear oracle"))
register(AlgorithmSpec("exhaustive", Exhaustive, summary="Kuroki et al. 2020, Appendix E: exact gap objective (5) "
                                                         "by enumeration"))
register(AlgorithmSpec("swap", SwapBound, summary="Issue 9: min of certified gap bounds over swap directions, top-k"))
register(AlgorithmSpec("phased", PhasedSwap, summary="Issue 9: adaptive phases that accept and reject arms and "
                                                 "re-design around the undecided swaps, top-k"))
register(AlgorithmSpec("uniform", Uniform, summary="Per-arm baseline: the budget split evenly over the arms, then the "
                                                   "empirical top-k (fixed budget)"))
register(AlgorithmSpec("sar", SAR, summary="Bubeck, Wang, Viswanathan 2013, Algorithm 3: successive accepts and "
                                           "rejects (per-arm, fixed budget)"))
register(AlgorithmSpec("nsar", NSAR, summary="Shahrampour and Tarokh, Fig. 1: SAR with round lengths ~ (T - n) / "
                                             "(C_p (n - r + 1)^p), p in (0, 2] (per-arm, fixed budget)"))
register(AlgorithmSpec("optmai", OptMAI, summary="Zhou, Chen, Li 2014, Algorithms 1-3: Quartile-Elimination then "
                                               "Accept-Reject rounds, fixed budget of samples, semi-bandit"))
register(AlgorithmSpec("adaptive-topk", AdaptiveTopK, summary="Chen et al. 2017, Algorithm 1: per-arm rounds of "
                                                             "accuracy 2^-r, accept/reject by empirical gap"))
register(AlgorithmSpec("adaptive-topk-budget", AdaptiveTopKBudget,
                       summary="Chen et al. 2017, section 3: Algorithm 1 without its outer loop, to a fixed budget"))
register(AlgorithmSpec("lucb", LUCB, summary="Kalyanakrishnan et al. 2012, LUCB1: per-arm samples of the two critical "
                                             "arms, top-k (tolerance on the sum split over min(k, n-k) swaps)"))
register(AlgorithmSpec("clucb-pac", CLUCB, summary="Chen et al. 2014, CLUCB-PAC for top-k: per-arm samples where the "
                                                   "optimistic top-k differs, sum-gap tolerance"))
register(AlgorithmSpec("lsa", LSA, summary="Tao et al. 2019, Algorithm 1: thresholding, argmin alpha T_i "
                                           "Delta_i^2 + 0.5 ln T_i (per-arm, anytime, fixed budget)"))
register(AlgorithmSpec("apt", APT, summary="Locatelli et al. 2016, Algorithm 1: thresholding, argmin "
                                           "sqrt(T_i) (Delta_i + epsilon) (per-arm, anytime, fixed budget)"))
register(AlgorithmSpec("ucbe", UCBE, summary="Audibert & Bubeck 2010 UCB-E for thresholding (Tao et al. 2019, "
                                             "sec. 5): argmin Delta_i - sqrt(a / T_i), a = 4^b (T - K) / H"))
register(AlgorithmSpec("opt-kg", OptKG, summary="Chen, Lin, Zhou 2015: optimistic knowledge gradient on Beta "
                                                "posteriors, thresholding (per-arm, anytime, fixed budget)"))
register(AlgorithmSpec("threshold-uniform", ThresholdUniform,
                       summary="Tao et al. 2019, sec. 5 Uniform: round robin, then the empirical classification"))
register(AlgorithmSpec("at-lucb", ATLUCB, summary="Jun and Nowak 2016, AT-LUCB: LUCB1's critical arms at a stage-wise "
                                                  "confidence delta1 alpha^(s-1), anytime top-k (run to a budget)"))
