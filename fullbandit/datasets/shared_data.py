"""Where the raw data files that fullbandit does not ship are looked for.

Some loaders read raw files that are not embedded in the package: the RTE labels
(:func:`fullbandit.datasets.rte.load_rte_labels`, ``rte/rte_labels.csv``) and the caption
contest 559 vote counts (:func:`fullbandit.datasets.votes.load_caption559`,
``caption559/counts.csv``), which ``fullbandit bench shahrampour-fig3`` runs on. Each takes
an explicit ``path``; without one it reads its file at its place inside the *data folder*, which is

1. the environment variable ``FULLBANDIT_DATA`` (:data:`DATA_VARIABLE`), if it is set and not empty;
2. else :data:`SHARED_DATA`, ``../shared/data`` beside a source checkout (from an installed
   wheel this points nowhere: set the variable).

The command line's global option ``fullbandit --data-dir PATH COMMAND ...`` sets the variable
for the command and every process it starts. The folder is looked up each time a loader is
called, never at import, so setting the variable in a running program takes effect at once.
A missing file's error names the path tried, the folder and where it came from, and both settings.

Examples
--------
>>> import os, tempfile
>>> folder, saved = tempfile.mkdtemp(), os.environ.pop(DATA_VARIABLE, None)
>>> os.environ[DATA_VARIABLE] = folder
>>> data_folder() == Path(folder)
True
>>> del os.environ[DATA_VARIABLE]
>>> data_folder() == SHARED_DATA
True
>>> os.environ.update({} if saved is None else {DATA_VARIABLE: saved})
"""

from __future__ import annotations

import os
from pathlib import Path

#: The environment variable naming the data folder (``fullbandit --data-dir PATH`` sets it).
DATA_VARIABLE = "FULLBANDIT_DATA"
#: The command line's option that sets :data:`DATA_VARIABLE` (:mod:`fullbandit.cli.main`).
DATA_OPTION = "--data-dir"
#: ``<checkout>/../shared/data``: the data folder when :data:`DATA_VARIABLE` is not set.
SHARED_DATA = Path(__file__).resolve().parents[2].parent / "shared" / "data"


def data_folder() -> Path:
    """The data folder now: ``$FULLBANDIT_DATA`` if set and not empty, else :data:`SHARED_DATA`."""
    value = os.environ.get(DATA_VARIABLE)
    return Path(value).expanduser() if value else SHARED_DATA


def raw_data_file(path, relative: str, what: str, remedy: str) -> Path:
    """The raw file a loader reads: ``path`` if given, else ``relative`` inside :func:`data_folder`.

    Parameters
    ----------
    path : str or os.PathLike or None
        The loader's explicit ``path`` argument.
    relative : str
        The file's place inside the data folder (``"rte/rte_labels.csv"``).
    what : str
        What the file holds, for the error (``"the RTE labels"``).
    remedy : str
        Where the file comes from and how to pass it, for the error.

    Raises
    ------
    FileNotFoundError
        If there is no file there: naming the path tried and, when it came from the data
        folder, the folder, where that came from, :data:`DATA_VARIABLE` and :data:`DATA_OPTION`.
    """
    if path is not None:
        tried, settings = Path(path), ""
    else:
        folder = data_folder()
        tried = folder / relative
        source = (f"from {DATA_VARIABLE}" if os.environ.get(DATA_VARIABLE)
                  else f"the default beside a source checkout, as {DATA_VARIABLE} is not set")
        settings = (f" (the data folder {folder}, {source}; to read it elsewhere set {DATA_VARIABLE}=FOLDER "
                    f"or run `fullbandit {DATA_OPTION} FOLDER ...`, with the file at FOLDER/{relative})")
    if not tried.is_file():
        raise FileNotFoundError(f"{what} are not at {tried}{settings}. {remedy}")
    return tried


__all__ = ["DATA_OPTION", "DATA_VARIABLE", "SHARED_DATA", "data_folder", "raw_data_file"]
