"""Partition matroids from a worker table's column: the library function and ``solve --workers``."""

import doctest

import pandas as pd
import pytest

from fullbandit import constraints
from fullbandit._validation import InvalidParameterError
from fullbandit.constraints import partition_matroid_from_column
from fullbandit.problem import PartitionMatroid

IDS = ["a", "b", "c", "d", "e"]


def table():
    # Rows in another order than IDS, an extra worker "z" not among the arms.
    return pd.DataFrame({"worker": ["e", "z", "c", "a", "b", "d"],
                         "country": ["jp", "us", "fr", "fr", "jp", "fr"]})


def test_groups_follow_first_appearance_along_the_worker_ids():
    problem, labels = partition_matroid_from_column(IDS, table(), "country", k=3, at_most=2)
    assert problem == PartitionMatroid((0, 1, 0, 0, 1), (2, 2), 3)
    assert labels == ("fr", "jp")


def test_capacities_per_label_and_from_a_csv_file(tmp_path):
    path = tmp_path / "workers.csv"
    table().rename(columns={"worker": "id"}).to_csv(path, index=False)
    problem, labels = partition_matroid_from_column(IDS, path, "country", k=2, capacities={"jp": 2, "fr": 1},
                                                    id_column="id")
    assert (problem.groups, problem.capacities, labels) == ((0, 1, 0, 0, 1), (1, 2), ("fr", "jp"))
    assert problem.best([0.9, 0.1, 0.8, 0.7, 0.2]) == (0, 4)  # one fr at most: a, then the best jp


def test_missing_worker_is_named(tmp_path):
    path = tmp_path / "workers.csv"
    table()[table().worker != "c"].to_csv(path, index=False)
    with pytest.raises(InvalidParameterError, match=r"workers\.csv: 1 of 5 workers missing .*'c'"):
        partition_matroid_from_column(IDS, path, "country", k=2, at_most=1)


def test_duplicate_worker_is_named_with_its_lines(tmp_path):
    path = tmp_path / "workers.csv"
    pd.concat([table(), table().iloc[[3]]]).to_csv(path, index=False)
    with pytest.raises(InvalidParameterError, match=r"worker 'a' appears 2 times \(line 5, line 8\)"):
        partition_matroid_from_column(IDS, path, "country", k=2, at_most=1)


def test_unknown_and_unnamed_capacity_labels_are_refused():
    with pytest.raises(InvalidParameterError, match=r"capacities names 'de', not a group of column 'country'"):
        partition_matroid_from_column(IDS, table(), "country", k=2, capacities={"fr": 1, "jp": 1, "de": 1})
    with pytest.raises(InvalidParameterError, match=r"no cap for group 'jp'"):
        partition_matroid_from_column(IDS, table(), "country", k=2, capacities={"fr": 1})


def test_unreachable_k_is_refused_with_the_room_per_group():
    with pytest.raises(InvalidParameterError, match=r"k=4 is unreachable.*at most 3 .*fr: 2, jp: 1"):
        partition_matroid_from_column(IDS, table(), "country", k=4, capacities={"fr": 2, "jp": 1})


def test_other_refusals_name_the_problem():
    with pytest.raises(InvalidParameterError, match="exactly one of at_most"):
        partition_matroid_from_column(IDS, table(), "country", k=2)
    with pytest.raises(InvalidParameterError, match="column 'team' is missing"):
        partition_matroid_from_column(IDS, table(), "team", k=2, at_most=1)
    blank = table()
    blank.loc[2, "country"] = ""
    with pytest.raises(InvalidParameterError, match=r"row 3, column 'country': empty group of worker 'c'"):
        partition_matroid_from_column(IDS, blank, "country", k=2, at_most=1)


def test_docstring_examples_run():
    failures, attempted = doctest.testmod(constraints, verbose=False, report=False)
    assert attempted > 0 and failures == 0
