"""Vote-count tables: the loader's rules on small tables written here, and the caption contest 559 counts."""

from __future__ import annotations

import csv
import importlib.util
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from fullbandit import Categorical
from fullbandit.datasets.shared_data import DATA_VARIABLE, data_folder
from fullbandit.datasets.votes import CAPTION559_RAW, load_caption559, load_vote_counts
from fullbandit.semi.batch import CategoricalBatch, batch_arms
from fullbandit.util.validation import InvalidParameterError

REPO = Path(__file__).resolve().parents[1]
RAW = data_folder() / CAPTION559_RAW  # where load_caption559() reads: $FULLBANDIT_DATA, else ../shared/data
NEEDS_RAW = pytest.mark.skipif(not RAW.is_file(), reason=f"the raw caption contest 559 counts are not at {RAW} "
                                                         f"(set {DATA_VARIABLE})")

HEADER = "id,not_funny,somewhat_funny,funny\n"


def write(tmp_path, text, name="votes.csv"):
    path = tmp_path / name
    path.write_text(text)
    return path


# --- the loader on small tables --------------------------------------------------------------

def test_a_small_table_gives_counts_probabilities_means_and_an_environment(tmp_path):
    path = write(tmp_path, HEADER + "a,2,2,4\nb,9,1,0\nc,0,0,3\n")
    votes = load_vote_counts(path)
    assert votes.ids == ("a", "b", "c") and votes.n_arms == 3 and votes.source == str(path)
    np.testing.assert_array_equal(votes.counts, [[2, 2, 4], [9, 1, 0], [0, 0, 3]])
    np.testing.assert_array_equal(votes.votes, [8, 10, 3])
    np.testing.assert_array_equal(votes.support, [0.0, 0.5, 1.0])
    np.testing.assert_allclose(votes.probabilities, [[0.25, 0.25, 0.5], [0.9, 0.1, 0.0], [0, 0, 1]], atol=1e-15)
    np.testing.assert_allclose(votes.means, [0.625, 0.05, 1.0], atol=1e-15)
    environment = votes.environment(seed=1, feedback="full")
    assert isinstance(environment, Categorical) and environment.feedback == "full"
    assert environment.labels == ("a", "b", "c")
    np.testing.assert_allclose(environment.means, votes.means, atol=1e-15)
    assert environment.pull((2,), count=5) == 5.0  # item c: only "funny" votes


def test_columns_in_another_order_and_extra_columns_are_read_by_name(tmp_path):
    shuffled = write(tmp_path, "funny,comment,id,not_funny,somewhat_funny\n4,x,a,2,2\n0,y,b,9,1\n", "shuffled.csv")
    plain = write(tmp_path, HEADER + "a,2,2,4\nb,9,1,0\n", "plain.csv")
    np.testing.assert_array_equal(load_vote_counts(shuffled).counts, load_vote_counts(plain).counts)


def test_a_data_frame_is_read_like_a_file(tmp_path):
    frame = pd.DataFrame({"id": ["a", "b"], "funny": [4, 0], "not_funny": [2.0, 9.0], "somewhat_funny": [2, 1]})
    votes = load_vote_counts(frame)
    np.testing.assert_array_equal(votes.counts, [[2, 2, 4], [9, 1, 0]])
    assert votes.ids == ("a", "b") and votes.source == "<DataFrame>"


def test_custom_columns_and_values(tmp_path):
    path = write(tmp_path, "item,bad,good\n1,3,1\n2,0,2\n")
    votes = load_vote_counts(path, columns=("bad", "good"), values=(-1.0, 1.0), id_column="item")
    np.testing.assert_allclose(votes.means, [-0.5, 1.0])


