"""Derive the embedded RTE worker table from the published label file.

Usage (from the repository root)::

    python datasets/derive_rte_table.py [--source rte_labels.csv] [--out DIR]

``--source`` defaults to ``rte/rte_labels.csv`` in the data folder (``$FULLBANDIT_DATA``, else
``../shared/data`` beside the checkout: :mod:`fullbandit.datasets.shared_data`).

Writes ``rte_workers.csv``: ``worker,labels,correct``, one row per worker (sorted by id),
with the number of labels the worker gave and how many matched the gold label. Only this
table enters the repository, never the labels. Output is byte-for-byte reproducible.

Source: R. Snow, B. O'Connor, D. Jurafsky, A. Y. Ng. Cheap and fast - but is it good?
EMNLP 2008 (the RTE task), redistributed by the CrowdTruth project (Apache-2.0).
"""

from __future__ import annotations

import argparse
import csv
import io
import sys
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[1]
DEFAULT_OUT = REPO_ROOT / "fullbandit" / "datasets" / "embedded"

# Grade with the package's own loader, so the table and the CrowdTable of the raw labels cannot disagree.
sys.path.insert(0, str(REPO_ROOT))
from fullbandit.datasets.rte import RTE_TABLE, load_rte_labels  # noqa: E402


def table_csv(source: Path | None) -> str:
    table = load_rte_labels(source)
    counts = dict(zip(table.worker_ids, zip(table.n_answered, table.n_correct, strict=True), strict=True))
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(["worker", "labels", "correct"])
    for worker in sorted(counts):
        labels, correct = counts[worker]
        writer.writerow([worker, int(labels), int(correct)])
    return buffer.getvalue()


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--source", type=Path, default=None,
                        help="the published rte_labels.csv (default: rte/rte_labels.csv in the data folder)")
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    args = parser.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / RTE_TABLE).write_text(table_csv(args.source))
    print(f"wrote {args.out / RTE_TABLE}")


if __name__ == "__main__":
    main()
