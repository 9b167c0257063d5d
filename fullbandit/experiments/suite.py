"""What a named suite of ``fullbandit bench`` is: a grid with its figure and summary table.

Every reproduction module declares its suites (its ``SUITES``) with :class:`Suite`; the
catalogue :mod:`fullbandit.experiments.suites` gathers them by name.
"""

from __future__ import annotations

import functools
import inspect
import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from fullbandit.experiments.grid import Grid
from fullbandit.experiments.provenance import provenance_record, versions_in
from fullbandit.util.png import add_png_text

#: The PNG text entry :meth:`Suite.draw` writes (the JSON of
#: :func:`~fullbandit.experiments.provenance.provenance_record`).
PROVENANCE_KEYWORD = "fullbandit provenance"


def summarize_identification(frame: pd.DataFrame) -> pd.DataFrame:
    """Runs, mean pulls, error rate and mean time per algorithm (and swept n or k)."""
    swept = [c for c in ("n", "k") if c in frame.columns and frame[c].nunique() > 1]
    return frame.groupby(["algorithm", *swept]).agg(
        runs=("pulls", "size"), mean_pulls=("pulls", "mean"), error_rate=("correct", lambda ok: 1 - ok.mean()),
        mean_seconds=("wall_time", "mean"))


@dataclass(frozen=True)
class Suite:
    """A named grid with its figure and summary table.

    ``build(runs)`` gives the grid; ``plot(frame, path)`` writes a figure (:meth:`draw` adds
    the provenance of the runs drawn; a ``plot`` with a ``suite`` parameter is handed the
    suite, so a figure module reads the summary without importing its suite's module);
    ``summarize(frame)`` gives the table ``fullbandit bench`` prints.
    """

    name: str
    description: str
    build: Callable[[int], Grid]
    #: ``plot(frame, path)``, or ``plot(frame, path, suite=...)`` for a figure that reads the suite.
    plot: Callable[..., None]
    default_runs: int
    summarize: Callable[[pd.DataFrame], pd.DataFrame] = summarize_identification
    #: ``claims(frame)``: the paper's statements about the figure, checked on the runs (optional).
    claims: Callable[[pd.DataFrame], pd.DataFrame] | None = None

    def draw(self, frame: pd.DataFrame, path) -> None:
        """Write the figure of the runs ``frame`` to the PNG file ``path``, with the code behind them, and
        a vector copy beside it (``path`` with the suffix ``.svg``).

        The code versions of the rows (their provenance columns; none: an unknown version)
        and of this process go in the PNG text entry ``"fullbandit provenance"``
        (:data:`PROVENANCE_KEYWORD`), as the JSON of
        :func:`~fullbandit.experiments.provenance.provenance_record`. Both files are cut to
        what is drawn (``savefig.bbox = "tight"``), legends beside the panels included; the
        SVG's element ids are salted with the suite's name, so redrawing the same rows
        changes no more than its date.
        """
        import matplotlib

        path = Path(path)
        plot = self.plot
        if "suite" in inspect.signature(plot).parameters:  # a figure that reads the suite (its summary)
            plot = functools.partial(plot, suite=self)
        with matplotlib.rc_context({"savefig.bbox": "tight", "svg.hashsalt": self.name}):
            plot(frame, path)
            plot(frame, path.with_suffix(".svg"))
        add_png_text(path, PROVENANCE_KEYWORD, json.dumps(provenance_record(versions_in(frame)), sort_keys=True))
