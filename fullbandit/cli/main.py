"""Command line: ``fullbandit solve``, ``fullbandit bench`` and ``fullbandit dks``.

Thin by design: each sub-command module parses its options, calls the library and prints.
Errors a user can fix end with one line on stderr and exit status 2; Ctrl-C ends with
exit status 130 and no traceback.
"""

from __future__ import annotations

import argparse
import sys

from fullbandit.cli import bench, dks, plan, session, solve
from fullbandit.cli.exits import interrupted, reader_gone, version
from fullbandit.util.validation import InvalidParameterError

COMMANDS = {"solve": solve, "bench": bench, "dks": dks, "session": session, "plan": plan}
EXIT_USAGE = 2


class _Version(argparse.Action):
    """``--version``: prints ``fullbandit X.Y.Z``; the version is looked up only when asked for."""

    def __init__(self, option_strings, dest=argparse.SUPPRESS, default=argparse.SUPPRESS, help=None):
        super().__init__(option_strings, dest=dest, default=default, nargs=0, help=help)

    def __call__(self, parser, namespace, values, option_string=None):
        print(f"fullbandit {version()}")
        parser.exit()


def build_parser() -> argparse.ArgumentParser:
    """The ``fullbandit`` argument parser with every sub-command."""
    parser = argparse.ArgumentParser(prog="fullbandit", description=__doc__.split("\n")[0])
    parser.add_argument("--version", action=_Version, help="print the version of fullbandit and exit")
    commands = parser.add_subparsers(dest="command", required=True)
    for module in COMMANDS.values():
        module.add_parser(commands)
    return parser


def main(argv=None) -> int:
    """Run the command line with ``argv`` (default: ``sys.argv[1:]``) and return the exit status."""
    args = build_parser().parse_args(argv)
    try:
        status = COMMANDS[args.command].run(args)
        sys.stdout.flush()  # here, where a closed pipe can be answered, not at the interpreter's exit
        return status
    except (InvalidParameterError, TypeError) as error:
        print(f"fullbandit: error: {error}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        return interrupted()
    except BrokenPipeError:
        return reader_gone()


if __name__ == "__main__":
    sys.exit(main())
