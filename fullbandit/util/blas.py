"""How many BLAS threads the stopping checks and the algorithms' setup may use.

A stopping check at ``n = 111`` multiplies and factorises ``111 x 111`` matrices: far too
small for several threads to pay, and on a busy machine the threads of numpy's and
scipy's BLAS spin against each other and against the other processes of an experiment
(measured: SAQM's check at ``n = 111`` went from 11-14 ms to 120-490 ms with two BLAS threads
on a busy 2-core machine). So every stopping check and every ``setup`` runs with the BLAS
libraries limited to :func:`blas_threads` threads, one by default (threadpoolctl does the
limiting and restores the previous setting afterwards; outside the checks BLAS is left as
it was).

Configure it with the environment variable ``FULLBANDIT_BLAS_THREADS`` (read at import: a
positive integer, or ``0`` to leave BLAS alone), or at run time with
:func:`set_blas_threads`.

Examples
--------
>>> from fullbandit.util.blas import blas_threads, limited_blas, set_blas_threads
>>> previous = set_blas_threads(2)
>>> blas_threads()
2
>>> with limited_blas():          # BLAS runs on at most 2 threads in here
...     pass
>>> set_blas_threads(previous) == 2
True
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Iterator

from fullbandit.util.validation import InvalidParameterError

ENVIRONMENT_VARIABLE = "FULLBANDIT_BLAS_THREADS"
DEFAULT_BLAS_THREADS = 1

_controller = None  # a threadpoolctl.ThreadpoolController, made at the first limited call (again once scipy is in)
_knows_scipy = False  # whether _controller was made with scipy.linalg imported, so it holds scipy's BLAS too


def _parse(value, source: str) -> int | None:
    try:
        threads = int(value)
    except (TypeError, ValueError):
        threads = -1
    if isinstance(value, bool) or threads < 0:
        raise InvalidParameterError(f"{source}={value!r} must be a positive number of BLAS threads, "
                                    "or 0 to leave BLAS alone")
    return threads or None


_threads: int | None = _parse(os.environ.get(ENVIRONMENT_VARIABLE, DEFAULT_BLAS_THREADS), ENVIRONMENT_VARIABLE)


def blas_threads() -> int | None:
    """The BLAS thread limit of the checks and builds (``None``: BLAS is left alone).

    Examples
    --------
    >>> from fullbandit.util.blas import blas_threads
    >>> blas_threads() in (None, 1, 2, 3, 4) or blas_threads() > 4
    True
    """
    return _threads


def set_blas_threads(threads: int | None) -> int | None:
    """Set the BLAS thread limit of the checks and builds; return the previous one.

    Parameters
    ----------
    threads : int or None
        A positive number of threads, or ``None`` (or 0) to leave BLAS alone.

    Returns
    -------
    int or None
        The previous limit.

    Examples
    --------
    >>> from fullbandit.util.blas import set_blas_threads
    >>> previous = set_blas_threads(None)
    >>> set_blas_threads(previous) is None
    True
    >>> set_blas_threads(-1)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    fullbandit.util.validation.InvalidParameterError: threads=-1 must be a positive number of BLAS threads, or 0 ...
    """
    global _threads
    new = None if threads is None else _parse(threads, "threads")
    previous, _threads = _threads, new
    return previous


@contextlib.contextmanager
def limited_blas() -> Iterator[None]:
    """Run the block with BLAS limited to :func:`blas_threads` threads (a no-op when ``None``).

    The first call loads threadpoolctl and records the BLAS libraries then loaded (numpy's, and
    scipy's once :mod:`fullbandit.linalg.spectrum` has imported scipy.linalg: the first call after
    that records them again); later calls cost about 30 microseconds. scipy is not imported here,
    so a process that needs none of it (``fullbandit session record`` replaying a journal) does
    not load it; the one block in which it is first imported runs scipy's BLAS unlimited.
    """
    global _controller, _knows_scipy
    if _threads is None:
        yield
        return
    if _controller is None or (not _knows_scipy and "scipy.linalg" in sys.modules):
        from threadpoolctl import ThreadpoolController
        _knows_scipy = "scipy.linalg" in sys.modules
        _controller = ThreadpoolController()
    with _controller.limit(limits=_threads, user_api="blas"):
        yield
