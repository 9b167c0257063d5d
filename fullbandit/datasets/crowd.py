"""Bring your own crowd data: long (``task, worker, label``) and wide quiz tables, graded against gold.

Every loader returns one in-memory form, :class:`CrowdTable`: a tasks x workers table of
1 (right), 0 (wrong) and NaN (no answer), with the worker and task ids. A worker's
accuracy is its mean over the gold tasks it answered; unanswered cells never count.

The rules of the loaders (each is tested in ``tests/test_crowd.py``):

* **Labels** are compared as text after stripping surrounding spaces, so ``1`` and
  ``" 1"`` match; a float equal to an integer is written without its ``.0`` (pandas
  stores a 0/1 column with gaps as 0.0/1.0), so ``1.0`` matches ``1`` too. Task and
  worker ids are normalised the same way.
* **Missing labels** (an empty cell, ``NaN``, ``NA``, ``N/A``, ``null`` or ``None`` in
  any case, or a NaN/None in a DataFrame) are missing answers, not wrong ones.
* **Unseen labels** (an answer that equals no true label of any task, e.g. ``"yes"``
  when the gold says ``1``) are graded wrong, with a :class:`CrowdDataWarning` counting
  them, since they usually reveal two codings of one label.
* **Answers to tasks without gold** are ignored, with a warning counting them.
* **Duplicate answers** (one worker, one task, two rows) are refused with an
  :class:`InvalidParameterError` naming the rows: which one to keep is the user's choice
  (e.g. ``answers.drop_duplicates(["task", "worker"])`` keeps the first).
* **Workers with fewer than** ``min_answers`` **gold answers** (including workers who
  answered no gold task at all) are dropped, with a warning counting them.
* **Gold tasks nobody answered** (after the workers above are dropped) are dropped,
  with a warning counting them.
* **Malformed input** (a missing column, an empty task or worker id, a gold task with no
  or two different true labels) raises :class:`InvalidParameterError` naming the file
  (or the argument, for a DataFrame), the row (the 1-based line of a CSV file, header
  included) and the column.

Examples
--------
>>> import pandas as pd
>>> answers = pd.DataFrame({"task": ["t1", "t1", "t2", "t2", "t3"],
...                         "worker": ["ann", "bo", "ann", "bo", "bo"],
...                         "label": [1, 0, 0, 0, 1]})
>>> gold = pd.DataFrame({"task": ["t1", "t2", "t3"], "true_label": ["1", "0", "1"]})
>>> table = load_long(answers, gold)
>>> table.worker_ids, table.accuracies.tolist(), table.n_answered.tolist()
(('ann', 'bo'), [1.0, 0.6666666666666666], [2, 3])
"""

from __future__ import annotations

import csv
import math
import os
import warnings
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from fullbandit.problems.classes import TopK
from fullbandit.util.validation import (
    InvalidParameterError,
    check_choice,
    check_int,
    check_k,
    is_readable_file,
    read_csv_text,
)

__all__ = ["CrowdTable", "CrowdDataWarning", "load_long", "load_wide", "MISSING_LABELS", "cell_text",
           "read_text_table"]

#: Label cells that stand for "no answer" (compared stripped and in lower case).
MISSING_LABELS = frozenset({"", "nan", "na", "n/a", "null", "none"})
ENVIRONMENT_MODELS = ("replay", "bernoulli")
_SHOWN = 5  # rows quoted in a message before "..."


class CrowdDataWarning(UserWarning):
    """Rows or workers were dropped, or answers graded wrong, by a stated loader rule."""


