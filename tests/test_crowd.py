"""Loaders of a user's own crowd data, and the replay over sparse tables.

Every rule of :mod:`fullbandit.datasets.crowd` is checked on a small table written here,
against numbers worked out by hand or by a direct pandas computation.
"""

import os
import threading
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import fullbandit as fb
from fullbandit import InvalidParameterError
from fullbandit.datasets.crowd import CrowdDataWarning, CrowdTable, load_long, load_wide
from fullbandit.datasets.rte import RTE_LABELS
from fullbandit.datasets.shared_data import data_folder
from fullbandit.environments.models import SparseReplay

RTE = data_folder() / RTE_LABELS


def write(path: Path, text: str) -> Path:
    path.write_text(text)
    return path


def messages(record) -> list[str]:
    return [str(w.message) for w in record if issubclass(w.category, CrowdDataWarning)]


# --- load_long -----------------------------------------------------------------------------

def test_long_grades_each_worker_on_its_answered_gold_tasks_only(tmp_path):
    answers = write(tmp_path / "a.csv", "task,worker,label\nt1,ann,1\nt1,bo,0\nt2,ann,0\nt3,bo,1\nt2,bo,1\n")
    gold = write(tmp_path / "g.csv", "task,true_label\nt1,1\nt2,0\nt3,1\n")
    table = load_long(answers, gold)
    assert table.worker_ids == ("ann", "bo") and table.task_ids == ("t1", "t2", "t3")
    assert table.n_answered.tolist() == [2, 3]
    assert table.accuracies.tolist() == [1.0, 1 / 3]
    assert table.answered.tolist() == [[True, True], [True, True], [False, True]]


def test_long_takes_crowd_kit_s_gold_series_indexed_by_task():
    # crowd-kit's load_dataset returns (answers frame, gold Series indexed by task): load_long(*that) works.
    answers = pd.DataFrame({"task": ["t1", "t1", "t2", "t3", "t2"], "worker": ["ann", "bo", "ann", "bo", "bo"],
                            "label": [1, 0, 0, 1, 1]})
    gold = pd.Series([1, 0, 1], index=pd.Index(["t1", "t2", "t3"], name="task"), name="true_label")
    table = load_long(answers, gold)
    as_frame = load_long(answers, gold.reset_index())
    assert table.accuracies.tolist() == as_frame.accuracies.tolist() == [1.0, 1 / 3]
    assert table.task_ids == ("t1", "t2", "t3")


def test_long_reads_its_files_from_pipes(tmp_path):
    # bash's `--gold <(...)` passes /dev/fd/63, a pipe: not a regular file, but readable once.
    answers = write(tmp_path / "a.csv", "task,worker,label\nt1,ann,1\nt1,bo,0\nt2,ann,0\nt2,bo,1\n")
    pipe = tmp_path / "gold.pipe"
    os.mkfifo(pipe)
    writer = threading.Thread(target=lambda: pipe.write_text("task,true_label\nt1,1\nt2,0\n"))
    writer.start()  # opening a pipe blocks until the reader opens it: the loader is that reader
    try:
        table = load_long(answers, pipe)
    finally:
        writer.join()
    assert table.accuracies.tolist() == [1.0, 0.0]
    with pytest.raises(FileNotFoundError, match="gold file not found"):
        load_long(answers, tmp_path / "missing.csv")


def test_long_compares_labels_as_stripped_text_and_integral_floats_as_integers():
    # pandas stores a 0/1 column with a gap as floats: 1.0 must still match gold "1".
    answers = pd.DataFrame({"task": [1, 1, 2, 2], "worker": ["a", "b", "a", "b"], "label": [1.0, " 1 ", 0.0, np.nan]})
    gold = pd.DataFrame({"task": ["1", "2"], "true_label": ["1", "0"]})
    table = load_long(answers, gold)
    assert table.accuracies.tolist() == [1.0, 1.0]
    assert table.n_answered.tolist() == [2, 1]  # b's NaN is a missing answer, not a wrong one


