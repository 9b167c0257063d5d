"""The six multiple-choice quiz data sets of Li, Baba and Kashima (CIKM 2017).

Each data set is a quiz answered by every worker; what the bandit experiments need is
only whether each answer was right, so a data set is held here as a boolean
*correctness matrix* (questions x workers).  A worker's accuracy is the mean of their
column, and the best team of size ``k`` is the ``k`` workers with the highest accuracy.

Two ways in:

* :func:`load_quiz` grades a raw folder (``answer.csv`` + ``truth.csv``) as published;
* :func:`load_dataset` reads the correctness table shipped inside the package (derived
  from the raw files by ``datasets/derive_quiz_tables.py``), so no external data is
  needed at run time.

References
----------
* [1] J. Li, Y. Baba and H. Kashima, "Hyper Questions: Unsupervised Targeting of a Few
  Experts in Crowdsourcing", in *Proceedings of the 26th ACM International Conference
  on Information and Knowledge Management (CIKM 2017)*, pp. 1069-1078, 2017.
* [2] Y. Kuroki, L. Xu, A. Miyauchi, J. Honda and M. Sugiyama, "Polynomial-time
  algorithms for multiple-arm identification with full-bandit feedback", *Neural
  Computation* 32(9), 2020.  The six data sets here are those of its Table 2.
"""

from __future__ import annotations

import csv
import functools
import json
from collections import Counter
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path

import numpy as np

from fullbandit.util.validation import InvalidParameterError, check_k, check_zero_one_table, read_csv_text

__all__ = ["DATASETS", "QuizData", "load_quiz", "load_dataset", "dataset_info"]

DATASETS: tuple[str, ...] = ("it", "medicine", "chinese", "pokemon", "english", "science")

# Upstream folder name and the name the papers print, per data set key.
SOURCE_FOLDERS: dict[str, str] = {
    "it": "ITMANAGE",
    "medicine": "MEDICINE",
    "chinese": "CHINESE",
    "pokemon": "POKEMON",
    "english": "ENGLISH",
    "science": "SCIENCE",
}
PAPER_NAMES: dict[str, str] = {
    "it": "IT",
    "medicine": "Medicine",
    "chinese": "Chinese",
    "pokemon": "Pokémon",
    "english": "English",
    "science": "Science",
}
CITATION = (
    'J. Li, Y. Baba and H. Kashima, "Hyper Questions: Unsupervised Targeting of a Few '
    'Experts in Crowdsourcing", Proceedings of the 26th ACM International Conference on '
    "Information and Knowledge Management (CIKM 2017), pp. 1069-1078, 2017."
)
LICENSE = "CC BY 4.0"
LICENSE_URL = "https://creativecommons.org/licenses/by/4.0/"
# CC BY asks that changes be indicated; this is the only one made to the published data.
CHANGES = "each answer graded against the published truth into a 0/1 correctness matrix"

# Raw answer cells that stand for "no answer" (compared stripped and in lower case).
MISSING_MARKERS = frozenset({"", "nan", "na", "n/a", "null", "none", "-1"})

_EMBEDDED_PACKAGE = "fullbandit.datasets"
_EMBEDDED_FOLDER = "embedded"


