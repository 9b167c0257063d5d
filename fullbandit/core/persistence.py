"""Saving and loading a run: its record (:mod:`fullbandit.core.journal`) as a versioned state,
written atomically and replayed on load, refusing anything edited.

A state holds the record's ``header`` (how the algorithm was made: its class path, its
parameters with a record of the seed that reproduces the run, what ``setup`` was offered), the
``journal`` of every accepted call, ``digests`` that bind both, and a ``summary`` of where the run
stands, which loading checks against the replay. :class:`Persistent` gives
:class:`fullbandit.core.algorithm.Algorithm` (which inherits it) its ``get_state``,
``from_state``, ``save`` and ``load``. This module reads an algorithm only through
:class:`Recordable`, so it never imports the protocol, which imports it.
"""

from __future__ import annotations

import importlib
import inspect
import math
import numbers
import sys
from collections.abc import Mapping
from typing import Any, Protocol, TypeVar

import numpy as np

from fullbandit.core.journal import Journal, Replayable, canonical_digest
from fullbandit.core.priors import PriorObservations
from fullbandit.core.result import StopReason
from fullbandit.problems.classes import DecisionClass, decision_class_from_dict
from fullbandit.util.state import StateError, StateReader, read_json_object, write_json_atomically
from fullbandit.util.validation import InvalidParameterError, as_generator

STATE_FORMAT = "fullbandit-state"
#: Version 5: the file is the run's record (header and journal of calls), replayed on load.
STATE_VERSION = 5


class Recordable(Replayable, Protocol):
    """What saving and loading use of an algorithm: the members of :class:`fullbandit.core.algorithm.Algorithm`
    they read, named structurally (the protocol inherits :class:`Persistent`, so it is not imported here)."""

    _header: dict
    _journal: Journal
    _told: int
    _checks: int
    _last: Any
    _stop_reason: StopReason
    _pending: dict[int, Any]
    _blocks: dict[int, Any]
    _held: dict[int, Any]

    @classmethod
    def parameter_names(cls) -> tuple[str, ...]: ...

    def setup(self, *, noise_scale: float | None = ..., reward_range: Any = ..., prior: Any = ...) -> Any: ...

    def _validate(self) -> None: ...

    def _summary_of_record(self) -> dict: ...

    # And the methods of Persistent that call each other (a subclass may override them).
    def get_state(self) -> dict: ...

    @classmethod
    def from_state(cls, state: Mapping, *, source: str = ...) -> Any: ...


AlgorithmT = TypeVar("AlgorithmT", bound=Recordable)