def test_long_missing_labels_are_missing_answers(tmp_path):
    answers = write(tmp_path / "a.csv", "task,worker,label\nt1,a,x\nt1,b,\nt2,a,NaN\nt2,b,y\n")
    gold = write(tmp_path / "g.csv", "task,true_label\nt1,x\nt2,y\n")
    table = load_long(answers, gold)
    assert table.n_answered.tolist() == [1, 1] and table.accuracies.tolist() == [1.0, 1.0]


def test_long_ignores_answers_to_tasks_without_gold_with_a_count():
    answers = pd.DataFrame({"task": ["t1", "t1", "t9", "t9", "t8"], "worker": ["a", "b", "a", "b", "a"],
                            "label": ["x", "x", "x", "x", "x"]})
    gold = pd.DataFrame({"task": ["t1"], "true_label": ["x"]})
    with pytest.warns(CrowdDataWarning, match=r"^3 answers to 2 tasks without gold ignored") as record:
        table = load_long(answers, gold)
    assert len(messages(record)) == 1
    assert table.task_ids == ("t1",) and table.accuracies.tolist() == [1.0, 1.0]


def test_long_drops_gold_tasks_nobody_answered_with_a_count():
    answers = pd.DataFrame({"task": ["t1", "t1"], "worker": ["a", "b"], "label": ["x", "y"]})
    gold = pd.DataFrame({"task": ["t1", "t2", "t3"], "true_label": ["x", "y", "y"]})
    with pytest.warns(CrowdDataWarning, match=r"^2 gold tasks nobody answered dropped"):
        table = load_long(answers, gold)
    assert table.task_ids == ("t1",)


def test_long_refuses_duplicate_answers_naming_the_lines(tmp_path):
    answers = write(tmp_path / "a.csv", "task,worker,label\nt1,a,x\nt2,a,y\nt1,b,x\nt1,a,y\n")
    gold = write(tmp_path / "g.csv", "task,true_label\nt1,x\nt2,y\n")
    with pytest.raises(InvalidParameterError,
                       match=r"a\.csv: worker 'a' answered task 't1' more than once \(line 2, line 5, "
                             r"columns 'task', 'worker'\); 2 rows"):
        load_long(answers, gold)


def test_long_drops_workers_below_min_answers_including_workers_absent_from_gold():
    answers = pd.DataFrame({"task": ["t1", "t2", "t3", "t1", "t9"], "worker": ["a", "a", "a", "b", "c"],
                            "label": ["x", "x", "y", "x", "x"]})
    gold = pd.DataFrame({"task": ["t1", "t2", "t3"], "true_label": ["x", "x", "y"]})
    with pytest.warns(CrowdDataWarning) as record:
        table = load_long(answers, gold, min_answers=2)
    assert messages(record) == [
        "1 answer to 1 task without gold ignored: only gold tasks grade a worker",
        "2 workers with fewer than min_answers=2 gold answers dropped (1 of their gold answers ignored)"]
    assert table.worker_ids == ("a",) and table.accuracies.tolist() == [1.0]
    with pytest.raises(InvalidParameterError, match="no worker has min_answers=4"), \
            pytest.warns(CrowdDataWarning) as record:
        load_long(answers, gold, min_answers=4)
    assert messages(record)[-1].startswith("3 workers with fewer than min_answers=4 gold answers dropped (4 of")
    with pytest.raises(InvalidParameterError, match="min_answers=0 must satisfy 1 <= min_answers"):
        load_long(answers, gold, min_answers=0)


def test_long_grades_unseen_labels_wrong_with_a_count():
    answers = pd.DataFrame({"task": ["t1", "t1", "t2"], "worker": ["a", "b", "b"], "label": ["yes", "1", "yes"]})
    gold = pd.DataFrame({"task": ["t1", "t2"], "true_label": [1, 0]})
    with pytest.warns(CrowdDataWarning, match=r"^2 answers with a label that is no true label of any task \('yes'\)"):
        table = load_long(answers, gold)
    assert table.accuracies.tolist() == [0.0, 0.5]


