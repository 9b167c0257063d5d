"""The results file of the experiment runner: damaged files are reported by line, never silently repaired."""

import os
import re
import warnings

import numpy as np
import pandas as pd
import pytest

from fullbandit.experiments import store as store_module
from fullbandit.experiments.store import ResultStore, expand_metrics
from fullbandit.util.validation import InvalidParameterError

COLUMNS = ["key", "algorithm", "instance", "seed", "pulls", "correct", "stop_reason", "metrics"]
GOOD_ROWS = [
    {"key": f"k{i}", "algorithm": "saqm", "instance": "toy", "seed": i, "pulls": 100 + i, "correct": i % 2 == 0,
     "stop_reason": "stopping rule", "metrics": {"rounds": i, "width": 0.5}}
    for i in range(4)
]


def _good_file(tmp_path):
    """A results file with a header and four good rows (lines 2 to 5)."""
    store = ResultStore(tmp_path / "results.csv", COLUMNS)
    for row in GOOD_ROWS:
        store.append(row)
    return store.path


def _replace_line(path, line_number, text):
    lines = path.read_text().splitlines(keepends=True)
    lines[line_number - 1] = text
    path.write_text("".join(lines))


def _open_refused(path, *patterns):
    """Opening ``path`` raises a message naming the file and matching ``patterns``; the file is unchanged."""
    before = path.read_bytes()
    with pytest.raises(InvalidParameterError) as error:
        ResultStore(path, COLUMNS)
    message = str(error.value)
    assert message.startswith(f"{path} has ")
    assert "Delete those lines (their runs are redone on the next start)" in message
    for pattern in patterns:
        assert re.search(pattern, message), (pattern, message)
    assert path.read_bytes() == before
    return message


def test_good_rows_round_trip(tmp_path):
    path = _good_file(tmp_path)
    store = ResultStore(path, COLUMNS)
    assert store.finished_keys() == {"k0", "k1", "k2", "k3"}
    frame = store.read()
    assert frame["pulls"].tolist() == [100, 101, 102, 103]
    assert frame["correct"].tolist() == [True, False, True, False]
    assert frame["rounds"].tolist() == [0, 1, 2, 3]


# --- a run killed while appending -----------------------------------------------------------

def test_a_cut_last_line_is_dropped_with_a_warning_and_rerun(tmp_path):
    path = _good_file(tmp_path)
    good = path.read_text()
    path.write_text(good + "k4,saqm,toy,4,10")  # cut off in the middle of the pulls
    with pytest.warns(UserWarning, match=r"dropped 1 line cut off by a killed run \(line 6, .*'k4,saqm,toy,4,10'"):
        store = ResultStore(path, COLUMNS)
    assert path.read_text() == good  # the four good rows are kept as they were
    assert store.finished_keys() == {"k0", "k1", "k2", "k3"}  # so k4 is run again
    store.append({**GOOD_ROWS[0], "key": "k4"})
    assert ResultStore(path, COLUMNS).read()["key"].tolist() == ["k0", "k1", "k2", "k3", "k4"]


def test_a_cut_header_is_written_again_without_a_warning(tmp_path):
    path = tmp_path / "results.csv"
    path.write_text("key,algor")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ResultStore(path, COLUMNS)
    assert path.read_text() == ",".join(COLUMNS) + "\n"


def test_a_short_write_leaves_a_line_the_next_start_drops(tmp_path, monkeypatch):
    path = _good_file(tmp_path)
    store = ResultStore(path, COLUMNS)
    write = os.write
    monkeypatch.setattr(store_module.os, "write", lambda descriptor, data: write(descriptor, data[:10]))
    with pytest.raises(OSError, match=r"wrote 10 of \d+ bytes"):
        store.append({**GOOD_ROWS[0], "key": "k4"})
    monkeypatch.undo()
    with pytest.warns(UserWarning, match="dropped 1 line"):
        assert ResultStore(path, COLUMNS).finished_keys() == {"k0", "k1", "k2", "k3"}


# --- damaged lines are errors naming the file and the line ----------------------------------

@pytest.mark.parametrize("metrics, shown", [
    ('"{""rounds"": 1, ""wid"', "'{\"rounds\": 1, \"wid'"),  # a cut JSON object
    ("garbage", "'garbage'"),
    ("1.5", "'1.5'"),  # used to end in "'float' object is not iterable"
    ('"[1, 2]"', "'[1, 2]'"),
    ("null", "'null'"),
])
def test_a_metrics_field_that_is_not_a_json_object_is_refused(tmp_path, metrics, shown):
    path = _good_file(tmp_path)
    _replace_line(path, 3, f"k1,saqm,toy,1,101,False,stopping rule,{metrics}\n")
    _open_refused(path, r"has 1 damaged line: line 3: column 'metrics' is not a JSON object: " + re.escape(shown))


def test_an_unclosed_quote_is_reported_with_the_lines_it_joins(tmp_path):
    path = _good_file(tmp_path)
    _replace_line(path, 3, 'k1,saqm,toy,1,101,False,stopping rule,"{""rounds"": 1, ""wid\n')
    _open_refused(path, r"has 1 damaged line: lines 3-4: 9 fields where the header has 8")


@pytest.mark.parametrize("line, found", [
    ("k1,saqm,toy,1,101,False\n", 6),  # fields missing
    ("k1,saqm,toy,1,101,False,stopping rule,{},extra\n", 9),
    ("<<<<<<< HEAD\n", 1),  # a merge conflict marker
])
def test_a_line_with_the_wrong_number_of_fields_is_refused(tmp_path, line, found):
    path = _good_file(tmp_path)
    _replace_line(path, 3, line)
    _open_refused(path, rf"line 3: {found} fields where the header has 8")