class Persistent:
    """The saved state of an algorithm: :class:`fullbandit.core.algorithm.Algorithm` inherits these methods."""

    def get_state(self: Recordable) -> dict:
        """The run's record (JSON-serialisable): enough to replay it exactly (:mod:`fullbandit.core.journal`).

        ``header`` says how the algorithm was made (class, parameters with the seed that
        reproduces the run, what :meth:`~fullbandit.core.algorithm.Algorithm.setup` was
        offered) and ``journal`` every accepted call since. ``digests`` bind both, and
        ``summary`` (where the run stands) is a cache that :meth:`from_state` checks against
        the replay, so an edited file is refused naming the field. Outstanding pulls and
        blocks are part of the record: after a load they are outstanding again
        (:meth:`~fullbandit.core.algorithm.Algorithm.outstanding_pull`).
        """
        self.setup()
        return {"format": STATE_FORMAT, "version": STATE_VERSION, "header": self._header,
                "journal": self._journal.to_dict(),
                "digests": {"header": canonical_digest(self._header), "journal": self._journal.digest()},
                "summary": self._summary_of_record()}

    def _summary_of_record(self: Recordable) -> dict:
        last = self._last
        return {"told": self._told, "checks": self._checks, "stop_reason": str(self._stop_reason),
                "outstanding": sorted([*self._pending, *self._blocks]), "held": sorted(self._held),
                "answer": None if last is None or last.answer is None else list(last.answer),
                "gap_bound": None if last is None else json_float(last.gap_bound)}

    @classmethod
    def from_state(cls: type[AlgorithmT], state: Mapping, *, source: str = "state") -> AlgorithmT:
        """Replay a record from :meth:`get_state`, refusing anything edited or inconsistent.

        The class is found by its module path (importing the module if it is part of
        fullbandit, so a record loads in a new process). Errors are :class:`StateError`
        naming ``source`` and the offending field.
        """
        reader = StateReader(state, source)
        if reader.get("format", str) != STATE_FORMAT:
            raise StateError(f"{source}: not a fullbandit state (format={state.get('format')!r})")
        version = reader.get("version", int)
        if version != STATE_VERSION:
            raise StateError(f"{source}: state version {version} is not the supported version {STATE_VERSION} "
                             "(a record of the run, replayed on load)")
        header = reader.get("header", dict)
        journal = Journal.from_dict(reader.get("journal", dict), source)
        digests = reader.child("digests")
        if digests.get("header", str) != canonical_digest(header):
            raise StateError(f"{source}: field 'header' was changed after it was saved (its digest does not match)")
        if digests.get("journal", str) != journal.digest():
            raise StateError(f"{source}: field 'journal' was changed after it was saved (its digest does not match)")
        algorithm = _build_from_header(cls, StateReader(header, source, "header."))
        journal.replay(algorithm, source)
        stored = reader.get("summary", dict)
        for name, value in algorithm._summary_of_record().items():
            if stored.get(name) != value:
                raise StateError(f"{source}: field 'summary.{name}' is {stored.get(name)!r} but replaying the "
                                 f"journal gives {value!r}: the file was edited")
        return algorithm

    def save(self: Recordable, path) -> None:
        """Write the run's record to ``path`` atomically: a crash leaves the old file or the new one, never half.

        Examples
        --------
        >>> import fullbandit as fb, pathlib, tempfile
        >>> algorithm = fb.ICB(fb.TopK(4, 2), noise_scale=1.0, seed=3)
        >>> algorithm.tell(algorithm.ask(), 1.5)
        >>> path = pathlib.Path(tempfile.mkdtemp()) / "campaign.json"
        >>> algorithm.save(path)
        >>> resumed = fb.load(path)
        >>> resumed.n_pulls, resumed.ask() == algorithm.ask()
        (1, True)
        """
        write_json_atomically(path, self.get_state())

    @classmethod
    def load(cls: type[AlgorithmT], path) -> AlgorithmT:
        """Replay a record written by :meth:`save` (on this class, or on
        :class:`~fullbandit.core.algorithm.Algorithm` for any class)."""
        return cls.from_state(read_json_object(path), source=str(path))


def build_header(cls: type, parameters: Mapping, seed_record, *, noise_scale: float | None, reward_range,
                 prior: PriorObservations | None) -> dict:
    """A record's header: how an algorithm of class ``cls`` was made (:func:`_build_from_header` makes it again).

    ``parameters`` are its constructor parameters as stored, ``seed_record`` what reproduces its
    seed (:func:`seeded_generator`), and the rest what :meth:`~fullbandit.core.algorithm.Algorithm.setup`
    was offered.
    """
    return {"class": _class_path(cls),
            "parameters": {**_json_params(parameters), "seed": seed_record},
            "setup": {"noise_scale": noise_scale,
                      "reward_range": None if reward_range is None else list(reward_range),
                      "prior": None if prior is None else prior.to_dict()}}


def _build_from_header(cls: type[AlgorithmT], header: StateReader) -> AlgorithmT:
    """The algorithm a record's header describes, set up as it was (before its first call)."""
    source = header.source
    target = _class_named(cls, header.get("class", str), source)
    parameters = dict(header.get("parameters", dict))
    setup = header.child("setup")
    try:
        parameters["problem"] = decision_class_from_dict(parameters.get("problem") or {})
        parameters["seed"] = _seed_from_record(parameters.get("seed"))
        algorithm = target(**_params_from_json(target, parameters))
        algorithm._validate()
    except (InvalidParameterError, TypeError, KeyError, ValueError) as error:
        raise StateError(f"{source}: field 'header.parameters': {error}") from None
    try:
        prior = setup.get("prior", dict, optional=True)
        offered_range = setup.get("reward_range", list, optional=True)
        algorithm.setup(noise_scale=setup.number("noise_scale", optional=True),
                        reward_range=None if offered_range is None else tuple(offered_range),
                        prior=None if prior is None else PriorObservations.from_dict(prior))
    except StateError:
        raise
    except (InvalidParameterError, TypeError, KeyError, ValueError) as error:
        raise StateError(f"{source}: field 'header.setup': {error}") from None
    return algorithm


def _class_path(cls: type) -> str:
    return f"{cls.__module__}:{cls.__qualname__}"


