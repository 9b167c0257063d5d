"""Describing an experiment: algorithms x instances x swept parameters x seeds.

Every run of the grid is a :class:`Cell`. Its seeds are derived from the cell's own
description, never from the worker or the order of execution, so a grid gives the same
rows sequentially, on local processes or on a Dask cluster. The instance (and the
environment's noise) depends only on the instance, its parameters and the seed index, so
every algorithm meets the same instances and the same noise draws (common random
numbers: comparisons between algorithms are paired).
"""

from __future__ import annotations

import itertools
import json
import re
import zlib
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from functools import partial

import numpy as np

from fullbandit.core import registry
from fullbandit.core.algorithm import Algorithm
from fullbandit.core.params import validate_parameters
from fullbandit.experiments.evaluations import BANDIT, Evaluation
from fullbandit.util.validation import InvalidParameterError, check_int


@dataclass(frozen=True)
class Factory:
    """A named factory with parameters to sweep.

    ``make`` must be picklable (a module-level function or a ``functools.partial`` of one)
    so cells can travel to other processes. For an algorithm: ``make(problem, seed, **params)``;
    for an instance: ``make(rng, **params) -> Instance``.
    """

    make: Callable
    sweep: Mapping[str, Iterable] = field(default_factory=dict)

    @classmethod
    def registered(cls, name: str, sweep: Mapping[str, Iterable] | None = None, **options) -> Factory:
        """A factory for the registry entry ``name`` with ``options`` fixed and ``sweep`` swept.

        The entry's declarations (:mod:`fullbandit.core.registry`) are the only source: any
        parameter it declares (:attr:`~fullbandit.core.registry.AlgorithmSpec.options`) may be
        fixed or swept, each value is checked here against the class's ``parameter_constraints``
        (so a wrong name or value fails before any run, not in a worker), and a parameter left
        out takes the default of the class's signature. ``seed`` is the grid's: every run is
        seeded from its cell. The entry travels with the factory, so an algorithm this program
        registered (:func:`~fullbandit.core.registry.register`) also runs in worker processes.

        >>> factory = Factory.registered("icb", {"delta": [0.05, 0.1]}, epsilon=0.1)
        >>> [setting["delta"] for setting in factory.settings()]
        [0.05, 0.1]
        >>> Factory.registered("icb", {"delta": [0.05, 2.0]})
        Traceback (most recent call last):
        ...
        fullbandit.util.validation.InvalidParameterError: icb: delta=2.0 must be a float in (0, 1)
        """
        spec = registry.get(name)  # an unknown name fails here, not in a worker
        swept = {parameter: list(values) for parameter, values in (sweep or {}).items()}
        both = sorted(set(options) & set(swept))
        if both:
            raise InvalidParameterError(f"{spec.name}: {both} are both fixed and swept; give each parameter once")
        for parameter, values in [*((parameter, [value]) for parameter, value in options.items()), *swept.items()]:
            if parameter == "seed":
                raise InvalidParameterError(f"{spec.name}: seed is not a grid parameter; every run is seeded from its "
                                            "cell (Grid.base_seed changes them all)")
            allowed = spec.constraints(parameter)  # an undeclared parameter fails here, naming the declared ones
            for value in values:
                validate_parameters({parameter: allowed}, {parameter: value}, owner=spec.name)
        return cls(partial(build_entry, name=spec.name, algorithm=spec.cls, fixed=dict(spec.fixed), **options), swept)

    def fixed_options(self) -> tuple:
        """The keyword arguments ``make`` was bound with (a :func:`functools.partial`), as sorted ``(name, value)``
        pairs: part of every run's key (:attr:`Cell.key`), so that a grid rerun with another fixed option does not
        take the old rows as its own. Classes and functions are named by their qualified names.

        >>> Factory.registered("icb", {"delta": [0.05]}, epsilon=0.1).fixed_options()[-1]
        ('name', 'icb')
        """
        if not isinstance(self.make, partial):
            return ()
        return tuple(sorted((name, _stable(value)) for name, value in self.make.keywords.items()))

    def settings(self) -> list[dict]:
        names = sorted(self.sweep)
        values = [list(self.sweep[name]) for name in names]
        return [dict(zip(names, combination, strict=True)) for combination in itertools.product(*values)]


def build_registered(problem, seed, *, name: str, **parameters) -> Algorithm:
    """The algorithm registered as ``name`` (in the registry of the process that runs it) for ``problem``."""
    return registry.build(name, problem, seed=seed, **parameters)


def build_entry(problem, seed, *, name: str, algorithm: type[Algorithm], fixed: Mapping, **parameters) -> Algorithm:
    """The registry entry ``name`` (class ``algorithm`` with the ``fixed`` arguments) for ``problem``.

    :meth:`Factory.registered` ships the entry itself rather than its name: a worker process
    has its own registry, without the entries the program added.
    """
    return registry.AlgorithmSpec(name, algorithm, fixed).build(problem, seed=seed, **parameters)


def _stable_hash(text: str) -> int:
    return zlib.crc32(text.encode())


def _canonical(params: Mapping) -> str:
    return json.dumps(dict(params), sort_keys=True, default=str)