def test_long_takes_gold_from_the_answers_frame_and_custom_column_names():
    answers = pd.DataFrame({"item": [1, 1, 2], "annotator": ["a", "b", "a"], "vote": [0, 1, 1], "gold": [0, 0, 1]})
    table = load_long(answers, None, task="item", worker="annotator", label="vote", true_label="gold")
    assert table.accuracies.tolist() == [1.0, 0.0]
    answers.loc[1, "gold"] = 1  # task 1 now has two different gold labels
    with pytest.raises(InvalidParameterError, match=r"^answers, row 2, column 'gold': task '1' has true label '1' "
                                                    r"here but '0' at row 1"):
        load_long(answers, task="item", worker="annotator", label="vote", true_label="gold")


def test_long_malformed_input_names_file_line_and_column(tmp_path):
    gold = write(tmp_path / "g.csv", "task,true_label\nt1,x\n")
    empty_worker = write(tmp_path / "a.csv", "task,worker,label\nt1,a,x\n\nt1,,x\n")
    with pytest.raises(InvalidParameterError, match=r"a\.csv, line 4, column 'worker': empty worker id"):
        load_long(empty_worker, gold)
    no_label = write(tmp_path / "b.csv", "task,worker,answer\nt1,a,x\n")
    with pytest.raises(InvalidParameterError, match=r"b\.csv: column 'label' is missing; columns present: 'task', "
                                                    r"'worker', 'answer'"):
        load_long(no_label, gold)
    answers = write(tmp_path / "c.csv", "task,worker,label\nt1,a,x\n")
    no_truth = write(tmp_path / "h.csv", "task,true_label\nt1,x\nt2,\n")
    with pytest.raises(InvalidParameterError, match=r"h\.csv, line 3, column 'true_label': task 't2' has no true"):
        load_long(answers, no_truth)
    with pytest.raises(FileNotFoundError, match="answers file not found: .*nowhere.csv"):
        load_long(tmp_path / "nowhere.csv", gold)


@pytest.mark.skipif(not RTE.is_file(), reason="the shared RTE labels (rte/rte_labels.csv in FULLBANDIT_DATA, else "
                                              "in ../shared/data beside the repository) are not on this machine")
def test_rte_labels_load_with_the_accuracies_of_a_direct_pandas_computation():
    table = load_long(RTE, true_label="gold")
    assert (table.n_workers, table.n_tasks) == (164, 800)
    raw = pd.read_csv(RTE)
    direct = (raw["label"] == raw["gold"]).groupby(raw["worker"]).mean()
    np.testing.assert_allclose(table.accuracies, direct.loc[list(table.worker_ids)].to_numpy(), rtol=0, atol=1e-15)
    assert table.n_answered.tolist() == raw["worker"].value_counts().loc[list(table.worker_ids)].tolist()


# --- load_wide -----------------------------------------------------------------------------

def quiz(tmp_path, answer: str, truth: str):
    return write(tmp_path / "answer.csv", answer), write(tmp_path / "truth.csv", truth)


def test_wide_matches_questions_by_id_when_truth_lists_them_in_another_order(tmp_path):
    files = quiz(tmp_path, "question_id,w1,w2\n1,A,C\n2,C,C\n3,D,A\n", "question_id,truth\n3,D\n1,A\n2,C\n")
    table = load_wide(*files)
    assert table.task_ids == ("3", "1", "2")
    assert table.accuracies.tolist() == [1.0, 1 / 3]


def test_wide_empty_cells_and_short_rows_are_missing_answers(tmp_path):
    files = quiz(tmp_path, "question_id,w1,w2,w3\n1,A,,A\n2,B\n3,nan,C,C\n", "question_id,truth\n1,A\n2,B\n3,C\n")
    table = load_wide(*files)
    assert table.n_answered.tolist() == [2, 1, 2]
    assert table.accuracies.tolist() == [1.0, 1.0, 1.0]


def test_wide_refuses_duplicate_worker_ids_naming_the_columns(tmp_path):
    files = quiz(tmp_path, "question_id,w1,w2,w1\n1,A,A,A\n", "question_id,truth\n1,A\n")
    with pytest.raises(InvalidParameterError, match=r"answer\.csv, line 1: worker id 'w1' heads columns 2 and 4"):
        load_wide(*files)


