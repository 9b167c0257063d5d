"""The shahrampour-fig2 and fig3 suites: batches, misidentification counts, setup 5's draw, figures."""

from __future__ import annotations

import numpy as np
import pytest

import fullbandit as fb
from fullbandit.datasets.shared_data import data_folder
from fullbandit.datasets.synthetic import nsar_setup1, nsar_setup5, nsar_setup6
from fullbandit.datasets.votes import CAPTION559_RAW
from fullbandit.experiments import run_grid, shahrampour
from fullbandit.experiments.batched import simulate_batch
from fullbandit.experiments.store import expand_metrics
from fullbandit.experiments.suites import get_suite

SMALL = ("NSAR p=0.7", "SAR", "AT-LUCB", "Uniform")
SHARED = data_folder() / CAPTION559_RAW


@pytest.fixture(scope="module")
def small_run():
    grid = shahrampour.build_fig2_grid(30, setups=(1, 6), ms=(2,), algorithms=SMALL, batch=12)
    return grid, expand_metrics(run_grid(grid, progress=False))


@pytest.mark.slow
def test_runs_are_split_into_batches_and_add_up_per_point(small_run):
    grid, frame = small_run
    assert len(frame) == len(SMALL) * 2 * 3  # algorithms x setups x batches of 10
    assert (frame.groupby(["algorithm", "setup"])["runs"].sum() == 30).all()
    table = shahrampour.summarize(frame)
    assert (table["runs"] == 30).all()
    budgets = set(table.index.get_level_values("T"))
    assert budgets == {nsar_setup1(2).params["budget"], nsar_setup6(2).params["budget"]}
    low, high = table["low"], table["high"]
    assert ((low <= table["misidentification"]) & (table["misidentification"] <= high)).all()


@pytest.mark.slow
def test_a_cell_counts_the_runs_whose_answer_is_not_the_top_m(small_run):
    """Recount one cell from its own seed, run by run, with the decision class's notion of the best team."""
    grid, frame = small_run
    cell = next(c for c in grid.cells() if c.algorithm == "AT-LUCB" and dict(c.instance_params)["setup"] == 6)
    instance = grid.instances[cell.instance].make(np.random.default_rng(cell.instance_seed()),
                                                  **dict(cell.instance_params))
    contender = grid.algorithms[cell.algorithm].make(instance.problem, cell.algorithm_seed())
    budget = instance.description["budgets"][0]
    answers = simulate_batch(contender, instance.problem, instance.environment, runs=instance.description["runs"],
                             budgets=(budget,), rng=np.random.default_rng(contender.seed))[budget]
    bests = [instance.problem.best(means) for means in instance.environment.means]  # every run's own order
    expected = sum(tuple(np.flatnonzero(row)) != best for row, best in zip(answers, bests, strict=True))
    row = frame[frame["key"] == cell.key].iloc[0]
    assert row[f"errors_T{budget}"] == expected
    assert 0 < expected < len(answers)  # setup 6 at its budget: some runs fail, some succeed


@pytest.mark.slow
def test_uniform_is_worst_on_the_easy_setup(small_run):
    """The paper's one ordering that holds in every setup, visible even at 30 runs on setup 1."""
    _, frame = small_run
    table = shahrampour.summarize(frame).reset_index()
    setup1 = table[table["setup"] == 1].set_index("algorithm")["misidentification"]
    assert setup1["Uniform"] > max(setup1["SAR"], setup1["NSAR p=0.7"])


def test_setup5_takes_the_first_draw_with_a_moderate_budget():
    seed = shahrampour.setup5_seed()
    for m in (2, 4):
        assert nsar_setup5(m, seed=seed).params["budget"] <= shahrampour.SETUP5_BUDGET_LIMIT
    assert all(max(nsar_setup5(m, seed=earlier).params["budget"] for m in (2, 4)) > shahrampour.SETUP5_BUDGET_LIMIT
               for earlier in range(seed))
    instance = shahrampour.setup_instance(np.random.default_rng(0), setup=5, M=4, split=0, sizes=(7,))
    drawn = nsar_setup5(4, seed=seed).means
    assert all(np.array_equal(np.sort(means), np.sort(drawn)) for means in instance.environment.means)


@pytest.mark.slow
def test_suites_are_registered_with_the_papers_run_counts(tmp_path, small_run):
    assert get_suite("shahrampour-fig2").default_runs == 4000
    assert get_suite("shahrampour-fig3").default_runs == 1000
    grid = shahrampour.build_fig2_grid(8)
    assert set(grid.algorithms) == set(shahrampour.ALGORITHMS) and len(grid.algorithms) == 8
    _, frame = small_run
    path = tmp_path / "fig2.png"
    get_suite("shahrampour-fig2").draw(frame, path)
    assert path.stat().st_size > 10_000


@pytest.mark.skipif(not SHARED.exists(), reason="the caption contest data are not shipped; they live in "
                                                "caption559/ of FULLBANDIT_DATA, else of ../shared/data beside "
                                                "the repository")
def test_fig3_runs_on_the_caption_data(tmp_path):
    grid = shahrampour.build_fig3_grid(6, budgets=(400, 800), algorithms=("SAR", "AT-LUCB"), batch=3)
    frame = expand_metrics(run_grid(grid, progress=False))
    assert (frame["n"] == 138).all() and (frame["k"] == 2).all()
    table = shahrampour.summarize(frame)
    assert set(table.index.get_level_values("T")) == {400, 800} and (table["runs"] == 6).all()
    path = tmp_path / "fig3.png"
    get_suite("shahrampour-fig3").draw(frame, path)
    assert path.stat().st_size > 10_000
    made = grid.instances["caption559"].make(np.random.default_rng(0), split=0, sizes=(1,), budgets=(10,))
    assert isinstance(made.problem, fb.TopK)


@pytest.fixture(scope="module")
def every_algorithm_run():
    grid = shahrampour.build_fig2_grid(40, setups=(1, 6), ms=(2,), batch=40)
    return expand_metrics(run_grid(grid, progress=False))


@pytest.mark.slow
def test_fig2_claims_read_the_runs_and_can_fail(small_run, every_algorithm_run):
    assert shahrampour.fig2_claims(small_run[1]).empty  # not every algorithm of the figure: nothing to check
    frame = every_algorithm_run
    claims = shahrampour.fig2_claims(frame)
    assert set(claims["where"].str.slice(0, 7)) == {"setup 1", "setup 6"}
    uniform = claims[claims["paper's claim"] == "Uniform is the worst"]
    assert len(uniform) == 2
    # Setup 1 at 40 runs: Uniform errs about 0.72 of the time, the next worst 0.33 (5 standard errors apart).
    assert uniform.loc[uniform["where"].str.startswith("setup 1"), "holds"].tolist() == ["yes"]
    # Negative control: a Uniform that never errs is not the worst.
    perfect = frame.copy()
    perfect.loc[perfect["algorithm"] == "Uniform", [c for c in frame.columns if c.startswith("errors_T")]] = 0
    flipped = shahrampour.fig2_claims(perfect)
    assert (flipped.loc[flipped["paper's claim"] == "Uniform is the worst", "holds"] == "no").all()
    assert {"p < 1 beats SAR", "AT-LUCB beats NSAR with p < 1"} <= set(claims["paper's claim"])