@dataclass(frozen=True, eq=False)
class QuizData:
    """Which worker answered which question correctly, for one quiz data set.

    Parameters
    ----------
    name : str
        Short key of the data set, e.g. ``"it"``.
    worker_ids : tuple of str
        Worker identifiers, one per column of ``correct``.
    question_ids : tuple of str
        Question identifiers, one per row of ``correct``.
    correct : array_like of bool or 0/1, shape (n_questions, n_workers)
        ``correct[q, w]`` is true (or 1) when worker ``w`` answered question ``q``
        correctly, false (or 0) otherwise.  Stored as a read-only boolean copy so a
        shared (cached) instance cannot be altered.

    Raises
    ------
    InvalidParameterError
        If ``correct`` is not a two-dimensional table with one row per question id and
        one column per worker id, or if any entry is not a boolean, 0 or 1: a NaN, a
        ``-1``, a masked entry or a string (even ``"0"``) is refused with its position,
        as :class:`fullbandit.environments.models.Replay` does, because casting it to bool
        would count a missing answer as a correct one.  Grade missing answers
        explicitly (usually as 0, incorrect) before building the table.

    Notes
    -----
    Two instances compare equal when their names, ids and matrices are equal.

    References
    ----------
    * [1] J. Li, Y. Baba and H. Kashima, "Hyper Questions: Unsupervised Targeting of a
      Few Experts in Crowdsourcing", CIKM 2017.
    * [2] Y. Kuroki et al., "Polynomial-time algorithms for multiple-arm identification
      with full-bandit feedback", Neural Computation 32(9), 2020, Table 2.

    Examples
    --------
    >>> data = QuizData("toy", ("a", "b"), ("q1", "q2"), [[True, False], [True, True]])
    >>> data.accuracies.tolist()
    [1.0, 0.5]
    >>> data.best_team(1)
    (0,)

    Entries must be booleans or 0/1; a missing answer is refused, not counted as correct:

    >>> QuizData("toy", ("a", "b"), ("q1", "q2"), [[1, 0], [1, float("nan")]])  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    fullbandit.util.validation.InvalidParameterError: correct must hold only 0/1 ... nan at correct[1, 1] ...
    """

    name: str
    worker_ids: tuple[str, ...]
    question_ids: tuple[str, ...]
    correct: np.ndarray = field(repr=False)

    def __post_init__(self) -> None:
        worker_ids = tuple(str(w) for w in self.worker_ids)
        question_ids = tuple(str(q) for q in self.question_ids)
        table = _as_table(self.correct, "correct")
        if table.shape != (len(question_ids), len(worker_ids)):
            raise InvalidParameterError(
                f"correct has shape {table.shape} but there are {len(question_ids)} "
                f"question_ids and {len(worker_ids)} worker_ids")
        correct = check_zero_one_table(
            table, "correct",
            lambda q, w: f"correct[{q}, {w}] (question {question_ids[q]!r}, worker {worker_ids[w]!r})")
        correct.flags.writeable = False
        # Frozen dataclass: normalised values have to be set through object.__setattr__.
        object.__setattr__(self, "worker_ids", worker_ids)
        object.__setattr__(self, "question_ids", question_ids)
        object.__setattr__(self, "correct", correct)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, QuizData):
            return NotImplemented
        return (self.name == other.name
                and self.worker_ids == other.worker_ids
                and self.question_ids == other.question_ids
                and np.array_equal(self.correct, other.correct))

    __hash__ = None  # type: ignore[assignment]  # equality looks at the matrix, which is not hashable

    @property
    def n_workers(self) -> int:
        """Number of workers (columns).

        Examples
        --------
        >>> QuizData("toy", ("a", "b", "c"), ("q1",), [[1, 0, 1]]).n_workers
        3
        """
        return self.correct.shape[1]

    @property
    def n_questions(self) -> int:
        """Number of questions (rows).

        Examples
        --------
        >>> QuizData("toy", ("a", "b", "c"), ("q1",), [[1, 0, 1]]).n_questions
        1
        """
        return self.correct.shape[0]

    @property
    def accuracies(self) -> np.ndarray:
        """Fraction of questions each worker answered correctly, shape ``(n_workers,)``.

        Examples
        --------
        >>> QuizData("toy", ("a", "b"), ("q1", "q2"), [[1, 0], [1, 1]]).accuracies.tolist()
        [1.0, 0.5]
        """
        return self.correct.mean(axis=0)

    def best_team(self, k) -> tuple[int, ...]:
        """Indices of the ``k`` most accurate workers.

        Parameters
        ----------
        k : int
            Team size, ``1 <= k < n_workers``.

        Returns
        -------
        tuple of int
            Worker indices in ascending order.  When several workers tie at the
            ``k``-th highest accuracy, those with lower indices are preferred.

        Raises
        ------
        InvalidParameterError
            If ``k`` is outside ``1 <= k < n_workers``.
        TypeError
            If ``k`` is not an integer.

        Examples
        --------
        >>> data = QuizData("toy", ("a", "b", "c"), ("q1", "q2"), [[1, 1, 0], [0, 1, 1]])
        >>> data.best_team(2)  # workers a and c tie at 0.5; the lower index wins
        (0, 1)
        """
        k = check_k(k, self.n_workers)
        # Rank on integer counts, not float accuracies, so equal scores tie exactly.
        counts = self.correct.sum(axis=0)
        indices = np.arange(self.n_workers)
        ranking = np.lexsort((indices, -counts))
        return tuple(sorted(int(i) for i in ranking[:k]))


