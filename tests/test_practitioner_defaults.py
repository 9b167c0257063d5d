"""Defaults a practitioner can act on: an epsilon derived from the data (the same in solve and plan), members
resting on few gold answers flagged, the graded route said out loud, and one readable layout per problem kind."""

from __future__ import annotations

import json
import os
import threading
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from fullbandit.analysis import planning
from fullbandit.analysis.metrics import misclassified
from fullbandit.analysis.tolerance import default_epsilon, tolerance
from fullbandit.cli.main import main
from fullbandit.datasets import DATASETS, load_dataset


def labelled(out: str) -> dict[str, str]:
    """The output's lines by their label (the first 13 characters)."""
    return {line[:13].strip(): line[14:] for line in out.splitlines() if line[:13].strip()}


def write_long(tmp_path, workers: dict[str, tuple[int, int]]) -> tuple[str, str]:
    """Answers and gold files: worker -> (gold tasks answered, of which right); tasks t0, t1, ... in order."""
    tasks = max(answered for answered, _ in workers.values())
    rows = [(f"t{t}", worker, "yes" if t < right else "no")
            for worker, (answered, right) in workers.items() for t in range(answered)]
    pd.DataFrame(rows, columns=["task", "worker", "label"]).to_csv(tmp_path / "answers.csv", index=False)
    pd.DataFrame({"task": [f"t{t}" for t in range(tasks)], "true_label": "yes"}).to_csv(tmp_path / "gold.csv",
                                                                                        index=False)
    return str(tmp_path / "answers.csv"), str(tmp_path / "gold.csv")


# A campaign's files: 8 workers graded on 40 gold tasks, and two (the most accurate) on 3 only.
WORKERS = {"ann": (40, 34), "bo": (40, 33), "cy": (40, 30), "di": (40, 25), "ed": (40, 22), "fay": (40, 20),
           "gus": (40, 18), "hal": (40, 12), "new1": (3, 3), "new2": (3, 3)}


# --- epsilon -----------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("source", [["--dataset", "medicine"], "files"])
def test_solve_and_plan_derive_and_print_the_same_default_epsilon(source, tmp_path, capsys):
    if source == "files":
        answers, gold = write_long(tmp_path, WORKERS)
        source = ["--data", answers, "--gold", gold]
    assert main(["solve", *source, "--k", "3", "--no-progress", "--seed", "2"]) == 0
    solved = capsys.readouterr().out
    assert main(["plan", *source, "--k", "3", "--runs", "1", "--algorithms", "phased", "--no-progress", "--seed",
                 "2"]) == 0
    planned = capsys.readouterr().out
    [solve_lines] = [solved[solved.index("epsilon  "):].splitlines()[:2]]
    assert solve_lines == planned[planned.index("epsilon  "):].splitlines()[:2]
    # ... and it is a fifth of the gap from a random team to the best, on the accuracies the run is judged on.
    if source[0] == "--dataset":
        accuracies = load_dataset("medicine").accuracies
    else:  # the 8 workers with at least 20 gold answers (the default --min-answers)
        accuracies = np.array([right / answered for answered, right in WORKERS.values() if answered >= 20])
    expected = 0.2 * (np.sort(accuracies)[-3:].sum() - 3 * accuracies.mean())
    assert solve_lines[0].startswith(f"epsilon       {expected:.3g}: ")
    assert "default: a fifth of the gap" in solve_lines[1]


@pytest.mark.parametrize("name", DATASETS)
def test_the_default_epsilon_excludes_nearly_every_random_team_on_the_embedded_data(name):
    # 10,000 random teams per case; a tolerance of the whole gap (the negative control) accepts a large share.
    accuracies = load_dataset(name).accuracies
    for k in (5, 10):
        default = tolerance(accuracies, k, seed=0)
        assert default.within <= 0.005, (name, k, default.within)
        whole_gap = tolerance(accuracies, k, default.best - default.random_mean, source="--epsilon", seed=0)
        assert whole_gap.within > 0.3, (name, k, whole_gap.within)


def test_on_workers_of_nearly_equal_accuracy_a_fixed_epsilon_says_nothing_and_the_default_does():
    # The data set: at 0.5 on the team sum, 99% of random teams of 5 were "epsilon-optimal".
    accuracies = np.random.default_rng(4).uniform(0.66, 0.74, size=40)
    assert tolerance(accuracies, 5, 0.5, source="--epsilon", seed=1).within > 0.95
    assert tolerance(accuracies, 5, seed=1).within < 0.05  # the floor binds here (gap 0.15, a fifth 0.03 < 0.05)
    assert default_epsilon([0.7] * 8, 5) == pytest.approx(0.05)  # no spread at all: the floor, 0.01 per member


