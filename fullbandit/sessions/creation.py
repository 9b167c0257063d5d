"""What a new session is made of: the question it asks (its decision class), the parameters it
passes its algorithm (stored as JSON with it), and its workers' names. Checked before the store
exists, each refusal naming the argument (:meth:`fullbandit.sessions.Session.start`).
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from fullbandit.core import registry
from fullbandit.problems.classes import DecisionClass, PartitionMatroid, Thresholding, TopK
from fullbandit.util.validation import InvalidParameterError


def session_parameters(spec: registry.AlgorithmSpec, parameters: Mapping[str, Any] | None, **shorthands) -> dict:
    """The parameters a session passes to ``spec``, as the JSON values stored with it.

    ``parameters`` by name, and the ``shorthands`` (``epsilon=...``) that are not ``None``;
    a name given both ways, ``problem``/``seed``, or one ``spec`` does not take (or fixes) is
    refused naming its options. Values are checked by the class when the session is built.
    """
    if parameters is not None and not isinstance(parameters, Mapping):
        raise TypeError(f"parameters must be a mapping of parameter names to values, got {type(parameters).__name__}")
    given = dict(parameters or {})
    for name, value in shorthands.items():
        if value is not None:
            if name in given:
                raise InvalidParameterError(f"{name} is given twice: as {name}= and in parameters")
            given[name] = value
    for name, argument in (("problem", "the question: k, threshold, groups"), ("seed", "seed")):
        if name in given:
            raise InvalidParameterError(f"parameters may not hold {name!r}: a session sets it from its own "
                                        f"argument ({argument})")
    for name in given:
        if name in spec.fixed:
            raise InvalidParameterError(f"{spec.name} fixes {name}={spec.fixed[name]!r}; choose another algorithm "
                                        "entry to set it")
        if name not in spec.options:
            raise InvalidParameterError(f"{spec.name} takes no parameter {name!r}; its parameters are "
                                        f"{', '.join(spec.options)}")
    return {name: _json_value(name, value) for name, value in given.items()}


def session_problem(spec: registry.AlgorithmSpec, names: list[str], *, k=None, threshold=None, groups=None,
                    at_most=None, reward_range=None) -> DecisionClass:
    """The decision class a session asks about, from the question's arguments and ``spec``'s declared classes.

    A thresholding algorithm (``Thresholding`` among its decision classes) takes ``threshold``
    (inside ``reward_range`` when one is given) and no ``k``; any other takes ``k``, and with
    ``groups`` and ``at_most`` a partition matroid if it declares one. Anything else is refused
    naming the argument.
    """
    if Thresholding in spec.decision_classes:
        for name, value in (("k", k), ("groups", groups), ("at_most", at_most)):
            if value is not None:
                raise InvalidParameterError(f"{name} (--{name.replace('_', '-')}) does not apply to {spec.name}: "
                                            "a thresholding algorithm "
                                            "classifies every worker as at or above a threshold or below it, and "
                                            "picks no team")
        if threshold is None:
            raise InvalidParameterError(f"{spec.name} classifies every worker against a threshold: give threshold "
                                        "(--threshold)")
        if reward_range is not None and not (isinstance(threshold, numbers.Real)
                                             and reward_range[0] <= threshold <= reward_range[1]):
            raise InvalidParameterError(f"threshold={threshold!r} must lie in the session's reward range "
                                        f"{list(reward_range)}: outside it every worker is trivially on one side")
        return Thresholding(len(names), threshold)
    if threshold is not None:
        takers = [other.name for other in registry.specs() if Thresholding in other.decision_classes]
        raise InvalidParameterError(f"threshold (--threshold) applies to the thresholding algorithms "
                                    f"({', '.join(takers)}), not to {spec.name}")
    if k is None:
        raise InvalidParameterError(f"{spec.name} picks a team: give its size k (--k)")
    if (groups is None) != (at_most is None):
        raise InvalidParameterError("groups (a group label per worker) and at_most (the cap per group) go together")
    if groups is None:
        problem: DecisionClass = TopK(len(names), k)
    else:
        if not issubclass(PartitionMatroid, spec.decision_classes):
            takers = [other.name for other in registry.specs() if issubclass(PartitionMatroid, other.decision_classes)]
            raise InvalidParameterError(f"{spec.name} does not take group caps (a partition matroid); the algorithms "
                                        f"that do: {', '.join(takers)}")
        if isinstance(groups, str | bytes) or not isinstance(groups, Sequence) or len(groups) != len(names):
            raise InvalidParameterError(f"groups must hold one group label per worker ({len(names)}), got {groups!r}")
        # Imported here, not at the top: pandas is a third of a second of every session command's start-up,
        # and only a session with group caps needs it.
        import pandas as pd

        from fullbandit.datasets.groups import partition_matroid_from_column

        table = pd.DataFrame({"worker": names, "group": [None if label is None else str(label) for label in groups]})
        problem, _ = partition_matroid_from_column(names, table, "group", k=k, at_most=at_most)
    if not spec.supports(problem):
        raise InvalidParameterError(f"{spec.name} does not handle a {type(problem).__name__}")
    return problem


def _json_value(name: str, value):
    """``value`` as the JSON value stored with the session (a tuple as a list, numpy numbers as Python's)."""
    if value is None or isinstance(value, bool | str):
        return value
    if isinstance(value, np.generic):
        return _json_value(name, value.item())
    if isinstance(value, numbers.Integral):
        return int(value)
    if isinstance(value, numbers.Real):
        if not math.isfinite(value):
            raise InvalidParameterError(f"{name}={value!r} must be finite")
        return float(value)
    if isinstance(value, list | tuple | np.ndarray):
        return [_json_value(name, item) for item in value]
    raise TypeError(f"{name}={value!r} cannot be stored with a session (a number, a string, a boolean, None or a "
                    "list of them)")


def worker_names(n, workers) -> list[str]:
    if (n is None) == (workers is None):
        raise InvalidParameterError("give exactly one of n (a number of workers) and workers (their names)")
    if workers is None:
        if isinstance(n, bool) or not isinstance(n, numbers.Integral) or n < 2:
            raise InvalidParameterError(f"n={n!r} must be an integer >= 2")
        return [str(i) for i in range(int(n))]
    names = [str(name) for name in workers]
    duplicates = sorted({name for name in names if names.count(name) > 1})
    if duplicates:
        raise InvalidParameterError(f"workers: duplicate name(s) {duplicates}")
    if len(names) < 2:
        raise InvalidParameterError(f"workers holds {len(names)} name(s); a session needs at least 2")
    return names
