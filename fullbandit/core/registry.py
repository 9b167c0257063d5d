"""Every algorithm of the toolkit, with its tags: the command line, the sessions, the planner, the
experiment grids and the conformance suite discover algorithms here.

An algorithm says what it is on its class (:class:`fullbandit.core.algorithm.Algorithm`): its
``name``, a one-line ``summary``, its feedback kind, setting and decision classes, and its
parameters with their constraints (``parameter_constraints``) and defaults (the signature). An
entry here (:class:`AlgorithmSpec`) names a class and, for a configuration other than the default,
the constructor arguments that fix it; every tag is read from the class, so none can disagree
with the code.

Where the entries come from
---------------------------
* the algorithm families of this package (:data:`BUILTIN`: ``ALGORITHMS`` of
  :mod:`fullbandit.full` and :mod:`fullbandit.semi`), loaded by name: a look-up of one built-in
  entry by its name (:func:`get`) imports that algorithm's module only (:data:`BUILTIN_ENTRIES`),
  and every other look-up, listing or registration loads them all, once;
* the entry point group ``fullbandit.algorithms`` of every installed distribution: each entry
  names an :class:`Algorithm` subclass, an :class:`AlgorithmSpec` or a sequence of them, e.g. in a
  plugin's ``pyproject.toml``::

      [project.entry-points."fullbandit.algorithms"]
      my-algorithm = "my_package.module:MyAlgorithm"

* :func:`register`, from a program (seen by that program only).

The families and plugins sit above this layer, so they are loaded by name (as entry points are),
never imported here.

Examples
--------
>>> from fullbandit.core import registry
>>> spec = registry.get("icb")
>>> spec.feedback, spec.guarantee, spec.setting
('full', 'certified', 'fixed-confidence')
>>> registry.names(guarantee="heuristic")
('safoa-heuristic',)
>>> registry.get("OptKG").name   # a class name finds its default configuration
'opt-kg'
"""

from __future__ import annotations

import importlib
import warnings
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

from fullbandit.core.algorithm import Algorithm
from fullbandit.problems.classes import DecisionClass
from fullbandit.util.validation import InvalidParameterError

#: The algorithm families of this package: ``module:attribute`` of a sequence of algorithms, loaded by name.
BUILTIN = ("fullbandit.full:ALGORITHMS", "fullbandit.semi:ALGORITHMS")
#: Where each built-in entry is declared, by its name: ``module:attribute`` of the class (or of the
#: :class:`AlgorithmSpec` of a configuration). :func:`get` imports that one module, so that a command that
#: needs one algorithm -- ``fullbandit session record`` replaying its store -- does not import every
#: other with its dependencies. The names are the classes' own; tests/test_startup.py checks this table
#: against the families of :data:`BUILTIN`, so that it cannot drift from them.
BUILTIN_ENTRIES = {
    "saqm": "fullbandit.full.saqm:SAQM", "safoa": "fullbandit.full.safoa:SAFOA",
    "safoa-heuristic": "fullbandit.full.safoa:SAFOA_HEURISTIC", "icb": "fullbandit.full.icb:ICB",
    "exhaustive": "fullbandit.full.exhaustive:Exhaustive", "swap": "fullbandit.full.swap:SwapBound",
    "phased": "fullbandit.full.phased:PhasedSwap",
    "uniform": "fullbandit.semi.sar:Uniform", "sar": "fullbandit.semi.sar:SAR", "nsar": "fullbandit.semi.sar:NSAR",
    "optmai": "fullbandit.semi.optmai:OptMAI", "adaptive-topk": "fullbandit.semi.adaptive_topk:AdaptiveTopK",
    "adaptive-topk-budget": "fullbandit.semi.adaptive_topk:AdaptiveTopKBudget", "lucb": "fullbandit.semi.lucb:LUCB",
    "clucb-pac": "fullbandit.semi.lucb:CLUCB", "lsa": "fullbandit.semi.thresholding:LSA",
    "apt": "fullbandit.semi.thresholding:APT", "ucbe": "fullbandit.semi.thresholding:UCBE",
    "opt-kg": "fullbandit.semi.thresholding:OptKG",
    "threshold-uniform": "fullbandit.semi.thresholding:ThresholdUniform", "at-lucb": "fullbandit.semi.at_lucb:ATLUCB",
}
#: The entry point group through which installed distributions add algorithms.
ENTRY_POINT_GROUP = "fullbandit.algorithms"


