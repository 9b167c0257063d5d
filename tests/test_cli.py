"""The `fullbandit solve` command: its output is checked against the data, not against itself."""

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from fullbandit.cli.main import main
from fullbandit.datasets import load_dataset


def test_solve_finds_an_epsilon_optimal_team_on_the_default_data_set(capsys):
    assert main(["solve", "--no-progress", "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    data = load_dataset("it")
    accuracies = data.accuracies
    team_value = accuracies[result["answer"]].sum()
    best_value = np.sort(accuracies)[-10:].sum()
    assert len(set(result["answer"])) == 10
    assert result["stop_reason"] == "stopping rule"
    # The default epsilon, a fifth of the gap from a random team to the best (about 0.41 on IT), recomputed.
    epsilon = 0.2 * (best_value - 10 * accuracies.mean())
    assert result["epsilon"] == pytest.approx(epsilon) and best_value - team_value <= epsilon + 1e-12
    assert result["gap"] == pytest.approx(best_value - team_value)
    assert result["labels"] == [data.worker_ids[i] for i in result["answer"]]
    assert result["constants"]["noise_scale"] == pytest.approx(np.sqrt(10) / 2)  # Bernoulli team of 10


def test_solve_prints_the_team_by_name_its_cost_stop_and_the_truth(capsys):
    assert main(["solve", "--dataset", "pokemon", "--k", "5", "--epsilon", "1.0", "--seed", "3", "--no-progress"]) == 0
    out = capsys.readouterr().out
    assert main(["solve", "--dataset", "pokemon", "--k", "5", "--epsilon", "1.0", "--seed", "3", "--no-progress",
                 "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    lines = {line[:13].strip(): line[14:] for line in out.splitlines() if line[:13].strip()}
    data = load_dataset("pokemon")
    assert lines["team"] == ", ".join(data.worker_ids[i] for i in result["answer"])  # names, not indices
    assert lines["best team"].removesuffix(" (the simulation's truth)") == \
        ", ".join(data.worker_ids[i] for i in data.best_team(5))
    assert lines["cost"].startswith(f"{result['pulls']:,} team trials ({5 * result['pulls']:,} answers")
    assert lines["stop reason"].startswith("stopping rule, certified (gap bound")
    assert lines["epsilon"].startswith("1: ") and "set by --epsilon" in out
    best = np.sort(data.accuracies)[-5:].sum()
    assert lines["team accuracy"].startswith(f"{data.accuracies[result['answer']].sum():.4f} (best {best:.4f})")
    assert "constants" not in lines and "(indices)" not in out  # internals only with --verbose
    assert main(["solve", "--dataset", "pokemon", "--k", "5", "--epsilon", "1.0", "--seed", "3", "--no-progress",
                 "--verbose"]) == 0
    assert "\nconstants     " in capsys.readouterr().out


@pytest.mark.slow
def test_same_seed_same_output(capsys):
    outputs = []
    for _ in range(2):
        main(["solve", "--dataset", "medicine", "--k", "3", "--epsilon", "1.0", "--seed", "4",
              "--no-progress", "--json"])
        result = json.loads(capsys.readouterr().out)
        result.pop("wall_time")
        outputs.append(result)
    assert outputs[0] == outputs[1]


@pytest.mark.parametrize("argv, message", [
    (["--k", "0"], "k=0 must satisfy 1 <= k < n=36"),
    (["--k", "36"], "k=36 must satisfy 1 <= k < n=36"),
    (["--delta", "-0.5"], "--delta=-0.5 must be a float in (0, 1) for --algorithm phased"),
    (["--delta", "nan"], "--delta=nan must be a float in (0, 1)"),
    (["--delta", "half"], "--delta=half must be a float in (0, 1)"),
    (["--epsilon", "-1"], "--epsilon=-1 must be a finite float >= 0"),
    (["--epsilon", "inf"], "--epsilon=inf must be a finite float >= 0"),
    (["--epsilon", "nan"], "--epsilon=nan must be a finite float >= 0"),
    (["--noise-scale", "0", "--algorithm", "icb"], "--noise-scale=0 must be none or a finite float > 0 for "
                                                   "--algorithm icb"),
    (["--noise-scale", "inf", "--algorithm", "icb"], "--noise-scale=inf must be none or a finite float > 0"),
    (["--budget", "2.5"], "--budget=2.5 must be an int >= 1"),
    (["--confidence", "paper"],
     "--confidence=paper must be one of auto, stitched, tight, time-uniform for --algorithm phased"),
    (["--stop-on-rule", "maybe", "--algorithm", "icb"], "--stop-on-rule=maybe must be true or false"),
    (["--param-reward-range", "1,0", "--algorithm", "icb"],  # --reward-range LOW HIGH is the session's declaration
     "--param-reward-range=1,0 must be none or LOW,HIGH with LOW < HIGH"),
    (["--p", "0.5"], "--p does not apply to --algorithm phased; its options are --epsilon, --delta, --noise-scale, "
                     "--confidence, --restart-ratio, --budget, --check-growth"),
    (["--mode", "certified", "--algorithm", "safoa-heuristic"], "--mode is fixed to heuristic by --algorithm "
                                                                "safoa-heuristic; choose --algorithm safoa"),
    (["--seed", "-2"], "seed=-2 must satisfy"),
])
def test_bad_values_exit_with_a_clear_message(argv, message, capsys):
    assert main(["solve", "--no-progress", *argv]) == 2
    assert message in capsys.readouterr().err


def test_unknown_data_set_is_refused_with_the_allowed_names(capsys):
    with pytest.raises(SystemExit) as raised:
        main(["solve", "--dataset", "physics"])
    assert raised.value.code == 2
    err = capsys.readouterr().err
    assert "--dataset" in err and "physics" in err and "science" in err


@pytest.mark.slow
def test_console_entry_point_runs_as_a_module():
    completed = subprocess.run([sys.executable, "-m", "fullbandit", "solve", "--k", "2", "--epsilon", "1.0",
                                "--no-progress"], capture_output=True, text=True, timeout=120)
    assert completed.returncode == 0, completed.stderr
    assert "stopping rule" in completed.stdout


def _tiny_suite():
    from functools import partial

    from experiment_factories import saqm, two_level_instance

    from fullbandit.experiments import Factory, Grid
    from fullbandit.experiments.saqm_support import support_plot
    from fullbandit.experiments.suites import Suite

    def build(runs):
        return Grid({"saqm": Factory(saqm)}, {"two-level": Factory(partial(two_level_instance, separation=0.4),
                                                                  {"n": [4, 5]})}, seeds=runs)
    return Suite("tiny", "a fast suite for tests", build, support_plot, default_runs=2)


def test_bench_lists_suites(capsys):
    assert main(["bench", "--list"]) == 0
    assert "saqm-support" in capsys.readouterr().out


@pytest.mark.slow
def test_bench_writes_csv_and_png_and_resumes(tmp_path, monkeypatch, capsys):
    from fullbandit.experiments import suites
    monkeypatch.setitem(suites.SUITES, "tiny", _tiny_suite())
    assert main(["bench", "tiny", "--runs", "3", "--out", str(tmp_path), "--no-progress"]) == 0
    import pandas as pd
    frame = pd.read_csv(tmp_path / "tiny.csv")
    assert len(frame) == 2 * 3 and frame["key"].is_unique
    assert (tmp_path / "tiny.png").stat().st_size > 1000
    assert main(["bench", "tiny", "--runs", "3", "--out", str(tmp_path), "--no-progress", "--jobs", "2"]) == 0
    assert len(pd.read_csv(tmp_path / "tiny.csv")) == 6  # everything was finished: nothing rerun


def test_bench_unknown_suite_is_refused(capsys):
    assert main(["bench", "nope", "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert "suite='nope' is not one of the allowed values" in err and "'saqm-support'" in err and "'dks'" in err


def test_dks_command_certifies_oracles_against_the_exact_optimum(capsys, tmp_path):
    import networkx as nx
    G = nx.Graph(list(nx.karate_club_graph().edges))  # unweighted, as written to the file
    path = tmp_path / "karate.txt"
    path.write_text("".join(f"{u} {v} 1\n" for u, v in G.edges))
    assert main(["dks", str(path), "--k", "6", "--exact"]) == 0
    out = capsys.readouterr().out
    from fullbandit.dks import exact
    optimum = exact(G, 6).weight
    assert f"exact         weight {optimum:.6g}, upper bound {optimum:.6g}" in out
    rows = [line.split() for line in out.splitlines() if line.split() and line.split()[0] in ("peeling", "fpk")]
    assert len(rows) == 2
    for _, weight, ratio, _ in rows:
        assert float(ratio) == pytest.approx(float(weight) / optimum, abs=1e-4)


def test_dks_command_refuses_unknown_graphs_and_bad_k(capsys):
    assert main(["dks", "nope", "--k", "3"]) == 2
    assert "graph='nope' is neither an existing file nor a generator" in capsys.readouterr().err
    assert main(["dks", "karate", "--k", "40"]) == 2
    assert "k=40 must satisfy 1 <= k <= 34" in capsys.readouterr().err


def test_solve_runs_per_arm_algorithms_with_semi_feedback(capsys):
    # A per-arm algorithm sees each worker's answer: its budget counts single-arm samples, and
    # with 600 samples per worker SAR finds the best 5 of the 55 Pokemon workers.
    assert main(["solve", "--dataset", "pokemon", "--k", "5", "--algorithm", "sar", "--budget", "33000",
                 "--no-progress", "--json"]) == 0
    output = json.loads(capsys.readouterr().out)
    assert output["pulls"] == 33000 and output["guarantee"] == "fixed-budget"
    assert output["stop_reason"] == "budget exhausted" and output["gap"] < 0.05
    assert main(["solve", "--algorithm", "sar", "--epsilon", "0.1", "--no-progress"]) == 2
    assert "--epsilon does not apply to --algorithm sar" in capsys.readouterr().err


def test_solve_gives_every_algorithm_the_tolerance_on_the_team_s_sum(capsys):
    # AdaptiveTopK's paper measures an aggregate regret (an average over the k members); the class
    # takes the sum like every other, so --epsilon reaches it unchanged and results compare alike.
    assert main(["solve", "--algorithm", "adaptive-topk", "--epsilon", "0.5", "--no-progress", "--json"]) == 0
    output = json.loads(capsys.readouterr().out)
    assert output["parameters"]["epsilon"] == pytest.approx(0.5) and output["epsilon"] == pytest.approx(0.5)
    assert output["constants"]["regret_epsilon"] == pytest.approx(0.05)
    assert output["gap_bound"] <= 0.5 and output["gap"] <= 0.5


@pytest.mark.slow
@pytest.mark.parametrize("algorithm", ["lsa", "apt", "opt-kg"])
def test_solve_classifies_workers_against_a_threshold(algorithm, capsys):
    """A thresholding algorithm answers "which workers are right at least 60% of the time", checked on the data."""
    argv = ["solve", "--algorithm", algorithm, "--threshold", "0.6", "--budget", "20000", "--no-progress", "--json"]
    # APT's own precision, one of Tao et al.'s values: with its default 0, the three workers exactly at 0.6 keep
    # an index of 0 and take the whole budget (Locatelli et al.'s rule needs epsilon > 0 for arms on the threshold).
    assert main(argv + (["--epsilon", "0.05"] if algorithm == "apt" else [])) == 0
    result = json.loads(capsys.readouterr().out)
    accuracies = load_dataset("it").accuracies
    truly_above = [int(i) for i in np.flatnonzero(accuracies >= 0.6)]
    assert result["best"] == truly_above and result["inputs"]["threshold"] == 0.6
    wrong = set(result["answer"]) ^ set(truly_above)
    # Workers exactly at 0.6 (15 of 25 answers) may go either way; any other mistake is a real error.
    assert all(abs(accuracies[i] - 0.6) < 0.05 for i in wrong), sorted(wrong)
    assert result["pulls"] == 20000 and result["guarantee"] == "fixed-budget"


def test_threshold_is_refused_for_a_top_k_algorithm(capsys):
    assert main(["solve", "--algorithm", "sar", "--threshold", "0.5"]) == 2
    err = capsys.readouterr().err
    assert "--threshold" in err and "lsa" in err and "sar" in err


def test_version_prints_the_name_and_version(capsys):
    from fullbandit.cli.exits import version

    with pytest.raises(SystemExit) as stop:
        main(["--version"])
    assert stop.value.code == 0
    assert capsys.readouterr().out == f"fullbandit {version()}\n"


@pytest.mark.parametrize("algorithm, budget, floor", [("sar", 5, 37), ("nsar", 36, 37), ("optmai", 10, 36),
                                                      ("uniform", 35, 36), ("adaptive-topk-budget", 35, 36)])
def test_a_fixed_budget_below_what_the_schedule_needs_is_refused(algorithm, budget, floor, capsys):
    # The embedded IT data has n=36 workers; uniform and adaptive-topk-budget sample each of them at least once.
    assert main(["solve", "--algorithm", algorithm, "--budget", str(budget), "--no-progress"]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err.count("\n") == 1
    assert captured.err.startswith("fullbandit: error: ")
    assert f"budget={budget} must be at least {floor}" in captured.err


@pytest.mark.parametrize("threshold", ["1.5", "-0.1", "nan"])
def test_a_threshold_outside_the_accuracies_range_is_refused(threshold, capsys):
    # Outside [0, 1] every worker is trivially below (or above) it: the "classification" says nothing.
    assert main(["solve", "--algorithm", "lsa", "--threshold", threshold, "--no-progress"]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err.count("\n") == 1
    assert captured.err.startswith("fullbandit: error: --threshold=")
    assert "the workers' accuracies lie in [0, 1]" in captured.err


def test_k_is_refused_for_a_thresholding_algorithm(capsys):
    assert main(["solve", "--algorithm", "lsa", "--threshold", "0.6", "--k", "3", "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("fullbandit: error: --k does not apply to --algorithm lsa")
    assert "classifies every worker" in err and err.count("\n") == 1


@pytest.mark.parametrize("value", ["-0.1", "inf"])
def test_a_bad_epsilon_per_member_is_refused_naming_it(value, capsys):
    # The algorithm's own check would name epsilon (k times this), which the user did not type.
    assert main(["solve", "--epsilon-per-member", value, "--no-progress"]) == 2
    assert capsys.readouterr().err.startswith(f"fullbandit: error: --epsilon-per-member={float(value)}")


@pytest.mark.slow
def test_a_reader_that_goes_away_ends_the_command_quietly(tmp_path):
    """``fullbandit solve | head``: no traceback when the pipe is closed before the output is written."""
    read, write = os.pipe()
    os.close(read)  # the reader is gone before the command writes anything
    done = subprocess.run([sys.executable, "-m", "fullbandit", "solve", "--no-progress"], stdout=write,
                          stderr=subprocess.PIPE, cwd=Path(__file__).resolve().parents[1], timeout=300)
    os.close(write)
    errors = done.stderr.decode()
    assert "Traceback" not in errors and "BrokenPipe" not in errors and "Exception ignored" not in errors, errors
    assert done.returncode == 1
