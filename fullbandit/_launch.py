"""The ``fullbandit`` console script: Ctrl-C while the library is still importing exits as cleanly as later.

Kept apart from :mod:`fullbandit.cli`, which imports numpy, scipy and the algorithms
(about half a second): a Ctrl-C in that window would otherwise print a traceback.
"""

from __future__ import annotations

import sys

EXIT_INTERRUPTED = 130  # the shell's convention for a process ended by SIGINT


def interrupted() -> int:
    """Say on stderr that Ctrl-C ended the command, in one line; the exit status to return."""
    print("fullbandit: interrupted", file=sys.stderr)
    return EXIT_INTERRUPTED


def main() -> int:
    """Import the command line and run it; exit status 130 and one line if interrupted while importing."""
    try:
        from fullbandit.cli import main as command_line
    except KeyboardInterrupt:
        return interrupted()
    return command_line()
