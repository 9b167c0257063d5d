"""How the command ends: the one line and exit status of a Ctrl-C, and the version it reports."""

from __future__ import annotations

import os
import sys

EXIT_INTERRUPTED = 130  # the shell's convention for a process ended by SIGINT


def interrupted() -> int:
    """Say on stderr that Ctrl-C ended the command, in one line; the exit status to return."""
    print("fullbandit: interrupted", file=sys.stderr)
    return EXIT_INTERRUPTED


def reader_gone() -> int:
    """The reader of standard output went away (``fullbandit solve | head``): end quietly, status 1.

    What is still buffered for the closed pipe is dropped (standard output is pointed at
    ``os.devnull``), so the interpreter's exit does not print a second error.
    """
    os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    return 1


def version() -> str:
    """The version of fullbandit: the installed distribution's, else the source tree's ``__version__``."""
    from importlib.metadata import PackageNotFoundError
    from importlib.metadata import version as installed_version

    try:
        return installed_version("fullbandit")
    except PackageNotFoundError:  # run from a source tree that was never installed
        from fullbandit.util.version import __version__

        return __version__
