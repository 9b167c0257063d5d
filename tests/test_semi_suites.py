"""The per-arm reproduction suites and the feedback-cost suite: grids, pairs and metrics."""

from __future__ import annotations

import numpy as np
import pytest

from fullbandit.analysis.metrics import aggregate_regret, precision
from fullbandit.experiments import feedback_cost, run_grid, zhou
from fullbandit.experiments.grid import Grid
from fullbandit.experiments.suites import get_suite
from fullbandit.problems.classes import TopK


def test_pairs_keep_only_the_algorithms_of_each_instance_s_feedback():
    grid = feedback_cost.build_grid(2)
    cells = grid.cells()
    assert cells and all(feedback_cost.same_feedback(cell.algorithm, cell.instance) for cell in cells)
    full = [c for c in cells if c.instance.endswith("(full)")]
    semi = [c for c in cells if c.instance.endswith("(semi)")]
    assert {c.algorithm for c in full} == {"phased (full)", "swap (full)"}
    assert {c.algorithm for c in semi} == {"adaptive-topk (semi)", "lucb (semi)", "clucb-pac (semi)"}
    everything = Grid(grid.algorithms, grid.instances, seeds=2)
    assert len(everything.cells()) == 2 * len(cells)  # half the products pair a kind with the other


def test_feedback_cost_counts_individual_answers():
    grid = feedback_cost.build_grid(1)
    small = Grid({name: grid.algorithms[name] for name in ("swap (full)", "adaptive-topk (semi)")},
                 {name: grid.instances[name] for name in ("two-group (full)", "two-group (semi)")},
                 seeds=1, metrics=grid.metrics, pairs=grid.pairs)
    frame = run_grid(small, progress=False)
    assert len(frame) == 2 and frame["epsilon_optimal"].all()
    answers = dict(zip(frame["algorithm"], frame["answers"], strict=True))
    pulls = dict(zip(frame["algorithm"], frame["pulls"], strict=True))
    assert answers["swap (full)"] == 5 * pulls["swap (full)"]  # k = 5 answers per team pull
    assert answers["adaptive-topk (semi)"] == pulls["adaptive-topk (semi)"]


def test_zhou_rte_rows_carry_the_regret_and_precision_of_their_answers():
    grid = zhou.build_rte_grid(1, ks=(10,), budgets=(10,))
    grid = Grid({"SAR": grid.algorithms["SAR"], "Uniform": grid.algorithms["Uniform"]}, grid.instances, seeds=2,
                metrics=grid.metrics)
    frame = run_grid(grid, progress=False)
    means = zhou.load_rte().accuracies
    for _, row in frame.iterrows():
        answer = [int(i) for i in str(row["answer"]).split("-")]
        assert row["regret"] == pytest.approx(aggregate_regret(means, answer))
        assert row["precision"] == pytest.approx(precision(means, answer))
        assert row["pulls"] <= 10 * 164


def test_zhou_suites_are_registered_with_the_paper_s_algorithms():
    for name in ("zhou-fig1", "zhou-rte", "feedback-cost"):
        assert get_suite(name).name == name
    labels = set(zhou.build_fig1_grid(1).algorithms)
    assert labels == {"OptMAI beta=0.8", "OptMAI beta=0.9", "SAR", "LUCB", "Uniform"}
    instance = zhou.simulated_instance(np.random.default_rng(0), K=10, means="0.6/0.5", n=50)
    assert sorted(instance.environment.means)[-10:] == [0.6] * 10 and instance.environment.feedback == "semi"


def test_chen_grid_and_failure_metric():
    from fullbandit.experiments import chen
    grid = chen.build_grid(1, ks=(10,), n=60)
    budgets = {label: {dict(c.algorithm_params)["budget_per_arm"] for c in grid.cells() if c.algorithm == label}
               for label in grid.algorithms}
    assert budgets == {"AdaptiveTopK": set(chen.BUDGETS), "OptMAI": set(chen.BUDGETS),
                       "CLUCB-PAC": set(chen.ROUND_BY_ROUND_BUDGETS)}
    problem = TopK(60, 10)
    built = {label: factory.make(problem, 0, budget_per_arm=30).get_params()
             for label, factory in grid.algorithms.items()}
    assert {label: params["budget"] for label, params in built.items()} == dict.fromkeys(grid.algorithms, 1800)
    assert built["CLUCB-PAC"]["epsilon"] == pytest.approx(chen.EPSILON * 10)  # the regret tolerance, on the sum
    assert built["CLUCB-PAC"]["delta"] == built["AdaptiveTopK"]["delta"] == chen.DELTA
    assert built["OptMAI"]["reuse_samples"] and built["OptMAI"]["adjusted_budget"]
    small = Grid({"OptMAI": grid.algorithms["OptMAI"]}, {"TWOGROUP": grid.instances["TWOGROUP"]}, seeds=2,
                 metrics=grid.metrics)
    frame = run_grid(small, progress=False)
    for _, row in frame.iterrows():
        assert bool(row["failure"]) == (row["regret"] > chen.EPSILON)
        assert row["pulls"] <= dict(row)["budget_per_arm"] * 60
