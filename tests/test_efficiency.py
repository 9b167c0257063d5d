"""The efficiency suites: their rows, lower bounds and summaries checked against direct computation."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import fullbandit as fb
from fullbandit.experiments import efficiency, run_grid
from fullbandit.experiments.suites import get_suite


def test_every_fixed_confidence_algorithm_is_in_the_suites():
    names = set(fb.registry.names(feedback="full", setting="fixed-confidence"))
    assert set(efficiency.algorithms(enumerable=True)) == names
    assert set(efficiency.algorithms(enumerable=False)) == names - {"exhaustive"}


@pytest.mark.slow
def test_synthetic_rows_carry_the_exact_lower_bound_and_the_ratio():
    grid = efficiency.build_synthetic_grid(1, ns=(8,))
    grid = type(grid)({"icb": grid.algorithms["icb"]}, grid.instances, seeds=1, metrics=grid.metrics)
    frame = run_grid(grid, progress=False)
    assert len(frame) == 4 and set(frame["instance"]) == {"planted", "random"}
    assert set(frame["delta"]) == set(efficiency.SYNTHETIC_DELTAS)
    for cell, (_, row) in zip(grid.cells(), frame.iterrows(), strict=True):
        instance = grid.instances[cell.instance].make(np.random.default_rng(cell.instance_seed()), n=8)
        direct = fb.lower_bound(instance.problem, instance.environment.means, efficiency.SYNTHETIC_SIGMA,
                                delta=row["delta"], epsilon=efficiency.SYNTHETIC_EPSILON, easiest_answer=True)
        assert row["lower_bound"] == pytest.approx(direct.samples) and direct.exact
        assert row["efficiency"] == pytest.approx(row["pulls"] / row["lower_bound"])
        level = np.log(1 / (2.4 * row["delta"]))
        assert row["attainable_bound"] == pytest.approx(direct.T_easiest * level)
        assert row["attainable_bound"] >= row["lower_bound"] * (1 - 1e-9)
    table = efficiency.summarize_synthetic(frame)
    assert (table["pulls / lower bound"] == table["mean_pulls"] / table["lower_bound"]).all()


def test_quiz_summary_pairs_each_algorithm_with_icb_on_the_same_seed():
    assert get_suite("efficiency-quiz").name == "efficiency-quiz"
    rows = pd.DataFrame({"instance": ["it"] * 4, "algorithm": ["icb", "swap", "icb", "swap"], "seed": [0, 0, 1, 1],
                         "pulls": [100, 20, 200, 100], "epsilon_optimal": [True] * 4,
                         "stop_reason": ["stopping rule"] * 4})
    table = efficiency.summarize_quiz(rows)
    assert table.loc[("it", "swap"), "pulls_over_icb"] == pytest.approx((0.2 + 0.5) / 2)
    assert table.loc[("it", "icb"), "pulls_over_icb"] == 1.0


def test_targets_take_the_best_certified_algorithm_that_made_no_error():
    rows = pd.DataFrame({"algorithm": ["swap", "phased", "saqm-heuristic-free", "swap", "phased"],
                         "delta": 0.05, "instance": "random", "n": [8, 8, 8, 10, 10],
                         "pulls": [300, 200, 10, 900, 800], "lower_bound": 10.0,
                         "epsilon_optimal": [True, False, True, True, True], "stop_reason": "stopping rule"})
    table = efficiency.target_table(rows)
    # n = 8: phased erred and the third name is no certified algorithm, so swap's 30 counts; n = 10: phased's 80.
    assert table.loc[(0.05, "random"), "worst best ratio"] == 80.0
    assert table.loc[(0.05, "random"), "best per n"] == "8: 30.0 (swap), 10: 80.0 (phased)"
    assert not table.loc[(0.05, "random"), "met"]


def test_targets_report_the_same_algorithms_against_the_attainable_bound():
    rows = pd.DataFrame({"algorithm": ["swap", "phased"] * 2, "delta": 0.05, "instance": "random",
                         "n": [8, 8, 10, 10], "pulls": [300, 200, 900, 800], "lower_bound": 10.0,
                         "attainable_bound": [50.0, 50.0, 20.0, 20.0], "epsilon_optimal": True,
                         "stop_reason": "stopping rule"})
    table = efficiency.target_table(rows)
    # best per n: phased (20, then 80 times the weak bound); against the attainable one 200 / 50 and 800 / 20
    assert table.loc[(0.05, "random"), "worst best ratio"] == 80.0
    assert table.loc[(0.05, "random"), "worst best / attainable"] == 40.0
    assert "worst best / attainable" not in efficiency.target_table(rows.drop(columns="attainable_bound"))