def _class_named(base: type[AlgorithmT], path: str, source: str) -> type[AlgorithmT]:
    """The class at ``module:qualname``, a concrete subclass of ``base``.

    A fullbandit module is imported if need be (a record loads in a new process); another
    module must already be imported (loading a file never runs code it names).
    """
    module_name, _, qualname = path.partition(":")
    module = sys.modules.get(module_name)
    if module is None and (module_name == "fullbandit" or module_name.startswith("fullbandit.")):
        try:
            module = importlib.import_module(module_name)
        except ImportError:
            module = None
    if module is None:
        raise StateError(f"{source}: field 'header.class' is {path!r}: module {module_name!r} is not part of "
                         "fullbandit and is not imported; import the module that defines the algorithm first")
    target: Any = module
    for part in qualname.split("."):
        target = getattr(target, part, None)
    if target is None:  # a class made in a function or by type(): among the subclasses already made
        target = next((c for c in _subclasses(base) if _class_path(c) == path), None)
    if not (isinstance(target, type) and issubclass(target, base) and not inspect.isabstract(target)):
        raise StateError(f"{source}: field 'header.class' is {path!r}, not {base.__name__} or a concrete subclass")
    return target


def _subclasses(cls: type) -> list[type]:
    found: list[type] = []
    pending: list[type] = list(cls.__subclasses__())
    while pending:
        candidate = pending.pop()
        found.append(candidate)
        pending.extend(candidate.__subclasses__())
    return found


def seeded_generator(seed) -> tuple[np.random.Generator, Any]:
    """The generator of ``seed`` and a JSON record that reproduces it (:func:`_seed_from_record`).

    ``None`` draws fresh entropy and records it, so every run can be replayed; a
    ``SeedSequence`` is recorded by its entropy and spawn key; a ``Generator`` (used as
    is, as everywhere) by its bit generator's state at setup.
    """
    if seed is None:
        seed = int(np.random.SeedSequence().entropy)  # type: ignore[arg-type]
    if isinstance(seed, np.random.SeedSequence):
        record: Any = {"entropy": _json_entropy(seed.entropy), "spawn_key": [int(i) for i in seed.spawn_key],
                       "pool_size": int(seed.pool_size)}
    elif isinstance(seed, np.random.Generator):
        record = {"bit_generator_state": seed.bit_generator.state}
    else:
        record = seed
    return as_generator(seed), (int(record) if isinstance(record, numbers.Integral) else record)


def _json_entropy(entropy) -> int | list[int]:
    return int(entropy) if isinstance(entropy, numbers.Integral) else [int(word) for word in entropy]


def _seed_from_record(record):
    """The seed that :func:`seeded_generator` recorded as ``record``."""
    if record is None or isinstance(record, int):
        return record
    if isinstance(record, dict) and "entropy" in record:
        return np.random.SeedSequence(record["entropy"], spawn_key=tuple(record["spawn_key"]),
                                      pool_size=record["pool_size"])
    if isinstance(record, dict) and "bit_generator_state" in record:
        state = record["bit_generator_state"]
        bit_generator = getattr(np.random, state["bit_generator"])()
        bit_generator.state = state
        return np.random.Generator(bit_generator)
    raise ValueError(f"seed record {record!r} is not an int, a SeedSequence or a generator state")



def json_float(value: float):
    return value if math.isfinite(value) else str(value)


def _json_params(params: Mapping) -> dict:
    """Parameters as JSON values: the decision class as its dict, super-arm lists as lists,
    a seed that is not an int as ``None`` (the record of a run replaces it by what
    reproduces it: :func:`seeded_generator`)."""
    data: dict[str, Any] = {}
    for name, value in params.items():
        if isinstance(value, DecisionClass):
            data[name] = value.to_dict()
        elif name == "seed":
            data[name] = value if isinstance(value, int) and not isinstance(value, bool) else None
        elif isinstance(value, list | tuple) and not isinstance(value, str):
            data[name] = [list(item) if isinstance(item, list | tuple) else item for item in value]
        elif isinstance(value, np.generic):
            data[name] = value.item()
        else:
            data[name] = value
    return data


def _params_from_json(cls: type[Recordable], parameters: dict) -> dict:
    names = set(cls.parameter_names())
    unknown = set(parameters) - names
    if unknown:
        raise InvalidParameterError(f"unknown parameter(s) {sorted(unknown)} for {cls.__name__}")
    return {name: ([tuple(a) for a in value] if isinstance(value, list) and value and isinstance(value[0], list)
                   else value) for name, value in parameters.items()}


