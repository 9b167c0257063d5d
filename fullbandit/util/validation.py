"""Shared input validators: every public entry point checks its arguments here once.

Each validator raises :class:`InvalidParameterError` (a ``ValueError``) or a
``TypeError`` whose message names the argument, the value received and the allowed
values, e.g. ``k=0 must satisfy 1 <= k < n=36``.
"""

from __future__ import annotations

import codecs
import csv
import io
import math
import numbers
from collections.abc import Iterable
from pathlib import Path

import numpy as np


class InvalidParameterError(ValueError):
    """A user-supplied argument is outside its allowed range or set."""


def check_int(name: str, value, *, low: int | None = None, high: int | None = None,
              high_inclusive: bool = True) -> int:
    """Return ``value`` as an ``int`` after checking ``low <= value <= high``."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{name} must be an integer, got {value!r} ({type(value).__name__})")
    value = int(value)
    if low is not None and value < low:
        raise InvalidParameterError(_range_message(name, value, low, high, high_inclusive))
    if high is not None and (value > high if high_inclusive else value >= high):
        raise InvalidParameterError(_range_message(name, value, low, high, high_inclusive))
    return value


def _range_message(name, value, low, high, high_inclusive) -> str:
    lower = "" if low is None else f"{low} <= "
    upper = "" if high is None else (f" <= {high}" if high_inclusive else f" < {high}")
    return f"{name}={value} must satisfy {lower}{name}{upper}"


def check_k(k, n: int) -> int:
    """Check the super-arm size: ``1 <= k < n`` (``k = n`` leaves nothing to identify)."""
    if isinstance(k, bool) or not isinstance(k, numbers.Integral):
        raise TypeError(f"k must be an integer, got {k!r} ({type(k).__name__})")
    k = int(k)
    if not 1 <= k < n:
        raise InvalidParameterError(f"k={k} must satisfy 1 <= k < n={n}")
    return k


def check_real(name: str, value, *, low: float | None = None, high: float | None = None,
               low_inclusive: bool = True, high_inclusive: bool = True) -> float:
    """Return ``value`` as a finite ``float`` inside the given interval."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be a real number, got {value!r} ({type(value).__name__})")
    value = float(value)
    if not math.isfinite(value):
        raise InvalidParameterError(f"{name}={value} must be finite")
    too_low = low is not None and (value < low if low_inclusive else value <= low)
    too_high = high is not None and (value > high if high_inclusive else value >= high)
    if too_low or too_high:
        left = "" if low is None else f"{low} {'<=' if low_inclusive else '<'} "
        right = "" if high is None else f" {'<=' if high_inclusive else '<'} {high}"
        raise InvalidParameterError(f"{name}={value} must satisfy {left}{name}{right}")
    return value


def check_probability(name: str, value) -> float:
    """A confidence level such as ``delta``: ``0 < value < 1``."""
    return check_real(name, value, low=0.0, high=1.0, low_inclusive=False, high_inclusive=False)


def check_choice(name: str, value, allowed: Iterable[str]) -> str:
    """Check that ``value`` is one of the ``allowed`` strings (case-sensitive)."""
    allowed = tuple(allowed)
    if value not in allowed:
        raise InvalidParameterError(
            f"{name}={value!r} is not one of the allowed values: {', '.join(map(repr, allowed))}")
    return value


def as_real_array(name: str, value) -> np.ndarray:
    """``value`` as a new float array, or a ``TypeError`` naming ``name`` and the first entry that is no real number.

    numpy would turn the text ``"1"`` into ``1.0`` and fail on ``"a"`` with its own message;
    neither says which argument was wrong, so text, complex numbers and other objects are
    refused here, by name.

    >>> as_real_array("means", [0.5, 1]).tolist()
    [0.5, 1.0]
    >>> as_real_array("means", ["a", "b"])
    Traceback (most recent call last):
    ...
    TypeError: means must hold real numbers, but entry 0 is 'a' (str)
    """
    try:
        raw = np.asarray(value)
    except ValueError:  # a ragged nesting, e.g. [[1, 2], [3]]
        raise InvalidParameterError(f"{name} must be a rectangular array of real numbers, got {value!r}") from None
    if raw.dtype.kind not in "biuf":  # as objects, each entry keeps its own type (numpy made them all text)
        for index, entry in enumerate(np.asarray(value, dtype=object).ravel()):
            if isinstance(entry, np.generic):
                entry = entry.item()
            if isinstance(entry, bool) or not isinstance(entry, numbers.Real):
                raise TypeError(f"{name} must hold real numbers, but entry {index} is {entry!r} "
                                f"({type(entry).__name__})")
    return np.array(raw, dtype=float, copy=True)