def test_a_cut_line_followed_by_good_lines_is_refused(tmp_path):
    # A cut line that is not the last one was not left by a kill of this store: never guess.
    path = _good_file(tmp_path)
    lines = path.read_text().splitlines(keepends=True)
    path.write_text("".join(lines[:3]) + lines[3][:12] + "\n" + "".join(lines[4:]))
    _open_refused(path, r"has 1 damaged line: line 4: 4 fields where the header has 8")


@pytest.mark.parametrize("column, value, expected", [
    ("pulls", "1O1", "numbers"),
    ("seed", "one", "numbers"),
    ("correct", "Flase", "True/False"),
    ("correct", "1", "True/False"),
])
def test_a_value_of_the_wrong_kind_is_refused(tmp_path, column, value, expected):
    path = _good_file(tmp_path)
    cells = "k2,saqm,toy,2,102,True,stopping rule".split(",")
    cells[COLUMNS.index(column)] = value
    _replace_line(path, 4, ",".join(cells) + ',"{}"\n')
    _open_refused(path, rf"line 4: column '{column}' holds '{value}' where the column holds {expected}")


def test_empty_and_repeated_keys_are_refused(tmp_path):
    path = _good_file(tmp_path)
    _replace_line(path, 3, "k0,saqm,toy,1,101,False,stopping rule,{}\n")
    _replace_line(path, 5, ",saqm,toy,3,103,False,stopping rule,{}\n")
    _open_refused(path, r"has 2 damaged lines: line 3: key 'k0' already on line 2; line 5: empty key")


def test_bytes_that_are_not_text_are_refused_by_line(tmp_path):
    path = _good_file(tmp_path)
    path.write_bytes(path.read_bytes() + b"k9,saqm,\xff\xfe,9,1,True,x,{}\n")
    _open_refused(path, r"has 1 damaged line: line 6: not UTF-8 text")


def test_many_damaged_lines_are_counted(tmp_path):
    path = _good_file(tmp_path)
    with open(path, "a") as handle:
        for i in range(8):
            handle.write(f"bad{i},saqm,toy,{i}\n")
    message = _open_refused(path, r"has 8 damaged lines: line 6: 4 fields where the header has 8", r"; and 3 more\.")
    assert "line 10" in message and "line 11" not in message


def test_blank_lines_missing_values_and_mixed_text_are_accepted(tmp_path):
    path = _good_file(tmp_path)
    with open(path, "a") as handle:
        handle.write("\n")
        handle.write("k4,saqm,toy,4,,True,budget,{}\n")  # a missing pulls value (NaN)
        handle.write("k5,3,7,5,105,False,42,{}\n")  # names and a text column may hold numbers
    store = ResultStore(path, COLUMNS)
    frame = store.read()
    assert len(frame) == 6 and np.isnan(frame["pulls"][4])
    assert frame["algorithm"].tolist()[-1] == "3" and frame["instance"].tolist()[-1] == "7"


# --- files of something else are never changed ------------------------------------------------

def test_another_grids_file_is_refused_untouched_even_with_a_cut_last_line(tmp_path):
    path = _good_file(tmp_path)
    path.write_text(path.read_text() + "k4,saqm")
    before = path.read_bytes()
    with pytest.raises(InvalidParameterError, match=r"holds results of a different grid \(columns \['key', "):
        ResultStore(path, ["key", "other", "metrics"])
    assert path.read_bytes() == before


def test_a_file_without_line_ends_that_is_not_a_cut_header_is_not_overwritten(tmp_path):
    path = tmp_path / "results.csv"
    path.write_bytes(b"\x89PNG unrelated data, no line end")
    with pytest.raises(InvalidParameterError, match=r"different grid \(no header but '.PNG unrelated data"):
        ResultStore(path, COLUMNS)
    assert path.read_bytes() == b"\x89PNG unrelated data, no line end"


# --- unusable paths ----------------------------------------------------------------------------

def test_a_folder_in_place_of_the_file_is_refused(tmp_path):
    (tmp_path / "results.csv").mkdir()
    with pytest.raises(InvalidParameterError, match=r"out='.*results.csv' cannot hold the results: Is a directory"):
        ResultStore(tmp_path / "results.csv", COLUMNS)


def test_a_file_in_place_of_the_folder_is_refused(tmp_path):
    (tmp_path / "taken").write_text("")
    with pytest.raises(InvalidParameterError, match=r"out='.*taken/results.csv' cannot hold the results"):
        ResultStore(tmp_path / "taken" / "results.csv", COLUMNS)


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() == 0, reason="root may write read-only files")
def test_a_read_only_file_is_refused_before_any_run(tmp_path):
    path = _good_file(tmp_path)
    path.chmod(0o444)
    with pytest.raises(InvalidParameterError, match="cannot hold the results: Permission denied"):
        ResultStore(path, COLUMNS)


# --- metrics of rows in memory ---------------------------------------------------------------

def test_expand_metrics_refuses_values_that_are_not_objects():
    frame = pd.DataFrame({"key": ["a", "b"], "metrics": ['{"x": 1}', "3.5"]})
    with pytest.raises(InvalidParameterError, match=r"row 1: metrics must be a dict or the JSON text of one"):
        expand_metrics(frame)
