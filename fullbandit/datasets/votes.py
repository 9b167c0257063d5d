"""Vote-count tables: one row per item (a caption, say), one column per rating, as categorical arms.

A crowd rates each item on a small scale ("not funny", "somewhat funny", "funny"); mapping
the ratings to rewards (0, 0.5, 1) and each item's vote shares to probabilities gives a
categorical arm per item, as in the caption-contest experiment of Shahrampour and Tarokh
(section IV.B). :func:`load_vote_counts` reads such a table from a CSV file or a pandas
data frame, checks every cell, and returns a :class:`VoteCounts`. It offers what a
:class:`fullbandit.datasets.crowd.CrowdTable` offers for crowd answers: the ids, the
arms' :attr:`VoteCounts.means`, :meth:`VoteCounts.best_team` and
:meth:`VoteCounts.environment` (a :class:`fullbandit.Categorical` that replays the
recorded votes, with semi or full feedback), so the runner and every algorithm run on it;
``fullbandit solve --data counts.csv --votes`` does so from the command line.

:func:`load_caption559` reads the counts of the New Yorker caption contest 559 (138
captions). fullbandit does not ship that table: the upstream repository
(github.com/nextml/caption-contest-data) states no licence, so its redistribution is not
established. Pass the path of the published ``counts.csv``, or keep it at
``caption559/counts.csv`` in the data folder (``$FULLBANDIT_DATA``, ``fullbandit --data-dir``,
else ``../shared/data`` next to a source checkout: :mod:`fullbandit.datasets.shared_data`).

Examples
--------
>>> import pandas as pd
>>> from fullbandit.datasets.votes import load_vote_counts
>>> table = pd.DataFrame({"rank": [0, 1, 2], "not_funny": [2, 9, 5], "somewhat_funny": [2, 1, 0],
...                       "funny": [4, 0, 5]})
>>> votes = load_vote_counts(table, id_column="rank")
>>> votes.ids, votes.votes.tolist(), votes.means.tolist()
(('0', '1', '2'), [8, 10, 10], [0.625, 0.05, 0.5])
>>> votes.environment(seed=0).pull((0, 2), count=4).shape
(2,)
"""

from __future__ import annotations

import csv
import math
import numbers
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from fullbandit.datasets.shared_data import raw_data_file
from fullbandit.environments.models import Categorical
from fullbandit.problems.classes import TopK
from fullbandit.util.validation import InvalidParameterError, check_choice, check_k, check_vector, read_csv_text

RATINGS = ("not_funny", "somewhat_funny", "funny")
REWARDS = (0.0, 0.5, 1.0)
#: Reward models of :meth:`VoteCounts.environment`.
VOTE_MODELS = ("replay",)
CAPTION559_ID = "rank"
CAPTION559_TOTAL = "votes"
#: The published counts' place inside the data folder (not shipped; :mod:`fullbandit.datasets.shared_data`).
CAPTION559_RAW = "caption559/counts.csv"
#: The largest vote count: the counts are summed in int64 (2**63 - 1), with room for a million rows.
_MAX_COUNT = 10 ** 12
_INTEGER = re.compile(r"\s*[+-]?\d+\s*")


