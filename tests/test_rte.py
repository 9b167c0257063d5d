"""The embedded RTE worker table: its totals, and that it is exactly what the derivation makes of the raw labels."""

from __future__ import annotations

import csv
import importlib.util
from pathlib import Path

import numpy as np
import pytest

from fullbandit.datasets.rte import RTE_TABLE, accuracies_from_labels, load_rte

RAW = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "rte" / "rte_labels.csv"


def test_embedded_table_totals_match_the_published_description():
    rte = load_rte()
    # 8,000 labels from 164 workers, between 20 and 800 each (data README).
    assert rte.n_workers == 164 and rte.labels.sum() == 8000
    assert rte.labels.min() == 20 and rte.labels.max() == 800
    assert np.all((0 <= rte.correct) & (rte.correct <= rte.labels))
    assert list(rte.worker_ids) == sorted(rte.worker_ids)


@pytest.mark.skipif(not RAW.is_file(), reason=f"the raw RTE labels are not at {RAW}")
def test_derivation_reproduces_the_embedded_table_from_the_raw_labels(tmp_path):
    spec = importlib.util.spec_from_file_location("derive", Path(__file__).resolve().parents[1] / "datasets"
                                                  / "derive_rte_table.py")
    derive = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(derive)
    derive.main(["--source", str(RAW), "--out", str(tmp_path)])
    embedded = Path(__file__).resolve().parents[1] / "fullbandit" / "datasets" / "embedded" / RTE_TABLE
    assert (tmp_path / RTE_TABLE).read_text() == embedded.read_text()
    # And an independent count of the raw file agrees with the loader.
    with RAW.open(newline="") as handle:
        rows = list(csv.DictReader(handle))
    raw = accuracies_from_labels(RAW)
    first = raw.worker_ids[0]
    mine = [row for row in rows if row["worker"] == first]
    assert raw.labels[0] == len(mine) and raw.correct[0] == sum(row["label"] == row["gold"] for row in mine)
    assert len({row["task"] for row in rows}) == 800


def test_a_label_file_without_its_columns_is_refused(tmp_path):
    path = tmp_path / "labels.csv"
    path.write_text("task,worker,label\n1,a,0\n")
    with pytest.raises(ValueError, match="gold"):
        accuracies_from_labels(path)
