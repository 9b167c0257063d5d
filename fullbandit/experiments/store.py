"""An append-only CSV of finished runs that survives being killed.

Each finished run is one line written with a single ``write`` call on a file opened in
append mode, so a killed process leaves every earlier line whole; at most the line being
written can be cut, and opening the store again drops such a partial last line. Rows are
never rewritten, so a run that finished is never lost.
"""

from __future__ import annotations

import csv
import io
import json
import math
import os
from pathlib import Path

import pandas as pd

from fullbandit._validation import InvalidParameterError

from fullbandit.experiments.evaluations import METRICS_COLUMN


class ResultStore:
    """Rows of a grid in ``path`` (CSV with a fixed header; algorithm-specific metrics as JSON)."""

    def __init__(self, path, columns: list[str]):
        self.path = Path(path)
        self.columns = list(columns)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        if self.path.exists() and self.path.stat().st_size > 0:
            self._repair_partial_last_line()
            with open(self.path, newline="") as handle:
                header = next(csv.reader(handle), None)
            if header != self.columns:
                raise InvalidParameterError(
                    f"out={str(self.path)!r} holds results of a different grid (columns {header}); "
                    "use another file or remove it")
        else:
            self._write_line(self.columns, mode="w")

    def _repair_partial_last_line(self) -> None:
        with open(self.path, "rb+") as handle:
            data = handle.read()
            if data.endswith(b"\n"):
                return
            handle.truncate(data.rfind(b"\n") + 1)

    def _write_line(self, values, mode: str = "a") -> None:
        buffer = io.StringIO()
        csv.writer(buffer, lineterminator="\n").writerow(values)
        flags = os.O_WRONLY | os.O_CREAT | (os.O_APPEND if mode == "a" else os.O_TRUNC)
        descriptor = os.open(self.path, flags, 0o644)
        try:
            os.write(descriptor, buffer.getvalue().encode())
        finally:
            os.close(descriptor)

    def append(self, row: dict) -> None:
        """Write one finished run."""
        values = []
        for column in self.columns:
            value = row.get(column, "")
            if column == METRICS_COLUMN:
                value = json.dumps(value, sort_keys=True, default=str)
            elif isinstance(value, float) and math.isnan(value):
                value = ""  # read back as NaN (the reader treats only empty fields as missing)
            values.append(value)
        self._write_line(values)

    def read(self) -> pd.DataFrame:
        """All stored rows, metrics expanded into columns."""
        # Teams are strings such as "3" or "0-4-7": never let a one-member team become a number.
        frame = pd.read_csv(self.path, keep_default_na=False, na_values=[""],
                            dtype={"key": str, "answer": str, "best": str})
        return expand_metrics(frame)

    def finished_keys(self) -> set[str]:
        if self.path.stat().st_size == 0:
            return set()
        frame = pd.read_csv(self.path, usecols=["key"], dtype=str, keep_default_na=False)
        return set(frame["key"])


def expand_metrics(frame: pd.DataFrame) -> pd.DataFrame:
    """Turn the JSON metrics column into one column per metric (prefixed on a name clash)."""
    if METRICS_COLUMN not in frame.columns:
        return frame
    records = [json.loads(text) if isinstance(text, str) and text else dict(text or {})
               for text in frame[METRICS_COLUMN]]
    metrics = pd.DataFrame.from_records(records, index=frame.index)
    metrics = metrics[sorted(metrics.columns)]  # same order whether rows came from memory or a file
    metrics.columns = [f"metric.{name}" if name in frame.columns else name for name in metrics.columns]
    return pd.concat([frame.drop(columns=[METRICS_COLUMN]), metrics], axis=1)