@pytest.mark.parametrize("text, pattern", [
    ("id,not_funny,funny\na,1,2\n", r"votes\.csv: columns \['somewhat_funny'\] are missing"),
    ("name,not_funny,somewhat_funny,funny\na,1,1,1\n", r"votes\.csv: columns \['id'\] are missing"),
    (HEADER + "a,1,1,1\nb,1,-2,1\n", r"votes\.csv: line 3, column 'somewhat_funny': .*non-negative integer, got -2"),
    (HEADER + "a,1,1.5,1\n", r"votes\.csv: line 2, column 'somewhat_funny': .*non-negative integer, got '1\.5'"),
    (HEADER + "a,1,,1\n", r"votes\.csv: line 2, column 'somewhat_funny': .*non-negative integer, got ''"),
    (HEADER + "a,1,1,1\nb,0,0,0\n", r"votes\.csv: line 3 \(id 'b'\) has no votes"),
    (HEADER + "a,1,1,1\nb,1,0,0\na,0,0,1\n", r"votes\.csv: line 4, column 'id': id 'a' repeats line 2"),
    (HEADER + "a,1,1\n", r"votes\.csv: line 2 has a different number of cells"),
    (HEADER, r"votes\.csv: the table has no rows"),
])
def test_each_malformed_table_is_refused_naming_file_line_and_column(tmp_path, text, pattern):
    with pytest.raises(InvalidParameterError, match=pattern):
        load_vote_counts(write(tmp_path, text))


@pytest.mark.parametrize("cell, shown", [(-1, "-1"), (2.5, "2.5"), (np.nan, "nan"), (True, "True")])
def test_a_data_frame_with_a_bad_count_names_the_row_label_and_column(cell, shown):
    frame = pd.DataFrame({"id": ["a", "b"], "not_funny": [1, 1], "somewhat_funny": [0, 0], "funny": [0, 1]},
                         index=[10, 11], dtype=object)
    frame.loc[11, "funny"] = cell
    with pytest.raises(InvalidParameterError, match=rf"<DataFrame>: row 11, column 'funny': .*got {shown}"):
        load_vote_counts(frame)


def test_a_total_column_is_checked_against_the_counts(tmp_path):
    path = write(tmp_path, "id,votes,not_funny,somewhat_funny,funny\na,3,1,1,1\nb,4,1,1,1\n")
    with pytest.raises(InvalidParameterError, match=r"line 3, column 'votes': total 4 differs from the sum 3"):
        load_vote_counts(path, total_column="votes")


@pytest.mark.parametrize("keywords, pattern", [
    ({"values": (0.0, 1.0)}, r"values must have length 3"),
    ({"values": (0.0, 1.0, 0.5)}, r"values must be strictly increasing"),
    ({"columns": ("funny", "funny", "not_funny")}, r"columns must be distinct"),
])
def test_bad_columns_or_values_are_named(tmp_path, keywords, pattern):
    with pytest.raises(InvalidParameterError, match=pattern):
        load_vote_counts(write(tmp_path, HEADER + "a,1,1,1\n"), **keywords)


def test_a_source_that_is_neither_path_nor_frame_is_refused():
    with pytest.raises(TypeError, match="source must be a path or a pandas DataFrame"):
        load_vote_counts([[1, 2, 3]])


def test_batch_arms_of_a_loaded_table_has_the_same_means(tmp_path):
    votes = load_vote_counts(write(tmp_path, HEADER + "a,2,2,4\nb,9,1,0\nc,0,0,3\n"))
    batch = batch_arms(votes.environment(seed=0))
    assert isinstance(batch, CategoricalBatch)
    np.testing.assert_allclose(batch.means, votes.means, atol=1e-15)


# --- caption contest 559 ------------------------------------------------------------------------

def test_load_caption559_without_the_file_says_why_it_is_not_shipped(tmp_path):
    with pytest.raises(FileNotFoundError, match=r"not at .*missing\.csv.*does not ship them.*states no licence"):
        load_caption559(tmp_path / "missing.csv")


def test_the_default_path_is_the_shared_raw_file(monkeypatch):
    monkeypatch.delenv(DATA_VARIABLE, raising=False)
    assert data_folder() / CAPTION559_RAW == REPO.parent.resolve() / "shared" / "data" / "caption559" / "counts.csv"


def _raw_rows():
    with RAW.open(newline="") as handle:
        return list(csv.DictReader(handle))


