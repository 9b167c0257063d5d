"""Every help text of the command line: plain text, and the top level lists every sub-command there is.

All through :func:`fullbandit.cli.main.main` in this one process (each ``--help`` ends in ``SystemExit``),
so that the test costs one import of the sub-commands, not a process per help.
"""

from __future__ import annotations

import argparse
import ast
import re
from pathlib import Path

import pytest

import fullbandit
from fullbandit.cli.main import COMMANDS, build_parser, main

CLI = Path(fullbandit.__file__).resolve().parent / "cli"
#: reStructuredText that a terminal would print as it is: ``code`` and :role:`target`.
MARKUP = re.compile(r"``|:[a-z]+:`")


def _output(capsys, argv: list[str]) -> str:
    """What ``fullbandit ARGV`` prints when it exits at once (``--help``, ``--version``): status 0 required."""
    with pytest.raises(SystemExit) as exit_:
        main(argv)
    assert exit_.value.code == 0
    captured = capsys.readouterr()
    assert captured.err == ""
    return captured.out


def _modules_with_add_parser() -> set[str]:
    """The modules of ``fullbandit/cli`` that define ``add_parser`` (a sub-command each), read from the source."""
    return {f"fullbandit.cli.{path.stem}" for path in CLI.glob("*.py")
            if any(isinstance(node, ast.FunctionDef) and node.name == "add_parser"
                   for node in ast.parse(path.read_text()).body)}


def _choices(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    """The sub-parsers of ``parser`` by name (none if it has none)."""
    return {name: choice for action in parser._actions if isinstance(action, argparse._SubParsersAction)
            for name, choice in action.choices.items()}


def _actions() -> list[list[str]]:
    """Every sub-command, and every action of a sub-command that has actions (``session start``), as argv."""
    return [argv for name, parser in _choices(build_parser()).items()
            for argv in [[name], *([name, action] for action in _choices(parser))]]


ACTIONS = _actions()


def test_version_prints_the_package_version(capsys):
    assert _output(capsys, ["--version"]) == f"fullbandit {fullbandit.__version__}\n"


def test_the_top_level_help_lists_every_sub_command_and_is_plain(capsys):
    text = _output(capsys, ["--help"])
    listed = re.search(r"^  \{([\w,-]+)\}$", text, flags=re.M)
    assert listed is not None, text
    commands = listed.group(1).split(",")
    assert commands == list(COMMANDS)
    assert {COMMANDS[name][0] for name in commands} == _modules_with_add_parser()
    # The description names them too, each one (it is generated from COMMANDS).
    description = text.split("\n\n")[1]
    assert all(re.search(rf"\b{name}\b", description) for name in COMMANDS), description
    assert not MARKUP.search(text), text


def test_the_actions_found_include_those_of_session():
    assert ["session", "start"] in ACTIONS and ["session", "serve"] in ACTIONS and ["bench"] in ACTIONS


@pytest.mark.parametrize("argv", ACTIONS, ids=" ".join)
def test_each_help_is_plain_text(capsys, argv):
    text = _output(capsys, [*argv, "--help"])
    assert text.startswith(f"usage: fullbandit {' '.join(argv)}")
    assert not MARKUP.search(text), MARKUP.search(text)


def test_the_markup_check_finds_markup():
    """The negative control: the pattern the help texts are checked with does match RST markup."""
    assert MARKUP.search("``fullbandit session``") and MARKUP.search("see :class:`Session`")
    assert not MARKUP.search("fullbandit session (fullbandit.sessions.Session)")