def load_quiz(folder, name: str | None = None, *, match: str = "id") -> QuizData:
    """Grade a raw quiz folder holding ``answer.csv`` and ``truth.csv``.

    ``answer.csv`` has a header ``question_id,<worker id>,...`` and one row of answers
    per question; ``truth.csv`` has a header ``question_id,truth`` and one row per
    question.  With ``match="id"`` (default) the true answer of each question is found by
    its ``question_id`` (the files may list the questions in different orders); question ids
    that are not the same in both files are refused, naming them, since grading against
    another question's truth silently gives accuracies near 0.  ``match="row"`` matches the
    files row by row instead, for a data set whose ids were renumbered in only one file
    (the returned question ids are those of ``answer.csv``).  A worker or question id that
    appears twice is refused.

    Cells are stripped of surrounding whitespace, a trailing empty header column (left
    by a trailing comma) is ignored, and blank lines are skipped.  An answer that is
    empty, missing (a short row) or a missing-value marker (``NaN``, ``NA``, ``N/A``,
    ``null``, ``None`` or ``-1``, in any case) is counted as **incorrect**; a true
    answer may not be missing or such a marker, since every missing answer would then
    match it and count as correct.

    Parameters
    ----------
    folder : str or os.PathLike
        Directory containing ``answer.csv`` and ``truth.csv``.
    name : str, optional
        Name to give the data set.  By default the key of the known data set whose
        upstream folder name matches (``ITMANAGE`` -> ``"it"``), else the folder name
        in lower case.

    Returns
    -------
    QuizData

    Raises
    ------
    FileNotFoundError
        If the folder or either file does not exist.
    ValueError
        If the files disagree on the number of questions or (``match="id"``) on their
        question ids, an id repeats, a header is malformed, a row
        has more cells than the header, or a question has no true answer (its cell in
        ``truth.csv`` is empty or a missing-value marker); the message names the file
        and the data row.

    See Also
    --------
    load_dataset : the same tables, read from the copy embedded in the package.
    fullbandit.datasets.crowd.load_wide : for your own quiz files: questions matched by id,
        empty cells as missing answers (not wrong ones), repeated worker ids refused.

    References
    ----------
    * [1] J. Li, Y. Baba and H. Kashima, "Hyper Questions: Unsupervised Targeting of a
      Few Experts in Crowdsourcing", CIKM 2017.
    * [2] Y. Kuroki et al., "Polynomial-time algorithms for multiple-arm identification
      with full-bandit feedback", Neural Computation 32(9), 2020, Table 2.

    Examples
    --------
    >>> import tempfile
    >>> folder = Path(tempfile.mkdtemp())
    >>> _ = (folder / "answer.csv").write_text("question_id,w1,w2\\n1,A,B\\n2,C,NaN\\n")
    >>> _ = (folder / "truth.csv").write_text("question_id,truth\\n1,A\\n2,C\\n")
    >>> data = load_quiz(folder, name="toy")
    >>> data.correct.astype(int).tolist()  # w2 missed question 2: incorrect
    [[1, 0], [1, 0]]
    >>> _ = (folder / "truth.csv").write_text("question_id,truth\\n1,A\\n2,NaN\\n")
    >>> load_quiz(folder)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: .../truth.csv, data row 2: no true answer (got 'NaN')
    """
    folder = Path(folder)
    if not folder.is_dir():
        raise FileNotFoundError(f"quiz folder not found: {folder}")
    answer_path, truth_path = folder / "answer.csv", folder / "truth.csv"
    for path in (answer_path, truth_path):
        if not path.is_file():
            raise FileNotFoundError(f"quiz file not found: {path}")

    if match not in ("id", "row"):
        raise InvalidParameterError(f"match={match!r} must be 'id' (questions matched by question_id) or 'row'")
    answer_header, answer_rows = _read_table(answer_path)
    truth_header, truth_rows = _read_table(truth_path)
    if len(answer_header) < 2:
        raise ValueError(f"{answer_path}: header must list question_id and at least one worker")
    if len(truth_header) < 2:
        raise ValueError(f"{truth_path}: header must be question_id,truth")
    if len(answer_rows) != len(truth_rows):
        raise ValueError(
            f"{answer_path} has {len(answer_rows)} question rows but {truth_path} has "
            f"{len(truth_rows)}; the files are matched row by row, so they must agree")

    worker_ids = tuple(answer_header[1:])
    _refuse_repeats(worker_ids, f"{answer_path}: worker id")
    if match == "id":
        truth_rows = _truth_by_question(answer_path, answer_rows, truth_path, truth_rows)
    n_workers = len(worker_ids)
    question_ids, correct_rows = [], []
    for row_number, (answers, truth_row) in enumerate(zip(answer_rows, truth_rows, strict=True), start=1):
        # Trailing empty cells only echo a trailing comma; real extra answers are an error.
        if any(answers[n_workers + 1:]):
            raise ValueError(
                f"{answer_path}, data row {row_number}: {len(answers) - 1} cells "
                f"for {n_workers} workers")
        truth = truth_row[1] if len(truth_row) > 1 else ""
        if _is_missing(truth):
            raise ValueError(f"{truth_path}, data row {row_number}: no true answer (got {truth!r})")
        given = answers[1:n_workers + 1]
        given += [""] * (n_workers - len(given))  # a short row: the rest are missing
        question_ids.append(answers[0])
        correct_rows.append([answer == truth for answer in given])  # truth is not missing

    if name is None:
        name = _default_name(folder)
    return QuizData(name=name, worker_ids=worker_ids, question_ids=tuple(question_ids),
                    correct=np.array(correct_rows, dtype=bool).reshape(-1, n_workers))