@NEEDS_RAW
def test_caption559_totals_computed_from_the_raw_file():
    rows = _raw_rows()
    votes = load_caption559()
    # Independent sums of the raw file (the data README says 138 captions and 62,743 votes; the
    # paper's text says 62,742).
    assert votes.n_arms == len(rows) == 138
    assert int(votes.votes.sum()) == sum(int(row["votes"]) for row in rows) == 62_743
    for j, column in enumerate(("not_funny", "somewhat_funny", "funny")):
        assert int(votes.counts[:, j].sum()) == sum(int(row[column]) for row in rows)
    assert votes.ids == tuple(row["rank"] for row in rows)
    assert np.all(votes.votes > 0)
    environment = votes.environment(seed=0)
    assert environment.n == 138 and environment.reward_range(1) == (0.0, 1.0)
    # The paper seeks the top M = 2: the two best captions are ranks 0 and 1, close together.
    best = np.argsort(votes.means)[::-1][:2]
    assert sorted(votes.ids[i] for i in best) == ["0", "1"]


@NEEDS_RAW
def test_derivation_is_byte_for_byte_the_raw_counts_without_the_totals(tmp_path):
    spec = importlib.util.spec_from_file_location("derive_caption", REPO / "datasets" / "derive_caption_table.py")
    assert spec is not None and spec.loader is not None
    derive = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(derive)
    derive.main(["--source", str(RAW), "--out", str(tmp_path / "one")])
    derive.main(["--source", str(RAW), "--out", str(tmp_path / "two")])
    first = (tmp_path / "one" / derive.CAPTION_TABLE).read_bytes()
    assert first == (tmp_path / "two" / derive.CAPTION_TABLE).read_bytes()
    # Expected bytes written independently of the loader, straight from the raw rows.
    expected = "rank,not_funny,somewhat_funny,funny\n" + "".join(
        f"{row['rank']},{row['not_funny']},{row['somewhat_funny']},{row['funny']}\n" for row in _raw_rows())
    assert first == expected.encode()
    derived = load_vote_counts(tmp_path / "one" / derive.CAPTION_TABLE, id_column="rank")
    np.testing.assert_array_equal(derived.counts, load_caption559().counts)


def test_nothing_of_caption559_is_embedded_while_its_licence_is_unknown():
    embedded = REPO / "fullbandit" / "datasets" / "embedded"
    assert not list(embedded.glob("caption*"))


@NEEDS_RAW
def test_caption559_runs_the_papers_top_2_experiment_with_sar():
    import fullbandit as fb
    from fullbandit.semi.sar import SAR
    environment = load_caption559().environment(seed=0)
    result = fb.run(SAR(fb.TopK(138, 2), budget=5_000), environment, progress=False)
    assert 4_999 <= result.pulls <= 5_000 and len(result.answer) == 2  # SAR may leave one sample unspent


# --- the CrowdTable-like interface: best_team, environment(model, feedback, seed), the runner ----------------