@dataclass(frozen=True, eq=False)
class CrowdTable:
    """Which worker answered which gold task, and whether rightly.

    Parameters
    ----------
    worker_ids : tuple of str
        One per column of ``correct``.
    task_ids : tuple of str
        One per row of ``correct``.
    correct : array_like of shape (n_tasks, n_workers)
        1.0 right, 0.0 wrong, NaN no answer (tasks x workers, the orientation of
        :class:`fullbandit.Replay` and :class:`fullbandit.datasets.QuizData`). Stored
        as a read-only float copy.
    name : str
        A name for reports.

    Examples
    --------
    >>> table = CrowdTable(("a", "b"), ("q1", "q2"), [[1, float("nan")], [0, 1]])
    >>> table.accuracies.tolist(), table.n_answered.tolist(), table.answered.tolist()
    ([0.5, 1.0], [2, 1], [[True, False], [True, True]])
    >>> table.best_team(1)
    (1,)
    """

    worker_ids: tuple[str, ...]
    task_ids: tuple[str, ...]
    correct: np.ndarray = field(repr=False)
    name: str = "crowd"

    def __post_init__(self) -> None:
        worker_ids = tuple(str(w) for w in self.worker_ids)
        task_ids = tuple(str(t) for t in self.task_ids)
        correct = np.array(np.ma.filled(np.ma.asarray(self.correct, dtype=float), np.nan), dtype=float)
        if correct.shape != (len(task_ids), len(worker_ids)):
            raise InvalidParameterError(
                f"correct has shape {correct.shape} but there are {len(task_ids)} task_ids and "
                f"{len(worker_ids)} worker_ids")
        for name, ids in (("worker_ids", worker_ids), ("task_ids", task_ids)):
            if len(set(ids)) != len(ids):
                raise InvalidParameterError(f"{name} must be distinct; repeated: {_repeated(ids)}")
        bad = ~np.isnan(correct) & (correct != 0) & (correct != 1)
        if bad.any():
            task, worker = np.argwhere(bad)[0]
            raise InvalidParameterError(
                f"correct must hold only 0, 1 or NaN (no answer): {float(correct[task, worker])!r} at task "
                f"{task_ids[task]!r}, worker {worker_ids[worker]!r}")
        unanswered = np.flatnonzero(np.isnan(correct).all(axis=0))
        if unanswered.size:
            raise InvalidParameterError(
                f"every worker needs at least one answer; worker {worker_ids[unanswered[0]]!r} has none")
        correct.flags.writeable = False
        object.__setattr__(self, "worker_ids", worker_ids)
        object.__setattr__(self, "task_ids", task_ids)
        object.__setattr__(self, "correct", correct)

    @property
    def n_workers(self) -> int:
        """Number of workers (columns)."""
        return self.correct.shape[1]

    @property
    def n_tasks(self) -> int:
        """Number of gold tasks (rows)."""
        return self.correct.shape[0]

    @property
    def answered(self) -> np.ndarray:
        """Boolean mask, shape ``(n_tasks, n_workers)``: true where the worker answered the task."""
        return ~np.isnan(self.correct)

    @property
    def n_answered(self) -> np.ndarray:
        """Gold tasks each worker answered."""
        return self.answered.sum(axis=0)

    @property
    def n_correct(self) -> np.ndarray:
        """Gold tasks each worker answered rightly."""
        return np.nansum(self.correct, axis=0).astype(int)

    @property
    def accuracies(self) -> np.ndarray:
        """Each worker's accuracy over the gold tasks it answered (unanswered cells never count)."""
        return self.n_correct / self.n_answered

    def best_team(self, k) -> tuple[int, ...]:
        """Indices of the ``k`` most accurate workers (ties: lower index first), ascending.

        Examples
        --------
        >>> CrowdTable(("a", "b", "c"), ("q",), [[1, 0, 1]]).best_team(2)
        (0, 2)
        """
        return TopK(self.n_workers, check_k(k, self.n_workers)).best(self.accuracies)

    def environment(self, model: str = "replay", *, feedback: str = "full", seed=None):
        """A simulated campaign whose workers' means are exactly these accuracies.

        Parameters
        ----------
        model : {"replay", "bernoulli"}
            ``"replay"``: :class:`fullbandit.environments.models.SparseReplay` (each member draws
            one of its own answered tasks); ``"bernoulli"``: independent Bernoulli workers
            with the accuracies (:class:`fullbandit.BernoulliTeam`). Both have the same
            law per member and noise scale ``sqrt(k)/2`` on the sum.
        feedback : {"full", "semi"}
        seed : None, int, SeedSequence or Generator

        Examples
        --------
        >>> table = CrowdTable(("a", "b"), ("q1", "q2"), [[1, float("nan")], [0, 1]])
        >>> table.environment("bernoulli", seed=0).means.tolist()
        [0.5, 1.0]
        """
        from fullbandit.environments.models import BernoulliTeam, SparseReplay

        model = check_choice("model", model, ENVIRONMENT_MODELS)
        if model == "replay":
            return SparseReplay(self, feedback=feedback, seed=seed)
        return BernoulliTeam(self.accuracies, feedback=feedback, seed=seed, labels=self.worker_ids)


# --- the long format --------------------------------------------------------------------