@dataclass(frozen=True)
class VoteCounts:
    """Per-item vote counts on a rating scale, and the categorical arms they define.

    Attributes
    ----------
    ids : tuple of str
        The items' ids, in the table's order.
    counts : numpy.ndarray of int
        ``counts[i, j]``: votes for rating ``j`` on item ``i``, shape ``(n, m)``.
    support : numpy.ndarray of float
        The reward of each rating, increasing, shape ``(m,)``.
    columns : tuple of str
        The rating columns, in the order of ``support``.
    source : str
        Where the table was read from (a path, or ``"<DataFrame>"``).
    """

    ids: tuple[str, ...]
    counts: np.ndarray
    support: np.ndarray
    columns: tuple[str, ...]
    source: str

    @property
    def n_arms(self) -> int:
        return len(self.ids)

    @property
    def votes(self) -> np.ndarray:
        """Total votes per item."""
        return self.counts.sum(axis=1)

    @property
    def probabilities(self) -> np.ndarray:
        """Each item's vote shares (rows sum to 1): its categorical law on ``support``."""
        return self.counts / self.votes[:, None]

    @property
    def means(self) -> np.ndarray:
        """Each item's mean reward, ``probabilities @ support``.

        Computed as ``(counts @ support) / votes``: with rewards such as 0, 0.5, 1 the
        numerator is exact, so two items with the same mean rating get the same float and
        :meth:`best_team` breaks their tie by index, not by rounding.
        """
        return (self.counts @ self.support) / self.votes

    def best_team(self, k) -> tuple[int, ...]:
        """Indices of the ``k`` items of highest mean reward (ties: lower index first), ascending.

        :meth:`fullbandit.TopK.best` on :attr:`means`, as :meth:`CrowdTable.best_team
        <fullbandit.datasets.crowd.CrowdTable.best_team>` on the accuracies.

        Examples
        --------
        >>> import pandas as pd
        >>> votes = load_vote_counts(pd.DataFrame({"id": ["a", "b", "c"], "not_funny": [1, 0, 3],
        ...                                        "somewhat_funny": [0, 2, 0], "funny": [1, 0, 1]}))
        >>> votes.means.tolist(), votes.best_team(2)     # a and b tie at 0.5: the lower index first
        ([0.5, 0.5, 0.25], (0, 1))
        """
        return TopK(self.n_arms, check_k(k, self.n_arms)).best(self.means)

    def environment(self, model: str = "replay", *, feedback: str = "semi", seed=None) -> Categorical:
        """A simulated campaign with one categorical arm per item, whose mean is the item's mean rating.

        The environment computes its means from the vote shares, so they equal :attr:`means`
        up to the last bit of rounding.

        Parameters
        ----------
        model : {"replay"}
            Each member of a pull draws one of its item's recorded votes uniformly at random
            (with replacement), i.e. a rating with the item's vote shares: a
            :class:`fullbandit.Categorical` arm labelled by the item's id. Members draw
            independently; the noise scale is ``(max - min) / 2`` of :attr:`support` per
            member and ``sqrt(k)`` times that on the sum. The argument mirrors
            :meth:`CrowdTable.environment <fullbandit.datasets.crowd.CrowdTable.environment>`.
        feedback : {"semi", "full"}
            Each member's reward (the default, as in the caption experiment of Shahrampour
            and Tarokh, section IV.B), or their sum (full-bandit feedback: the sum of ``k``
            independent categorical draws).
        seed : None, int, SeedSequence or Generator

        Examples
        --------
        >>> import pandas as pd
        >>> votes = load_vote_counts(pd.DataFrame({"id": ["a", "b", "c"], "not_funny": [1, 0, 3],
        ...                                        "somewhat_funny": [0, 2, 0], "funny": [1, 0, 1]}))
        >>> full = votes.environment(feedback="full", seed=0)
        >>> full.means.tolist(), full.pull((1,), count=4)     # item b: only "somewhat funny" votes
        ([0.5, 0.5, 0.25], 2.0)
        """
        check_choice("model", model, VOTE_MODELS)
        return Categorical(self.support, self.probabilities, feedback=feedback, seed=seed, labels=self.ids)


def load_vote_counts(source, *, columns: Sequence[str] = RATINGS, values: Sequence[float] = REWARDS,
                     id_column: str = "id", total_column: str | None = None) -> VoteCounts:
    """Read a vote-count table from a CSV file or a pandas data frame.

    Parameters
    ----------
    source : str, path or pandas.DataFrame
        A CSV file with a header row, or a data frame with these columns (any order; other
        columns are ignored).
    columns : sequence of str
        The rating columns, one per reward value.
    values : sequence of float
        The reward of each rating column, strictly increasing.
    id_column : str
        The column of item ids (distinct).
    total_column : str, optional
        A column of total votes per item, checked against the sum of the rating columns.

    Raises
    ------
    InvalidParameterError
        Naming the source, the line (file) or row label (data frame) and the column, for a
        missing column, a count that is not a non-negative integer, an item without votes, a
        repeated id or a total that disagrees with the counts.
    """
    columns = tuple(str(column) for column in columns)
    support = check_vector("values", values, length=len(columns))
    if not columns:
        raise InvalidParameterError("columns must name at least one rating column")
    if len(set(columns)) != len(columns):
        raise InvalidParameterError(f"columns must be distinct, got {list(columns)}")
    if np.any(np.diff(support) <= 0):
        raise InvalidParameterError(f"values must be strictly increasing (one per column), got {support.tolist()}")
    if isinstance(source, str | Path):
        name = str(source)
        reader = csv.DictReader(read_csv_text(source))
        header = [field.strip() for field in reader.fieldnames or ()]
        reader.fieldnames = header
        _check_columns(name, header, columns, id_column, total_column)
        rows = list(_file_rows(name, reader))
    elif hasattr(source, "columns") and hasattr(source, "itertuples"):
        name = "<DataFrame>"
        _check_columns(name, [str(column) for column in source.columns], columns, id_column, total_column)
        rows = list(_frame_rows(source))
    else:
        raise TypeError(f"source must be a path or a pandas DataFrame, got {type(source).__name__}")
    if not rows:
        raise InvalidParameterError(f"{name}: the table has no rows")
    ids: list[str] = []
    seen: dict[str, str] = {}
    counts = np.empty((len(rows), len(columns)), dtype=np.int64)
    for index, (where, row) in enumerate(rows):
        item = str(row[id_column]).strip()
        if item in seen:
            raise InvalidParameterError(f"{name}: {where}, column {id_column!r}: id {item!r} repeats {seen[item]}")
        seen[item] = where
        ids.append(item)
        for j, column in enumerate(columns):
            counts[index, j] = _count(name, where, column, row[column])
        if counts[index].sum() == 0:
            raise InvalidParameterError(f"{name}: {where} (id {item!r}) has no votes in columns {list(columns)}; "
                                        "every item needs at least one vote")
        if total_column is not None:
            total = _count(name, where, total_column, row[total_column])
            if total != counts[index].sum():
                raise InvalidParameterError(f"{name}: {where}, column {total_column!r}: total {total} differs from "
                                            f"the sum {int(counts[index].sum())} of columns {list(columns)}")
    counts.flags.writeable = False
    support.flags.writeable = False
    return VoteCounts(tuple(ids), counts, support, columns, name)