def _random_table(rng, n, with_ties):
    """Counts of ``n`` items on three ratings; with ties, several items share one row of counts."""
    counts = rng.integers(0, 6, size=(n, 3))
    counts[counts.sum(axis=1) == 0, 2] = 1
    if with_ties:
        counts[rng.integers(0, n, n // 2)] = counts[0]
    return pd.DataFrame({"id": [f"i{i}" for i in range(n)], "not_funny": counts[:, 0],
                         "somewhat_funny": counts[:, 1], "funny": counts[:, 2]})


def _brute_force_best(frame, k):
    """The best k-set by exact fractions over every k-subset; among equal sums the smallest index tuple."""
    from fractions import Fraction
    from itertools import combinations
    means = [Fraction(int(s), 2 * int(n + s + f)) + Fraction(int(f), int(n + s + f))
             for n, s, f in frame[["not_funny", "somewhat_funny", "funny"]].itertuples(index=False)]
    return max(combinations(range(len(means)), k), key=lambda team: (sum(means[i] for i in team),
                                                                        [-i for i in team]))


@pytest.mark.parametrize("seed", range(40))
def test_best_team_is_the_brute_force_best_set_with_ties_to_the_lower_index(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(3, 8))
    frame = _random_table(rng, n, with_ties=seed % 2 == 0)
    votes = load_vote_counts(frame)
    for k in range(1, n):
        assert votes.best_team(k) == _brute_force_best(frame, k), (seed, k)


def test_equal_mean_ratings_are_equal_floats_so_the_tie_goes_to_the_lower_index():
    # 3/5 both: (0 * 2 + 0.5 * 0 + 1 * 3) / 5 and (0.5 * 2 + 1 * 2) / 5; through the vote shares the second
    # would round to 0.6000000000000001 and win the tie.
    votes = load_vote_counts(pd.DataFrame({"id": ["x", "y"], "not_funny": [2, 1], "somewhat_funny": [0, 2],
                                           "funny": [3, 2]}))
    assert votes.means[0] == votes.means[1] == 0.6
    assert votes.best_team(1) == (0,)


def test_best_team_and_environment_refuse_bad_arguments_naming_them(tmp_path):
    votes = load_vote_counts(write(tmp_path, HEADER + "a,2,2,4\nb,9,1,0\nc,0,0,3\n"))
    with pytest.raises(InvalidParameterError, match=r"k=3 must satisfy 1 <= k < n=3"):
        votes.best_team(3)
    with pytest.raises(InvalidParameterError, match=r"model='bernoulli' is not one of the allowed values: 'replay'"):
        votes.environment("bernoulli")
    with pytest.raises(InvalidParameterError, match=r"feedback='sum' is not one of the allowed values: 'full', 'semi'"):
        votes.environment(feedback="sum")


def test_full_feedback_is_the_sum_of_the_members_categorical_draws(tmp_path):
    votes = load_vote_counts(write(tmp_path, HEADER + "a,2,2,4\nb,9,1,0\nc,1,3,0\n"))
    for seed in range(5):
        full, semi = votes.environment(feedback="full", seed=seed), votes.environment("replay", seed=seed)
        assert full.feedback == "full" and semi.feedback == "semi"
        for count in (1, 1, 7):  # same seed, same draws: the full observation is the sum of the semi ones
            assert full.pull((0, 2), count=count) == pytest.approx(float(np.sum(semi.pull((0, 2), count=count))))
    # The law of one full pull: a sum of independent draws, each on the support {0, 0.5, 1}.
    environment = votes.environment(feedback="full", seed=9)
    draws = np.array([environment.pull((0, 1, 2)) for _ in range(20_000)])
    assert set(np.unique(draws)) <= {x / 2 for x in range(7)}
    # The sum's noise scale is 0.5 sqrt(3): over 20,000 pulls its mean is within 6 standard errors (0.037).
    assert abs(draws.mean() - votes.means.sum()) < 6 * 0.5 * np.sqrt(3) / np.sqrt(20_000)
    assert environment.noise_scale(3) == pytest.approx(0.5 * np.sqrt(3))


def _every_algorithm():
    import fullbandit as fb
    return [spec.name for spec in fb.registry.specs()]


@pytest.mark.slow
@pytest.mark.parametrize("name", _every_algorithm())
def test_every_registered_algorithm_runs_on_a_vote_table_and_finds_its_best_set(name):
    import fullbandit as fb
    # Five items with clear gaps: means 0.9, 0.75, 0.35, 0.2, 0.1.
    frame = pd.DataFrame({"id": list("abcde"), "not_funny": [0, 1, 13, 16, 18], "somewhat_funny": [4, 8, 0, 0, 0],
                          "funny": [18, 11, 7, 4, 2]})
    votes = load_vote_counts(frame)
    spec = fb.registry.get(name)
    thresholding = fb.Thresholding in spec.decision_classes
    problem = fb.Thresholding(5, 0.5) if thresholding else fb.TopK(5, 2)
    parameters = {"epsilon": 0.2} if "epsilon" in spec.options else {"budget": 5_000}
    algorithm = spec.build(problem, seed=0, **parameters)
    result = fb.run(algorithm, votes.environment(feedback=spec.feedback, seed=1), progress=False)
    expected = problem.best(votes.means)
    assert result.answer == expected and result.best == expected, (name, result.answer)
    if not thresholding:
        assert expected == votes.best_team(2) == (0, 1)


# --- fullbandit solve --data counts.csv --votes ------------------------------------------------------------------

def test_solve_votes_runs_a_team_search_and_reports_the_mean_ratings_as_truth(tmp_path, capsys):
    import json

    from fullbandit.cli.main import main
    path = write(tmp_path, HEADER + "a,1,8,11\nb,13,0,7\nc,0,4,18\nd,16,0,4\ne,18,0,2\n")
    means = {"a": (4 + 11) / 20, "b": 7 / 20, "c": (2 + 18) / 22, "d": 4 / 20, "e": 2 / 20}
    argv = ["solve", "--data", str(path), "--votes", "--k", "2", "--algorithm", "phased", "--epsilon", "0.2",
            "--no-progress"]
    assert main([*argv, "--json"]) == 0
    output = json.loads(capsys.readouterr().out)
    assert output["items"]["ids"] == list("abcde") and output["items"]["votes"] == [20, 20, 22, 20, 20]
    assert dict(zip(output["items"]["ids"], output["items"]["means"], strict=True)) == pytest.approx(means, abs=1e-15)
    assert output["inputs"]["reward_model"] == "replay" and output["inputs"]["votes"] is True
    assert output["stop_reason"] == "stopping rule" and output["answer"] == output["best"] == [0, 2]  # a and c
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert "5 items, 102 votes on not_funny=0, somewhat_funny=0.5, funny=1; reward model replay" in out
    assert "best team     a, c (the simulation's truth)\n" in out
    assert f"team reward   {means['a'] + means['c']:.4f} (best {means['a'] + means['c']:.4f})" in out


def test_solve_votes_takes_its_own_columns_and_ratings(tmp_path, capsys):
    import json

    from fullbandit.cli.main import main
    path = write(tmp_path, "item,n,bad,good\nx,4,3,1\ny,4,1,3\nz,5,5,0\n")
    argv = ["solve", "--data", str(path), "--votes", "--columns", "id=item,total=n", "--ratings", "bad=-1,good=1",
            "--k", "1", "--algorithm", "sar", "--budget", "3000", "--no-progress", "--json"]
    assert main(argv) == 0
    output = json.loads(capsys.readouterr().out)
    assert output["items"]["means"] == pytest.approx([-0.5, 0.5, -1.0])
    assert output["inputs"]["ratings"] == {"bad": -1.0, "good": 1.0}
    assert output["answer"] == output["best"] == [1]
    bad_total = write(tmp_path, "item,n,bad,good\nx,5,3,1\n", "bad_total.csv")
    assert main([*argv[:2], str(bad_total), *argv[3:]]) == 2
    assert f"{bad_total}: line 2, column 'n': total 5 differs from the sum 4 of columns ['bad', 'good']" in \
        capsys.readouterr().err


@pytest.mark.parametrize(("extra", "message"), [
    (["--reward-model", "bernoulli"], "--reward-model bernoulli does not apply to --votes; use replay"),
    (["--gold", "g.csv"], "--gold does not apply to --votes"),
    (["--min-answers", "3"], "--min-answers does not apply to --votes"),
    (["--ratings", "not_funny=0,funny=x"], "--ratings 'not_funny=0,funny=x': each item must be COLUMN=REWARD"),
    (["--ratings", "funny=1,not_funny=0"], "--ratings 'funny=1,not_funny=0': the rewards must increase"),
    (["--ratings", "funny=0,funny=1"], "column 'funny' is named twice"),
    (["--columns", "task=q"], "each item must be ROLE=NAME with ROLE one of id, total (with --votes); got 'task=q'"),
    (["--columns", "id=rank"], "columns ['rank'] are missing (the header has ['id', 'not_funny', 'somewhat_funny', "
                               "'funny'])"),
])
def test_solve_votes_refuses_bad_options_naming_them(tmp_path, capsys, extra, message):
    from fullbandit.cli.main import main
    path = write(tmp_path, HEADER + "a,2,2,4\nb,9,1,0\nc,0,0,3\n")
    assert main(["solve", "--data", str(path), "--votes", "--k", "1", "--no-progress", *extra]) == 2
    err = capsys.readouterr().err
    assert message in err


@pytest.mark.parametrize(("ratings", "threshold", "status"), [
    (None, "1.5", 2), (None, "-0.1", 2), ("bad=-1,good=3", "2.5", 0), ("bad=-1,good=3", "3.5", 2)])
def test_solve_votes_refuses_a_threshold_outside_the_ratings_range(tmp_path, capsys, ratings, threshold, status):
    from fullbandit.cli.main import main
    header, rows = (HEADER, "a,2,2,4\nb,9,1,0\nc,0,0,3\n") if ratings is None else ("id,bad,good\n", "a,1,3\nb,3,1\n")
    path = write(tmp_path, header + rows)
    options = [] if ratings is None else ["--ratings", ratings]
    assert main(["solve", "--data", str(path), "--votes", "--algorithm", "lsa", "--threshold", threshold,
                 "--budget", "200", "--no-progress", *options]) == status
    if status:
        low, high = ("0", "1") if ratings is None else ("-1", "3")
        err = capsys.readouterr().err
        assert f"--threshold={float(threshold)} must satisfy" in err
        assert f"the items' mean ratings lie in [{low}, {high}]" in err


def test_solve_votes_options_need_data_and_votes(tmp_path, capsys):
    from fullbandit.cli.main import main
    assert main(["solve", "--votes"]) == 2
    assert "--votes applies only with --data" in capsys.readouterr().err
    assert main(["solve", "--ratings", "a=0,b=1"]) == 2
    assert "--ratings applies only with --data" in capsys.readouterr().err
    answers = write(tmp_path, "task,worker,label,true_label\nq,w,1,1\nq,v,0,1\n", "answers.csv")
    assert main(["solve", "--data", str(answers), "--ratings", "a=0,b=1"]) == 2
    assert "--ratings applies only with --votes" in capsys.readouterr().err
    assert main(["solve", "--data", str(tmp_path / "none.csv"), "--votes"]) == 2
    assert f"--data {tmp_path / 'none.csv'}: No such file or directory" in capsys.readouterr().err


@NEEDS_RAW
def test_solve_votes_on_caption559_reports_the_truth_of_a_direct_count(capsys):
    import json

    from fullbandit.cli.main import main
    rows = _raw_rows()
    means = [(0.5 * int(row["somewhat_funny"]) + int(row["funny"])) / int(row["votes"]) for row in rows]
    top = sorted(range(len(rows)), key=lambda i: (-means[i], i))[:2]
    argv = ["solve", "--data", str(RAW), "--votes", "--columns", "id=rank,total=votes", "--k", "2",
            "--algorithm", "sar", "--budget", "20000", "--no-progress"]
    assert main([*argv, "--json"]) == 0
    output = json.loads(capsys.readouterr().out)
    assert output["items"]["ids"] == [row["rank"] for row in rows]
    np.testing.assert_allclose(output["items"]["means"], means, rtol=0, atol=1e-15)
    assert output["best"] == sorted(top) and len(output["answer"]) == 2
    assert main(argv) == 0
    assert f"best team     {', '.join(rows[i]['rank'] for i in sorted(top))} (the simulation's truth)\n" in \
        capsys.readouterr().out


def test_a_byte_order_mark_is_read_as_by_every_csv_reader(tmp_path):
    # Excel writes one; load_long and the quiz loader always skipped it, the vote loader refused the id column.
    plain = load_vote_counts(write(tmp_path, HEADER + "a,1,2,3\nb,3,2,1\n"))
    path = tmp_path / "bom.csv"
    path.write_bytes(b"\xef\xbb\xbf" + (HEADER + "a,1,2,3\nb,3,2,1\n").encode())
    with_bom = load_vote_counts(path)
    assert with_bom.ids == plain.ids and with_bom.counts.tolist() == plain.counts.tolist()


@pytest.mark.parametrize(("cell", "pattern"), [
    (b"123456789012345678901234567890", r"line 3, column 'funny': a vote count must be at most 1_000_000_000_000, "
                                        r"got 123456789012345678901234567890"),
    (b"1e400", r"line 3, column 'funny': a vote count must be a non-negative integer, got '1e400'"),
    (b"caf\xe9", r"line 3, column 4: byte 0xe9 is not UTF-8; save the file as UTF-8"),
])
def test_an_unreadable_count_names_file_line_and_column(tmp_path, cell, pattern):
    path = tmp_path / "votes.csv"
    path.write_bytes(HEADER.encode() + b"a,1,2,3\nb,1,2," + cell + b"\n")
    with pytest.raises(InvalidParameterError, match=r"votes\.csv: " + pattern):
        load_vote_counts(path)