def test_wide_refuses_repeated_question_ids_naming_the_lines(tmp_path):
    files = quiz(tmp_path, "question_id,w1\n1,A\n2,B\n", "question_id,truth\n1,A\n2,B\n1,A\n")
    with pytest.raises(InvalidParameterError, match=r"truth\.csv, column 1: question id '1' is listed more than "
                                                    r"once \(lines 2, 4\)"):
        load_wide(*files)


def test_wide_drops_questions_without_truth_and_truth_nobody_was_asked(tmp_path):
    files = quiz(tmp_path, "question_id,w1,w2\n1,A,B\n7,A,A\n", "question_id,truth\n1,A\n2,B\n")
    with pytest.warns(CrowdDataWarning) as record:
        table = load_wide(*files)
    assert messages(record)[0].startswith("2 answers to 1 task without gold ignored")
    assert messages(record)[-1] == "1 gold task nobody answered dropped"
    assert table.task_ids == ("1",) and table.accuracies.tolist() == [1.0, 0.0]


# --- CrowdTable and SparseReplay -----------------------------------------------------------

# Worker e answered one task (rightly): a draw that strays into its blank cells would score 0.
SPARSE = [[1, np.nan, 0, 1, 1], [0, 1, np.nan, 1, np.nan], [np.nan, 1, 0, 0, np.nan], [1, 0, np.nan, np.nan, np.nan]]


def test_crowd_table_refuses_entries_other_than_0_1_nan_and_workers_without_answers():
    with pytest.raises(InvalidParameterError, match=r"only 0, 1 or NaN.*2\.0 at task 'q2', worker 'b'"):
        CrowdTable(("a", "b"), ("q1", "q2"), [[1, 0], [1, 2]])
    with pytest.raises(InvalidParameterError, match="worker 'b' has none"):
        CrowdTable(("a", "b"), ("q1", "q2"), [[1, np.nan], [1, np.nan]])


@pytest.mark.parametrize("model", ["replay", "bernoulli"])
def test_environment_means_are_the_empirical_accuracies(model):
    table = CrowdTable(("a", "b", "c", "d", "e"), ("q1", "q2", "q3", "q4"), SPARSE)
    environment = table.environment(model, seed=0)
    assert environment.means.tolist() == [2 / 3, 2 / 3, 0.0, 2 / 3, 1.0]  # never diluted by the blanks
    assert environment.labels == ("a", "b", "c", "d", "e")
    assert environment.noise_scales(4) == (0.5, 1.0) and environment.reward_ranges(3) == ((0.0, 1.0), (0.0, 3.0))
    with pytest.raises(InvalidParameterError, match="model='sparse' is not one of the allowed values: 'replay'"):
        table.environment("sparse")


def test_sparse_replay_single_pulls_read_only_answered_cells():
    replay = SparseReplay(SPARSE, feedback="semi", seed=1)
    draws = np.array([replay.pull((0, 1, 2, 3, 4)) for _ in range(4000)])
    assert set(np.unique(draws)) <= {0.0, 1.0}
    assert draws[:, 2].max() == 0.0  # worker c's two answers are both wrong: a blank never scores
    assert draws[:, 4].min() == 1.0  # worker e's one answer is right: a blank is never drawn as wrong


@pytest.mark.parametrize("count", [1, 25])
def test_sparse_replay_sampled_means_converge_to_the_accuracies(count):
    # 20,000 member draws each: a 0/1 mean's standard error is at most 0.5 / sqrt(20000) = 0.0035;
    # a tolerance of 0.02 is over 5.6 standard errors, so a correct replay fails with probability < 1e-7.
    replay = SparseReplay(SPARSE, feedback="semi", seed=2)
    pulls = 20_000 // count
    totals = sum(replay.pull((0, 1, 2, 3, 4), count=count) for _ in range(pulls))
    np.testing.assert_allclose(totals / (pulls * count), replay.means, atol=0.02)
    full = SparseReplay(SPARSE, seed=3)
    sums = sum(full.pull((0, 1, 3), count=count) for _ in range(pulls))
    assert abs(sums / (pulls * count) - 2.0) < 0.035  # three members: 0.5 sqrt(3) / sqrt(20000) = 0.006


