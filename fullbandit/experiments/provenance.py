"""Which code produced a result: fullbandit's version and commit, and the versions of numpy, scipy and cvxpy.

Every row a grid produces (:func:`fullbandit.experiments.run_cell`) carries the columns
:data:`PROVENANCE_COLUMNS`, as text:

``fullbandit_version``
    ``fullbandit.__version__`` of the source tree the code was imported from (not the
    installed distribution's metadata, which may describe another copy, e.g. under
    ``PYTHONPATH``).
``fullbandit_commit``
    The git commit of that source tree (40 hex digits), followed by ``-dirty.`` and 8 hex
    digits when tracked files of the package differ from the commit (a digest of their
    contents, so two different sets of changes on one commit are told apart); empty when
    the package is not in a git checkout, or git is missing. Only the package folder
    counts: results and documents changing in the same checkout do not change the code.
``numpy_version``, ``scipy_version``, ``cvxpy_version``
    As imported (or as installed, for a library not imported yet: cvxpy is never imported
    for this); empty when not installed.
``finished_at``
    When the run finished, in UTC, to the second (ISO 8601).

The first five are those of the process that ran the cell (a worker's, on another
machine), computed once per process (:func:`current`); they make a :class:`CodeVersion`.
Rows of a file written before results recorded their provenance read with these columns
empty: their version is *unknown*, which is never the current one.
"""

from __future__ import annotations

import functools
import hashlib
import math
import os
import subprocess
import sys
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, fields
from datetime import UTC, datetime
from pathlib import Path

__all__ = ["CODE_COLUMNS", "FINISHED_COLUMN", "PROVENANCE_COLUMNS", "CodeVersion", "VersionRuns", "current",
           "describe", "provenance_record", "source_commit", "stamp", "versions_in", "versions_of"]

#: The columns naming the code that produced a row, in :class:`CodeVersion`'s field order.
CODE_COLUMNS = ("fullbandit_version", "fullbandit_commit", "numpy_version", "scipy_version", "cvxpy_version")
#: When the run finished (UTC, ISO 8601, to the second).
FINISHED_COLUMN = "finished_at"
#: Every provenance column of a row, last in a results file.
PROVENANCE_COLUMNS = (*CODE_COLUMNS, FINISHED_COLUMN)
_DIRTY = "-dirty."
_GIT_TIMEOUT = 10.0  # seconds; a git that hangs (a stale network mount) must not hold a grid up for good
# Variables that would point git at another repository than the package's own.
_GIT_LOCATION_VARIABLES = ("GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_OBJECT_DIRECTORY", "GIT_COMMON_DIR")


@dataclass(frozen=True)
class CodeVersion:
    """The code behind a result; two results of equal versions come from the same code.

    Every field is text, or ``None`` when unknown.

    Examples
    --------
    >>> version = CodeVersion("0.1.0", "7fcdc224ca92b2dbe85e89000d56ecdf5440dae4", "2.4.6", "1.17.1", "1.9.3")
    >>> version.label()
    'fullbandit 0.1.0, commit 7fcdc224ca92'
    >>> version.label(dependencies=True)
    'fullbandit 0.1.0, commit 7fcdc224ca92, numpy 2.4.6, scipy 1.17.1, cvxpy 1.9.3'
    >>> CodeVersion.from_row({"fullbandit_version": "0.1.0", "numpy_version": float("nan")}).label()
    'fullbandit 0.1.0, not in a git checkout'
    >>> CodeVersion.from_row({}).label()
    'an unrecorded version'
    """

    fullbandit: str | None
    commit: str | None
    numpy: str | None
    scipy: str | None
    cvxpy: str | None

    @classmethod
    def from_row(cls, row: Mapping) -> CodeVersion:
        """The version recorded in ``row`` (values by column; missing, empty or NaN: unknown)."""
        return cls(*(_text(row.get(column)) for column in CODE_COLUMNS))

    def columns(self) -> dict[str, str | None]:
        """The version as the values of :data:`CODE_COLUMNS`."""
        return dict(zip(CODE_COLUMNS, self._values(), strict=True))

    def _values(self) -> tuple[str | None, ...]:
        return self.fullbandit, self.commit, self.numpy, self.scipy, self.cvxpy

    @property
    def unknown(self) -> bool:
        """Nothing is recorded (a row written before results recorded their version)."""
        return all(value is None for value in self._values())

    def label(self, dependencies: bool = False) -> str:
        """``"fullbandit 0.1.0, commit 7fcdc224ca92"``, with the libraries' versions if ``dependencies``."""
        if self.unknown:
            return "an unrecorded version"
        parts = [f"fullbandit {self.fullbandit or '(version unknown)'}", _commit_label(self.commit)]
        if dependencies:
            parts += [f"{field.name} {getattr(self, field.name) or '(not installed)'}" for field in fields(self)[2:]]
        return ", ".join(parts)

    def differences(self, other: CodeVersion) -> list[str]:
        """Names of the fields that differ from ``other``'s (``"fullbandit"``, ``"commit"``, ``"numpy"``...)."""
        return [field.name for field in fields(self) if getattr(self, field.name) != getattr(other, field.name)]


