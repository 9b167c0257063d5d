"""Ctrl-C and SIGTERM around worker processes: one clean stop, by the main process only.

A terminal's Ctrl-C reaches the whole process group, workers included. Three rules make
it end a grid cleanly whenever it comes:

* workers never act on SIGINT (:func:`worker_ignores_sigint`), and are started with it
  blocked, so that not even one still importing, before it can set a handler, prints a
  ``KeyboardInterrupt`` traceback;
* starting and stopping a pool is never cut in half (:func:`interrupts_deferred`): a
  signal received meanwhile is acted on once the pool is whole, so it can be stopped;
* SIGTERM unwinds the main process like Ctrl-C (:func:`sigterm_unwinds`) instead of
  ending it on the spot with its workers left running.
"""

from __future__ import annotations

import contextlib
import signal
import threading
from collections.abc import Iterator

__all__ = ["interrupts_deferred", "sigterm_unwinds", "worker_ignores_sigint"]

DEFERRED_SIGNALS = (signal.SIGINT, signal.SIGTERM)


def _in_main_thread() -> bool:
    return threading.current_thread() is threading.main_thread()


@contextlib.contextmanager
def interrupts_deferred() -> Iterator[None]:
    """Hold SIGINT and SIGTERM back while the block runs, then act on them as usual.

    A signal received during the block is raised again when it ends, so the handler in
    force then acts on it (``KeyboardInterrupt``, ``SystemExit``, ignored, ...): none is
    lost, and the block is never left half done. SIGINT is also blocked in this thread
    for the block, so processes started in it inherit SIGINT blocked: they cannot act on
    a Ctrl-C before they have chosen what to do with it (:func:`worker_ignores_sigint`).
    Outside the main thread (which alone may set handlers), the block runs unguarded.

    Examples
    --------
    >>> import os, signal
    >>> previous = signal.signal(signal.SIGINT, signal.default_int_handler)  # as in a terminal
    >>> steps = []
    >>> try:
    ...     with interrupts_deferred():
    ...         os.kill(os.getpid(), signal.SIGINT)
    ...         steps.append("the block ran to its end")
    ... except KeyboardInterrupt:
    ...     steps.append("then Ctrl-C was acted on")
    >>> steps
    ['the block ran to its end', 'then Ctrl-C was acted on']
    >>> _ = signal.signal(signal.SIGINT, previous)
    """
    if not _in_main_thread():
        yield
        return
    received: list[int] = []

    def hold(signum, frame):
        received.append(signum)

    # A handler set outside Python (getsignal() gives None) cannot be put back: left alone.
    previous = {signum: handler for signum in DEFERRED_SIGNALS
                if (handler := signal.getsignal(signum)) is not None}
    for signum in previous:
        signal.signal(signum, hold)  # any thread may take the signal; hold runs in this one
    mask = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, mask)  # a pending SIGINT reaches hold now
        for signum, handler in previous.items():
            signal.signal(signum, handler)
        for held in dict.fromkeys(received):  # once each, in the order received
            signal.raise_signal(held)


def worker_ignores_sigint() -> None:
    """Pool initializer: a worker leaves Ctrl-C to the main process, which stops the pool.

    Workers start with SIGINT blocked (see :func:`interrupts_deferred`); ignoring it first
    discards one that came while the worker was starting, then it is unblocked, so that
    whatever the worker runs sees the usual signal mask.

    Examples
    --------
    >>> import signal
    >>> previous = signal.getsignal(signal.SIGINT)
    >>> worker_ignores_sigint()
    >>> signal.getsignal(signal.SIGINT) is signal.SIG_IGN
    True
    >>> _ = signal.signal(signal.SIGINT, previous)
    """
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})


def _exit_on_signal(signum, frame):
    raise SystemExit(128 + signum)  # the shell's status for a process ended by that signal


@contextlib.contextmanager
def sigterm_unwinds() -> Iterator[None]:
    """While the block runs, SIGTERM raises SystemExit in the main thread instead of ending the process.

    Python's default action ends the process on the spot, leaving the worker processes running;
    unwinding lets the backend shut them down. A handler installed by someone else is left
    alone, and so is every thread but the main one (only it may set handlers).
    """
    if not _in_main_thread() or signal.getsignal(signal.SIGTERM) is not signal.SIG_DFL:
        yield
        return
    signal.signal(signal.SIGTERM, _exit_on_signal)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