@dataclass(frozen=True)
class AlgorithmSpec:
    """A registered algorithm configuration.

    Parameters
    ----------
    name : str
        Registry key (used by ``fullbandit solve --algorithm`` and experiment grids).
    cls : type
        A subclass of :class:`fullbandit.core.algorithm.Algorithm`.
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

    @classmethod
    def of(cls, algorithm: type[Algorithm]) -> AlgorithmSpec:
        """The entry of ``algorithm``'s default configuration: its declared ``name`` and ``summary``."""
        return cls(algorithm.name, algorithm)

    def __post_init__(self):
        if not (isinstance(self.cls, type) and issubclass(self.cls, Algorithm)):
            raise TypeError(f"AlgorithmSpec {self.name!r}: cls must be an Algorithm subclass, got {self.cls!r}")
        unknown = set(self.fixed) - set(self.cls.parameter_names())
        if unknown:
            raise InvalidParameterError(f"AlgorithmSpec {self.name!r}: {sorted(unknown)} are not parameters "
                                        f"of {self.cls.__name__}")
        object.__setattr__(self, "fixed", MappingProxyType(dict(self.fixed)))
        if not self.summary:
            object.__setattr__(self, "summary", self.cls.summary)

    def build(self, problem: DecisionClass, **parameters) -> Algorithm:
        """An instance for ``problem``; ``parameters`` may not override the fixed ones.

        A full-bandit algorithm is refused a class whose super-arms do not span ``R^n``
        (:meth:`fullbandit.problems.classes.DecisionClass.require_spanning_design`), before any pull.
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
    def budget_unit(self) -> str:
        """What ``budget`` counts: ``"pulls"`` of a team or single-arm ``"samples"``."""
        return self.cls.budget_unit()

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

    @property
    def options(self) -> tuple[str, ...]:
        """The constructor parameters a user may set (all but ``problem`` and the fixed ones)."""
        return tuple(name for name in self.cls.parameter_names() if name != "problem" and name not in self.fixed)


    def defaults(self) -> dict:
        """The value each option takes when it is not given: the class's signature, the only source of defaults.

        >>> from fullbandit.core import registry
        >>> registry.get("adaptive-topk-budget").defaults()["delta"]
        0.01
        """
        options = self.options
        return {name: value for name, value in self.cls.parameter_defaults().items() if name in options}

    def constraints(self, option: str) -> list:
        """The declared forms ``option`` may take (:mod:`fullbandit.core.params`)."""
        if option not in self.options:
            raise InvalidParameterError(f"{self.name} takes no parameter {option!r}; its options are "
                                        f"{', '.join(self.options)}")
        return list(self.cls.parameter_constraints[option])


_REGISTRY: dict[str, AlgorithmSpec] = {}
_LOADED = False
_PLUGINS: list[tuple[str, AlgorithmSpec]] | None = None  # the entry points' entries, with each point's value


def _entries(value, source: str) -> list[AlgorithmSpec]:
    """The entries in an entry point's or a family's value: a class, a spec, or a sequence of them."""
    if isinstance(value, AlgorithmSpec):
        return [value]
    if isinstance(value, type) and issubclass(value, Algorithm):
        return [AlgorithmSpec.of(value)]
    if isinstance(value, Iterable) and not isinstance(value, str | bytes):
        return [entry for item in value for entry in _entries(item, source)]
    raise TypeError(f"{source}: an algorithm entry must be an Algorithm subclass, an AlgorithmSpec or a sequence of "
                    f"them, got {value!r}")


def _load_reference(reference: str):
    module, _, attribute = reference.partition(":")
    value: Any = importlib.import_module(module)
    for part in attribute.split("."):
        value = getattr(value, part)
    return value


def _builtin(name: str) -> AlgorithmSpec | None:
    """The built-in entry ``name`` alone (its module and what that imports), or ``None`` if the table is wrong."""
    reference = BUILTIN_ENTRIES[name]
    found = [spec for spec in _entries(_load_reference(reference), reference) if spec.name == name]
    return found[0] if found else None


def _plugins() -> list[tuple[str, AlgorithmSpec]]:
    """The entries of the group ``fullbandit.algorithms``, each with its entry point's value, loaded once.

    A broken plug-in is skipped with a warning.
    """
    global _PLUGINS
    if _PLUGINS is not None:
        return _PLUGINS
    # Imported here, not at the top: importlib.metadata takes 20-40 ms to import (email, zipfile, csv), which
    # a look-up of a built-in entry by name does without.
    from importlib.metadata import entry_points

    plugins: list[tuple[str, AlgorithmSpec]] = []
    seen: set[str] = set()
    for point in entry_points(group=ENTRY_POINT_GROUP):
        if point.value in BUILTIN or point.value in seen:  # an installed copy of this package, or a duplicate
            continue
        seen.add(point.value)
        try:
            plugins.extend((point.value, spec) for spec in _entries(point.load(), f"entry point {point.name} = "
                                                                                  f"{point.value}"))
        except Exception as error:  # a broken plugin must not take the toolkit down with it
            warnings.warn(f"fullbandit: the algorithm plug-in {point.name} = {point.value} is skipped: {error}",
                          stacklevel=3)
    _PLUGINS = plugins
    return plugins


def _load() -> None:
    """Fill the registry from the built-in families, then from the entry points, once."""
    global _LOADED
    if _LOADED:
        return
    _LOADED = True
    loaded: dict[str, AlgorithmSpec] = {}
    for reference in BUILTIN:
        for spec in _entries(_load_reference(reference), reference):
            loaded[spec.name] = spec
    for value, spec in _plugins():
        if spec.name in loaded and loaded[spec.name].cls is not spec.cls:
            warnings.warn(f"fullbandit: the algorithm plug-in {value} names {spec.name!r}, which is taken by "
                          f"{loaded[spec.name].cls.__qualname__}; it is skipped", stacklevel=2)
            continue
        loaded[spec.name] = spec
    for name, spec in loaded.items():  # entries a program registered before the first look-up come first
        _REGISTRY.setdefault(name, spec)


def register(spec: AlgorithmSpec | type[Algorithm], *, replace: bool = False) -> AlgorithmSpec:
    """Add an entry (or a class's default configuration); ``replace=True`` overwrites one of the same name.

    Seen by this program only; a distribution reaches every program (and the command line) through
    the entry point group ``fullbandit.algorithms``.
    """
    if isinstance(spec, type) and issubclass(spec, Algorithm):
        spec = AlgorithmSpec.of(spec)
    if not isinstance(spec, AlgorithmSpec):
        raise TypeError(f"register takes an AlgorithmSpec or an Algorithm subclass, got {type(spec).__name__}")
    _load()
    if spec.name in _REGISTRY and not replace:
        raise InvalidParameterError(f"an algorithm named {spec.name!r} is already registered")
    _REGISTRY[spec.name] = spec
    return spec


def unregister(name: str) -> None:
    """Remove an entry (for plug-ins and tests)."""
    _load()  # every entry first: a built-in one loaded later would come back
    del _REGISTRY[get(name).name]


def get(name: str) -> AlgorithmSpec:
    """The entry called ``name``, or the default configuration of the class called ``name`` (``"OptKG"``).

    A built-in entry's name, before anything loaded every entry, imports that algorithm's module only
    (:data:`BUILTIN_ENTRIES`): the same entry a full load finds, since a plug-in cannot take a built-in's
    name and :func:`register` loads every entry before it adds one.
    """
    if name in _REGISTRY:
        return _REGISTRY[name]
    if not _LOADED and name in BUILTIN_ENTRIES:
        spec = _builtin(name)
        if spec is not None:
            _REGISTRY[name] = spec  # kept: the full load keeps an entry already there
            return spec
    _load()
    if name in _REGISTRY:
        return _REGISTRY[name]
    by_class = [spec for spec in _REGISTRY.values() if spec.cls.__name__ == name and not spec.fixed]
    if len(by_class) == 1:
        return by_class[0]
    raise InvalidParameterError(f"algorithm={name!r} is not one of the registered algorithms: "
                                f"{', '.join(sorted(_REGISTRY))}")


def names(*, feedback: str | None = None, guarantee: str | None = None, setting: str | None = None,
          problem: DecisionClass | None = None) -> tuple[str, ...]:
    """Registered names, sorted, filtered by tags (and by support of ``problem``'s class).

    Every name, unfiltered, is listed without importing the algorithms (the command line's help lists
    them): the built-in table's, the plug-ins' and any a program registered.
    """
    if not _LOADED and feedback is None and guarantee is None and setting is None and problem is None:
        return tuple(sorted(set(BUILTIN_ENTRIES) | {spec.name for _, spec in _plugins()} | set(_REGISTRY)))
    _load()
    return tuple(sorted(name for name, spec in _REGISTRY.items()
                        if (feedback is None or spec.feedback == feedback)
                        and (guarantee is None or spec.guarantee == guarantee)
                        and (setting is None or spec.setting == setting)
                        and (problem is None or spec.supports(problem))))


def specs() -> tuple[AlgorithmSpec, ...]:
    """Every entry, sorted by name."""
    _load()
    return tuple(_REGISTRY[name] for name in sorted(_REGISTRY))


def build(name: str, problem: DecisionClass, **parameters) -> Algorithm:
    """``get(name).build(problem, **parameters)``."""
    return get(name).build(problem, **parameters)
