"""The ``fullbandit`` command line: one sub-command per entry of :data:`COMMANDS`.

Thin by design: each sub-command module parses its options, calls the library and prints.
Errors a user can fix end with one line on stderr and exit status 2; Ctrl-C ends with
exit status 130 and no traceback.

The parser imports only the sub-command the command line names (:func:`build_parser` with
``argv``): ``fullbandit --help`` lists every sub-command from :data:`COMMANDS` without importing
one, and ``fullbandit session record`` does not import what ``solve`` or ``dks`` need (numpy's
neighbours: scipy, pandas, networkx, every algorithm). Within a sub-command, the options
generated from every algorithm's declarations are added only when the parser that holds them is
used (:class:`CommandParser`), so that ``session record`` does not import every algorithm to
build the options of ``session start``.

``fullbandit --data-dir PATH COMMAND ...`` names the folder of the raw data fullbandit does not
ship (:mod:`fullbandit.datasets.shared_data`) for the command and the processes it starts.

Examples
--------
>>> from fullbandit.cli.main import build_parser, named_command
>>> named_command(["--version"]), named_command(["session", "record", "s.db"]), named_command(["nope"])
(None, 'session', None)
>>> parser = build_parser(["bench", "--list"])     # bench built in full, the others as their names
>>> arguments = parser.parse_args(["bench", "--list"])
>>> arguments.command, arguments.list, arguments.jobs   # --jobs not given: None (it may not go with --scheduler)
('bench', True, None)
"""

from __future__ import annotations

import argparse
import importlib
import os
import re
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

from fullbandit.cli.exits import interrupted, reader_gone, version

#: The sub-commands, in the order of the help: name -> (module, the line ``fullbandit --help`` shows).
#: The line is the module's own (its ``add_parser`` passes it as ``help``), written here too so that
#: the help lists the commands without importing them; tests/test_startup.py checks that they agree.
COMMANDS = {
    "solve": ("fullbandit.cli.solve",
              "pick the best team of k workers on an embedded crowdsourcing data set or your own files"),
    "bench": ("fullbandit.cli.bench", "run a named benchmark suite and write its CSV and PNG"),
    "dks": ("fullbandit.cli.dks", "run densest-k-subgraph oracles on a graph and certify their ratios"),
    "session": ("fullbandit.cli.session", "a live team search stored in a SQLite file"),
    "plan": ("fullbandit.cli.plan", "estimate what a campaign would cost, from prior accuracies"),
}
EXIT_USAGE = 2
#: ``fullbandit``'s own options that take a value (:func:`named_command` skips it).
VALUED_OPTIONS = ("--data-dir",)


class CommandParser(argparse.ArgumentParser):
    """An argument parser that completes itself when it is first used (it parses, or formats its help or usage).

    :meth:`defer` takes a function that adds arguments to this parser; it runs before the parser is
    used, and never if it is not. The sub-parsers of a :class:`CommandParser` are ones too, so an
    action's parser (``session start``) can defer the options it generates from every registered
    algorithm until that action is the one parsed.
    """

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.deferred: list[Callable[[], object]] = []

    def defer(self, complete: Callable[[], object]) -> None:
        """Run ``complete()`` (which adds arguments to this parser) before the parser is first used."""
        self.deferred.append(complete)

    def complete(self) -> None:
        """Run the deferred functions, in the order they were given, once."""
        while self.deferred:
            self.deferred.pop(0)()

    def parse_known_args(self, args=None, namespace=None):
        self.complete()
        return super().parse_known_args(args, namespace)

    def format_usage(self) -> str:
        self.complete()
        return super().format_usage()

    def format_help(self) -> str:
        self.complete()
        return super().format_help()


class _Version(argparse.Action):
    """``--version``: prints ``fullbandit X.Y.Z``; the version is looked up only when asked for."""

    def __init__(self, option_strings, dest=argparse.SUPPRESS, default=argparse.SUPPRESS, help=None):
        super().__init__(option_strings, dest=dest, default=default, nargs=0, help=help)

    def __call__(self, parser, namespace, values, option_string=None):
        print(f"fullbandit {version()}")
        parser.exit()