def _refuse_repeats(ids, what: str) -> None:
    counts = Counter(ids)
    repeated = [i for i in ids if counts[i] > 1]
    if repeated:
        raise ValueError(f"{what} {repeated[0]!r} appears more than once: ids must be distinct")


def _truth_by_question(answer_path, answer_rows, truth_path, truth_rows) -> list:
    """``truth_rows`` in the order of ``answer_rows``' question ids (which must be the same ids)."""
    asked = [row[0] for row in answer_rows]
    known = [row[0] for row in truth_rows]
    _refuse_repeats(asked, f"{answer_path}: question_id")
    _refuse_repeats(known, f"{truth_path}: question_id")
    missing, extra = sorted(set(asked) - set(known)), sorted(set(known) - set(asked))
    if missing or extra:
        raise ValueError(
            f"{answer_path} and {truth_path} do not list the same question ids (only in answer.csv: "
            f"{missing[:5]}, only in truth.csv: {extra[:5]}); if one file's ids were renumbered, pass "
            "match='row' to match the files row by row")
    by_id = {row[0]: row for row in truth_rows}
    return [by_id[question] for question in asked]


def load_dataset(name: str) -> QuizData:
    """Load one of the six embedded quiz data sets.

    The correctness tables ship inside the package, so this needs neither the raw
    files nor network access.  The returned object is shared between calls; it is
    immutable (its matrix is read-only).

    Parameters
    ----------
    name : str
        One of :data:`DATASETS` (case-insensitive): ``"it"``, ``"medicine"``,
        ``"chinese"``, ``"pokemon"``, ``"english"``, ``"science"``.

    Returns
    -------
    QuizData

    Raises
    ------
    InvalidParameterError
        If ``name`` is not a known data set.

    See Also
    --------
    load_quiz : grade the raw published files instead.
    dataset_info : size, accuracies and attribution of a data set.

    References
    ----------
    * [1] J. Li, Y. Baba and H. Kashima, "Hyper Questions: Unsupervised Targeting of a
      Few Experts in Crowdsourcing", CIKM 2017.
    * [2] Y. Kuroki et al., "Polynomial-time algorithms for multiple-arm identification
      with full-bandit feedback", Neural Computation 32(9), 2020, Table 2.

    Examples
    --------
    >>> data = load_dataset("IT")
    >>> data.n_questions, data.n_workers
    (25, 36)
    """
    return _load_embedded(_dataset_key(name))


