"""Derive the embedded quiz correctness tables from the raw published files.

Usage (from the repository root)::

    python datasets/derive_quiz_tables.py [--source FOLDER] [--out DIR]

``--source`` defaults to ``quiz/`` in the data folder (``$FULLBANDIT_DATA``, else
``../shared/data`` beside the checkout: :mod:`fullbandit.datasets.shared_data`).

For each of the six data sets the raw ``answer.csv``/``truth.csv`` pair is graded with
:func:`fullbandit.datasets.load_quiz` and written as ``<name>.csv``: a header
``question_id,<worker ids>`` and one row per question with 1 where the worker's answer
equals the truth and 0 otherwise.  ``index.json`` records each data set's size,
accuracies, attribution and license.  Only these derived tables enter the repository,
never the raw answers.  Output is byte-for-byte reproducible.

Source: J. Li, Y. Baba and H. Kashima, "Hyper Questions: Unsupervised Targeting of a
Few Experts in Crowdsourcing", CIKM 2017 (CC BY 4.0).
"""

from __future__ import annotations

import argparse
import csv
import io
import json
import sys
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[1]
DEFAULT_OUT = REPO_ROOT / "fullbandit" / "datasets" / "embedded"

# Grade with the package's own loader (from this checkout, not some installed copy) so
# the embedded tables and load_quiz can never disagree on how a cell is judged.
sys.path.insert(0, str(REPO_ROOT))
from fullbandit.datasets import quiz  # noqa: E402
from fullbandit.datasets.shared_data import data_folder  # noqa: E402


def correctness_csv(data: quiz.QuizData) -> str:
    """The 0/1 table as CSV text with ``\\n`` line ends (platform independent)."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(["question_id", *data.worker_ids])
    for question_id, row in zip(data.question_ids, data.correct, strict=True):
        writer.writerow([question_id, *(int(cell) for cell in row)])
    return buffer.getvalue()


def index_entry(key: str, data: quiz.QuizData) -> dict:
    accuracies = data.accuracies
    return {
        "paper_name": quiz.PAPER_NAMES[key],
        "source_folder": quiz.SOURCE_FOLDERS[key],
        "n_questions": data.n_questions,
        "n_workers": data.n_workers,
        # Four decimals: enough to check the paper's two, and stable across platforms.
        "mean_accuracy": round(float(accuracies.mean()), 4),
        "best_accuracy": round(float(accuracies.max()), 4),
        "citation": quiz.CITATION,
        "license": quiz.LICENSE,
        "license_url": quiz.LICENSE_URL,
        "changes": quiz.CHANGES,
    }


def derive(source: Path, out: Path) -> dict:
    """Write every table and the index into ``out``; return the index."""
    out.mkdir(parents=True, exist_ok=True)
    index = {}
    for key in quiz.DATASETS:
        data = quiz.load_quiz(source / quiz.SOURCE_FOLDERS[key], name=key)
        (out / f"{key}.csv").write_text(correctness_csv(data), encoding="utf-8", newline="\n")
        index[key] = index_entry(key, data)
    text = json.dumps(index, indent=2, ensure_ascii=False) + "\n"
    (out / "index.json").write_text(text, encoding="utf-8", newline="\n")
    return index


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--source", type=Path, default=None,
                        help="folder holding ITMANAGE/, MEDICINE/, ... (default: quiz/ in the data folder)")
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT,
                        help="where to write the tables (default: %(default)s)")
    args = parser.parse_args(argv)
    if args.source is None:
        args.source = data_folder() / "quiz"
    if not args.source.is_dir():
        parser.error(f"source folder not found: {args.source}")
    index = derive(args.source, args.out)
    print(f"{'name':<10}{'questions':>10}{'workers':>9}{'mean':>8}{'best':>8}")
    for key, entry in index.items():
        print(f"{key:<10}{entry['n_questions']:>10}{entry['n_workers']:>9}"
              f"{entry['mean_accuracy']:>8.4f}{entry['best_accuracy']:>8.4f}")
    print(f"wrote {len(index)} tables and index.json to {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