def _stable(value):
    """``value`` as the same text in every process: classes and functions by qualified name, partial functions,
    mappings, sequences and sets part by part, anything else by its ``repr`` without memory addresses (``str`` of a
    function holds its address, which differs from one process to the next)."""
    if isinstance(value, partial):
        return {"partial": _stable(value.func), "args": _stable(value.args), "keywords": _stable(value.keywords)}
    if isinstance(value, Mapping):
        return {str(key): _stable(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [_stable(item) for item in value]
    if isinstance(value, (set, frozenset)):  # iteration order follows the process's string hashing
        return sorted((_stable(item) for item in value), key=str)
    if hasattr(value, "__qualname__"):
        return f"{getattr(value, '__module__', '')}.{value.__qualname__}"
    if value is None or isinstance(value, (str, int, float, bool)):
        return value
    return _ADDRESS.sub("", repr(value))


_ADDRESS = re.compile(r" at 0x[0-9a-fA-F]+")


@dataclass(frozen=True)
class Cell:
    """One run: an algorithm with its parameters, on an instance with its parameters, one seed."""

    algorithm: str
    algorithm_params: tuple
    instance: str
    instance_params: tuple
    seed: int
    base_seed: int
    algorithm_fixed: tuple = ()
    instance_fixed: tuple = ()

    @property
    def key(self) -> str:
        """Stable identifier, used to skip finished runs when a grid is resumed.

        It holds the factories' fixed options (:meth:`Factory.fixed_options`) beside the swept
        ones; the seeds do not (they depend on the swept parameters only).
        """
        return "|".join([self.algorithm, _canonical({**dict(self.algorithm_fixed), **dict(self.algorithm_params)}),
                         self.instance, _canonical({**dict(self.instance_fixed), **dict(self.instance_params)}),
                         str(self.seed), str(self.base_seed)])

    def instance_seed(self) -> np.random.SeedSequence:
        """Seed of the instance and its environment: independent of the algorithm."""
        instance_key = self.instance + _canonical(dict(self.instance_params))
        return np.random.SeedSequence([self.base_seed, _stable_hash(instance_key), self.seed])

    def algorithm_seed(self) -> np.random.SeedSequence:
        algorithm_key = self.algorithm + _canonical(dict(self.algorithm_params))
        instance_key = self.instance + _canonical(dict(self.instance_params))
        return np.random.SeedSequence([self.base_seed, _stable_hash(instance_key), self.seed,
                                       _stable_hash(algorithm_key)])


@dataclass(frozen=True)
class Grid:
    """The cartesian product of algorithms, instances, their swept parameters and seeds.

    Parameters
    ----------
    algorithms : mapping of name to Factory or str
        A string is a registry name (:mod:`fullbandit.core.registry`) with the defaults of its
        class's signature (:meth:`Factory.registered`).
    instances : mapping of name to Factory
    seeds : int or iterable of int
        ``runs`` (seeds ``0 .. runs-1``) or explicit seed indices.
    base_seed : int
        Changes every derived seed at once.
    metrics : callable, optional
        ``metrics(result, instance) -> dict`` of extra columns (e.g. aggregate regret).
    evaluation : Evaluation
        What a run measures (default: an identification run, :data:`fullbandit.experiments.evaluations.BANDIT`).
    pairs : callable, optional
        ``pairs(algorithm_name, instance_name) -> bool``: which algorithms meet which
        instances (default: all of them; e.g. only those with the same feedback kind). A
        module-level function, so that the grid can travel to worker processes.
    """

    algorithms: Mapping[str, Factory]
    instances: Mapping[str, Factory]
    seeds: int | Iterable[int] = 10
    base_seed: int = 0
    metrics: Callable | None = None
    evaluation: Evaluation = BANDIT
    pairs: Callable[[str, str], bool] | None = None

    def __post_init__(self):
        if not isinstance(self.evaluation, Evaluation):
            raise TypeError(f"evaluation must be an Evaluation, got {type(self.evaluation).__name__}")
        object.__setattr__(self, "algorithms", {
            name: Factory.registered(factory) if isinstance(factory, str) else factory
            for name, factory in self.algorithms.items()})
        if not self.algorithms:
            raise InvalidParameterError("algorithms must name at least one algorithm factory")
        if not self.instances:
            raise InvalidParameterError("instances must name at least one instance factory")
        for label, factories in (("algorithms", self.algorithms), ("instances", self.instances)):
            for name, factory in factories.items():
                if not isinstance(factory, Factory):
                    raise TypeError(f"{label}[{name!r}] must be a Factory, got {type(factory).__name__}")
        check_int("base_seed", self.base_seed, low=0)

    def seed_indices(self) -> list[int]:
        if isinstance(self.seeds, int):
            return list(range(check_int("seeds", self.seeds, low=1)))
        indices = [check_int("seed", seed, low=0) for seed in self.seeds]
        if len(set(indices)) != len(indices):
            raise InvalidParameterError("seeds must not repeat an index")
        return indices

    def cells(self) -> list[Cell]:
        """Every run, in a fixed order (instances outermost, seeds innermost)."""
        cells = []
        for instance_name, instance in self.instances.items():
            instance_fixed = instance.fixed_options()
            for instance_params in instance.settings():
                for algorithm_name, algorithm in self.algorithms.items():
                    if self.pairs is not None and not self.pairs(algorithm_name, instance_name):
                        continue
                    algorithm_fixed = algorithm.fixed_options()
                    for algorithm_params in algorithm.settings():
                        for seed in self.seed_indices():
                            cells.append(Cell(algorithm_name, tuple(sorted(algorithm_params.items())),
                                              instance_name, tuple(sorted(instance_params.items())),
                                              seed, self.base_seed, algorithm_fixed, instance_fixed))
        return cells