def dataset_info(name: str) -> dict:
    """Describe an embedded data set.

    Parameters
    ----------
    name : str
        One of :data:`DATASETS` (case-insensitive).

    Returns
    -------
    dict
        A fresh copy of the data set's entry in ``embedded/index.json``: ``paper_name``,
        ``source_folder``, ``n_questions``, ``n_workers``, ``mean_accuracy``,
        ``best_accuracy`` (both rounded to 4 decimals), ``citation``, ``license``,
        ``license_url`` and ``changes`` (how the embedded table differs from the source).

    Raises
    ------
    InvalidParameterError
        If ``name`` is not a known data set.

    References
    ----------
    * [1] J. Li, Y. Baba and H. Kashima, "Hyper Questions: Unsupervised Targeting of a
      Few Experts in Crowdsourcing", CIKM 2017.

    Examples
    --------
    >>> dataset_info("pokemon")["paper_name"]
    'Pokémon'
    """
    return dict(_load_index()[_dataset_key(name)])


# --- reading helpers -------------------------------------------------------------------

def _dataset_key(name) -> str:
    """Normalise a data set name, or raise naming the argument and the choices."""
    if isinstance(name, str) and name.strip().lower() in DATASETS:
        return name.strip().lower()
    raise InvalidParameterError(
        f"dataset={name!r} is not one of the allowed values: {', '.join(map(repr, DATASETS))}")


def _is_missing(cell: str) -> bool:
    """Whether a raw answer cell marks a missing answer rather than giving one."""
    return cell.strip().lower() in MISSING_MARKERS


def _as_table(values, name: str) -> np.ndarray:
    """``values`` as a two-dimensional array (a masked array keeps its mask), or raise."""
    try:
        table = values if np.ma.isMaskedArray(values) else np.asarray(values)
    except ValueError:  # numpy refuses ragged nested lists
        raise InvalidParameterError(f"{name} must be a rectangular table: its rows differ in length") from None
    if table.ndim != 2:
        raise InvalidParameterError(
            f"{name} must be two-dimensional (questions x workers), got shape {table.shape}")
    return table


def _default_name(folder: Path) -> str:
    by_folder = {source: key for key, source in SOURCE_FOLDERS.items()}
    return by_folder.get(folder.name.upper(), folder.name.lower())


def _read_table(path: Path) -> tuple[list[str], list[list[str]]]:
    """Header and rows of a small CSV file, cells stripped, blank lines dropped.

    A trailing empty header cell (from a trailing comma) is removed, since it names
    no column; ``utf-8-sig`` swallows a byte-order mark an editor may have added.
    """
    rows = [[cell.strip() for cell in row] for row in csv.reader(read_csv_text(path))]
    rows = [row for row in rows if any(row)]
    if not rows:
        raise ValueError(f"{path} is empty")
    header = rows[0]
    while header and header[-1] == "":
        header.pop()
    if any(cell == "" for cell in header):
        raise ValueError(f"{path}: header has an empty column name: {rows[0]}")
    return header, rows[1:]


def _embedded_file(filename: str):
    return resources.files(_EMBEDDED_PACKAGE).joinpath(_EMBEDDED_FOLDER, filename)


@functools.cache
def _load_embedded(key: str) -> QuizData:
    filename = f"embedded table {key}.csv"
    rerun = "reinstall the package or rerun datasets/derive_quiz_tables.py"
    text = _embedded_file(f"{key}.csv").read_text(encoding="utf-8")
    rows = list(csv.reader(text.splitlines()))
    header, body = rows[0], rows[1:]
    worker_ids, question_ids = tuple(header[1:]), tuple(row[0] if row else "" for row in body)
    for line, row in enumerate(body, start=2):
        if len(row) != len(header):
            raise InvalidParameterError(
                f"{filename} is corrupt: line {line} has {len(row)} fields, the header {len(header)}; {rerun}")
    # Only the text "0" and "1" become numbers: anything else stays text and is reported.
    cells = np.array([[_CELL_VALUES.get(cell, cell) for cell in row[1:]] for row in body],
                     dtype=object).reshape(len(body), len(worker_ids))
    correct = check_zero_one_table(
        cells, filename,
        lambda q, w: (f"line {q + 2}, column {w + 2} (question {question_ids[q]!r}, worker {worker_ids[w]!r}); "
                      f"{rerun}"))
    return QuizData(name=key, worker_ids=worker_ids, question_ids=question_ids, correct=correct)


_CELL_VALUES = {"0": 0, "1": 1}


@functools.lru_cache(maxsize=1)
def _load_index() -> dict:
    return json.loads(_embedded_file("index.json").read_text(encoding="utf-8"))