@dataclass(frozen=True)
class VersionRuns:
    """Runs of one code version among stored rows, and when the first and the last finished (``None``: unknown)."""

    version: CodeVersion
    runs: int
    first: str | None
    last: str | None

    def describe(self, dependencies: bool = False) -> str:
        """The version and the dates, e.g. ``"fullbandit 0.1.0, commit 7fcdc224ca92, written 2025-06-01"``."""
        return f"{self.version.label(dependencies)}, {self.written()}"

    def written(self) -> str:
        """``"written 2025-06-01"``, ``"written 2025-06-01 to 2025-06-03"``, or what is known of the date."""
        if self.version.unknown:
            return "written before results recorded their version"
        if self.first is None or self.last is None:
            return "date unknown"
        first, last = self.first[:10], self.last[:10]
        return f"written {first}" if first == last else f"written {first} to {last}"


def versions_of(rows: Iterable[Mapping]) -> list[VersionRuns]:
    """The code versions of ``rows`` (mappings by column), most runs first.

    Examples
    --------
    >>> rows = [{"fullbandit_version": "0.1.0", "finished_at": "2025-06-02T10:00:00+00:00"},
    ...         {"fullbandit_version": "0.1.0", "finished_at": "2025-06-01T09:00:00+00:00"}, {}]
    >>> [(group.runs, group.describe()) for group in versions_of(rows)]  # doctest: +NORMALIZE_WHITESPACE
    [(2, 'fullbandit 0.1.0, not in a git checkout, written 2025-06-01 to 2025-06-02'),
     (1, 'an unrecorded version, written before results recorded their version')]
    """
    groups: dict[CodeVersion, list[str | None]] = {}
    for row in rows:
        groups.setdefault(CodeVersion.from_row(row), []).append(_text(row.get(FINISHED_COLUMN)))
    summary = []
    for version, moments in groups.items():
        known = sorted(moment for moment in moments if moment is not None)
        summary.append(VersionRuns(version, len(moments), known[0] if known else None, known[-1] if known else None))
    return sorted(summary, key=lambda group: -group.runs)


def describe(groups: list[VersionRuns], dependencies: bool = False) -> str:
    """The code versions of stored runs in a few words (``groups`` from :func:`versions_of`).

    Examples
    --------
    >>> known = VersionRuns(CodeVersion("0.1.0", None, "2.4.6", "1.17.1", "1.9.3"), 100, "2025-06-01T09:00:00+00:00",
    ...                     "2025-06-01T10:00:00+00:00")
    >>> describe([known])
    'fullbandit 0.1.0, not in a git checkout, written 2025-06-01'
    >>> print(describe([known, VersionRuns(CodeVersion(None, None, None, None, None), 1, None, None)]))
    ... # doctest: +NORMALIZE_WHITESPACE
    100 runs of fullbandit 0.1.0, not in a git checkout, written 2025-06-01;
    1 run of an unrecorded version, written before results recorded their version
    """
    if len(groups) == 1:
        return groups[0].describe(dependencies)
    return "; ".join(f"{group.runs} run{'s' if group.runs > 1 else ''} of {group.describe(dependencies)}"
                     for group in groups)


def versions_in(frame) -> list[VersionRuns]:
    """:func:`versions_of` the rows of the pandas DataFrame ``frame`` (without provenance columns: unknown).

    Examples
    --------
    >>> import pandas as pd
    >>> [(group.version.unknown, group.runs) for group in versions_in(pd.DataFrame({"pulls": [3, 4]}))]
    [(True, 2)]
    """
    return versions_of(frame.reindex(columns=list(PROVENANCE_COLUMNS)).to_dict("records"))