def check_vector(name: str, value, *, length: int | None = None) -> np.ndarray:
    """A one-dimensional array of finite floats (copied)."""
    array = as_real_array(name, value)
    if array.ndim != 1:
        raise InvalidParameterError(f"{name} must be one-dimensional, got shape {array.shape}")
    if length is not None and array.shape[0] != length:
        raise InvalidParameterError(f"{name} must have length {length}, got {array.shape[0]}")
    if not np.all(np.isfinite(array)):
        raise InvalidParameterError(f"{name} must contain only finite values")
    return array


def check_reward_range(name: str, value) -> tuple[float, float]:
    """A range ``(low, high)`` of rewards: two finite real numbers with ``low < high``.

    Examples
    --------
    >>> from fullbandit.util.validation import check_reward_range
    >>> check_reward_range("reward_range", [0, 5])
    (0.0, 5.0)
    >>> check_reward_range("reward_range", (1.0, 0.0))  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    fullbandit.util.validation.InvalidParameterError: reward_range=(1.0, 0.0) must be a pair (low, high) ... low < high
    """
    message = f"{name}={value!r} must be a pair (low, high) of finite numbers with low < high"
    if isinstance(value, str | bytes) or not isinstance(value, list | tuple | np.ndarray) or len(value) != 2:
        raise TypeError(message)
    if any(isinstance(v, bool | np.bool_) or not isinstance(v, numbers.Real) for v in value):
        raise TypeError(message)
    low, high = float(value[0]), float(value[1])
    if not (math.isfinite(low) and math.isfinite(high) and low < high):
        raise InvalidParameterError(message)
    return low, high


def check_budget_floor(owner: str, budget: int, floor: int, why: str) -> None:
    """Refuse a ``budget`` below ``floor``, the least an algorithm's schedule can use; ``why`` says what it needs.

    A fixed-budget algorithm given less would still return an answer, one that no sample
    (or too few) supports, so the budget is refused at validation instead.

    >>> check_budget_floor("Uniform", 5, 8, "one sample of each arm")
    Traceback (most recent call last):
    ...
    fullbandit.util.validation.InvalidParameterError: Uniform: budget=5 must be at least 8 (one sample of each arm)
    """
    if budget < floor:
        raise InvalidParameterError(f"{owner}: budget={budget} must be at least {floor} ({why})")


def check_finite_reward(reward) -> float:
    """A single observed reward must be a finite real number (NaN would poison every estimate)."""
    try:
        value = float(reward)
    except (TypeError, ValueError):
        raise TypeError(f"reward must be a real number, got {reward!r}") from None
    if not math.isfinite(value):
        raise InvalidParameterError(f"reward={value} must be finite")
    return value


def as_generator(seed) -> np.random.Generator:
    """``seed`` may be ``None``, an ``int``, a ``SeedSequence`` or a ``Generator`` (used as is)."""
    if isinstance(seed, np.random.Generator):
        return seed
    if isinstance(seed, numbers.Integral) and not isinstance(seed, bool):
        if seed < 0:
            raise InvalidParameterError(f"seed={seed} must be a non-negative integer")
        return np.random.default_rng(int(seed))
    if seed is None or isinstance(seed, np.random.SeedSequence):
        return np.random.default_rng(seed)
    raise TypeError(f"seed must be None, a non-negative int, a SeedSequence or a Generator, got {seed!r}")


