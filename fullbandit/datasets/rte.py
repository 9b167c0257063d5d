"""The workers of the RTE crowdsourcing task (Snow et al. 2008) as an embedded accuracy table.

OptMAI's real-data experiment (Zhou, Chen, Li 2014, section 6) takes each of the 164
Mechanical Turk workers of the RTE task as an arm whose mean is the worker's accuracy
against the gold labels. The embedded table ``embedded/rte_workers.csv`` (derived by
``datasets/derive_rte_table.py``) keeps, per worker, only the number of labels given and
the number that matched the gold label.

Source: R. Snow, B. O'Connor, D. Jurafsky, A. Y. Ng. Cheap and fast - but is it good?
Evaluating non-expert annotations for natural language tasks. EMNLP 2008 (the RTE task),
as redistributed by the CrowdTruth project (Apache-2.0).
"""

from __future__ import annotations

import csv
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

import numpy as np

from fullbandit._validation import InvalidParameterError

RTE_TABLE = "rte_workers.csv"


@dataclass(frozen=True)
class WorkerAccuracies:
    """Per-worker label counts and accuracies.

    Attributes
    ----------
    worker_ids : tuple of str
    labels : numpy.ndarray of int
        Labels each worker gave.
    correct : numpy.ndarray of int
        Of those, how many matched the gold label.
    """

    worker_ids: tuple[str, ...]
    labels: np.ndarray
    correct: np.ndarray

    @property
    def accuracies(self) -> np.ndarray:
        """``correct / labels`` per worker (the arms' means)."""
        return self.correct / self.labels

    @property
    def n_workers(self) -> int:
        return len(self.worker_ids)


def accuracies_from_labels(path) -> WorkerAccuracies:
    """Count each worker's labels and correct labels in a ``task,worker,label,gold`` file.

    Workers are ordered by id. Raises if a column is missing.
    """
    counts: dict[str, list[int]] = {}
    with Path(path).open(newline="") as handle:
        reader = csv.DictReader(handle)
        missing = {"task", "worker", "label", "gold"} - set(reader.fieldnames or ())
        if missing:
            raise InvalidParameterError(f"{path}: columns {sorted(missing)} are missing")
        for row in reader:
            tally = counts.setdefault(row["worker"], [0, 0])
            tally[0] += 1
            tally[1] += int(row["label"].strip() == row["gold"].strip())
    ids = tuple(sorted(counts))
    return WorkerAccuracies(ids, np.array([counts[i][0] for i in ids]), np.array([counts[i][1] for i in ids]))


def load_rte() -> WorkerAccuracies:
    """The embedded RTE worker table: 164 workers, their label counts and accuracies.

    Examples
    --------
    >>> from fullbandit.datasets.rte import load_rte
    >>> rte = load_rte()
    >>> rte.n_workers, int(rte.labels.sum()), int(rte.labels.min()), int(rte.labels.max())
    (164, 8000, 20, 800)
    >>> bool(((rte.accuracies >= 0) & (rte.accuracies <= 1)).all())
    True
    """
    text = resources.files("fullbandit.datasets").joinpath("embedded", RTE_TABLE).read_text()
    rows = list(csv.DictReader(text.splitlines()))
    return WorkerAccuracies(tuple(row["worker"] for row in rows), np.array([int(row["labels"]) for row in rows]),
                            np.array([int(row["correct"]) for row in rows]))
