"""Tests for fullbandit.datasets (quiz data sets of Li, Baba and Kashima, CIKM 2017)."""

from __future__ import annotations

import importlib.util
import itertools
from pathlib import Path

import numpy as np
import pytest

from fullbandit.datasets import DATASETS, QuizData, dataset_info, load_dataset, load_quiz
from fullbandit.datasets.shared_data import data_folder
from fullbandit.util.validation import InvalidParameterError

REPO_ROOT = Path(__file__).resolve().parents[1]
SHARED_QUIZ = data_folder() / "quiz"
NO_SHARED_DATA = f"shared data folder {SHARED_QUIZ} not present (FULLBANDIT_DATA, else ../shared/data)"

# Table 2 of Kuroki et al., Neural Computation 32(9), 2020: an external reference, typed in
# from the paper, not produced by our code.  name: (paper name, questions, workers, mean, best)
PUBLISHED_TABLE_2 = {
    "it": ("IT", 25, 36, 0.54, 0.84),
    "medicine": ("Medicine", 36, 45, 0.48, 0.92),
    "chinese": ("Chinese", 24, 50, 0.37, 0.79),
    "pokemon": ("Pokémon", 20, 55, 0.28, 1.00),
    "english": ("English", 30, 63, 0.26, 0.70),
    "science": ("Science", 20, 111, 0.29, 0.85),
}
SOURCE_FOLDERS = {"it": "ITMANAGE", "medicine": "MEDICINE", "chinese": "CHINESE",
                  "pokemon": "POKEMON", "english": "ENGLISH", "science": "SCIENCE"}


def _write_quiz(folder: Path, answer_text: str, truth_text: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "answer.csv").write_text(answer_text, encoding="utf-8")
    (folder / "truth.csv").write_text(truth_text, encoding="utf-8")
    return folder