def load_long(answers, gold=None, *, task: str = "task", worker: str = "worker", label: str = "label",
              true_label: str = "true_label", min_answers: int = 1, name: str = "crowd") -> CrowdTable:
    """Grade a long table of answers (one row per worker and task) against gold labels.

    The frames are those of crowd-kit and of truth-inference benchmarks: ``answers`` has
    columns ``task, worker, label`` and ``gold`` columns ``task, true_label``. The rules
    (labels compared as stripped text, missing labels are missing answers, answers to
    tasks without gold ignored, duplicates refused, workers with fewer than
    ``min_answers`` gold answers dropped, gold tasks nobody answered dropped) are listed
    in :mod:`fullbandit.datasets.crowd`; every drop is counted in a
    :class:`CrowdDataWarning`.

    Parameters
    ----------
    answers : pandas.DataFrame, str or os.PathLike
        The answers, or the path of a CSV file of them (read as text, so labels keep
        their spelling).
    gold : pandas.DataFrame, pandas.Series, str, os.PathLike or None
        The true labels; a Series maps task to true label (crowd-kit's ``gt``, so
        ``load_long(*crowdkit.datasets.load_dataset(name))`` works); ``None`` takes them from a
        ``true_label`` column of ``answers`` (as in a ``task,worker,label,gold`` file with
        ``true_label="gold"``). A path may be a pipe (bash's ``<(...)``).
    task, worker, label, true_label : str
        Column names.
    min_answers : int
        Workers with fewer gold answers are dropped (at least 1: an accuracy needs one).
    name : str
        Name of the returned table.

    Returns
    -------
    CrowdTable
        Workers in order of first appearance in ``answers``, tasks in the order of ``gold``.

    Raises
    ------
    InvalidParameterError
        Malformed input, naming file (or argument), row and column; or no worker left.

    Examples
    --------
    >>> import pandas as pd
    >>> answers = pd.DataFrame({"task": [1, 1, 2, 2, 3], "worker": ["a", "b", "a", "b", "b"],
    ...                         "label": ["x", "y", "y", None, "x"]})
    >>> gold = pd.DataFrame({"task": ["1", "2", "4"], "true_label": ["x", "y", "x"]})
    >>> import warnings
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     table = load_long(answers, gold)
    >>> table.task_ids, table.accuracies.tolist(), table.n_answered.tolist()  # b's None is no answer
    (('1', '2'), [1.0, 0.0], [2, 1])
    >>> [str(w.message).split(":")[0] for w in caught]
    ['1 answer to 1 task without gold ignored', '1 gold task nobody answered dropped']
    """
    min_answers = check_int("min_answers", min_answers, low=1)
    if isinstance(gold, pd.Series):  # crowd-kit's gold: true labels indexed by task
        gold = pd.DataFrame({task: gold.index.to_numpy(), true_label: gold.to_numpy()})
    frame, source, where = read_text_table(answers, "answers")
    _require_columns(frame, source, (task, worker, label) + (() if gold is not None else (true_label,)))
    if gold is None:
        gold_frame, gold_source, gold_where = frame, source, where
    else:
        gold_frame, gold_source, gold_where = read_text_table(gold, "gold")
        _require_columns(gold_frame, gold_source, (task, true_label))

    tasks = _ids(frame[task], source, where, task)
    workers = _ids(frame[worker], source, where, worker)
    labels = frame[label].map(cell_text)
    truth = _gold(gold_frame, gold_source, gold_where, task, true_label)

    duplicated = pd.DataFrame({"t": tasks, "w": workers}).duplicated(keep=False).to_numpy()
    if duplicated.any():
        first = np.flatnonzero(duplicated)
        pair = (tasks.iloc[first[0]], workers.iloc[first[0]])
        rows = [i for i in first if (tasks.iloc[i], workers.iloc[i]) == pair]
        raise InvalidParameterError(
            f"{source}: worker {pair[1]!r} answered task {pair[0]!r} more than once ({_rows(where, rows)}, "
            f"columns {task!r}, {worker!r}); {int(duplicated.sum())} rows are such duplicates. Keep one answer "
            f"per worker and task, e.g. answers.drop_duplicates([{task!r}, {worker!r}]) keeps the first")
    return _grade(pd.DataFrame({"task": tasks, "worker": workers, "label": labels}), truth, min_answers, name,
                  source)


