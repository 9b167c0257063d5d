"""Saved state: atomic JSON files and typed, validated reading of their fields.

Every algorithm's ``save``/``load`` goes through here, so a truncated, edited or foreign
file is refused the same way everywhere, with the file and the field named.
"""

from __future__ import annotations

import json
import math
import os
import tempfile
from collections.abc import Mapping
from pathlib import Path

import numpy as np

from fullbandit.util.validation import InvalidParameterError


class StateError(InvalidParameterError):
    """A saved state file that is truncated, edited, inconsistent or not a fullbandit state.

    Examples
    --------
    >>> import fullbandit as fb
    >>> fb.load("no-such-campaign.json")
    Traceback (most recent call last):
    ...
    fullbandit.util.state.StateError: cannot read state file no-such-campaign.json: No such file or directory
    """


def write_json_atomically(path, data) -> None:
    """Write ``data`` as JSON to ``path``: a crash leaves the old file or the new one, never half.

    Errors name ``path`` (not the temporary file) and leave no temporary file behind.
    """
    path = Path(path)
    text = json.dumps(data)
    directory = path.resolve().parent
    if not directory.is_dir():
        raise InvalidParameterError(f"cannot save to {path}: folder {directory} does not exist")
    try:
        handle = tempfile.NamedTemporaryFile("w", dir=directory, delete=False, prefix=f".{path.name}.", suffix=".tmp")
    except OSError as error:
        raise InvalidParameterError(f"cannot save to {path}: {error.strerror}") from None
    try:
        with handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(handle.name, path)
    except BaseException as error:
        os.unlink(handle.name)
        if isinstance(error, OSError):
            raise InvalidParameterError(f"cannot save to {path}: {error.strerror}") from None
        raise


def read_json_object(path) -> dict:
    """The JSON object stored at ``path``; a missing, truncated or non-object file is a :class:`StateError`."""
    try:
        text = Path(path).read_text()
    except OSError as error:
        raise StateError(f"cannot read state file {path}: {error.strerror}") from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as error:
        raise StateError(f"{path}: not a complete fullbandit state file (truncated or edited? "
                         f"JSON error at line {error.lineno}, column {error.colno}: {error.msg})") from None
    if not isinstance(data, dict):
        raise StateError(f"{path}: not a fullbandit state (top level is {type(data).__name__})")
    return data


class StateReader:
    """Typed access to the fields of a saved state, raising :class:`StateError` with the field's name.

    Examples
    --------
    >>> from fullbandit.util.state import StateReader
    >>> reader = StateReader({"told": 12, "sums": [1.5, "x"]}, "campaign.json")
    >>> reader.integer("told", low=0)
    12
    >>> reader.array("sums", length=2)
    Traceback (most recent call last):
    ...
    fullbandit.util.state.StateError: campaign.json: field 'sums' must hold only numbers
    """

    def __init__(self, data: Mapping, source: str, prefix: str = ""):
        if not isinstance(data, Mapping):
            raise StateError(f"{source}: field {prefix.rstrip('.') or 'state'!r} is not an object")
        self.data = data
        self.source = source
        self.prefix = prefix

    def _fail(self, name: str, problem: str):
        return StateError(f"{self.source}: field '{self.prefix}{name}' {problem}")

    def get(self, name: str, kind: type, *, optional: bool = False):
        if name not in self.data:
            raise self._fail(name, "is missing")
        value = self.data[name]
        if value is None and optional:
            return None
        if kind is int:
            ok = isinstance(value, int) and not isinstance(value, bool)
        elif kind is float:
            ok = isinstance(value, int | float) and not isinstance(value, bool)
        else:
            ok = isinstance(value, kind)
        if not ok:
            raise self._fail(name, f"is {value!r}, expected {kind.__name__}")
        return value

    def integer(self, name: str, *, low: int | None = None, high: int | None = None) -> int:
        value = self.get(name, int)
        if (low is not None and value < low) or (high is not None and value > high):
            raise self._fail(name, f"is {value}, outside [{low}, {high}]")
        return value

    def number(self, name: str, *, optional: bool = False) -> float | None:
        value = self.get(name, float, optional=optional)
        if value is None:
            return None
        if not math.isfinite(value):
            raise self._fail(name, f"is {value}, not finite")
        return float(value)

    def array(self, name: str, *, length: int, dtype=float, low: float | None = None) -> np.ndarray:
        values = self.get(name, list)
        if len(values) != length:
            raise self._fail(name, f"has {len(values)} entries, expected {length}")
        wanted = (int,) if dtype is int else (int, float)
        if not all(isinstance(v, wanted) and not isinstance(v, bool) for v in values):
            raise self._fail(name, f"must hold only {'integers' if dtype is int else 'numbers'}")
        array = np.array(values, dtype=np.int64 if dtype is int else float)
        if not np.all(np.isfinite(array)):
            raise self._fail(name, "holds a value that is not finite")
        if low is not None and np.any(array < low):
            raise self._fail(name, f"holds a value below {low}")
        return array

    def child(self, name: str) -> StateReader:
        return StateReader(self.get(name, dict), self.source, f"{self.prefix}{name}.")

    def generator(self, name: str) -> np.random.Generator:
        state = self.get(name, dict)
        try:
            bit_generator = getattr(np.random, state["bit_generator"])()
            bit_generator.state = state
        except (KeyError, TypeError, ValueError, AttributeError) as error:
            raise self._fail(name, f"is not a numpy generator state ({error})") from None
        return np.random.Generator(bit_generator)


def state_int(reader: StateReader, what: str, value, low: int, high: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise StateError(f"{reader.source}: {what} {value!r} is not an integer in [{low}, {high}]")
    return value
