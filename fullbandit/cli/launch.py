"""The ``fullbandit`` console script: a Ctrl-C at any moment of start-up ends it as cleanly as later.

Clean means one line, ``fullbandit: interrupted``, on stderr and exit status 130, never a traceback.
The run itself is :mod:`fullbandit.cli`'s business (it catches ``KeyboardInterrupt``); start-up is
this module's, and it has three stretches:

1. The console script (``from fullbandit.cli.launch import main``) and ``python -m fullbandit`` import
   the package first, before any code that could catch ``KeyboardInterrupt``. So the package's
   first statements hold SIGINT (they install a handler that only takes note), and at the end of
   ``fullbandit/__init__.py``, if the frames show the command starting, hand over to
   :func:`take_over`; a program that merely imports the library gets its handler back, and a
   Ctrl-C held meanwhile is delivered to it then.
2. From :func:`take_over` until the command line is imported -- the rest of the import machinery,
   the script's own lines, :mod:`fullbandit.cli.main` and the module of the sub-command named
   (:func:`fullbandit.cli.main.import_command`: ``session`` brings numpy, ``solve`` pandas too)
   -- SIGINT ends the process at once from the handler (:func:`stop`). No
   ``KeyboardInterrupt`` is raised inside third-party imports, where it could be swallowed by a
   broad ``except`` or reported as "Exception ignored".
3. :func:`main` gives the program's handler back before it runs the command line, inside a
   ``try`` that turns ``KeyboardInterrupt`` into the line and 130.

What comes before the first instruction of ``fullbandit/__init__.py`` -- the interpreter's own
start-up, the script's ``import re, sys`` and the import machinery finding the package -- is out
of any package's reach; it takes microseconds.
"""

from __future__ import annotations

import os
import signal
import sys
from typing import Any, NoReturn

from fullbandit.cli.exits import EXIT_INTERRUPTED, interrupted

_given_back: Any = None  # the SIGINT handler the process had before start-up, to give back before the run


def stop(signum: int | None = None, frame: object = None) -> NoReturn:
    """End the command at once with the one line and status 130: the SIGINT handler of start-up.

    ``os._exit``, not an exception: start-up has written nothing and holds nothing to clean up, and
    an exception would travel through the import machinery and whatever module was importing.
    """
    interrupted()
    sys.stderr.flush()
    os._exit(EXIT_INTERRUPTED)


def take_over(previous_handler: Any, held: list[int]) -> None:
    """Start-up from the end of the package's ``__init__``: :func:`stop` handles SIGINT until :func:`main` runs.

    ``previous_handler`` is the handler the package held SIGINT from (``None`` if it did not hold it:
    SIGINT ignored, or handled by the program); ``held`` the package's live list of the SIGINTs held,
    read after the hand-over, since one may arrive until :func:`stop` is in place.
    """
    global _given_back
    if previous_handler is not None:
        _given_back = previous_handler
        signal.signal(signal.SIGINT, stop)
    if held:
        stop()


def _give_back() -> None:
    """End start-up: SIGINT raises ``KeyboardInterrupt`` again (or whatever the process had)."""
    global _given_back
    if _given_back is not None and signal.getsignal(signal.SIGINT) is stop:
        signal.signal(signal.SIGINT, _given_back)
    _given_back = None


def main() -> int:
    """Import the command line and run it; exit status 130 and one line if Ctrl-C ends it."""
    try:
        from fullbandit.cli.main import import_command
        from fullbandit.cli.main import main as command_line

        import_command(sys.argv[1:])  # still start-up: the sub-command's imports end at once on Ctrl-C
        _give_back()
        return command_line()
    except KeyboardInterrupt:
        return interrupted()
