"""Declared parameter constraints, checked once with uniform messages.

Every algorithm class declares ``parameter_constraints``: for each constructor parameter
a list of the forms it may take. A value is valid when it satisfies at least one of them.
The forms are

* :class:`Interval` (integers or reals in a range),
* :class:`Options` (a fixed set of strings),
* :class:`Instance` (an instance of given types),
* ``None`` (the value ``None`` is allowed),
* :data:`SEED` (``None``, a non-negative ``int``, a ``SeedSequence`` or a ``Generator``),
* :data:`SUPERARMS` (a non-empty sequence of super-arms, checked further by the algorithm),
* :data:`REWARD_RANGE` (a pair ``(low, high)`` of finite numbers with ``low < high``).

The same declarations generate an invalid value for every parameter
(:func:`invalid_value`), which the conformance suite feeds to every algorithm. The model
is scikit-learn's ``_parameter_constraints`` / ``generate_invalid_param_val``.

Examples
--------
>>> from fullbandit.core.params import Interval, Options, validate_parameters
>>> constraints = {"delta": [Interval(float, 0, 1, closed="neither")], "mode": [Options({"a", "b"})]}
>>> validate_parameters(constraints, {"delta": 0.1, "mode": "a"}, owner="Demo")
>>> validate_parameters(constraints, {"delta": 1.5, "mode": "a"}, owner="Demo")
Traceback (most recent call last):
...
fullbandit.util.validation.InvalidParameterError: Demo: delta=1.5 must be a float in (0, 1)
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Iterable, Mapping, Sized
from dataclasses import dataclass

import numpy as np

from fullbandit.util.validation import InvalidParameterError, check_reward_range

CLOSED = ("both", "left", "right", "neither")


@dataclass(frozen=True)
class Interval:
    """Numbers of ``kind`` (``int`` or ``float``) between ``low`` and ``high`` (``None``: unbounded).

    ``closed`` says which ends belong to the interval. ``kind=float`` accepts integers
    too (as scikit-learn's ``Real`` does); ``kind=int`` accepts only integers. Booleans,
    NaN and infinities are never accepted.

    Examples
    --------
    >>> from fullbandit.core.params import Interval
    >>> delta = Interval(float, 0, 1, closed="neither")
    >>> delta.accepts(0.05), delta.accepts(1), delta.accepts(True), delta.describe()
    (True, False, False, 'a float in (0, 1)')
    >>> Interval(float, 0, None).describe(), Interval(float, 0, None).accepts(float("inf"))
    ('a finite float >= 0', False)
    >>> Interval(int, 1, None).describe(), Interval(float, 0, None, closed="neither").describe()
    ('an int >= 1', 'a finite float > 0')
    """

    kind: type
    low: float | None
    high: float | None
    closed: str = "both"

    def __post_init__(self):
        if self.kind not in (int, float):
            raise TypeError(f"Interval kind must be int or float, got {self.kind!r}")
        if self.closed not in CLOSED:
            raise ValueError(f"closed={self.closed!r} must be one of {CLOSED}")

    def accepts(self, value) -> bool:
        if isinstance(value, bool | np.bool_):
            return False
        wanted = numbers.Integral if self.kind is int else numbers.Real
        if not isinstance(value, wanted) or not math.isfinite(float(value)):
            return False
        value = float(value)
        left_closed = self.closed in ("both", "left")
        right_closed = self.closed in ("both", "right")
        if self.low is not None and (value < self.low if left_closed else value <= self.low):
            return False
        return not (self.high is not None and (value > self.high if right_closed else value >= self.high))

    def describe(self) -> str:
        """What is allowed, in words a user can act on: ``a float in (0, 1)``, ``a finite float >= 0``.

        An unbounded side is written as a one-sided comparison rather than ``inf]``: infinities
        are never accepted, and ``[0, inf]`` would say they are.
        """
        kind = "an int" if self.kind is int else "a float"
        if self.low is not None and self.high is not None:
            left = "[" if self.closed in ("both", "left") else "("
            right = "]" if self.closed in ("both", "right") else ")"
            return f"{kind} in {left}{_number(self.low)}, {_number(self.high)}{right}"
        kind = kind if self.kind is int else "a finite float"
        if self.low is not None:
            return f"{kind} {'>=' if self.closed in ('both', 'left') else '>'} {_number(self.low)}"
        if self.high is not None:
            return f"{kind} {'<=' if self.closed in ('both', 'right') else '<'} {_number(self.high)}"
        return kind

    def invalid_value(self):
        """A value of the right type just outside the interval, or of the wrong type if unbounded."""
        if self.low is not None:
            return int(self.low) - 1 if self.kind is int else float(self.low) - 1.0
        if self.high is not None:
            return int(self.high) + 1 if self.kind is int else float(self.high) + 1.0
        return "not a number"


@dataclass(frozen=True)
class Options:
    """One of a fixed set of strings.

    Examples
    --------
    >>> from fullbandit.core.params import Options
    >>> Options({"tight", "paper"}).describe()
    "one of 'paper', 'tight'"
    """

    values: frozenset

    def __init__(self, values: Iterable[str]):
        object.__setattr__(self, "values", frozenset(values))

    def accepts(self, value) -> bool:
        return isinstance(value, str) and value in self.values

    def describe(self) -> str:
        return "one of " + ", ".join(repr(v) for v in sorted(self.values))

    def invalid_value(self):
        return "not-an-option"


@dataclass(frozen=True)
class Instance:
    """An instance of one of ``types``.

    Examples
    --------
    >>> from fullbandit.core.params import Instance
    >>> Instance(bool).accepts(False), Instance(bool).accepts(0)
    (True, False)
    """

    types: tuple

    def __init__(self, *types: type):
        object.__setattr__(self, "types", types)

    def accepts(self, value) -> bool:
        return isinstance(value, self.types)

    def describe(self) -> str:
        return "an instance of " + " or ".join(t.__name__ for t in self.types)

    def invalid_value(self):
        return object()


class _Seed:
    def accepts(self, value) -> bool:
        if isinstance(value, np.random.Generator | np.random.SeedSequence) or value is None:
            return True
        return isinstance(value, numbers.Integral) and not isinstance(value, bool | np.bool_) and int(value) >= 0

    def describe(self) -> str:
        return "None, a non-negative int, a numpy SeedSequence or a numpy Generator"

    def invalid_value(self):
        return -1


class _SuperArms:
    def accepts(self, value) -> bool:
        if isinstance(value, str | bytes) or not isinstance(value, Iterable):
            return False
        return not (isinstance(value, Sized) and len(value) == 0)

    def describe(self) -> str:
        return "a non-empty sequence of super-arms"

    def invalid_value(self):
        return []


class _RewardRange:
    def accepts(self, value) -> bool:
        try:
            check_reward_range("reward_range", value)
        except (TypeError, ValueError):
            return False
        return True

    def describe(self) -> str:
        return "a pair (low, high) of finite numbers with low < high"

    def invalid_value(self):
        return (1.0, 0.0)

    @staticmethod
    def right_type(value) -> bool:
        try:
            check_reward_range("reward_range", value)
        except TypeError:
            return False
        except ValueError:
            return True
        return True


#: Constraint of a ``seed`` parameter.
SEED = _Seed()
#: Constraint of an explicit list of super-arms (the algorithm checks each member).
SUPERARMS = _SuperArms()
#: Constraint of a range of rewards ``(low, high)`` (a list or a tuple, e.g. as loaded from JSON).
REWARD_RANGE = _RewardRange()


def _number(value) -> str:
    return f"{value:g}" if isinstance(value, float) else str(value)


def _describe(constraint) -> str:
    return "None" if constraint is None else constraint.describe()


def _accepts(constraint, value) -> bool:
    return value is None if constraint is None else constraint.accepts(value)


def validate_parameters(constraints: Mapping[str, list], values: Mapping[str, object], *, owner: str) -> None:
    """Raise a clear error for the first value in ``values`` that satisfies none of its constraints.

    A wrong *type* raises ``TypeError``, a value of the right type outside its range raises
    :class:`fullbandit.InvalidParameterError`; both name ``owner``, the parameter, the value
    and what is allowed.
    """
    for name, value in values.items():
        allowed = constraints.get(name)
        if allowed is None:
            raise InvalidParameterError(f"{owner}: {name} is not a declared parameter")
        if any(_accepts(constraint, value) for constraint in allowed):
            continue
        description = " or ".join(_describe(c) for c in allowed)
        message = f"{owner}: {name}={value!r} must be {description}"
        raise (InvalidParameterError if _right_type(allowed, value) else TypeError)(message)


def _right_type(allowed, value) -> bool:
    for constraint in allowed:
        if isinstance(constraint, Interval):
            wanted = numbers.Integral if constraint.kind is int else numbers.Real
            if isinstance(value, wanted) and not isinstance(value, bool | np.bool_):
                return True
        elif isinstance(constraint, Options) and isinstance(value, str):
            return True
        elif constraint is SEED and isinstance(value, numbers.Integral) and not isinstance(value, bool):
            return True
        elif constraint is SUPERARMS and isinstance(value, Iterable) and not isinstance(value, str | bytes):
            return True
        elif constraint is REWARD_RANGE and REWARD_RANGE.right_type(value):
            return True
    return False


def invalid_value(allowed: list):
    """A value that satisfies none of the constraints in ``allowed`` (for the conformance suite)."""
    candidates = [c.invalid_value() for c in allowed if c is not None] + ["not-an-option", -1, object()]
    for candidate in candidates:
        if not any(_accepts(c, candidate) for c in allowed):
            return candidate
    raise ValueError(f"no invalid value found for constraints {allowed!r}")