def read_text_table(data, argument: str):
    """A table given as a DataFrame or the path of a CSV file, read as the loaders of this package read it.

    Parameters
    ----------
    data : pandas.DataFrame or path
        The table. A CSV file is read as text cells (no guessing of missing values), and its
        blank lines are dropped.
    argument : str
        The argument's name, which messages about a DataFrame name.

    Returns
    -------
    tuple
        ``(frame, source, where)``: the rows; the file's path, or ``argument``, for messages; and
        ``where(i)``, the place of row ``i`` in the input (``"line n"`` of the file, header
        included, or ``"row n"`` of the DataFrame, 1-based).

    Raises
    ------
    TypeError
        If ``data`` is neither a DataFrame nor a path.
    FileNotFoundError, InvalidParameterError
        If the file is missing or not a readable CSV file.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "workers.csv"
    >>> _ = path.write_text("worker,country\\na,jp\\n\\nb,fr\\n")
    >>> frame, source, where = read_text_table(path, "workers")
    >>> frame["country"].tolist(), where(1)   # the blank line is skipped, not renumbered
    (['jp', 'fr'], 'line 4')
    """
    if isinstance(data, pd.DataFrame):
        return data.reset_index(drop=True), argument, lambda i: f"row {i + 1}"
    if not isinstance(data, str | os.PathLike):
        raise TypeError(f"{argument} must be a pandas DataFrame or the path of a CSV file, got "
                        f"{type(data).__name__}")
    path = Path(data)
    if not is_readable_file(path):
        raise FileNotFoundError(f"{argument} file not found: {path}")
    try:
        # Text cells, no NA guessing, blank lines kept: line numbers stay those of the file.
        frame = pd.read_csv(read_csv_text(path), dtype=str, keep_default_na=False, skip_blank_lines=False)
    except (pd.errors.ParserError, pd.errors.EmptyDataError) as error:
        raise InvalidParameterError(f"{path}: not a readable CSV file ({error})") from None
    blank = (frame == "").all(axis=1).to_numpy()
    lines = np.flatnonzero(~blank) + 2  # line 1 is the header
    frame = frame[~blank].reset_index(drop=True)
    return frame, str(path), lambda i: f"line {lines[i]}"


def _require_columns(frame: pd.DataFrame, source: str, columns) -> None:
    missing = [c for c in columns if c not in frame.columns]
    if missing:
        raise InvalidParameterError(
            f"{source}: column {missing[0]!r} is missing; columns present: {', '.join(map(repr, frame.columns))} "
            f"(set the column names with task=, worker=, label=, true_label=)")


def cell_text(value) -> str | None:
    """A cell as the loaders compare it: stripped text, ``None`` when missing (:data:`MISSING_LABELS`).

    A float equal to an integer is written without its ``.0`` (pandas stores a 0/1 column with
    gaps as 0.0/1.0), so labels and ids read from a file and from a DataFrame agree.

    >>> cell_text(" 1 "), cell_text(1.0), cell_text(float("nan")), cell_text("N/A"), cell_text(2.5)
    ('1', '1', None, None, '2.5')
    """
    if value is None or (not isinstance(value, str) and pd.isna(value)):
        return None
    if isinstance(value, float | np.floating) and math.isfinite(value) and float(value).is_integer():
        value = int(value)
    text = str(value).strip()
    return None if text.lower() in MISSING_LABELS else text



def _ids(column: pd.Series, source: str, where, name: str) -> pd.Series:
    values = column.map(cell_text)
    missing = np.flatnonzero(values.isna().to_numpy())
    if missing.size:
        raise InvalidParameterError(
            f"{source}, {where(missing[0])}, column {name!r}: empty {name} id ({missing.size} such rows)")
    return values


def _gold(frame: pd.DataFrame, source: str, where, task: str, true_label: str) -> dict[str, str]:
    """Task id -> true label; a task listed twice must give the same label."""
    tasks = _ids(frame[task], source, where, task)
    labels = frame[true_label].map(cell_text)
    missing = np.flatnonzero(labels.isna().to_numpy())
    if missing.size:
        raise InvalidParameterError(
            f"{source}, {where(missing[0])}, column {true_label!r}: task {tasks.iloc[missing[0]]!r} has no "
            f"true label ({missing.size} such rows); drop tasks without gold before loading")
    truth: dict[str, str] = {}
    first_row: dict[str, int] = {}
    for i, (t, value) in enumerate(zip(tasks, labels, strict=True)):
        if t in truth and truth[t] != value:
            raise InvalidParameterError(
                f"{source}, {where(i)}, column {true_label!r}: task {t!r} has true label {value!r} here but "
                f"{truth[t]!r} at {where(first_row[t])}")
        truth.setdefault(t, value)
        first_row.setdefault(t, i)
    return truth