def test_sparse_replay_with_fb_run_finds_the_best_team_for_full_and_semi_feedback():
    accuracies = [0.9, 0.85, 0.3, 0.2, 0.1]
    rng = np.random.default_rng(5)
    table = np.where(rng.random((400, 5)) < 0.5, np.nan, 0.0)
    for worker, accuracy in enumerate(accuracies):  # exact accuracies over each worker's answered cells
        rows = np.flatnonzero(~np.isnan(table[:, worker]))
        table[rows[: round(accuracy * rows.size)], worker] = 1.0
    crowd = CrowdTable(tuple("abcde"), tuple(map(str, range(400))), table)
    for name, feedback in (("phased", "full"), ("sar", "semi")):
        spec = fb.registry.get(name)
        assert spec.feedback == feedback
        parameters = {"epsilon": 0.2} if "epsilon" in spec.options else {"budget": 20_000}
        algorithm = spec.build(fb.TopK(5, 2), seed=0, **parameters)
        result = fb.run(algorithm, crowd.environment("replay", feedback=feedback, seed=1), progress=False)
        assert result.answer == (0, 1), (name, result.answer)
        assert result.best == crowd.best_team(2) == (0, 1)


# --- fullbandit solve --data ---------------------------------------------------------------

def campaign(tmp_path, n_workers=6, n_tasks=60, seed=7):
    """Answers and gold CSVs of a sparse campaign, and each worker's accuracy computed here."""
    rng = np.random.default_rng(seed)
    truth = rng.integers(0, 2, n_tasks)
    skill = np.array([0.95, 0.9, 0.55, 0.5, 0.45, 0.4])[:n_workers]
    rows = []
    for w in range(n_workers):
        for t in range(n_tasks):
            if rng.random() < 0.6:  # each worker answers about 60% of the tasks
                label = truth[t] if rng.random() < skill[w] else 1 - truth[t]
                rows.append((f"q{t}", f"w{w}", int(label)))
    answers = pd.DataFrame(rows, columns=["task", "worker", "label"])
    answers.to_csv(tmp_path / "answers.csv", index=False)
    pd.DataFrame({"task": [f"q{t}" for t in range(n_tasks)], "true_label": truth}).to_csv(
        tmp_path / "gold.csv", index=False)
    right = answers["label"].to_numpy() == truth[answers["task"].str[1:].astype(int)]
    return pd.Series(right).groupby(answers["worker"]).mean()


def test_solve_runs_on_the_user_s_own_files_and_picks_the_most_accurate_workers(tmp_path, capsys):
    from fullbandit.cli.main import main
    accuracies = campaign(tmp_path)
    best = set(accuracies.sort_values(ascending=False).index[:2])
    assert accuracies.sort_values(ascending=False).iloc[1] - accuracies.sort_values(ascending=False).iloc[2] > 0.1
    argv = ["solve", "--data", str(tmp_path / "answers.csv"), "--gold", str(tmp_path / "gold.csv"), "--k", "2",
            "--epsilon", "0.1", "--reward-model", "replay", "--no-progress", "--json"]
    assert main(argv) == 0
    import json
    output = json.loads(capsys.readouterr().out)
    assert dict(zip(output["workers"]["worker_ids"], output["workers"]["accuracies"], strict=True)) == \
        pytest.approx(accuracies.to_dict())
    answer = {output["workers"]["worker_ids"][i] for i in output["answer"]}
    assert answer == best
    assert main(argv[:-1]) == 0
    assert f"team          {', '.join(sorted(best, key=output['workers']['worker_ids'].index))}" in \
        capsys.readouterr().out


