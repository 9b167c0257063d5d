"""The package imports its public names lazily, and the console script exits cleanly on an early Ctrl-C."""

from __future__ import annotations

import importlib
import importlib.metadata
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

import fullbandit

ROOT = Path(__file__).resolve().parent.parent


def _python(code: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=120)


def test_every_public_name_is_the_object_of_its_home_module():
    for name in fullbandit.__all__:
        value = getattr(fullbandit, name)
        if name == "load":
            assert value == fullbandit.Algorithm.load
        elif name == "__version__":
            assert isinstance(value, str)
        elif name in fullbandit._MODULES:
            assert value is importlib.import_module(fullbandit._MODULES[name])
        else:
            assert value is getattr(importlib.import_module(fullbandit._HOMES[name]), name)
    assert set(fullbandit._HOMES) | set(fullbandit._MODULES) | {"load", "__version__"} == set(fullbandit.__all__)
    assert set(fullbandit.__all__) <= set(dir(fullbandit))


def test_an_unknown_name_is_an_attribute_error():
    with pytest.raises(AttributeError, match="no attribute 'SAQN'"):
        fullbandit.SAQN  # noqa: B018
    assert not hasattr(fullbandit, "SAQN")


def test_the_console_script_module_imports_no_numpy():
    done = _python("import sys, fullbandit.cli.launch; print('numpy' in sys.modules)")
    assert done.returncode == 0 and done.stdout.strip() == "False", done.stderr


# Ctrl-C at a chosen moment of start-up, exactly: a sitecustomize module in the child traces its frames
# and raises SIGINT in the process itself (signal.raise_signal) at the moment asked for, so no sleep
# stands in for timing and a loaded machine changes nothing. It imports only what the interpreter has
# already loaded (os, sys, _signal), so that the child imports what it would without it.
TRACER = r"""
import os, sys, _signal

_PACKAGE = os.environ["FB_PACKAGE"]
_INIT, _TRY_LINE = os.path.join(_PACKAGE, "__init__.py"), int(os.environ["FB_TRY_LINE"])
_END = os.path.join(_PACKAGE, "cli", "main.py")
_AT = os.environ["FB_SIGINT_AT"]  # "census", a moment's number, or "call:<file ending>:<function>"
_ALL = os.environ.get("FB_ALL_FRAMES") == "1"  # every frame (the stdlib's too), not only the package's and __main__'s
_state = {"open": False, "done": False, "count": 0, "moments": []}


def _sigint():
    _state["done"] = True
    sys.settrace(None)
    _signal.raise_signal(_signal.SIGINT)


def _moment(frame, event):
    # the start-up window: from the first instruction inside the package's try block to the first of fullbandit.cli.main
    path = frame.f_code.co_filename
    if not _state["open"]:
        if path != _INIT or event != "line" or frame.f_lineno <= _TRY_LINE:
            return
        _state["open"] = True
    if path == _END:
        _state["done"] = True
        if _AT == "census":
            with open(os.environ["FB_MOMENTS"], "w") as out:
                out.write("\n".join(_state["moments"]))
            os._exit(0)
    where = f"{path}:{frame.f_lineno} {event} {frame.f_code.co_name}"
    if _AT == "census":
        _state["moments"].append(where)
    elif _AT.isdigit() and _state["count"] == int(_AT):
        _sigint()
    _state["count"] += 1


def _local(frame, event, arg):
    if _state["done"]:
        return None
    _moment(frame, event)
    return _local


def _global(frame, event, arg):
    if _state["done"]:
        return None
    if _AT.startswith("call:"):
        _, ending, function = _AT.split(":")
        if frame.f_code.co_filename.endswith(ending) and frame.f_code.co_name == function:
            _sigint()
        return None
    if _ALL or frame.f_code.co_filename.startswith(_PACKAGE) or frame.f_globals.get("__name__") == "__main__":
        return _local(frame, event, arg)
    return None


sys.settrace(_global)
"""

