"""What a named suite of ``fullbandit bench`` is: a grid with its figure and summary table.

Every reproduction module declares its suites (its ``SUITES``) with :class:`Suite`; the
catalogue :mod:`fullbandit.experiments.suites` gathers them by name.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from fullbandit.experiments.grid import Grid


def summarize_identification(frame: pd.DataFrame) -> pd.DataFrame:
    """Runs, mean pulls, error rate and mean time per algorithm (and swept n or k)."""
    swept = [c for c in ("n", "k") if c in frame.columns and frame[c].nunique() > 1]
    return frame.groupby(["algorithm", *swept]).agg(
        runs=("pulls", "size"), mean_pulls=("pulls", "mean"), error_rate=("correct", lambda ok: 1 - ok.mean()),
        mean_seconds=("wall_time", "mean"))


@dataclass(frozen=True)
class Suite:
    """A named grid with its figure and summary table.

    ``build(runs)`` gives the grid; ``plot(frame, path)`` writes a PNG; ``summarize(frame)``
    gives the table ``fullbandit bench`` prints.
    """

    name: str
    description: str
    build: Callable[[int], Grid]
    plot: Callable[[pd.DataFrame, Path], None]
    default_runs: int
    summarize: Callable[[pd.DataFrame], pd.DataFrame] = summarize_identification
    #: ``claims(frame)``: the paper's statements about the figure, checked on the runs (optional).
    claims: Callable[[pd.DataFrame], pd.DataFrame] | None = None
