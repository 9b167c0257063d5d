"""Vote-count tables: the loader's rules on small tables written here, and the caption contest 559 counts."""

from __future__ import annotations

import csv
import importlib.util
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from fullbandit import Categorical
from fullbandit._validation import InvalidParameterError
from fullbandit.datasets.votes import CAPTION559_RAW, load_caption559, load_vote_counts
from fullbandit.semi.batch import CategoricalBatch, batch_arms

REPO = Path(__file__).resolve().parents[1]
RAW = REPO.parent / "shared" / "data" / "caption559" / "counts.csv"
NEEDS_RAW = pytest.mark.skipif(not RAW.is_file(), reason=f"the raw caption contest 559 counts are not at {RAW}")

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


def test_the_default_path_is_the_shared_raw_file():
    assert CAPTION559_RAW == RAW


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
