"""Adding an algorithm takes one module and one registry line: the command line, the
experiment runner and the conformance suite then pick it up with no other edit."""

from __future__ import annotations

import json
from functools import partial

import numpy as np
import pytest
from example_uniform_sampling import UniformSampling

from fullbandit.cli.main import main
from fullbandit.core import registry
from fullbandit.core.conformance import CHECKS
from fullbandit.experiments import Grid, run_grid
from fullbandit.experiments.grid import Factory
from fullbandit.experiments.suites import planted_gap_instance

SPEC = registry.AlgorithmSpec("uniform-sampling", UniformSampling, summary="uniform super-arms, fixed budget")


@pytest.fixture
def registered():
    registry.register(SPEC)  # the one registry line
    yield SPEC
    registry.unregister(SPEC.name)


@pytest.mark.slow
@pytest.mark.parametrize("check", CHECKS, ids=lambda check: check.__name__)
def test_the_example_passes_the_conformance_suite(check):
    check(SPEC)


def test_the_registry_tags_come_from_the_class(registered):
    assert "uniform-sampling" in registry.names(setting="fixed-budget")
    assert registered.guarantee == "fixed-budget" and registered.options == ("budget", "seed")


def test_the_command_line_runs_it(registered, capsys):
    assert main(["solve", "--algorithm", "uniform-sampling", "--k", "3", "--budget", "3000", "--no-progress",
                 "--json"]) == 0
    output = json.loads(capsys.readouterr().out)
    assert output["pulls"] == 3000 and output["stop_reason"] == "budget exhausted"
    assert output["guarantee"] == "fixed-budget" and output["inputs"]["algorithm"] == "uniform-sampling"
    assert main(["solve", "--algorithm", "uniform-sampling", "--epsilon", "0.1"]) == 2
    assert "--epsilon does not apply to --algorithm uniform-sampling" in capsys.readouterr().err


def test_the_runner_runs_it(registered):
    grid = Grid({"uniform": "uniform-sampling"},
                {"planted": Factory(partial(planted_gap_instance, n=6, k=2, min_gap=0.5, sigma=0.1))}, seeds=3)
    frame = run_grid(grid, backend="sequential", progress=False)
    assert list(frame["pulls"]) == [2_000] * 3
    assert set(frame["stop_reason"]) == {"budget exhausted"}
    assert frame["correct"].all()  # a gap of 0.5 against noise 0.1 is found by 2,000 uniform pulls
    assert np.isfinite(frame["gap"]).all()