# The script pip (distlib) writes for [project.scripts] fullbandit = "fullbandit.cli.launch:main", as in bin/pytest.
CONSOLE_SCRIPT = """#!{python}
# -*- coding: utf-8 -*-
import re
import sys
from fullbandit.cli.launch import main
if __name__ == '__main__':
    sys.argv[0] = re.sub(r'(-script\\.pyw|\\.exe)?$', '', sys.argv[0])
    sys.exit(main())
"""
ENTRIES = {
    "console-script": None,  # the script above, in tmp_path
    "python-m": ["-m", "fullbandit"],
    "python-c": ["-c", "import sys; from fullbandit.cli.launch import main; sys.exit(main())"],
}
INTERRUPTED = (130, "fullbandit: interrupted\n")


def _try_line() -> int:
    """The line of the package's first statement: ``try:``, before which no instruction can act on a signal."""
    lines = (ROOT / "fullbandit" / "__init__.py").read_text().splitlines()
    return next(number for number, line in enumerate(lines, 1) if line.startswith("try:"))


@pytest.fixture(scope="module")
def child(tmp_path_factory):
    """Run an entry point of the command (or a program) with Ctrl-C at a moment; (status, stdout, stderr)."""
    folder = tmp_path_factory.mktemp("sigint")
    (folder / "site").mkdir()
    (folder / "site" / "sitecustomize.py").write_text(TRACER)
    script = folder / "fullbandit"
    script.write_text(CONSOLE_SCRIPT.format(python=sys.executable))

    def run(entry, at, argv=("--version",), all_frames=False, ignore_sigint=False):
        arguments = (ENTRIES[entry] or [str(script)]) if isinstance(entry, str) else entry
        command = [sys.executable, *arguments]
        env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(folder / "site"), str(ROOT)]),
               "FB_PACKAGE": str(ROOT / "fullbandit") + os.sep, "FB_TRY_LINE": str(_try_line()),
               "FB_SIGINT_AT": str(at), "FB_MOMENTS": str(folder / "moments"), "FB_ALL_FRAMES": str(int(all_frames))}
        # The child's SIGINT as a terminal's foreground command has it, whatever this process inherited (a test
        # run started in the background, `cmd &`, has SIGINT ignored, and an ignored SIGINT stays ignored).
        disposition = signal.SIG_IGN if ignore_sigint else signal.SIG_DFL
        preexec = lambda: signal.signal(signal.SIGINT, disposition)  # noqa: E731 - one use, in the child
        done = subprocess.run([*command, *argv], capture_output=True, text=True, env=env, timeout=300,
                              preexec_fn=preexec)
        if at == "census":
            assert done.returncode == 0, done.stderr
            return (folder / "moments").read_text().splitlines()
        return done.returncode, done.stdout, done.stderr

    return run