def _grade(long: pd.DataFrame, truth: dict[str, str], min_answers: int, name: str, source) -> CrowdTable:
    """The shared rules, on clean ``task, worker, label`` text columns (label ``None`` = missing);
    ``source`` names the answers for the messages."""
    worker_order = list(dict.fromkeys(long["worker"]))
    long = long[long["label"].notna()]
    if long.empty:
        raise InvalidParameterError(f"{source}: the answers hold no answer row (only a header, or every label "
                                    "missing): nothing to grade")
    has_gold = long["task"].isin(truth.keys())
    if not has_gold.all():
        ignored = long[~has_gold]
        _warn(f"{len(ignored)} {_plural(len(ignored), 'answer')} to {ignored['task'].nunique()} "
              f"{_plural(ignored['task'].nunique(), 'task')} without gold ignored: only gold tasks grade a worker")
    long = long[has_gold]
    known = set(truth.values())
    unseen = ~long["label"].isin(known)
    if len(long) and unseen.all():
        examples = ", ".join(map(repr, sorted(long["label"].unique())[:_SHOWN]))
        raise InvalidParameterError(
            f"{source}: no answer's label is a true label of any task (answers say {examples}; gold says "
            f"{', '.join(map(repr, sorted(known)[:_SHOWN]))}): answers and gold code labels differently, so every "
            "worker would be graded 0")
    if unseen.any():
        examples = ", ".join(map(repr, sorted(long.loc[unseen, "label"].unique())[:_SHOWN]))
        _warn(f"{int(unseen.sum())} {_plural(int(unseen.sum()), 'answer')} with a label that is no true label "
              f"of any task ({examples}) graded wrong: check that answers and gold code labels alike")
    counts = long["worker"].value_counts()
    kept = [w for w in worker_order if counts.get(w, 0) >= min_answers]
    if len(kept) < len(worker_order):
        dropped = len(worker_order) - len(kept)
        lost = sum(int(counts.get(w, 0)) for w in worker_order if counts.get(w, 0) < min_answers)
        _warn(f"{dropped} {_plural(dropped, 'worker')} with fewer than min_answers={min_answers} gold answers "
              f"dropped ({lost} of their gold answers ignored)")
    if not kept:
        raise InvalidParameterError(
            f"no worker has min_answers={min_answers} or more answers to gold tasks; lower min_answers or check "
            f"that the task ids of answers and gold match")
    long = long[long["worker"].isin(kept)]
    answered_tasks = set(long["task"])
    tasks = [t for t in truth if t in answered_tasks]
    if len(tasks) < len(truth):
        dropped = len(truth) - len(tasks)
        _warn(f"{dropped} gold {_plural(dropped, 'task')} nobody answered dropped")
    grades = (long["label"].to_numpy() == long["task"].map(truth).to_numpy()).astype(float)
    task_index = {t: i for i, t in enumerate(tasks)}
    worker_index = {w: j for j, w in enumerate(kept)}
    correct = np.full((len(tasks), len(kept)), np.nan)
    correct[long["task"].map(task_index).to_numpy(), long["worker"].map(worker_index).to_numpy()] = grades
    return CrowdTable(tuple(kept), tuple(tasks), correct, name=name)


def _warn(message: str) -> None:
    warnings.warn(message, CrowdDataWarning, stacklevel=4)


def _plural(count: int, word: str) -> str:
    return word if count == 1 else word + "s"


def _rows(where, rows) -> str:
    shown = ", ".join(where(i) for i in rows[:_SHOWN])
    return shown + (", ..." if len(rows) > _SHOWN else "")


def _repeated(ids) -> str:
    counts = pd.Series(ids).value_counts()
    return ", ".join(map(repr, sorted(counts[counts > 1].index)))


# --- the wide quiz format ---------------------------------------------------------------