def check_zero_one_table(table, name: str, where) -> np.ndarray:
    """A boolean copy of the 0/1 ``table`` (graded answers), or raise naming the first entry that is not 0/1.

    Only booleans and the numbers 0 and 1 are accepted: a NaN, -1, masked or text entry
    usually stands for a missing answer, and a cast to bool would count it as a correct
    one. ``where(row, column)`` says where an entry is, for the message.

    Examples
    --------
    >>> check_zero_one_table(np.array([[1, 0], [True, 1.0]]), "correct", lambda q, w: f"[{q}, {w}]").tolist()
    [[True, False], [True, True]]
    >>> check_zero_one_table(np.ma.masked_equal([[1, -1]], -1), "correct", lambda q, w: f"[{q}, {w}]")
    Traceback (most recent call last):
    ...
    fullbandit.util.validation.InvalidParameterError: correct has 1 entry masked (missing), the first at [0, 1]. \
Grade missing answers explicitly (usually 0, incorrect) before building the table.
    """
    table = np.asanyarray(table)
    if np.ma.isMaskedArray(table):
        masked = np.ma.getmaskarray(table)
        if masked.any():
            row, column = np.argwhere(masked)[0]
            raise InvalidParameterError(
                f"{name} has {_entries(int(masked.sum()))} masked (missing), the first at {where(row, column)}. "
                f"{_GRADE_MISSING}")
        table = np.ma.getdata(table)
    valid = _zero_or_one(table)
    if not valid.all():
        row, column = np.argwhere(~valid)[0]
        value = table[row, column]
        value = value.item() if isinstance(value, np.generic) else value
        raise InvalidParameterError(
            f"{name} must hold only 0/1 (or boolean) entries, but {_entries(int((~valid).sum()))} "
            f"{'does' if (~valid).sum() == 1 else 'do'} not: {value!r} at {where(row, column)}. {_GRADE_MISSING}")
    return table.astype(bool)


_GRADE_MISSING = "Grade missing answers explicitly (usually 0, incorrect) before building the table."


def _entries(count: int) -> str:
    return f"{count} entry" if count == 1 else f"{count} entries"


def _zero_or_one(table: np.ndarray) -> np.ndarray:
    """Element-wise: is the entry a boolean or a real number equal to 0 or 1 (never a string)?"""
    if table.dtype.kind in "biuf":
        return (table == 0) | (table == 1)
    if table.dtype.kind == "O":
        return np.vectorize(_is_zero_or_one, otypes=[bool])(table).reshape(table.shape)
    return np.zeros(table.shape, dtype=bool)  # strings, dates, complex numbers, ...


def _is_zero_or_one(value) -> bool:
    return isinstance(value, (bool, np.bool_, numbers.Real)) and value in (0, 1)


def is_readable_file(path) -> bool:
    """Whether ``path`` can be read as a file: a regular file, or a pipe or device (bash's ``<(...)``), not a folder.

    >>> import os
    >>> is_readable_file(os.devnull), is_readable_file(os.path.dirname(__file__)), is_readable_file("no-such.csv")
    (True, False, False)
    """
    path = Path(path)
    return path.exists() and not path.is_dir()


def read_csv_text(path) -> io.StringIO:
    """A user's CSV file decoded as UTF-8 (a byte-order mark dropped), ready for ``csv.reader`` or ``pandas.read_csv``.

    Every CSV reader of the package reads through this one, so a file saved by Excel (with a
    BOM) reads the same everywhere, and a byte that is not UTF-8 is refused naming the file,
    line and column instead of a ``UnicodeDecodeError`` traceback.

    >>> import pathlib, tempfile
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "bad.csv"
    >>> _ = path.write_bytes(b"\\xef\\xbb\\xbfid,label\\na,caf\\xe9\\n")
    >>> read_csv_text(path)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    fullbandit.util.validation.InvalidParameterError: ...line 2, column 2: byte 0xe9 is not UTF-8; save the file \
as UTF-8
    """
    data = Path(path).read_bytes().removeprefix(codecs.BOM_UTF8)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        newline = b"\n"
        line_start = data.rfind(newline, 0, error.start) + 1
        before = data[line_start:error.start].decode("utf-8", errors="replace")
        column = len(next(csv.reader([before]), [""]))  # the CSV cell the byte falls in
        raise InvalidParameterError(
            f"{path}: line {data.count(newline, 0, error.start) + 1}, column {column}: byte "
            f"0x{data[error.start]:02x} is not UTF-8; save the file as UTF-8") from None
    return io.StringIO(text, newline="")