def test_solve_data_errors_name_the_file_and_options_conflict(tmp_path, capsys):
    from fullbandit.cli.main import main
    campaign(tmp_path)
    assert main(["solve", "--data", str(tmp_path / "nowhere.csv"), "--gold", str(tmp_path / "gold.csv")]) == 2
    assert "--data file not found: " + str(tmp_path / "nowhere.csv") in capsys.readouterr().err
    bad = write(tmp_path / "bad.csv", "task,worker,label\nq1,w1,1\nq1,w1,0\n")
    assert main(["solve", "--data", str(bad), "--gold", str(tmp_path / "gold.csv")]) == 2
    assert f"{bad}: worker 'w1' answered task 'q1' more than once (line 2, line 3" in capsys.readouterr().err
    with pytest.raises(SystemExit) as raised:
        main(["solve", "--dataset", "it", "--data", str(tmp_path / "answers.csv")])
    assert raised.value.code == 2 and "not allowed with argument" in capsys.readouterr().err
    assert main(["solve", "--gold", str(tmp_path / "gold.csv")]) == 2
    assert "--gold applies only with --data" in capsys.readouterr().err


def test_solve_data_reports_the_loader_s_drops_on_stderr(tmp_path, capsys):
    from fullbandit.cli.main import main
    campaign(tmp_path)
    assert main(["solve", "--data", str(tmp_path / "answers.csv"), "--gold", str(tmp_path / "gold.csv"), "--k", "2",
                 "--min-answers", "1000", "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert "warning: 6 workers with fewer than --min-answers 1000 gold answers dropped" in err
    assert "no worker has --min-answers 1000" in err and "lower --min-answers" in err


def test_solve_data_takes_other_column_names_and_gold_in_the_answers_file(tmp_path, capsys):
    from fullbandit.cli.main import main
    accuracies = campaign(tmp_path)
    answers = pd.read_csv(tmp_path / "answers.csv").merge(pd.read_csv(tmp_path / "gold.csv"), on="task")
    answers.rename(columns={"task": "item", "label": "vote", "true_label": "gold"}).to_csv(
        tmp_path / "combined.csv", index=False)
    argv = ["solve", "--data", str(tmp_path / "combined.csv"), "--k", "2", "--epsilon", "0.1", "--no-progress",
            "--json", "--columns", "task=item,label=vote,true_label=gold"]
    assert main(argv) == 0
    import json
    workers = json.loads(capsys.readouterr().out)["workers"]
    assert dict(zip(workers["worker_ids"], workers["accuracies"], strict=True)) == pytest.approx(accuracies.to_dict())
    assert main(argv[:-1] + ["task=item,colour=vote"]) == 2
    assert "ROLE one of task, worker, label, true_label; got 'colour=vote'" in capsys.readouterr().err
    assert main(argv[:-2]) == 2
    assert "combined.csv: column 'task' is missing" in capsys.readouterr().err


def test_a_byte_that_is_not_utf8_is_refused_naming_file_line_and_column(tmp_path):
    path = tmp_path / "answers.csv"
    path.write_bytes(b"\xef\xbb\xbftask,worker,label,true_label\nt1,w1,A,A\nt2,w\xe9,B,A\n")
    with pytest.raises(InvalidParameterError, match=r"answers\.csv: line 3, column 2: byte 0xe9 is not UTF-8"):
        load_long(path)


def test_a_header_only_answers_file_is_refused_as_empty(tmp_path):
    (tmp_path / "answers.csv").write_text("task,worker,label\n")
    (tmp_path / "gold.csv").write_text("task,true_label\nt1,A\n")
    with pytest.raises(InvalidParameterError, match=r"answers.csv: the answers hold no answer row"):
        load_long(tmp_path / "answers.csv", tmp_path / "gold.csv")


def test_answers_whose_labels_are_never_a_true_label_are_refused(tmp_path):
    # Coded differently (yes/no against A/B): every worker would be graded 0 and a "best team" certified.
    (tmp_path / "answers.csv").write_text("task,worker,label\nt1,w1,yes\nt1,w2,no\nt2,w1,no\n")
    (tmp_path / "gold.csv").write_text("task,true_label\nt1,A\nt2,B\n")
    with pytest.raises(InvalidParameterError, match=r"answers.csv: no answer's label is a true label.*'no', 'yes'"
                                                    r".*gold says 'A', 'B'"):
        load_long(tmp_path / "answers.csv", tmp_path / "gold.csv")
