"""Decision constraints from data: a column of a worker table as a partition matroid.

:func:`partition_matroid_from_column` turns a grouping column of a worker table (country,
team, skill group) into a :class:`fullbandit.problems.classes.PartitionMatroid`, e.g. "a team of
``k`` with at most 3 workers per country", for ICB and the other algorithms whose
``spec.supports(problem)`` accepts a matroid (``fullbandit solve --list``).

Rules
-----
* Every worker of ``worker_ids`` must appear exactly once in the table's id column; a
  missing worker, an id listed twice, or an empty id or group cell is refused, naming the
  workers and the file line (or DataFrame row). Rows of workers not in ``worker_ids`` are
  ignored.
* Group indices follow the order in which the labels first appear **along
  ``worker_ids``** (arm order), not along the table's rows: reordering the table changes
  nothing.
* Caps: ``at_most`` gives every group the same cap; ``capacities`` maps each label to
  its cap. A group that ``capacities`` does not name is refused (no silent default), and
  so is a label that no worker of ``worker_ids`` carries (likely a typo).
* ``k`` must be reachable: ``sum over groups of min(cap, group size) >= k``.
* The teams must span ``R^n`` (``spanning=True``, the default): the full-bandit
  algorithms that take a matroid (ICB, the exhaustive reference) estimate every worker's
  mean by least squares on team sums. With two or more groups that needs every cap to be
  at least 1 and the caps, each counted up to its group's size, to sum to more than
  ``k``; caps summing to exactly ``k`` (e.g. "one per country" over ``k`` countries) fix
  every team's group counts, and a single feasible team leaves nothing to search. Both
  are refused here, before any pull, naming the groups with their sizes and caps
  (:meth:`fullbandit.problems.classes.PartitionMatroid.require_spanning_design`, which proves the
  condition).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from fullbandit.datasets.crowd import cell_text, read_text_table
from fullbandit.problems.classes import PartitionMatroid
from fullbandit.util.validation import InvalidParameterError, check_int

__all__ = ["partition_matroid_from_column"]


def _listing(items, limit: int = 5) -> str:
    items = list(items)
    shown = ", ".join(map(repr, items[:limit]))
    return shown if len(items) <= limit else f"{shown} and {len(items) - limit} more"


def partition_matroid_from_column(worker_ids: Sequence, workers, column: str, *, k: int,
                                  at_most: int | None = None, capacities: Mapping | None = None,
                                  id_column: str = "worker",
                                  spanning: bool = True) -> tuple[PartitionMatroid, tuple[str, ...]]:
    """The partition matroid "at most ``cap`` workers per value of ``column``", and the group labels.

    Parameters
    ----------
    worker_ids : sequence of str
        The arms, in order (e.g. ``load_dataset("it").worker_ids``).
    workers : pandas.DataFrame or path of a CSV file
        A table with an id column ``id_column`` and the grouping column ``column``.
    column : str
        The grouping column (country, team, skill group).
    k : int
        Team size.
    at_most : int, optional
        One cap for every group (exactly one of ``at_most`` and ``capacities``).
    capacities : mapping of label -> int, optional
        A cap for each group label; every group must be named, and only groups.
    id_column : str
        The column of worker ids (default ``"worker"``).
    spanning : bool
        Refuse caps under which the feasible teams do not span ``R^n`` (what the
        full-bandit algorithms need; see the module's rules). ``False`` builds the matroid
        anyway, e.g. to compute the best team under the caps.

    Returns
    -------
    (PartitionMatroid, tuple of str)
        The matroid (``groups[i]`` is arm ``i``'s group index) and ``labels[g]``, the label of
        group index ``g``; indices follow the first appearance of a label along ``worker_ids``.

    Raises
    ------
    InvalidParameterError
        Missing or duplicated workers, empty cells, missing columns, unknown or unnamed
        capacity labels, a ``k`` no team respecting the caps can reach, and (with
        ``spanning``) caps under which the teams do not span ``R^n``.

    Examples
    --------
    >>> import pandas as pd
    >>> from fullbandit.datasets.groups import partition_matroid_from_column
    >>> table = pd.DataFrame({"worker": ["c", "a", "b", "d", "e"], "country": ["fr", "jp", "jp", "fr", "fr"]})
    >>> problem, labels = partition_matroid_from_column(["a", "b", "c", "d", "e"], table, "country", k=2,
    ...                                                 capacities={"jp": 1, "fr": 2})
    >>> problem.groups, problem.capacities, labels
    ((0, 0, 1, 1, 1), (1, 2), ('jp', 'fr'))
    >>> problem.best([0.9, 0.8, 0.1, 0.2, 0.3])  # at most one from jp
    (0, 4)

    Caps of 1 for two groups and ``k = 2`` fix every team to one of each country: team
    sums can then not tell the countries' levels apart, and the search is refused unless
    ``spanning=False``:

    >>> import textwrap
    >>> from fullbandit import InvalidParameterError
    >>> try:
    ...     partition_matroid_from_column(["a", "b", "c", "d", "e"], table, "country", k=2, at_most=1)
    ... except InvalidParameterError as error:
    ...     print(textwrap.fill(str(error), 90))
    group caps jp: 2 arms, cap 1; fr: 3 arms, cap 1: counted up to each group's size, the caps
    sum to k=2, so every feasible team holds exactly 1 of jp, 1 of fr: team sums then compare
    arms only within a group and the full-bandit algorithms' least-squares design has rank 4 <
    n=5. Raise a cap so that they sum to more than k, or lower k below 2
    >>> problem, _ = partition_matroid_from_column(["a", "b", "c", "d", "e"], table, "country", k=2, at_most=1,
    ...                                            spanning=False)
    >>> problem.capacities, problem.best([0.9, 0.8, 0.1, 0.2, 0.3])  # one from jp, one from fr
    ((1, 1), (0, 4))
    """
    ids = [str(w) for w in worker_ids]
    if (at_most is None) == (capacities is None):
        raise InvalidParameterError("give exactly one of at_most (one cap for every group) and capacities "
                                    "(a cap per group label)")
    if len(set(ids)) != len(ids):
        repeated = sorted({w for w in ids if ids.count(w) > 1})
        raise InvalidParameterError(f"worker_ids lists {_listing(repeated)} more than once")
    frame, source, where = read_text_table(workers, "workers")
    for name in (id_column, column):
        if name not in frame.columns:
            raise InvalidParameterError(f"{source}: column {name!r} is missing; columns present: "
                                        f"{', '.join(map(repr, frame.columns))}")
    table_ids = frame[id_column].map(cell_text)
    empty = np.flatnonzero(table_ids.isna().to_numpy())
    if empty.size:
        raise InvalidParameterError(f"{source}, {where(empty[0])}, column {id_column!r}: empty worker id "
                                    f"({empty.size} such rows)")
    rows: dict[str, list[int]] = {}
    for row, worker in enumerate(table_ids):
        rows.setdefault(worker, []).append(row)
    duplicated = [w for w, r in rows.items() if len(r) > 1]
    if duplicated:
        first = duplicated[0]
        raise InvalidParameterError(
            f"{source}: worker {first!r} appears {len(rows[first])} times "
            f"({', '.join(where(r) for r in rows[first])}); "
            f"each worker must appear once ({len(duplicated)} duplicated: {_listing(duplicated)})")
    missing = [w for w in ids if w not in rows]
    if missing:
        raise InvalidParameterError(f"{source}: {len(missing)} of {len(ids)} workers missing from column "
                                    f"{id_column!r}: {_listing(missing)}")
    labels: list[str] = []
    groups: list[int] = []
    for worker in ids:
        row = rows[worker][0]
        label = cell_text(frame[column].iloc[row])
        if label is None:
            raise InvalidParameterError(f"{source}, {where(row)}, column {column!r}: empty group of worker "
                                        f"{worker!r}")
        if label not in labels:
            labels.append(label)
        groups.append(labels.index(label))
    if capacities is None:
        caps = [check_int("at_most", at_most, low=0)] * len(labels)
    else:
        named = {str(label): cap for label, cap in capacities.items()}
        unknown = [label for label in named if label not in labels]
        if unknown:
            raise InvalidParameterError(f"capacities names {_listing(unknown)}, not a group of column {column!r}; "
                                        f"its groups are {_listing(labels, limit=20)}")
        unnamed = [label for label in labels if label not in named]
        if unnamed:
            raise InvalidParameterError(f"capacities gives no cap for group {_listing(unnamed)} of column "
                                        f"{column!r}; name every group")
        caps = [check_int(f"capacities[{label!r}]", named[label], low=0) for label in labels]
    check_int("k", k, low=1)
    room = sum(min(cap, groups.count(g)) for g, cap in enumerate(caps))
    if room < k:
        detail = ", ".join(f"{label}: {min(cap, groups.count(g))}" for g, (label, cap) in
                           enumerate(zip(labels, caps, strict=True)))
        raise InvalidParameterError(f"k={k} is unreachable: the caps on column {column!r} allow at most {room} "
                                    f"workers in a team ({detail})")
    problem = PartitionMatroid(tuple(groups), tuple(caps), k)
    if spanning:
        problem.require_spanning_design(labels)
    return problem, tuple(labels)
