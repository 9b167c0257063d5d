"""One writer per suite's results: ``fullbandit bench NAME`` holds ``OUT/.NAME.lock`` while it runs.

Two copies of one suite writing ``OUT/NAME.csv`` at once store runs twice (it happened: a rerun
script started twice). The lock is an advisory ``flock`` on a small file beside the results,
taken without waiting: a second copy is refused at once, naming the holder. The operating
system drops the lock when its process ends, however it ends (a kill, a crash), so a lock is
never left stale; the file itself stays (removing it would let two copies lock two different
files of one name).
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from pathlib import Path

from fullbandit.util.validation import InvalidParameterError

try:
    import fcntl
except ImportError:  # Windows: no flock; the bench then runs unlocked
    fcntl = None  # type: ignore[assignment]


def lock_path(out: Path, name: str) -> Path:
    """``OUT/.NAME.lock``."""
    return Path(out) / f".{name}.lock"


@contextlib.contextmanager
def suite_lock(out: Path, name: str) -> Iterator[None]:
    """Hold the lock of suite ``name``'s results in ``out`` for the ``with`` block.

    Raises
    ------
    InvalidParameterError
        If another process holds it (its process id is named when it recorded one).

    Examples
    --------
    >>> import tempfile
    >>> from fullbandit.cli.suite_lock import suite_lock
    >>> with tempfile.TemporaryDirectory() as out:
    ...     with suite_lock(out, "zhou-fig1"):
    ...         with suite_lock(out, "zhou-fig1"):
    ...             pass
    Traceback (most recent call last):
    ...
    fullbandit.util.validation.InvalidParameterError: another `fullbandit bench zhou-fig1` ...
    """
    if fcntl is None:
        yield
        return
    path = lock_path(Path(out), name)
    handle = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = os.pread(handle, 64, 0).decode(errors="replace").strip() or "unknown"
            raise InvalidParameterError(
                f"another `fullbandit bench {name}` (process {holder}) is writing {Path(out) / (name + '.csv')}: "
                "wait for it to end, or give --out another folder") from None
        os.ftruncate(handle, 0)
        os.pwrite(handle, str(os.getpid()).encode(), 0)
        yield
    finally:
        os.close(handle)  # closing the last descriptor drops the lock
