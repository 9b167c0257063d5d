"""The workers of the RTE crowdsourcing task (Snow et al. 2008) as an embedded accuracy table.

OptMAI's real-data experiment (Zhou, Chen, Li 2014, section 6) takes each of the 164
Mechanical Turk workers of the RTE task as an arm whose mean is the worker's accuracy
against the gold labels. The embedded table ``embedded/rte_workers.csv`` (derived by
``datasets/derive_rte_table.py`` from :func:`load_rte_labels`) keeps, per worker, only the
number of labels given and the number that matched the gold label; :func:`load_rte`
reads it. :func:`load_rte_labels` reads the raw labels, when present, as a
:class:`fullbandit.datasets.crowd.CrowdTable` (for replay over the real answers).

Source: R. Snow, B. O'Connor, D. Jurafsky, A. Y. Ng. Cheap and fast - but is it good?
Evaluating non-expert annotations for natural language tasks. EMNLP 2008 (the RTE task),
as redistributed by the CrowdTruth project (Apache-2.0).
"""

from __future__ import annotations

import csv
from dataclasses import dataclass
from importlib import resources

import numpy as np

from fullbandit.datasets.crowd import CrowdTable, load_long
from fullbandit.datasets.shared_data import raw_data_file

RTE_TABLE = "rte_workers.csv"
#: The raw labels' place inside the data folder (not shipped; :mod:`fullbandit.datasets.shared_data`).
RTE_LABELS = "rte/rte_labels.csv"
#: The column of the raw file holding each task's gold label.
RTE_GOLD = "gold"


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


def load_rte_labels(path=None) -> CrowdTable:
    """The raw RTE labels (``task,worker,label,gold``) graded as a :class:`CrowdTable`.

    Read with :func:`fullbandit.datasets.crowd.load_long` (``true_label="gold"``: each row
    carries its task's gold label), so the loader's rules apply: labels compared as text,
    workers in order of first appearance, tasks in order of first appearance. The raw file
    is not shipped (only the per-worker counts derived from it, :func:`load_rte`); ``path``
    defaults to ``rte/rte_labels.csv`` in the data folder: ``$FULLBANDIT_DATA`` or
    ``fullbandit --data-dir``, else ``../shared/data`` next to a source checkout
    (:func:`fullbandit.datasets.shared_data.data_folder`, looked up at each call).

    Parameters
    ----------
    path : str or os.PathLike, optional
        The published ``rte_labels.csv``.

    Returns
    -------
    CrowdTable
        800 tasks x 164 workers, 8,000 graded labels; a worker's ``n_answered`` and
        ``n_correct`` are the ``labels`` and ``correct`` of :func:`load_rte`.

    Raises
    ------
    FileNotFoundError
        If the file is not there, naming the path tried and the settings of the data folder,
        and saying where the file comes from.
    InvalidParameterError
        If the file lacks a column (naming it and the columns present) or has a malformed
        row (naming its line and column).

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> path = Path(tempfile.mkdtemp()) / "labels.csv"
    >>> _ = path.write_text("task,worker,label,gold\\n1,a,1,1\\n1,b,0,1\\n2,a,0,0\\n")
    >>> table = load_rte_labels(path)
    >>> table.worker_ids, table.n_correct.tolist(), table.n_answered.tolist()
    (('a', 'b'), [2, 0], [2, 1])
    """
    path = raw_data_file(path, RTE_LABELS, "the RTE labels",
                         "fullbandit ships only the per-worker counts (load_rte()); the labels (Snow et al. 2008, "
                         "columns task,worker,label,gold) are redistributed by the CrowdTruth project: pass "
                         "load_rte_labels(path=...) the file")
    return load_long(path, true_label=RTE_GOLD, name="rte")


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
