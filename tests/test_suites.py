"""The catalogue of ``fullbandit bench`` suites: every reproduction module's suites, by name, one way."""

import importlib
import pkgutil

import pytest

import fullbandit.experiments
from fullbandit.experiments import suites
from fullbandit.experiments.suite import Suite
from fullbandit.util.validation import InvalidParameterError


def _declaring_modules():
    """Every module of ``fullbandit.experiments`` but the catalogue that declares suites (its ``SUITES``)."""
    modules = [importlib.import_module(f"fullbandit.experiments.{info.name}")
               for info in pkgutil.iter_modules(fullbandit.experiments.__path__) if info.name != "suites"]
    return [module for module in modules if hasattr(module, "SUITES")]


def test_the_catalogue_holds_every_declared_suite_once_under_its_own_name():
    declared = [suite for module in _declaring_modules() for suite in module.SUITES]
    assert all(isinstance(suite, Suite) for suite in declared)
    assert len({suite.name for suite in declared}) == len(declared), "two modules declare one suite name"
    assert sorted(suites.SUITES) == sorted(suite.name for suite in declared)
    assert all(suites.SUITES[suite.name] is suite for suite in declared)
    assert list(suites.SUITES)[:2] == ["saqm-support", "dks"]  # what `fullbandit bench --list` shows first
    assert {"kuroki-samples", "kuroki-table2", "kuroki-ratio", "kuroki-time", "kuroki-modes", "efficiency",
            "zhou-fig1", "chen-fig1-4", "feedback-cost", "tao-fig1", "shahrampour-fig3"} <= set(suites.SUITES)


def test_get_suite_names_the_suites_when_it_refuses_one():
    assert suites.get_suite("kuroki-modes") is suites.SUITES["kuroki-modes"]
    with pytest.raises(InvalidParameterError, match=r"suite='nope' is not one of .*'kuroki-table2'"):
        suites.get_suite("nope")


def test_every_suite_builds_a_grid_of_its_runs():
    for suite in suites.SUITES.values():
        cells = suite.build(1).cells()  # describes the runs: no data set is read, nothing runs
        assert cells and {cell.seed for cell in cells} <= {0}, suite.name
