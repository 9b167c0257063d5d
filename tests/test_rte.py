"""The RTE data: the embedded worker table, the raw labels as a CrowdTable, and that the two agree exactly."""

from __future__ import annotations

import csv
import importlib.util
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest

from fullbandit import InvalidParameterError
from fullbandit.datasets.crowd import CrowdTable
from fullbandit.datasets.rte import RTE_LABELS, RTE_TABLE, load_rte, load_rte_labels
from fullbandit.datasets.shared_data import DATA_VARIABLE, data_folder

ROOT = Path(__file__).resolve().parents[1]
RAW = data_folder() / RTE_LABELS  # where load_rte_labels() reads: $FULLBANDIT_DATA, else ../shared/data
needs_raw = pytest.mark.skipif(not RAW.is_file(), reason=f"the raw RTE labels (shared data, not in the repository) "
                                                         f"are not at {RAW} (set {DATA_VARIABLE})")


def test_embedded_table_totals_match_the_published_description():
    rte = load_rte()
    # 8,000 labels from 164 workers, between 20 and 800 each (data README).
    assert rte.n_workers == 164 and rte.labels.sum() == 8000
    assert rte.labels.min() == 20 and rte.labels.max() == 800
    assert np.all((0 <= rte.correct) & (rte.correct <= rte.labels))
    assert list(rte.worker_ids) == sorted(rte.worker_ids)


def test_the_default_path_is_the_shared_data_beside_the_checkout(monkeypatch):
    monkeypatch.delenv(DATA_VARIABLE, raising=False)
    assert data_folder() / RTE_LABELS == ROOT.parent.resolve() / "shared" / "data" / "rte" / "rte_labels.csv"


@needs_raw
def test_derivation_reproduces_the_embedded_table_from_the_raw_labels(tmp_path):
    spec = importlib.util.spec_from_file_location("derive", ROOT / "datasets" / "derive_rte_table.py")
    derive = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(derive)
    derive.main(["--source", str(RAW), "--out", str(tmp_path)])
    embedded = ROOT / "fullbandit" / "datasets" / "embedded" / RTE_TABLE
    assert (tmp_path / RTE_TABLE).read_text() == embedded.read_text()


@needs_raw
def test_raw_labels_as_a_crowd_table_equal_the_embedded_table_and_a_brute_force_count():
    table = load_rte_labels()  # the default path
    assert isinstance(table, CrowdTable)
    assert (table.n_workers, table.n_tasks, int(table.n_answered.sum())) == (164, 800, 8000)
    embedded = load_rte()
    order = [embedded.worker_ids.index(worker) for worker in table.worker_ids]  # both hold the same 164 ids
    assert sorted(table.worker_ids) == list(embedded.worker_ids)
    np.testing.assert_array_equal(table.n_answered, embedded.labels[order])
    np.testing.assert_array_equal(table.n_correct, embedded.correct[order])
    # Brute force with the csv module: every worker's accuracy as an exact fraction.
    tally: dict[str, list[int]] = {}
    with RAW.open(newline="") as handle:
        for row in csv.DictReader(handle):
            counts = tally.setdefault(row["worker"], [0, 0])
            counts[0] += 1
            counts[1] += row["label"] == row["gold"]
    assert set(tally) == set(table.worker_ids)
    for worker, accuracy in zip(table.worker_ids, table.accuracies, strict=True):
        answered, right = tally[worker]
        assert Fraction(right, answered) == Fraction(accuracy).limit_denominator(1000), worker
        assert accuracy == right / answered


def test_a_label_file_without_its_gold_column_is_refused_naming_it(tmp_path):
    path = tmp_path / "labels.csv"
    path.write_text("task,worker,label\n1,a,0\n")
    with pytest.raises(InvalidParameterError, match=r"labels\.csv: column 'gold' is missing; columns present: "
                                                    r"'task', 'worker', 'label'"):
        load_rte_labels(path)
    with pytest.raises(FileNotFoundError, match=r"RTE labels are not at .*nowhere\.csv.*load_rte_labels\(path="):
        load_rte_labels(tmp_path / "nowhere.csv")


def test_a_small_label_file_is_graded_per_worker(tmp_path):
    path = tmp_path / "labels.csv"
    path.write_text("task,worker,label,gold\n1,a,1,1\n1,b,0,1\n2,a,0,0\n2,b,0,0\n3,b,1,0\n")
    table = load_rte_labels(path)
    assert table.worker_ids == ("a", "b") and table.task_ids == ("1", "2", "3")
    assert table.n_correct.tolist() == [2, 1] and table.n_answered.tolist() == [2, 3]
