"""Batches of one-at-a-time runs (experiments/repeated.py), as chen-budget and zhou-fig1 use them."""

from __future__ import annotations

import numpy as np
import pytest

from fullbandit.core.loop import run
from fullbandit.experiments import chen, chen_budget, run_grid, zhou
from fullbandit.experiments.store import expand_metrics


def _instance_of(grid, cell):
    return grid.instances[cell.instance].make(np.random.default_rng(cell.instance_seed()),
                                              **dict(cell.instance_params))


@pytest.fixture(scope="module")
def budget_run():
    grid = chen_budget.build_grid(6, budgets=(10, 30), ks=(100,), datasets=("UNIFORM",), batch=3)
    return grid, expand_metrics(run_grid(grid, progress=False))


def test_a_row_holds_the_sums_of_its_batch_s_runs_recomputed_one_by_one(budget_run):
    grid, frame = budget_run
    cell = next(c for c in grid.cells() if c.algorithm == "AdaptiveTopK" and dict(c.algorithm_params)[
        "budget_per_arm"] == 10)
    batch = _instance_of(grid, cell).description
    contender = grid.algorithms[cell.algorithm].make(None, cell.algorithm_seed(), **dict(cell.algorithm_params))
    failures, regret = 0, 0.0
    for instance_seed, algorithm_seed in zip(batch["_seeds"], contender.seed.spawn(3), strict=True):
        one = chen.instance(np.random.default_rng(instance_seed), dataset="UNIFORM", K=100)
        name, options, _ = chen.ALGORITHMS["AdaptiveTopK"]
        result = run(chen.budgeted(one.problem, algorithm_seed, name=name, budget_per_arm=10, **options),
                     one.environment, progress=False)
        metric = chen.failure_metric(result, one)
        failures, regret = failures + metric["failure"], regret + metric["regret"]
    row = frame[frame["key"] == cell.key].iloc[0]
    assert row["runs"] == 3 and row["failure"] == failures and row["regret"] == pytest.approx(regret)
    assert 0 < regret  # at 10n on UNIFORM some team is wrong: the sums are not trivially zero


def test_every_algorithm_and_budget_meets_the_same_instances_and_batches_differ(budget_run):
    grid, _ = budget_run
    seeds = {}
    for cell in grid.cells():
        seeds.setdefault(dict(cell.instance_params)["split"], set()).add(_instance_of(grid, cell).description["_seeds"])
    assert all(len(found) == 1 for found in seeds.values())  # one set of instances per batch, whoever runs it
    assert len({next(iter(found)) for found in seeds.values()}) == len(seeds)  # a new set for every batch


def test_the_summary_counts_every_run_once(budget_run):
    _, frame = budget_run
    table = chen_budget.summarize(frame)
    assert (table["runs"] == 6).all()
    assert ((table["low"] <= table["failure_probability"]) & (table["failure_probability"] <= table["high"])).all()


def test_zhou_fig1_runs_lucb_on_the_first_instance_of_each_batch_and_its_bands_come_from_the_sums():
    grid = zhou.build_fig1_grid(4, ks=(10,), budgets=(20,), n=60, batch=2)
    frame = expand_metrics(run_grid(grid, progress=False))
    assert set(frame.loc[frame["algorithm"] == "LUCB", "runs"]) == {1}
    assert set(frame.loc[frame["algorithm"] != "LUCB", "runs"]) == {2}
    cell = next(c for c in grid.cells() if c.algorithm == "SAR" and dict(c.instance_params)["means"] == "uniform")
    regrets = []
    for split in (0, 1):
        same = next(c for c in grid.cells() if c.algorithm == "SAR" and dict(c.instance_params) == {
            **dict(cell.instance_params), "split": split})
        batch = _instance_of(grid, same).description
        contender = grid.algorithms["SAR"].make(None, same.algorithm_seed(), **dict(same.algorithm_params))
        for instance_seed, algorithm_seed in zip(batch["_seeds"], contender.seed.spawn(2), strict=True):
            one = zhou.simulated_instance(np.random.default_rng(instance_seed), K=10, means="uniform", n=60)
            algorithm = zhou.budgeted(one.problem, algorithm_seed, name="sar", budget_per_arm=20)
            regrets.append(zhou.regret_metrics(run(algorithm, one.environment, progress=False), one)["regret"])
    table = zhou.summarize_fig1(frame).loc[("SAR", "uniform", 20, 10)]
    assert table["runs"] == 4 and table["regret"] == pytest.approx(np.mean(regrets))
    assert table["se"] == pytest.approx(np.std(regrets, ddof=1) / 2.0)


def test_chen_budget_states_the_paper_s_winner_per_panel_and_needs_separate_intervals_to_call_one():
    ks = (100, 250, 500)
    assert chen_budget.expected_winner("UNIFORM", 100, ks) == "OptMAI"
    assert chen_budget.expected_winner("UNIFORM", 250, ks) is None
    assert chen_budget.expected_winner("UNIFORM", 500, ks) == chen_budget.expected_winner("TWOGROUP", 100, ks) \
        == "AdaptiveTopK"
    import pandas as pd
    rows = []
    for algorithm, failures in (("AdaptiveTopK", 10), ("OptMAI", 60), ("OptMAI (plain)", 14)):
        rows.append({"instance": "TWOGROUP", "K": 500, "budget_per_arm": 20, "algorithm": algorithm, "runs": 200,
                     "failure": failures, "regret": 0.0})
    verdicts = chen_budget.claims(pd.DataFrame(rows)).set_index("paper's claim")["holds"]
    assert verdicts["AdaptiveTopK is best, against OptMAI"] == "yes"  # 5% against 30%: the intervals part
    assert verdicts["AdaptiveTopK is best, against OptMAI (plain)"] == "no"  # 5% against 7%: they overlap