def provenance_record(groups: list[VersionRuns]) -> dict:
    """The code behind runs (``groups``, from :func:`versions_of`) and behind this process, ready for JSON.

    What :meth:`fullbandit.experiments.suite.Suite.draw` attaches to a figure: ``"runs"``,
    one entry per code version (its :data:`CODE_COLUMNS`, ``runs``, ``first_finished``
    and ``last_finished``), and ``"drawn_by"``, this process's version.

    Examples
    --------
    >>> rows = [{"fullbandit_version": "0.1.0", "finished_at": "2025-06-01T09:00:00+00:00"}]
    >>> record = provenance_record(versions_of(rows))
    >>> record["runs"]  # doctest: +NORMALIZE_WHITESPACE
    [{'fullbandit_version': '0.1.0', 'fullbandit_commit': None, 'numpy_version': None, 'scipy_version': None,
      'cvxpy_version': None, 'runs': 1, 'first_finished': '2025-06-01T09:00:00+00:00',
      'last_finished': '2025-06-01T09:00:00+00:00'}]
    >>> sorted(record["drawn_by"]) == sorted(CODE_COLUMNS)
    True
    """
    return {"runs": [{**group.version.columns(), "runs": group.runs, "first_finished": group.first,
                      "last_finished": group.last} for group in groups],
            "drawn_by": current().columns()}


@functools.cache
def current() -> CodeVersion:
    """The version of the code running in this process (computed once; never fails).

    Examples
    --------
    >>> import fullbandit
    >>> current().fullbandit == fullbandit.__version__
    True
    """
    from fullbandit.util.version import __version__

    return CodeVersion(__version__, source_commit(Path(__file__).resolve().parents[1]),
                       *(_library_version(name) for name in ("numpy", "scipy", "cvxpy")))


def stamp() -> dict[str, str | None]:
    """The provenance columns of a row finishing now: :func:`current` and ``finished_at``.

    Examples
    --------
    >>> sorted(stamp()) == sorted(PROVENANCE_COLUMNS)
    True
    """
    return {**current().columns(), FINISHED_COLUMN: datetime.now(UTC).isoformat(timespec="seconds")}


def source_commit(package: Path) -> str | None:
    """The git commit of the checkout holding the folder ``package``, marked when its tracked files were changed.

    Parameters
    ----------
    package : pathlib.Path
        A package folder (holding ``__init__.py``).

    Returns
    -------
    str or None
        The commit's 40 hex digits, followed by ``-dirty.`` and a digest of the changed
        files when tracked files under ``package`` differ from it (staged or not);
        ``None`` when git is missing or fails, or ``package/__init__.py`` is not tracked
        by a git repository (an installed copy, even one that lies inside some checkout).

    Examples
    --------
    >>> import tempfile
    >>> source_commit(Path(tempfile.mkdtemp())) is None  # not a git checkout
    True
    """
    try:
        top_and_head = _git(package, "rev-parse", "--show-toplevel", "HEAD")
        if top_and_head is None or _git(package, "ls-files", "--error-unmatch", "--", "__init__.py") is None:
            return None
        top, head = top_and_head.splitlines()
        changed = _git(package, "diff", "HEAD", "--name-only", "--no-renames", "-z", "--", ".")
    except (OSError, ValueError, subprocess.SubprocessError):  # git missing, hung, or its output unexpected
        return None
    if changed is None:
        return None
    if not changed:
        return head
    digest = hashlib.sha256()
    for name in sorted(filter(None, changed.split("\0"))):
        path = Path(top) / name
        digest.update(name.encode() + b"\0")
        digest.update(path.read_bytes() if path.is_file() else b"(deleted)")
        digest.update(b"\0")
    return f"{head}{_DIRTY}{digest.hexdigest()[:8]}"


def _git(folder: Path, *arguments: str) -> str | None:
    """Standard output of ``git arguments`` run in ``folder``; ``None`` if it fails."""
    environment = {name: value for name, value in os.environ.items() if name not in _GIT_LOCATION_VARIABLES}
    # --no-optional-locks: never take the index lock of a checkout someone may be committing in.
    done = subprocess.run(["git", "--no-optional-locks", *arguments], cwd=folder, env=environment,
                          stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=_GIT_TIMEOUT)
    return done.stdout if done.returncode == 0 else None


def _library_version(name: str) -> str | None:
    """The version of the library ``name``: the imported module's, else the installed distribution's."""
    module = sys.modules.get(name)
    version = getattr(module, "__version__", None)
    if isinstance(version, str):
        return version
    from importlib.metadata import PackageNotFoundError
    from importlib.metadata import version as installed_version  # 20-40 ms to import: only when needed

    try:
        return installed_version(name)
    except PackageNotFoundError:
        return None


def _commit_label(commit: str | None) -> str:
    if commit is None:
        return "not in a git checkout"
    head, dirty, digest = commit.partition(_DIRTY)
    return f"commit {head[:12]}" + (f" with uncommitted changes ({digest})" if dirty else "")


def _text(value) -> str | None:
    """A field's value as text; ``None`` for missing, empty or NaN."""
    if value is None or value == "" or (isinstance(value, float) and math.isnan(value)):
        return None
    return str(value)
