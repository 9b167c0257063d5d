"""Validation of the rewards an algorithm is told: finite real numbers, one per member for
semi-bandit feedback or one per block, sums of squares consistent with their sums
(Cauchy-Schwarz), and the largest reward per pull they show.

:meth:`fullbandit.core.algorithm.Algorithm.tell` and
:meth:`~fullbandit.core.algorithm.Algorithm.tell_blocks` check with these before anything
changes, so a refused call changes nothing.

Examples
--------
>>> from fullbandit.core.rewards import check_reward, check_square_sum
>>> check_reward("semi", [1, 0.5], arms=(0, 3)).tolist()
[1.0, 0.5]
>>> check_square_sum("full", 1.0, 2.0, arms=(0, 1), count=2)  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
fullbandit.util.validation.InvalidParameterError: sum_of_squares=1.0 must be at least reward**2 / count = 2.0 ...
"""

from __future__ import annotations

import math
import numbers

import numpy as np

from fullbandit.problems.classes import SuperArm
from fullbandit.util.validation import InvalidParameterError


def finite_real(name: str, value) -> float:
    """``value`` as a float if it is a finite real number (not a bool), named ``name`` in the error otherwise."""
    if type(value) is float:  # the common case, checked first: a pull's cost is mostly such checks
        if math.isfinite(value):
            return value
        raise InvalidParameterError(f"{name}={value} must be finite")
    if isinstance(value, bool | np.bool_) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be a real number, got {value!r} ({type(value).__name__})")
    number = float(value)
    if not math.isfinite(number):
        raise InvalidParameterError(f"{name}={number} must be finite")
    return number


#: Relative slack of the Cauchy-Schwarz check of a told sum of squares (rounding of the sums).
SQUARES_TOLERANCE = 1e-9


def check_cauchy_schwarz(name: str, squares: float, reward: float, count: int) -> None:
    """``squares >= reward ** 2 / count`` (up to rounding): ``count`` reals summing to ``reward``."""
    least = reward * reward / count
    if squares < 0.0 or squares < least * (1.0 - SQUARES_TOLERANCE):
        raise InvalidParameterError(
            f"{name}={squares!r} must be at least reward**2 / count = {least!r} (the squares of {count} "
            f"reward(s) summing to {reward!r}; Cauchy-Schwarz) and non-negative")


def finite_reals(name: str, values) -> np.ndarray:
    """``values`` as a float array if every entry is a finite real (vectorised: a batch may hold
    thousands of members); otherwise the error of the first bad entry, named ``name[i]``."""
    if isinstance(values, np.ndarray) and values.dtype.kind in "fiu" and values.dtype != np.bool_:
        array = values.astype(float)
        if np.all(np.isfinite(array)):
            return array
    return np.array([finite_real(f"{name}[{i}]", value) for i, value in enumerate(values)])



def check_reward(feedback: str, reward, arms: SuperArm):
    """A pull's told ``reward``: a finite real (full feedback), or one per member of ``arms`` (semi: an array)."""
    if feedback == "full":
        return finite_real("reward", reward)
    values = reward if isinstance(reward, list | tuple | np.ndarray) else None
    if values is None or np.ndim(values) != 1 or len(values) != len(arms):
        raise InvalidParameterError(
            f"reward must hold one number per member of {arms} (semi-bandit feedback), got {reward!r}")
    return finite_reals("reward", values)


def check_square_sum(feedback: str, sum_of_squares, reward, arms: SuperArm, count: int):
    """A pull's told ``sum_of_squares`` (of ``count`` rewards summing to the checked ``reward``), as
    :func:`check_reward` returns rewards, each at least its reward squared over ``count``."""
    if feedback == "full":
        squares = finite_real("sum_of_squares", sum_of_squares)
        check_cauchy_schwarz("sum_of_squares", squares, reward, count)
        return squares
    values = sum_of_squares if isinstance(sum_of_squares, list | tuple | np.ndarray) else None
    if values is None or np.ndim(values) != 1 or len(values) != len(arms):
        raise InvalidParameterError(f"sum_of_squares must hold one number per member of {arms} "
                                    f"(semi-bandit feedback), got {sum_of_squares!r}")
    member_squares = finite_reals("sum_of_squares", values)
    for i, (square, member_reward) in enumerate(zip(member_squares, np.asarray(reward), strict=True)):
        check_cauchy_schwarz(f"sum_of_squares[{i}]", float(square), float(member_reward), count)
    return member_squares


def check_block_rewards(rewards, sums_of_squares, counts: np.ndarray) -> tuple[np.ndarray, np.ndarray | None]:
    """Blocks' told ``rewards`` (one sum per block of ``counts[i]`` pulls) and ``sums_of_squares``
    (``None`` when not told), as float arrays.

    Examples
    --------
    >>> import numpy as np
    >>> from fullbandit.core.rewards import check_block_rewards
    >>> values, squares = check_block_rewards([2.0, 1.0], [2.5, 1.0], np.array([2, 1]))
    >>> values.tolist(), squares.tolist()
    ([2.0, 1.0], [2.5, 1.0])
    >>> check_block_rewards([2.0, 1.0], [2.5, 0.5], np.array([2, 1]))  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    fullbandit.util.validation.InvalidParameterError: sums_of_squares[1]=0.5 must be at least ...
    """
    size = len(counts)
    values = finite_reals("rewards", rewards)
    if values.shape != (size,):
        raise InvalidParameterError(f"rewards must hold one number per block ({size}), got shape {values.shape}")
    squares = None
    if sums_of_squares is not None:
        squares = finite_reals("sums_of_squares", sums_of_squares)
        if squares.shape != (size,):
            raise InvalidParameterError(f"sums_of_squares must hold one number per block ({size}), "
                                        f"got shape {squares.shape}")
        least = values * values / counts
        bad = np.flatnonzero((squares < 0.0) | (squares < least * (1.0 - SQUARES_TOLERANCE)))
        if bad.size:
            check_cauchy_schwarz(f"sums_of_squares[{bad[0]}]", float(squares[bad[0]]), float(values[bad[0]]),
                                 int(counts[bad[0]]))
    return values, squares


def largest_per_pull(reward, count) -> float:
    """The largest ``|reward|`` per pull (per member) in what was told: a pull's ``reward`` (a number,
    or one per member) summed over ``count`` pulls, or blocks' rewards summed over their ``count`` array.

    Examples
    --------
    >>> import numpy as np
    >>> from fullbandit.core.rewards import largest_per_pull
    >>> largest_per_pull(-3.0, 2), largest_per_pull(np.array([1.0, -4.0]), 2)
    (1.5, 2.0)
    >>> largest_per_pull(np.array([3.0, 1.0]), np.array([3, 2]))
    1.0
    """
    if isinstance(count, np.ndarray):
        return float(np.max(np.abs(reward) / count))
    largest = abs(reward) if type(reward) is float else float(np.max(np.abs(reward)))
    return largest / count
