"""The sample-complexity reproduction suites: instances, grids and summaries."""

from functools import partial

import numpy as np
import pytest

from fullbandit.datasets import load_dataset
from fullbandit.experiments import Factory, Grid, run_grid
from fullbandit.experiments.kuroki_samples import (
    PAPER_TABLE2,
    quiz_instance,
    samples_grid,
    summarize_modes,
    summarize_table2,
    table2_teams,
)


def test_quiz_instance_is_the_data_set_with_bernoulli_workers():
    instance = quiz_instance(np.random.default_rng(0), "it")
    data = load_dataset("it")
    assert (instance.problem.n, instance.problem.k) == (36, 10)
    assert np.array_equal(instance.environment.means, data.accuracies)
    assert instance.environment.noise_scale(10) == pytest.approx(np.sqrt(10) / 2)


def test_table2_summary_puts_the_papers_numbers_beside_ours():
    options = dict(epsilon=1.0, delta=0.1, support="random")
    grid = Grid({name: Factory.registered(name, **options) for name in ("icb", "safoa-heuristic")},
                {"pokemon": Factory(partial(quiz_instance, dataset="pokemon", k=3))}, seeds=1)
    frame = run_grid(grid, progress=False)
    assert frame["epsilon_optimal"].all() and (frame["stop_reason"] == "stopping rule").all()
    table = summarize_table2(frame)
    assert table.loc["pokemon", "paper icb"] == PAPER_TABLE2["pokemon"][0] == 20_943
    assert table.loc["pokemon", "paper safoa-heuristic"] == 3_050
    assert table.loc["pokemon", "ours safoa-heuristic/icb"] == pytest.approx(
        frame.set_index("algorithm").loc["safoa-heuristic", "pulls"] / frame.set_index("algorithm").loc["icb", "pulls"])
    teams = table2_teams(frame)
    data = load_dataset("pokemon")
    for _, row in teams.iterrows():
        ids = row["team"].split()
        assert len(ids) == 3 and set(ids) <= set(data.worker_ids)


def test_samples_grid_sweeps_n_with_k_half_and_every_algorithm():
    cells = samples_grid(2).cells()
    assert {dict(c.instance_params)["n"] for c in cells} == {6, 8, 10, 12, 14}
    assert {c.algorithm for c in cells} == {"saqm", "safoa-heuristic", "safoa", "icb", "exhaustive"}
    assert len(cells) == 5 * 5 * 2


def test_modes_summary_compares_constants_on_the_same_sample_path():
    from fullbandit.experiments.suites import planted_gap_instance
    # A deterministic (cyclic) support and common random numbers for the environment: both
    # constants see the same sample path, and the paper's constant, larger for every t, can
    # only stop later.
    grid = Grid({"icb": Factory.registered("icb", {"confidence": ["tight", "paper"]}, epsilon=0.0, support="cyclic")},
                {"planted": Factory(partial(planted_gap_instance, n=7, k=3, min_gap=0.5, sigma=0.3))}, seeds=3)
    frame = run_grid(grid, progress=False)
    paired = frame.pivot_table(index="seed", columns="confidence", values="pulls")
    assert (paired["paper"] >= paired["tight"]).all()
    assert summarize_modes(frame).loc["icb", "paper / tight"] == pytest.approx(
        paired["paper"].mean() / paired["tight"].mean())
