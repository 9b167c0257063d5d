"""The package imports its public names lazily, and the console script exits cleanly on an early Ctrl-C."""

from __future__ import annotations

import importlib
import os
import signal
import subprocess
import sys
import time
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
        home = fullbandit._HOMES.get(name, "")
        if name == "load":
            assert value == fullbandit.Algorithm.load
        elif name == "__version__":
            assert isinstance(value, str)
        elif home is None:
            assert value is importlib.import_module(f"fullbandit.{name}")
        else:
            assert value is getattr(importlib.import_module(home), name)
    assert set(fullbandit._HOMES) | {"load", "__version__"} == set(fullbandit.__all__)
    assert set(fullbandit.__all__) <= set(dir(fullbandit))


def test_an_unknown_name_is_an_attribute_error():
    with pytest.raises(AttributeError, match="no attribute 'SAQN'"):
        fullbandit.SAQN  # noqa: B018
    assert not hasattr(fullbandit, "SAQN")


def test_the_console_script_module_imports_no_numpy():
    done = _python("import sys, fullbandit._launch; print('numpy' in sys.modules)")
    assert done.returncode == 0 and done.stdout.strip() == "False", done.stderr


@pytest.mark.parametrize("delay", [0.15, 0.4])
def test_ctrl_c_while_the_command_line_imports_exits_130_with_one_line(delay):
    # SIGINT lands while numpy, scipy and the algorithms are still importing (about 0.6 s)
    code = ("import sys, time; t = time.perf_counter(); import fullbandit._launch as launch; "
            "sys.argv = ['fullbandit', 'solve', '--help']; sys.exit(launch.main())")
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    process = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               text=True, env=env)
    time.sleep(delay)
    process.send_signal(signal.SIGINT)
    stdout, stderr = process.communicate(timeout=120)
    if process.returncode == 0:  # the machine was quick: everything imported before the signal
        pytest.skip(f"the command finished within {delay} s, before the signal")
    assert process.returncode == 130, stderr
    assert stderr == "fullbandit: interrupted\n"


def test_the_function_lower_bound_survives_an_import_of_its_module():
    # a fresh interpreter: the sub-module imported first, as library code does
    done = _python("import fullbandit.experiments.efficiency, fullbandit as fb; "
                   "from fullbandit.lower_bound import lower_bound; "
                   "print(fb.lower_bound is lower_bound, callable(fb.lower_bound))")
    assert done.returncode == 0 and done.stdout.split() == ["True", "True"], done.stderr