def _every_moment_exits_130_with_one_line(child, entry, all_frames=False, stride=1, sample_all=False, at_most=None):
    moments = child(entry, "census", all_frames=all_frames)
    if at_most is not None:  # the census's size depends on how the package is installed: bound the children
        stride = max(stride, -(-len(moments) // at_most))
    assert any("__init__.py" in moment for moment in moments) and any("launch.py" in moment for moment in moments)
    failures = []
    for number, moment in enumerate(moments):
        if stride > 1 and number % stride and (sample_all or moment.startswith(str(ROOT / "fullbandit" /
                                                                                   "__init__.py"))):
            continue  # the package's own lines run alike whatever started it: a sample of them
        status, _, err = child(entry, number, all_frames=all_frames)
        if (status, err) != INTERRUPTED:
            failures.append(f"{moment}: status {status}, stderr {err!r}")
    assert not failures, f"{len(failures)} of {len(moments)} moments:\n" + "\n".join(failures)


@pytest.mark.slow
@pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")
@pytest.mark.parametrize("entry", ENTRIES)
def test_ctrl_c_at_every_moment_of_start_up_exits_130_with_one_line(child, entry):
    """Every line of the script and ``python -m`` until the command line's import begins, and every 10th
    of the package's own (they run alike whatever started it; the slow test below takes every line);
    for the entries other than pip's console script, every 10th moment of all."""
    _every_moment_exits_130_with_one_line(child, entry, stride=10, sample_all=entry != "console-script")


@pytest.mark.slow
@pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")
@pytest.mark.parametrize("entry", ["console-script"])  # pip's script, the path users take; a child is ~0.3 s
def test_ctrl_c_at_every_moment_of_start_up_in_every_frame_exits_130_with_one_line(child, entry):
    """As above, with the lines of the import machinery, ``re`` and ``runpy`` in between (a few thousand
    moments; about 24,000 with a non-editable install), 100 of them evenly spread (a child traced that far
    costs about a second; the default run above takes every script line)."""
    _every_moment_exits_130_with_one_line(child, entry, all_frames=True, sample_all=True, at_most=100)


LATER = {  # moments after start-up's window, by the function entered
    "numpy importing": "call:numpy/__init__.py:<module>",
    "the command line imported": "call:fullbandit/cli/main.py:main",
    "arguments parsed": "call:argparse.py:parse_known_args",
    "the command running": "call:fullbandit/cli/exits.py:version",
}
LATER_ARGV = {"numpy importing": ("session", "--help")}  # the others with --version, which imports no numpy


# Each child runs traced through the whole command line's import (about 3 s): two in the default run.
_LATER_CASES = [pytest.param(entry, moment, marks=() if (entry, moment) in {
    ("console-script", "numpy importing"), ("python-m", "the command running")} else pytest.mark.slow)
    for entry in ("console-script", "python-m") for moment in LATER]


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")
@pytest.mark.parametrize("entry, moment", _LATER_CASES)
def test_ctrl_c_while_the_command_line_imports_or_runs_exits_130_with_one_line(child, entry, moment):
    argv = LATER_ARGV.get(moment, ("--version",))
    assert child(entry, LATER[moment], argv=argv) == (*INTERRUPTED[:1], "", INTERRUPTED[1])


def test_a_program_importing_the_library_still_gets_its_ctrl_c(child):
    """Held while the package initialises, the Ctrl-C reaches the program at the end as KeyboardInterrupt."""
    program = ("import signal\ntry:\n    import fullbandit\nexcept KeyboardInterrupt:\n    print('caught')\n"
               "print(signal.getsignal(signal.SIGINT) is signal.default_int_handler)")
    for at in (0, 5, "call:fullbandit/__init__.py:_starting_the_command"):
        status, out, err = child(["-c", program], at, argv=())
        assert (status, out.split(), err) == (0, ["caught", "True"], ""), at
    status, out, err = child(["-c", program], "call:nothing:nothing", argv=())  # no Ctrl-C: nothing changes
    assert (status, out.split(), err) == (0, ["True"], "")


def test_ctrl_c_ignored_by_the_parent_stays_ignored(child):
    # as a shell starts a background job: the command does not turn an ignored SIGINT into an exit
    assert child("console-script", 0, ignore_sigint=True) == (0, "fullbandit 0.1.0\n", "")


def test_version_is_the_installed_one_else_the_source_trees_and_that_is_pyprojects():
    import tomllib

    from fullbandit.cli.exits import version

    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"]
    assert fullbandit.__version__ == project
    try:
        installed = importlib.metadata.version("fullbandit")
    except importlib.metadata.PackageNotFoundError:
        installed = fullbandit.__version__
    assert version() == installed
    done = _python("import fullbandit, sys; print('numpy' in sys.modules, 'importlib.metadata' in sys.modules)")
    assert done.stdout.split() == ["False", "False"], done.stderr


@pytest.mark.slow
def test_the_function_lower_bound_survives_an_import_of_its_module():
    # a fresh interpreter: the sub-module imported first, as library code does
    done = _python("import fullbandit.experiments.efficiency, fullbandit as fb; "
                   "from fullbandit.analysis.sample_complexity import lower_bound; "
                   "print(fb.lower_bound is lower_bound, callable(fb.lower_bound))")
    assert done.returncode == 0 and done.stdout.split() == ["True", "True"], done.stderr
