"""The tao-fig1 suite (Tao et al. 2019, Figure 1): cells, batches, sums of misclassified arms, figure."""

from __future__ import annotations

import math

import numpy as np
import pytest

from fullbandit import Thresholding
from fullbandit.analysis.metrics import misclassified
from fullbandit.datasets.synthetic import tao_setup1, tao_setup3
from fullbandit.experiments import run_grid, tao
from fullbandit.experiments.suites import get_suite
from fullbandit.semi import APT, LSA, UCBE, OptKG, ThresholdUniform, threshold_hardness
from fullbandit.semi.batch import BernoulliBatch
from fullbandit.semi.sequential import simulate

SMALL_BUDGETS = {1: (20, 45), 3: (30,)}
SMALL_ALGORITHMS = ("LSA", "UCBE(0)", "Opt-KG(1,1)", "Uniform")


@pytest.fixture(scope="module")
def small_run():
    grid = tao.build_grid(5, budgets=SMALL_BUDGETS, algorithms=SMALL_ALGORITHMS, batch=3)
    return grid, run_grid(grid, progress=False)


def test_runs_mean_independent_runs_per_point(small_run):
    grid, frame = small_run
    assert tao.batch_sizes(5, 3) == [3, 2]
    assert len(frame) == len(SMALL_ALGORITHMS) * len(SMALL_BUDGETS) * 2
    per_point = frame.groupby(["algorithm", "setup"])["runs"].sum()
    assert (per_point == 5).all()
    table = tao.summarize(frame)
    assert set(table.index.get_level_values("T")) == {20, 45, 30} and (table["runs"] == 5).all()
    assert sum(tao.batch_sizes(tao.PAPER_RUNS)) == tao.PAPER_RUNS


def test_a_cell_is_a_simulation_with_the_cell_seed_and_misclassified_counts():
    # 200 runs, so that a wrong hardness, a UCBE read off one pass or a wrong count shows in the sums.
    grid = tao.build_grid(200, budgets={1: (20, 45)}, algorithms=("LSA", "UCBE(4)"), batch=200)
    frame = run_grid(grid, progress=False)
    means, problem = tao_setup1().means, Thresholding(10, 0.5)
    for cell in grid.cells():
        rng = np.random.default_rng(cell.algorithm_seed())
        if cell.algorithm == "LSA":  # anytime: one pass, read at both budgets
            answers = simulate(LSA(problem, alpha=1.35, budget=45), BernoulliBatch(means), runs=200,
                               checkpoints=(20, 45), seed=rng).answers
        else:  # UCBE: one pass per budget, in order, with the true hardness
            hardness = threshold_hardness(means, 0.5)
            answers = {budget: simulate(UCBE(problem, b=4.0, hardness=hardness, budget=budget), BernoulliBatch(means),
                                        runs=200, seed=rng).answers[budget] for budget in (20, 45)}
        row = frame[frame["algorithm"] == cell.algorithm].iloc[0]
        for budget in (20, 45):
            wrong = [misclassified(means, np.flatnonzero(answer), 0.5) for answer in answers[budget]]
            assert row[f"sum_T{budget}"] == sum(wrong) > 0
            assert row[f"squares_T{budget}"] == sum(w * w for w in wrong)


def test_summary_is_the_log_of_the_mean_per_arm(small_run):
    _, frame = small_run
    table = tao.summarize(frame)
    rows = frame[(frame["algorithm"] == "Uniform") & (frame["setup"] == 3)]
    regret = rows["sum_T30"].sum() / 5
    entry = table.loc[(3, "Uniform", 30)]
    assert entry["regret"] == pytest.approx(regret)
    assert entry["log_regret_per_arm"] == (math.log(regret / 10) if regret > 0 else -math.inf)


@pytest.mark.parametrize("cls", [LSA, APT, OptKG, ThresholdUniform])
def test_anytime_policies_give_the_shorter_run_at_a_checkpoint(cls):
    # What lets the suite read every T off one pass: the run to 60 passes through the run to 25.
    means, problem = tao_setup3().means, Thresholding(10, 0.5)
    assert cls.anytime and not UCBE.anytime
    long = simulate(cls(problem, budget=60), BernoulliBatch(means), runs=40, checkpoints=(25, 60), seed=9)
    short = simulate(cls(problem, budget=25), BernoulliBatch(means), runs=40, seed=9)
    np.testing.assert_array_equal(long.answers[25], short.answers[25])


def test_figure_and_registration(small_run, tmp_path):
    _, frame = small_run
    path = tmp_path / "tao.png"
    get_suite("tao-fig1").draw(frame, path)
    assert path.stat().st_size > 10_000
    suite = get_suite("tao-fig1")
    grid = suite.build(1)
    assert set(grid.algorithms) == set(tao.ALGORITHMS) and len(tao.ALGORITHMS) == 11
    assert {max(budgets) for budgets in tao.BUDGETS.values()} == {1000, 40000, 100000}
    assert {dict(c.instance_params)["setup"] for c in grid.cells()} == {1, 2, 3}


def test_claims_count_the_budgets_where_lsa_is_lowest_and_can_fail(small_run):
    _, frame = small_run
    claims = tao.claims(frame)
    assert list(claims["where"]) == ["setup 1", "setup 3"]
    # Negative control: make LSA misclassify every arm in every run; it is then never the lowest.
    worst = frame.copy()
    lsa = worst["algorithm"] == "LSA"
    for column in (c for c in frame.columns if c.startswith("sum_T")):
        rows = lsa & worst[column].notna()  # the budgets of each setup only
        worst.loc[rows, column] = worst.loc[rows, "runs"] * worst.loc[rows, "n"]
        worst.loc[rows, column.replace("sum_", "squares_")] = worst.loc[rows, "runs"] * worst.loc[rows, "n"] ** 2
    flipped = tao.claims(worst)
    assert (flipped["holds"] == "no").all() and flipped["ours"].str.startswith("LSA lowest at 0 of").all()