def named_command(argv: Sequence[str]) -> str | None:
    """The sub-command ``argv`` names: its first word that is neither an option nor the value of one.

    >>> named_command(["--data-dir", "data", "bench", "--list"]), named_command(["--data-dir=bench", "plan"])
    ('bench', 'plan')
    """
    words = iter(argv)
    for word in words:
        if word in VALUED_OPTIONS:
            next(words, None)
        elif not word.startswith("-"):
            return word if word in COMMANDS else None
    return None


def plain(text: str) -> str:
    """reStructuredText as plain text for a terminal: ````code```` and ``:role:`target``` lose their markup.

    For help texts taken from docstrings, which Sphinx renders but argparse prints as they are.

    >>> plain("``start`` creates it (:class:`fullbandit.sessions.Session`, :mod:`~fullbandit.sessions.http`)")
    'start creates it (fullbandit.sessions.Session, fullbandit.sessions.http)'
    """
    return re.sub(r":[a-z]+:`~?([^`]+)`", r"\1", text).replace("``", "")


def description() -> str:
    """The top-level help's description, in plain text, naming every sub-command of :data:`COMMANDS`."""
    return (f"Identify the best team of k out of n candidates when a trial of a team shows only the sum of its "
            f"members' rewards (full-bandit feedback). Commands: {', '.join(COMMANDS)}; "
            f"'fullbandit COMMAND --help' describes one.")


def import_command(argv: Sequence[str]):
    """The module of the sub-command ``argv`` names, imported (``None`` if it names none)."""
    name = named_command(argv)
    return None if name is None else importlib.import_module(COMMANDS[name][0])


def build_parser(argv: Sequence[str] | None = None) -> argparse.ArgumentParser:
    """The ``fullbandit`` argument parser: every sub-command, or only the one ``argv`` names.

    With ``argv``, the sub-command it names is built by its module and every other is its name and
    line of help only (enough for ``fullbandit --help`` and for refusing an unknown command); without,
    every sub-command is built.
    """
    parser = CommandParser(prog="fullbandit", description=description())
    parser.add_argument("--version", action=_Version, help="print the version of fullbandit and exit")
    parser.add_argument("--data-dir", metavar="PATH", default=None,
                        help="the folder of the raw data fullbandit does not ship (the caption contest counts, the "
                             "RTE labels), for this command and the processes it starts (default: "
                             "$FULLBANDIT_DATA, else ../shared/data beside a source checkout)")
    commands = parser.add_subparsers(dest="command", required=True)
    named = None if argv is None else named_command(argv)
    for name, (module, help_) in COMMANDS.items():
        if argv is None or name == named:
            importlib.import_module(module).add_parser(commands)
        else:
            commands.add_parser(name, help=help_)
    return parser


def main(argv=None) -> int:
    """Run the command line with ``argv`` (default: ``sys.argv[1:]``) and return the exit status."""
    argv = sys.argv[1:] if argv is None else list(argv)
    args = build_parser(argv).parse_args(argv)
    # Imported here, not at the top: it brings numpy, which ``fullbandit --help`` does without (every
    # sub-command's module has imported it by now).
    from fullbandit.util.validation import InvalidParameterError

    try:
        if args.data_dir is not None:
            use_data_folder(args.data_dir)
        status = importlib.import_module(COMMANDS[args.command][0]).run(args)
        sys.stdout.flush()  # here, where a closed pipe can be answered, not at the interpreter's exit
        return status
    except (InvalidParameterError, TypeError) as error:
        print(f"fullbandit: error: {error}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        return interrupted()
    except BrokenPipeError:
        return reader_gone()


def use_data_folder(folder: str) -> None:
    """Make ``folder`` the data folder of this process and of those it starts (``--data-dir``)."""
    from fullbandit.datasets.shared_data import DATA_OPTION, DATA_VARIABLE
    from fullbandit.util.validation import InvalidParameterError

    path = Path(folder).expanduser().resolve()
    if not path.is_dir():
        raise InvalidParameterError(f"{DATA_OPTION}={folder!r} is not a folder; give the folder holding the raw "
                                    "data (caption559/counts.csv, rte/rte_labels.csv, ...)")
    # The environment, not a module variable: the loaders read it when called, and it is inherited by the
    # processes the command starts (`bench --jobs`'s workers import fullbandit afresh and load the data there).
    os.environ[DATA_VARIABLE] = str(path)


if __name__ == "__main__":
    sys.exit(main())