def test_a_thresholding_algorithm_keeps_its_own_epsilon(capsys):
    # APT's epsilon is a precision per arm: the team tolerance (0.41 on IT) would make it sample almost uniformly.
    assert main(["solve", "--algorithm", "apt", "--no-progress", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["inputs"]["parameters"] == {}


# --- gold answers ------------------------------------------------------------------------------------------------
def test_workers_with_few_gold_answers_are_left_out_by_default_and_flagged_when_let_in(tmp_path, capsys):
    answers, gold = write_long(tmp_path, WORKERS)
    assert main(["solve", "--data", answers, "--gold", gold, "--k", "3", "--no-progress"]) == 0
    captured = capsys.readouterr()
    assert "warning: 2 workers with fewer than --min-answers 20 gold answers dropped" in captured.err
    lines = labelled(captured.out)
    assert lines["team"] == "ann, bo, cy" and "caution" not in lines
    assert lines["gold answers"].startswith("the team's members rest on 40-40 gold answers each; the least known")
    assert main(["solve", "--data", answers, "--gold", gold, "--k", "3", "--min-answers", "1", "--no-progress"]) == 0
    lines = labelled(capsys.readouterr().out)
    assert set(lines["team"].split(", ")) >= {"new1", "new2"}  # perfect on 3 answers: the "best" workers
    assert lines["caution"].startswith("2 team member(s) rest on fewer than 20 gold answers: new1 (3), new2 (3).")
    # The least known member's 95% Wilson interval for 3 of 3: [0.44, 1.0].
    assert "has accuracy 1.00 (95% interval 0.44-1.00)" in lines["gold answers"]


def test_with_gold_the_graded_ranking_and_the_per_arm_route_are_printed(tmp_path, capsys):
    answers, gold = write_long(tmp_path, WORKERS)
    assert main(["solve", "--data", answers, "--gold", gold, "--k", "3", "--no-progress", "--json"]) == 0
    pulls = json.loads(capsys.readouterr().out)["pulls"]
    assert main(["solve", "--data", answers, "--gold", gold, "--k", "3", "--no-progress"]) == 0
    lines = labelled(capsys.readouterr().out)
    assert lines["graded"].startswith("the data's 320 graded answers already rank the workers")  # 8 x 40
    assert lines["graded"].endswith(f"{3 * pulls / 320:,.0f}x fewer answers than this run's {3 * pulls:,}")
    assert "--algorithm clucb-pac" in lines["per-arm"]
    assert main(["solve", "--data", answers, "--gold", gold, "--k", "3", "--algorithm", "lucb", "--no-progress"]) == 0
    assert "graded" not in labelled(capsys.readouterr().out)  # a per-arm run is the graded route already


def test_a_missing_column_names_the_option_that_maps_it(tmp_path, capsys):
    (tmp_path / "a.csv").write_text("item,annotator,vote\nq1,w1,yes\n")
    assert main(["solve", "--data", str(tmp_path / "a.csv"), "--no-progress"]) == 2
    assert "name them with --columns, e.g. --columns task=item" in capsys.readouterr().err


# --- one layout per problem kind ---------------------------------------------------------------------------------
def test_a_thresholding_run_prints_its_classification_and_no_team(capsys):
    assert main(["solve", "--algorithm", "apt", "--no-progress", "--seed", "1", "--json"]) == 0
    answer = json.loads(capsys.readouterr().out)["answer"]
    assert main(["solve", "--algorithm", "apt", "--no-progress", "--seed", "1"]) == 0
    lines = labelled(capsys.readouterr().out)
    data = load_dataset("it")
    assert not {"team", "best team", "epsilon"} & set(lines)
    assert lines["at or above"] == (f"{', '.join(data.worker_ids[i] for i in answer)} ({len(answer)} of 36 workers "
                                    "at or above 0.5)")
    wrong = misclassified(data.accuracies, answer, 0.5)
    above = int((data.accuracies >= 0.5).sum())
    assert lines["truly above"].startswith(f"{above} workers; misclassified {wrong} of 36")
    assert lines["stop reason"] == "budget spent (a fixed-budget answer: no confidence claim)"


def test_a_fixed_budget_team_search_claims_no_gap_bound(capsys):
    assert main(["solve", "--algorithm", "sar", "--no-progress"]) == 0
    out = capsys.readouterr().out
    assert "gap bound" not in out and "fixed budget: no confidence claim" in labelled(out)["algorithm"]
    assert labelled(out)["cost"].endswith("single graded answers")


def test_a_plan_shows_its_progress_named_by_algorithm(capsys):
    planning.plan([0.9, 0.8, 0.5, 0.4], 1, epsilon=0.2, runs=2, algorithms=("phased",), progress=True)
    err = capsys.readouterr().err
    # The bar is named as the algorithm starts (a refresh of its own); later counts are throttled by tqdm's clock.
    assert "phased:   0%" in err and "0/2" in err


def test_solve_reads_its_gold_from_a_pipe(tmp_path, capsys):
    # `--gold <(...)`: bash passes /dev/fd/63, a pipe, which must be read, not refused as "file not found".
    answers, gold = write_long(tmp_path, WORKERS)
    pipe = tmp_path / "gold.pipe"
    os.mkfifo(pipe)
    text = Path(gold).read_text()
    writer = threading.Thread(target=lambda: pipe.write_text(text))
    writer.start()  # blocks until solve opens the pipe for reading
    try:
        assert main(["solve", "--data", answers, "--gold", str(pipe), "--k", "3", "--no-progress"]) == 0
    finally:
        writer.join()
    assert labelled(capsys.readouterr().out)["team"] == "ann, bo, cy"


def test_the_help_of_replay_says_what_each_source_replays(capsys):
    with pytest.raises(SystemExit):
        main(["solve", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert "--data: each member one of its own graded answers, drawn independently of the others" in text
