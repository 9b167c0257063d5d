"""Figures: one colour per algorithm across suites, legends beside the data, a vector copy, redrawn without runs;
and figure code is presentation, which never makes committed results stale."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from fullbandit.cli.main import main as cli
from fullbandit.experiments.code_record import PRESENTATION, code_record, stale_modules
from fullbandit.experiments.plots import ALGORITHM_COLOURS, algorithm_key, colours_for, plot_metric
from fullbandit.experiments.store import read_results
from fullbandit.experiments.suites import SUITES, get_suite

RESULTS = Path(__file__).resolve().parents[1] / "benchmarks" / "results"
COMMITTED = sorted(path.stem for path in RESULTS.glob("*.csv") if path.stem in SUITES)


def test_every_algorithm_has_its_own_colour():
    assert len(set(ALGORITHM_COLOURS.values())) == len(ALGORITHM_COLOURS)


@pytest.mark.skipif(not COMMITTED, reason="no committed suite results (an installed copy has none)")
@pytest.mark.parametrize("name", COMMITTED)
def test_a_suite_s_algorithms_have_known_distinct_colours(name):
    labels = sorted(read_results(RESULTS / f"{name}.csv")["algorithm"].astype(str).unique())
    unknown = [label for label in labels if algorithm_key(label) not in ALGORITHM_COLOURS]
    assert not unknown, f"{name}: {unknown} have no colour of their own in plots.ALGORITHM_COLOURS"
    colours = colours_for(labels)
    assert len(set(colours.values())) == len(labels)


def test_the_same_algorithm_keeps_its_colour_whatever_else_is_drawn():
    assert colours_for(["SAR", "LUCB"])["SAR"] == colours_for(["Uniform", "SAR", "x"])["SAR"] \
        == colours_for(["sar (one batch per phase)".split(" (")[0]])["sar"]
    assert colours_for(["clucb-pac (semi)"]) == {"clucb-pac (semi)": ALGORITHM_COLOURS["clucb-pac"]}
    assert colours_for(label for label in ("SAR", "mine")) == colours_for(["SAR", "mine"])  # read once


def test_a_legend_sits_beside_the_panel_not_over_it():
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    frame = pd.DataFrame({"algorithm": ["SAR", "SAR", "LUCB", "LUCB"], "K": [1, 2, 1, 2], "regret": [1., 2., 3., 4.]})
    figure, ax = plt.subplots()
    plot_metric(frame, "K", "regret", ax=ax)
    figure.canvas.draw()
    legend, panel = ax.get_legend().get_window_extent(), ax.get_window_extent()
    assert legend.x0 >= panel.x1
    plt.close(figure)


def test_figure_code_is_presentation_and_an_older_record_naming_it_stays_current():
    suite = get_suite("shahrampour-fig2")
    record = code_record(suite)
    assert "fullbandit.experiments.shahrampour" in record["modules"]
    assert not [name for name in record["modules"] if name.startswith(PRESENTATION)]
    older = {**record, "modules": {**record["modules"], "fullbandit.experiments.plots": "0" * 64,
                                   "fullbandit.experiments.figures.shahrampour": "1" * 64,
                                   "fullbandit.util.png": "2" * 64}}
    assert stale_modules(older, suite) == []


@pytest.mark.skipif(not (RESULTS / "kuroki-table2.csv").exists(), reason="no committed results (installed copy)")
def test_redraw_draws_png_and_svg_from_the_runs_and_changes_nothing_else(tmp_path, capsys):
    for suffix in (".csv", ".code.json"):
        (tmp_path / f"kuroki-table2{suffix}").write_bytes((RESULTS / f"kuroki-table2{suffix}").read_bytes())
    before = {path.name: path.read_bytes() for path in tmp_path.iterdir()}
    assert cli(["bench", "kuroki-table2", "--redraw", "--out", str(tmp_path)]) == 0
    assert {path.name: path.read_bytes() for path in tmp_path.iterdir() if path.name in before} == before
    assert (tmp_path / "kuroki-table2.svg").read_text().lstrip().startswith("<?xml")
    from PIL import Image
    with Image.open(tmp_path / "kuroki-table2.png") as image:
        provenance = json.loads(image.text["fullbandit provenance"])
    assert provenance  # the runs' code, as with a figure drawn by a run
    assert "drew" in capsys.readouterr().out


@pytest.mark.parametrize(("options", "message"), [
    (["--fresh"], "--redraw draws the runs"), ([], "does not exist"), (["--attest"], "give one of them")])
def test_redraw_refuses_options_that_would_run_and_a_missing_file(tmp_path, capsys, options, message):
    assert cli(["bench", "kuroki-table2", "--redraw", *options, "--out", str(tmp_path)]) == 2
    assert message in capsys.readouterr().err
    assert list(tmp_path.iterdir()) == []


def test_a_plot_without_axes_keeps_the_backend_a_notebook_chose():
    # A notebook's inline backend must survive plot_metric(ax=None); "svg" stands in for it (any backend but Agg).
    import matplotlib
    import matplotlib.pyplot as plt

    chosen = matplotlib.get_backend()
    matplotlib.use("svg")
    try:
        frame = pd.DataFrame({"algorithm": ["icb", "icb"], "n": [4, 6], "pulls": [10.0, 20.0]})
        plt.close(plot_metric(frame, "n", "pulls").figure)
        assert matplotlib.get_backend() == "svg"
    finally:
        matplotlib.use(chosen)
