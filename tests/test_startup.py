"""The command line imports only what the command named uses (speeds: benchmarks/bench_cli.py).

``fullbandit --help`` imports no sub-command (nor numpy); ``fullbandit session record`` imports the
session machinery and the one algorithm its store names, none of scipy, pandas, networkx, cvxpy or
matplotlib. And the tables that make that possible -- the commands' lines of help
(:data:`fullbandit.cli.main.COMMANDS`), the built-in registry entries' homes
(:data:`fullbandit.core.registry.BUILTIN_ENTRIES`), the algorithm families' lazy names -- agree with
what the modules declare, so that none can drift.
"""

from __future__ import annotations

import importlib
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from fullbandit.cli.main import build_parser
from fullbandit.core import registry
from fullbandit.sessions import Session

ROOT = Path(__file__).resolve().parent.parent
HEAVY = ("scipy", "pandas", "networkx", "cvxpy", "matplotlib")

# One child: the top-level parser and its help (as `fullbandit --help`), then `fullbandit session record`,
# each followed by the modules loaded so far; and the registry's names, listed without loading every entry.
CHILD = """
import json, sys
from fullbandit.cli.main import build_parser, main
build_parser(["--help"]).format_help()
helped = sorted(sys.modules)
status = main(["session", "record", sys.argv[1], "--pull", "0", "--reward", "1.5"])
recorded = sorted(sys.modules)
from fullbandit.core import registry
print(json.dumps({"helped": helped, "status": status, "recorded": recorded, "names": registry.names()}))
"""


def _top(modules) -> set[str]:
    return {module.split(".")[0] for module in modules}


@pytest.fixture(scope="module")
def child(tmp_path_factory):
    """The modules the child loaded at each point; the store it recorded in."""
    path = tmp_path_factory.mktemp("startup") / "s.db"
    with Session.start(path, algorithm="icb", n=6, k=2, epsilon=0.01, delta=0.05, noise_scale=1.0, seed=3) as session:
        [pull] = session.next()
    assert pull.id == 0
    env = {**os.environ, "PYTHONPATH": str(ROOT), "OPENBLAS_NUM_THREADS": "1"}
    done = subprocess.run([sys.executable, "-c", CHILD, str(path)], capture_output=True, text=True, env=env,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.splitlines()[-1]), path


def test_the_top_level_help_imports_no_sub_command_nor_numpy(child):
    helped = child[0]["helped"]
    assert not _top(helped) & {"numpy", *HEAVY}
    assert not [module for module in helped if module.startswith("fullbandit.")
                and module not in ("fullbandit.cli", "fullbandit.cli.main", "fullbandit.cli.exits", "fullbandit.util",
                                   "fullbandit.util.version")]


def test_session_record_imports_the_session_machinery_and_its_one_algorithm(child):
    loaded, path = child
    assert loaded["status"] == 0
    with Session.open(path) as session:  # the child did record
        assert session.status()["pulls"] == 1
    recorded = loaded["recorded"]
    assert not _top(recorded) & set(HEAVY), sorted(_top(recorded) & set(HEAVY))
    families = [module for module in recorded if module.startswith(("fullbandit.full", "fullbandit.semi"))]
    assert families == ["fullbandit.full", "fullbandit.full.icb", "fullbandit.full.static"]
    assert not [module for module in recorded if module.startswith(("fullbandit.cli.solve", "fullbandit.datasets",
                                                                    "fullbandit.dks", "fullbandit.experiments"))]


def test_every_name_is_listed_without_loading_the_algorithms(child):
    assert child[0]["names"] == list(registry.names()) == sorted(spec.name for spec in registry.specs())


def test_the_help_of_the_commands_is_their_modules_own():
    """``fullbandit --help`` from the table of commands (nothing built) is the help with every command built."""
    assert build_parser([]).format_help() == build_parser().format_help()


def _spec(value) -> registry.AlgorithmSpec:
    return value if isinstance(value, registry.AlgorithmSpec) else registry.AlgorithmSpec.of(value)


def _value(reference: str):
    module, _, attribute = reference.partition(":")
    return getattr(importlib.import_module(module), attribute)


def test_the_homes_of_the_builtin_entries_are_the_families():
    families = {spec.name: spec for reference in registry.BUILTIN for spec in map(_spec, _value(reference))}
    assert sorted(registry.BUILTIN_ENTRIES) == sorted(families)
    for name, reference in registry.BUILTIN_ENTRIES.items():
        spec = _spec(_value(reference))
        assert (spec.name, spec.cls, dict(spec.fixed)) == (name, families[name].cls, dict(families[name].fixed))
        assert registry.get(name) == spec


@pytest.mark.parametrize("family", ["fullbandit.full", "fullbandit.semi"])
def test_a_familys_lazy_names_are_its_modules_objects(family):
    package = importlib.import_module(family)
    assert set(package._HOMES) | {"ALGORITHMS"} == set(package.__all__) <= set(dir(package))
    for name, home in package._HOMES.items():
        assert getattr(package, name) is getattr(importlib.import_module(home), name)
    assert package.ALGORITHMS == tuple(getattr(package, name) for name in package._ALGORITHMS)
    with pytest.raises(AttributeError, match="has no attribute 'Nope'"):
        package.Nope  # noqa: B018
