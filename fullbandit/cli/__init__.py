"""Command line: ``fullbandit solve``, ``fullbandit bench`` and ``fullbandit dks``.

Thin by design: each sub-command module parses its options, calls the library and prints.
Errors a user can fix end with one line on stderr and exit status 2; Ctrl-C ends with
exit status 130 and no traceback.
"""

from __future__ import annotations

import argparse
import sys

from fullbandit._launch import interrupted
from fullbandit._validation import InvalidParameterError
from fullbandit.cli import bench, dks, plan, session, solve

COMMANDS = {"solve": solve, "bench": bench, "dks": dks, "session": session, "plan": plan}
EXIT_USAGE = 2


def build_parser() -> argparse.ArgumentParser:
    """The ``fullbandit`` argument parser with every sub-command."""
    parser = argparse.ArgumentParser(prog="fullbandit", description=__doc__.split("\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    for module in COMMANDS.values():
        module.add_parser(commands)
    return parser


def main(argv=None) -> int:
    """Run the command line with ``argv`` (default: ``sys.argv[1:]``) and return the exit status."""
    args = build_parser().parse_args(argv)
    try:
        return COMMANDS[args.command].run(args)
    except (InvalidParameterError, TypeError) as error:
        print(f"fullbandit: error: {error}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        return interrupted()


if __name__ == "__main__":
    sys.exit(main())
