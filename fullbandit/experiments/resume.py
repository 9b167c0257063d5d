"""Whether a grid may take runs from an existing results file: only from one the same code wrote, unless asked.

A file whose rows were produced by another :class:`~fullbandit.experiments.provenance.CodeVersion`
than the running one (another fullbandit version or commit, other uncommitted changes,
other numpy, scipy or cvxpy versions, or an unknown version: a file written before results
recorded theirs) is refused before any run, with a message naming both versions and the
two ways on: ``fresh=True`` starts the file anew, ``mix_versions=True`` keeps its rows and
adds this version's (every row records its own version, so the file stays traceable).
When runs are taken from the file, one line says how many, from where, and which code
produced them.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from fullbandit.experiments.provenance import CodeVersion, VersionRuns, current, describe, versions_of
from fullbandit.util.validation import InvalidParameterError

__all__ = ["Resume", "ResumeRefused"]

_FRESH = "fresh=True (fullbandit bench --fresh)"
_MIX = "mix_versions=True (fullbandit bench --mix-versions)"


class ResumeRefused(InvalidParameterError):
    """A results file holds runs of other code than the running one, and mixing them was not asked for."""


class Resume:
    """What a grid does with the runs already in its results file ``path``.

    Parameters
    ----------
    path : str or os.PathLike
        The results file.
    keys : iterable of str
        Keys of the grid's runs (runs of other keys in the file are kept, not taken).
    mix_versions : bool
        Take runs of other code versions, and add this version's rows to their file.

    Examples
    --------
    >>> from fullbandit.experiments.provenance import stamp
    >>> resume = Resume("runs.csv", ["a", "b", "c"], mix_versions=False)
    >>> resume.accept([{"key": "a", **stamp()}, {"key": "b", **stamp()}])  # written by this very code
    >>> resume.line(3).startswith("2 of 3 runs taken from runs.csv (fullbandit ")
    True
    >>> resume.accept([{"key": "a"}])  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    fullbandit.experiments.resume.ResumeRefused: out='runs.csv' holds runs of other code than this: 1 run of an...
    """

    def __init__(self, path, keys: Iterable[str], *, mix_versions: bool):
        self.path = Path(path)
        self.keys = set(keys)
        self.mix_versions = mix_versions
        self.taken: list[VersionRuns] = []

    def accept(self, rows: list[dict[str, str]]) -> None:
        """Take the stored ``rows`` (dicts by column), or raise :class:`ResumeRefused` if other code wrote them.

        Meant as :class:`~fullbandit.experiments.store.ResultStore`'s ``accept``: called
        before the file changes in any way.
        """
        running = current()
        stored = versions_of(rows)
        if not self.mix_versions and any(group.version != running for group in stored):
            raise ResumeRefused(self._refusal(stored, running))
        self.taken = versions_of(row for row in rows if row.get("key") in self.keys)

    def line(self, total: int) -> str | None:
        """One line on the runs taken from the file, out of the grid's ``total``; ``None`` if none were."""
        taken = sum(group.runs for group in self.taken)
        if not taken:
            return None
        return (f"{taken} of {total} runs taken from {self.path} ({describe(self.taken)}), not recomputed; "
                f"{_FRESH} recomputes them")

    def _refusal(self, stored: list[VersionRuns], running: CodeVersion) -> str:
        runs = sum(group.runs for group in stored)
        found = "; ".join(f"{group.runs} run{'s' if group.runs > 1 else ''} of {group.describe(dependencies=True)}"
                          for group in stored)
        others = [group.version for group in stored if group.version != running]
        differ = ""
        if len(others) == 1 and not others[0].unknown:
            differ = f" (another {' and '.join(others[0].differences(running))})"
        return (f"out={str(self.path)!r} holds runs of other code than this{differ}: {found}. This is "
                f"{running.label(dependencies=True)}. Nothing was run and the file is unchanged. To start the file "
                f"anew (its {runs} run{'s' if runs > 1 else ''} deleted), pass {_FRESH}; to keep its runs and add "
                f"this version's (each row records its version), pass {_MIX}; or write to another file")

