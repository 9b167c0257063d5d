"""How the command ends: the one line and exit status of a Ctrl-C, and the version it reports."""

from __future__ import annotations

import sys

EXIT_INTERRUPTED = 130  # the shell's convention for a process ended by SIGINT


def interrupted() -> int:
    """Say on stderr that Ctrl-C ended the command, in one line; the exit status to return."""
    print("fullbandit: interrupted", file=sys.stderr)
    return EXIT_INTERRUPTED


def version() -> str:
    """The version of fullbandit: the installed distribution's, else the source tree's ``__version__``."""
    from importlib.metadata import PackageNotFoundError
    from importlib.metadata import version as installed_version

    try:
        return installed_version("fullbandit")
    except PackageNotFoundError:  # run from a source tree that was never installed
        from fullbandit.util.version import __version__

        return __version__