def load_wide(answers, truth, *, min_answers: int = 1, name: str = "crowd") -> CrowdTable:
    """Grade a wide quiz table (``question_id,<worker>,...``) against ``question_id,truth``.

    The format of :func:`fullbandit.datasets.load_quiz`, with the rules of
    :func:`load_long` for a user's own files: questions are matched **by id**, not by row
    order (truth.csv may list them in any order, and may list questions nobody was asked);
    an empty cell or a missing marker (see :data:`MISSING_LABELS`) is a missing answer;
    a worker id repeated in the header is refused (naming the columns); a question id
    repeated in a file is refused (naming the lines). The embedded data sets keep their
    own row-order derivation (``datasets/derive_quiz_tables.py``): one upstream data set
    renumbered its ids in only one file.

    Parameters
    ----------
    answers, truth : str or os.PathLike
        ``answer.csv`` (one row per question, one column per worker) and ``truth.csv``.
    min_answers, name
        As for :func:`load_long`.

    Examples
    --------
    >>> import tempfile
    >>> folder = Path(tempfile.mkdtemp())
    >>> _ = (folder / "answer.csv").write_text("question_id,w1,w2\\n1,A,C\\n2,C,\\n")
    >>> _ = (folder / "truth.csv").write_text("question_id,truth\\n2,C\\n1,A\\n")
    >>> table = load_wide(folder / "answer.csv", folder / "truth.csv")
    >>> table.accuracies.tolist(), table.n_answered.tolist()  # w2 skipped question 2
    ([1.0, 0.0], [2, 1])
    """
    min_answers = check_int("min_answers", min_answers, low=1)
    answer_path, truth_path = Path(answers), Path(truth)
    header, rows = _read_csv_lines(answer_path)
    if len(header) < 2:
        raise InvalidParameterError(f"{answer_path}, line 1: header must list question_id and at least one worker")
    workers = [cell.strip() for cell in header[1:]]
    while workers and workers[-1] == "":
        workers.pop()  # a trailing comma names no column
    for column, worker in enumerate(workers, start=2):
        if worker == "":
            raise InvalidParameterError(f"{answer_path}, line 1, column {column}: empty worker id")
        if workers.index(worker) + 2 != column:
            raise InvalidParameterError(
                f"{answer_path}, line 1: worker id {worker!r} heads columns {workers.index(worker) + 2} and "
                f"{column}; worker ids must be distinct")
    truth_header, truth_rows = _read_csv_lines(truth_path)
    if len(truth_header) < 2:
        raise InvalidParameterError(f"{truth_path}, line 1: header must be question_id,truth")
    gold = pd.DataFrame({"task": [r[0] if r else "" for _, r in truth_rows],
                         "true_label": [r[1] if len(r) > 1 else "" for _, r in truth_rows]})
    truth_lines = [line for line, _ in truth_rows]
    _unique_ids(gold["task"].map(cell_text), truth_path, truth_lines)
    gold_map = _gold(gold, str(truth_path), lambda i: f"line {truth_lines[i]}", "task", "true_label")

    records: list[tuple[str, str, str | None]] = []
    question_ids: list[str] = []
    lines: list[int] = []
    for line, row in rows:
        if any(cell.strip() for cell in row[len(workers) + 1:]):
            raise InvalidParameterError(
                f"{answer_path}, line {line}: {len(row) - 1} answer cells for {len(workers)} workers")
        question = cell_text(row[0]) if row else None
        if question is None:
            raise InvalidParameterError(f"{answer_path}, line {line}, column 1 ({header[0]!r}): empty question id")
        question_ids.append(question)
        lines.append(line)
        cells = row[1:len(workers) + 1] + [""] * (len(workers) + 1 - len(row))  # a short row: the rest missing
        records.extend((question, worker, cell_text(cell)) for worker, cell in zip(workers, cells, strict=True))
    _unique_ids(pd.Series(question_ids, dtype=object), answer_path, lines)
    long = pd.DataFrame(records, columns=["task", "worker", "label"])
    return _grade(long, gold_map, min_answers, name, answer_path)


def _read_csv_lines(path: Path) -> tuple[list[str], list[tuple[int, list[str]]]]:
    """Header and ``(line number, cells)`` of the non-blank data rows of a CSV file."""
    if not is_readable_file(path):
        raise FileNotFoundError(f"quiz file not found: {path}")
    reader = csv.reader(read_csv_text(path))
    numbered = [(reader.line_num, [cell.strip() for cell in row]) for row in reader]
    numbered = [(line, row) for line, row in numbered if any(row)]
    if not numbered:
        raise InvalidParameterError(f"{path} is empty")
    return numbered[0][1], numbered[1:]


def _unique_ids(ids: pd.Series, path: Path, lines: list[int]) -> None:
    repeated = ids.duplicated(keep=False).to_numpy()
    if repeated.any():
        first = ids.iloc[int(np.flatnonzero(repeated)[0])]
        at = [lines[i] for i in np.flatnonzero((ids == first).to_numpy())]
        raise InvalidParameterError(
            f"{path}, column 1: question id {first!r} is listed more than once (lines "
            f"{', '.join(map(str, at))}); questions are matched by id, so each must be listed once")