def _load_derive_script():
    # Loaded from its path: a top-level "datasets" name would clash with the PyPI package.
    path = REPO_ROOT / "datasets" / "derive_quiz_tables.py"
    spec = importlib.util.spec_from_file_location("derive_quiz_tables", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


# --- embedded tables against the published table ----------------------------------------

def test_dataset_names_match_the_paper():
    assert DATASETS == tuple(PUBLISHED_TABLE_2)


@pytest.mark.parametrize("name", list(PUBLISHED_TABLE_2))
def test_embedded_table_reproduces_published_table_2(name):
    _, n_questions, n_workers, mean, best = PUBLISHED_TABLE_2[name]
    data = load_dataset(name)
    assert (data.n_questions, data.n_workers) == (n_questions, n_workers)
    assert data.correct.shape == (n_questions, n_workers)
    assert round(float(data.accuracies.mean()), 2) == mean
    assert round(float(data.accuracies.max()), 2) == best


@pytest.mark.parametrize("name", list(PUBLISHED_TABLE_2))
def test_dataset_info_describes_the_embedded_table(name):
    paper_name, n_questions, n_workers, mean, best = PUBLISHED_TABLE_2[name]
    info = dataset_info(name)
    data = load_dataset(name)
    assert info["paper_name"] == paper_name
    assert info["source_folder"] == SOURCE_FOLDERS[name]
    assert (info["n_questions"], info["n_workers"]) == (n_questions, n_workers)
    assert info["mean_accuracy"] == pytest.approx(data.accuracies.mean(), abs=5e-5)
    assert info["best_accuracy"] == pytest.approx(data.accuracies.max(), abs=5e-5)
    assert round(info["mean_accuracy"], 2) == mean and round(info["best_accuracy"], 2) == best
    assert "Hyper Questions" in info["citation"] and "CIKM 2017" in info["citation"]
    assert info["license"] == "CC BY 4.0"


def test_dataset_info_returns_a_copy():
    dataset_info("it")["n_workers"] = -1
    assert dataset_info("it")["n_workers"] == 36


def test_load_dataset_is_case_insensitive_and_read_only():
    data = load_dataset("IT")
    assert data is load_dataset("it")
    assert data.name == "it"
    assert data.correct.dtype == bool
    assert not data.correct.flags.writeable
    with pytest.raises(ValueError):
        data.correct[0, 0] = not data.correct[0, 0]
    assert data.worker_ids[:2] == ("worker1", "worker2")
    assert data.question_ids[0] == "1" and len(data.question_ids) == data.n_questions


# --- raw folders against the embedded tables --------------------------------------------

@pytest.mark.parametrize("name", list(PUBLISHED_TABLE_2))
def test_load_quiz_on_raw_folder_equals_embedded_table(name):
    if not SHARED_QUIZ.is_dir():
        pytest.skip(NO_SHARED_DATA)
    raw = load_quiz(SHARED_QUIZ / SOURCE_FOLDERS[name])
    embedded = load_dataset(name)
    assert raw.name == name
    assert raw.worker_ids == embedded.worker_ids
    assert raw.question_ids == embedded.question_ids
    np.testing.assert_array_equal(raw.correct, embedded.correct)
    assert raw == embedded


def test_load_quiz_grades_answers_and_tolerates_format_noise(tmp_path):
    # Trailing comma in the header, stray spaces, a BOM, a blank line, an empty answer and
    # a short row: empty or missing answers count as incorrect.
    folder = _write_quiz(
        tmp_path / "toy",
        "\ufeffquestion_id, w1,w2 ,w3,\n1,A, B,A\n\n2,C,,C\n3,D\n",
        "question_id,truth\n10,A\n20,C\n30,D\n",
    )
    data = load_quiz(folder, match="row")  # renumbered truth ids: matched row by row
    assert data.name == "toy"
    assert data.worker_ids == ("w1", "w2", "w3")
    assert data.question_ids == ("1", "2", "3")  # ids come from answer.csv
    np.testing.assert_array_equal(
        data.correct, [[True, False, True], [True, False, True], [True, False, False]])
    np.testing.assert_allclose(data.accuracies, [1.0, 0.0, 2 / 3])


def test_load_quiz_uses_known_key_for_upstream_folder_name(tmp_path):
    folder = _write_quiz(tmp_path / "ITMANAGE", "question_id,w1,w2\n1,A,B\n", "question_id,truth\n1,A\n")
    assert load_quiz(folder).name == "it"
    assert load_quiz(folder, name="custom").name == "custom"


# --- best team -------------------------------------------------------------------------

def _brute_force_best_sum(accuracies: np.ndarray, k: int) -> float:
    return max(sum(accuracies[list(team)]) for team in itertools.combinations(range(len(accuracies)), k))


@pytest.mark.parametrize("seed", range(5))
def test_best_team_matches_brute_force_on_synthetic_data(seed):
    rng = np.random.default_rng(seed)
    n_questions, n_workers = 40, 8
    # Worker w gets 5*w + a few correct answers: distinct accuracies, a unique optimum.
    counts = 5 * rng.permutation(n_workers) + rng.integers(0, 4, n_workers)
    correct = np.zeros((n_questions, n_workers), dtype=bool)
    for worker, count in enumerate(counts):
        correct[rng.choice(n_questions, size=count, replace=False), worker] = True
    data = QuizData("synthetic", tuple(f"w{i}" for i in range(n_workers)),
                    tuple(str(q) for q in range(n_questions)), correct)
    for k in range(1, n_workers):
        brute = max(itertools.combinations(range(n_workers), k),
                    key=lambda team: data.accuracies[list(team)].sum())
        assert data.best_team(k) == brute


@pytest.mark.parametrize("seed", range(5))
def test_best_team_reaches_brute_force_optimum_with_ties(seed):
    # Few questions make many equal accuracies; any optimal team must reach the same sum.
    rng = np.random.default_rng(100 + seed)
    correct = rng.random((4, 9)) < 0.5
    data = QuizData("tied", tuple(f"w{i}" for i in range(9)), tuple("abcd"), correct)
    for k in range(1, 9):
        team = data.best_team(k)
        assert len(set(team)) == k
        assert data.accuracies[list(team)].sum() == pytest.approx(
            _brute_force_best_sum(data.accuracies, k))


def test_best_team_breaks_ties_by_lower_index():
    # Accuracies 0.5, 1.0, 0.5, 0.5, 0.0: for k=2 workers 0, 2, 3 tie for the second seat.
    correct = np.array([[1, 1, 1, 0, 0], [0, 1, 0, 1, 0]], dtype=bool)
    data = QuizData("ties", tuple("abcde"), ("q1", "q2"), correct)
    assert data.best_team(1) == (1,)
    assert data.best_team(2) == (0, 1)
    assert data.best_team(3) == (0, 1, 2)
    assert data.best_team(4) == (0, 1, 2, 3)


def test_best_team_on_it_takes_the_ten_most_accurate_workers():
    data = load_dataset("it")
    team = data.best_team(10)
    assert len(team) == 10 and list(team) == sorted(set(team))
    top_ten_sum = np.sort(data.accuracies)[-10:].sum()
    assert data.accuracies[list(team)].sum() == pytest.approx(top_ten_sum)


# --- bad input -------------------------------------------------------------------------

@pytest.mark.parametrize("bad", ["imdb", "", "ITMANAGE", 3, None])
def test_unknown_dataset_name_is_rejected(bad):
    with pytest.raises(InvalidParameterError) as error:
        load_dataset(bad)
    message = str(error.value)
    assert "dataset" in message and repr(bad) in message
    assert all(name in message for name in DATASETS)
    with pytest.raises(InvalidParameterError, match="dataset"):
        dataset_info(bad)


def test_unknown_dataset_error_is_a_value_error():
    with pytest.raises(ValueError):
        load_dataset("Pokémon")


@pytest.mark.parametrize("k", [0, -1, 36, 37])
def test_best_team_rejects_k_out_of_range(k):
    with pytest.raises(InvalidParameterError, match="k="):
        load_dataset("it").best_team(k)


@pytest.mark.parametrize("k", [2.0, "3", True])
def test_best_team_rejects_non_integer_k(k):
    with pytest.raises(TypeError):
        load_dataset("it").best_team(k)


def test_row_count_mismatch_is_reported(tmp_path):
    folder = _write_quiz(tmp_path / "short_truth", "question_id,w1,w2\n1,A,B\n2,C,D\n3,A,A\n",
                         "question_id,truth\n1,A\n2,C\n")
    with pytest.raises(ValueError, match=r"3 question rows.*has 2"):
        load_quiz(folder)


def test_extra_answers_are_reported(tmp_path):
    folder = _write_quiz(tmp_path / "wide", "question_id,w1\n1,A,B\n", "question_id,truth\n1,A\n")
    with pytest.raises(ValueError, match="2 cells for 1 workers"):
        load_quiz(folder)


def test_missing_truth_is_reported(tmp_path):
    folder = _write_quiz(tmp_path / "no_truth", "question_id,w1\n1,A\n", "question_id,truth\n1,\n")
    with pytest.raises(ValueError, match="no true answer"):
        load_quiz(folder)


def test_missing_folder_or_file_raises_file_not_found(tmp_path):
    missing = tmp_path / "nowhere"
    with pytest.raises(FileNotFoundError, match="nowhere"):
        load_quiz(missing)
    folder = tmp_path / "half"
    folder.mkdir()
    (folder / "answer.csv").write_text("question_id,w1\n1,A\n", encoding="utf-8")
    with pytest.raises(FileNotFoundError, match="truth.csv"):
        load_quiz(folder)


def test_quiz_data_rejects_inconsistent_shapes():
    with pytest.raises(InvalidParameterError, match="shape"):
        QuizData("bad", ("a", "b"), ("q1",), np.ones((1, 3), dtype=bool))


# --- derivation script -------------------------------------------------------------------

def test_derivation_script_is_deterministic(tmp_path):
    if not SHARED_QUIZ.is_dir():
        pytest.skip(NO_SHARED_DATA)
    script = _load_derive_script()
    first, second = tmp_path / "first", tmp_path / "second"
    assert script.main(["--source", str(SHARED_QUIZ), "--out", str(first)]) == 0
    assert script.main(["--source", str(SHARED_QUIZ), "--out", str(second)]) == 0
    names = sorted(path.name for path in first.iterdir())
    assert names == sorted([*(f"{name}.csv" for name in DATASETS), "index.json"])
    assert names == sorted(path.name for path in second.iterdir())
    for filename in names:
        assert (first / filename).read_bytes() == (second / filename).read_bytes(), filename


def test_embedded_tables_are_up_to_date(tmp_path):
    if not SHARED_QUIZ.is_dir():
        pytest.skip(NO_SHARED_DATA)
    script = _load_derive_script()
    script.main(["--source", str(SHARED_QUIZ), "--out", str(tmp_path)])
    embedded = REPO_ROOT / "fullbandit" / "datasets" / "embedded"
    for path in sorted(tmp_path.iterdir()):
        assert path.read_bytes() == (embedded / path.name).read_bytes(), path.name


# --- missing answers are never counted as correct ---------------------------------------

MISSING_CASES = {
    "NaN": ([[1.0, 0.0], [1.0, np.nan]], "nan at correct[1, 1] (question 'q2', worker 'b')"),
    "-1": ([[1, 0], [-1, 1]], "-1 at correct[1, 0] (question 'q2', worker 'a')"),
    "2": ([[1, 2], [0, 1]], "2 at correct[0, 1] (question 'q1', worker 'b')"),
    "None": ([[1, 0], [None, 1]], "None at correct[1, 0] (question 'q2', worker 'a')"),
    "strings": ([["1", "0"], ["0", "1"]], "'1' at correct[0, 0] (question 'q1', worker 'a')"),
    "masked": (np.ma.masked_array([[1, 0], [1, 1]], mask=[[0, 0], [0, 1]]),
               "1 entry masked (missing), the first at correct[1, 1] (question 'q2', worker 'b')"),
}


@pytest.mark.parametrize("case", list(MISSING_CASES))
def test_quiz_data_refuses_entries_that_are_not_zero_or_one(case):
    # Casting to bool made NaN, -1, masked and text entries correct answers.
    table, where = MISSING_CASES[case]
    with pytest.raises(InvalidParameterError) as error:
        QuizData("toy", ("a", "b"), ("q1", "q2"), table)
    message = str(error.value)
    assert message.startswith("correct ") and where in message
    assert "Grade missing answers explicitly" in message


def test_quiz_data_refuses_a_pandas_missing_value_and_counts_the_bad_entries():
    import pandas as pd
    table = pd.DataFrame({"a": pd.array([True, None, None], dtype="boolean"), "b": [1, 0, 1]})
    with pytest.raises(InvalidParameterError, match=r"2 entries do not: <NA> at correct\[1, 0\]"):
        QuizData("toy", ("a", "b"), ("q1", "q2", "q3"), table)


@pytest.mark.parametrize("table", [
    [[True, False], [False, True]],
    [[1, 0], [0, 1]],
    [[1.0, 0.0], [0.0, 1.0]],
    np.ma.masked_array([[1, 0], [0, 1]]),  # a masked array with nothing masked
    np.array([[True, 0], [0.0, np.True_]], dtype=object),
])
def test_quiz_data_accepts_booleans_and_zero_one_numbers(table):
    data = QuizData("toy", ("a", "b"), ("q1", "q2"), table)
    assert data.correct.dtype == bool
    np.testing.assert_array_equal(data.correct, [[True, False], [False, True]])


def test_quiz_data_refuses_ragged_and_one_dimensional_tables():
    with pytest.raises(InvalidParameterError, match="rectangular"):
        QuizData("toy", ("a", "b"), ("q1", "q2"), [[1, 0], [1]])
    with pytest.raises(InvalidParameterError, match="two-dimensional"):
        QuizData("toy", ("a", "b"), ("q1",), [1, 0])


def test_load_quiz_counts_missing_answer_markers_as_incorrect(tmp_path):
    folder = _write_quiz(tmp_path / "markers", "question_id,w1,w2,w3,w4\n1,A,NaN,-1,A\n2,B,B,null,\n",
                         "question_id,truth\n1,A\n2,B\n")
    np.testing.assert_array_equal(load_quiz(folder).correct,
                                  [[True, False, False, True], [True, True, False, False]])


@pytest.mark.parametrize("truth", ["NaN", "-1", "N/A", "none", " "])
def test_load_quiz_refuses_a_missing_true_answer_marker(tmp_path, truth):
    # With a truth of "-1", every worker who skipped the question (also "-1") was graded correct.
    folder = _write_quiz(tmp_path / "no_truth", "question_id,w1,w2\n1,A,B\n2,-1,-1\n",
                         f"question_id,truth\n1,A\n2,{truth}\n")
    with pytest.raises(ValueError, match=r"truth.csv, data row 2: no true answer"):
        load_quiz(folder)


@pytest.fixture
def embedded_table(tmp_path, monkeypatch):
    """Write a replacement embedded table for key "it"; the loader's cache is cleared around the test."""
    from fullbandit.datasets import quiz

    def write(text):
        (tmp_path / "it.csv").write_text(text, encoding="utf-8")
    monkeypatch.setattr(quiz, "_embedded_file", lambda filename: tmp_path / filename)
    quiz._load_embedded.cache_clear()
    yield write
    quiz._load_embedded.cache_clear()


@pytest.mark.parametrize("cell, shown", [("2", "'2'"), ("", "''"), ("nan", "'nan'"), ("-1", "'-1'"),
                                         ("True", "'True'")])
def test_corrupt_embedded_table_names_file_line_and_cell(embedded_table, cell, shown):
    embedded_table(f"question_id,w1,w2\n1,1,0\n2,0,{cell}\n")
    with pytest.raises(InvalidParameterError) as error:
        load_dataset("it")
    message = str(error.value)
    assert message.startswith("embedded table it.csv must hold only 0/1")
    assert f"{shown} at line 3, column 3 (question '2', worker 'w2')" in message


def test_embedded_table_with_a_short_row_names_its_line(embedded_table):
    embedded_table("question_id,w1,w2\n1,1,0\n2,0\n")
    with pytest.raises(InvalidParameterError, match="it.csv is corrupt: line 3 has 2 fields, the header 3"):
        load_dataset("it")


def test_valid_replacement_embedded_table_loads(embedded_table):
    embedded_table("question_id,w1,w2\n1,1,0\n2,0,1\n")
    np.testing.assert_array_equal(load_dataset("it").correct, [[True, False], [False, True]])


def test_real_answers_blanked_out_count_as_incorrect(tmp_path):
    if not SHARED_QUIZ.is_dir():
        pytest.skip(NO_SHARED_DATA)
    source = SHARED_QUIZ / SOURCE_FOLDERS["it"]
    lines = (source / "answer.csv").read_text(encoding="utf-8").splitlines()
    # Replace worker1's answers to the first three questions by three missing-answer markers.
    for line_number, marker in zip((1, 2, 3), ("NaN", "-1", ""), strict=True):
        cells = lines[line_number].split(",")
        cells[1] = marker
        lines[line_number] = ",".join(cells)
    folder = _write_quiz(tmp_path / "ITMANAGE", "\n".join(lines) + "\n",
                         (source / "truth.csv").read_text(encoding="utf-8"))
    original, blanked = load_dataset("it"), load_quiz(folder)
    assert not blanked.correct[:3, 0].any()
    np.testing.assert_array_equal(blanked.correct[3:], original.correct[3:])
    np.testing.assert_array_equal(blanked.correct[:3, 1:], original.correct[:3, 1:])


def test_questions_are_matched_by_id_and_other_ids_are_refused(tmp_path):
    # The truth listed in another order: graded by question id, not row by row (which would give 0 and 0).
    folder = _write_quiz(tmp_path / "shuffled", "question_id,w1,w2\n1,A,B\n2,C,C\n", "question_id,truth\n2,C\n1,A\n")
    assert load_quiz(folder).correct.astype(int).tolist() == [[1, 0], [1, 1]]
    assert load_quiz(folder, match="row").correct.astype(int).tolist() == [[0, 0], [0, 0]]
    other = _write_quiz(tmp_path / "renumbered", "question_id,w1\n1,A\n2,C\n", "question_id,truth\n11,A\n12,C\n")
    with pytest.raises(ValueError, match=r"same question ids \(only in answer.csv: \['1', '2'\].*match='row'"):
        load_quiz(other)
    assert load_quiz(other, match="row").correct.all()
    with pytest.raises(ValueError, match="match='order' must be 'id'"):
        load_quiz(other, match="order")


@pytest.mark.parametrize("answers, truth, repeated", [
    ("question_id,w1,w1\n1,A,B\n", "question_id,truth\n1,A\n", "worker id 'w1'"),
    ("question_id,w1\n1,A\n1,B\n", "question_id,truth\n1,A\n2,B\n", "question_id '1'"),
])
def test_a_repeated_worker_or_question_id_is_refused(tmp_path, answers, truth, repeated):
    with pytest.raises(ValueError, match=f"{repeated} appears more than once"):
        load_quiz(_write_quiz(tmp_path / "repeated", answers, truth))