def load_caption559(path=None) -> VoteCounts:
    """The New Yorker caption contest 559 (NEXT system): 138 captions, three ratings each.

    Ratings "not funny", "somewhat funny", "funny" are rewards 0, 0.5, 1; ids are the
    ``rank`` column of the published table, and its ``votes`` column is checked against the
    three counts. Not shipped with fullbandit (no licence is stated upstream): ``path`` is
    the published ``counts.csv`` (by default ``caption559/counts.csv`` in the data folder,
    :func:`fullbandit.datasets.shared_data.data_folder`, looked up at each call). The
    experiment of Shahrampour and Tarokh (section IV.B) seeks the top ``M = 2`` of these
    ``K = 138`` arms.

    Raises
    ------
    FileNotFoundError
        If the file is not there, naming the path tried and the settings of the data folder,
        and saying where to get it.
    """
    path = raw_data_file(path, CAPTION559_RAW, "the caption contest 559 vote counts",
                         "fullbandit does not ship them (the upstream data, "
                         "https://github.com/nextml/caption-contest-data, states no licence); pass "
                         "load_caption559(path=...) the published counts.csv (columns rank,votes,not_funny,"
                         "somewhat_funny,funny)")
    return load_vote_counts(path, id_column=CAPTION559_ID, total_column=CAPTION559_TOTAL)


def _check_columns(name: str, header: Sequence[str], columns: tuple[str, ...], id_column: str,
                   total_column: str | None) -> None:
    wanted = [id_column, *columns] + ([] if total_column is None else [total_column])
    missing = [column for column in wanted if column not in header]
    if missing:
        raise InvalidParameterError(f"{name}: columns {missing} are missing (the header has {list(header)})")
    repeated = sorted({column for column in wanted if list(header).count(column) > 1})
    if repeated:
        raise InvalidParameterError(f"{name}: columns {repeated} appear more than once in the header")


def _file_rows(name: str, reader: csv.DictReader) -> Iterator[tuple[str, dict]]:
    for row in reader:
        if None in row or any(value is None for value in row.values()):
            raise InvalidParameterError(f"{name}: line {reader.reader.line_num} has a different number of cells "
                                        "than the header")
        yield f"line {reader.reader.line_num}", row


def _frame_rows(frame) -> Iterator[tuple[str, dict]]:
    names = [str(column) for column in frame.columns]
    for label, values in zip(frame.index, frame.itertuples(index=False, name=None), strict=True):
        yield f"row {label!r}", dict(zip(names, values, strict=True))


def _count(name: str, where: str, column: str, cell) -> int:
    """A vote count: a non-negative integer (a string of digits, an integer, or an integral float)."""
    value: int | None = None
    if isinstance(cell, bool | np.bool_):
        value = None
    elif isinstance(cell, str):
        value = int(cell) if _INTEGER.fullmatch(cell) else None
    elif isinstance(cell, numbers.Integral):
        value = int(cell)
    elif isinstance(cell, numbers.Real) and math.isfinite(cell) and float(cell).is_integer():
        value = int(float(cell))
    if value is None:
        raise InvalidParameterError(f"{name}: {where}, column {column!r}: a vote count must be a non-negative "
                                    f"integer, got {cell!r}")
    if value < 0:
        raise InvalidParameterError(f"{name}: {where}, column {column!r}: a vote count must be a non-negative "
                                    f"integer, got {value}")
    if value > _MAX_COUNT:  # numpy's int64 would overflow: a traceback, not a message
        raise InvalidParameterError(f"{name}: {where}, column {column!r}: a vote count must be at most "
                                    f"{_MAX_COUNT:_}, got {value}")
    return value
