"""Derive the caption contest 559 vote table from the published counts.

Usage (from the repository root)::

    python datasets/derive_caption_table.py --out DIR [--source counts.csv]

``--source`` defaults to ``caption559/counts.csv`` in the data folder (``$FULLBANDIT_DATA``, else
``../shared/data`` beside the checkout: :mod:`fullbandit.datasets.shared_data`).

Writes ``caption559.csv``: ``rank,not_funny,somewhat_funny,funny``, one row per caption in
the published order, with the published rank as id and the three vote counts (the
published ``votes`` column is checked against their sum and dropped). Output is
byte-for-byte reproducible.

The table is NOT embedded in the package: the upstream data
(https://github.com/nextml/caption-contest-data) state no licence, so ``--out`` has no
default inside ``fullbandit/``. Should the upstream licence be established and allow
redistribution, write it to ``fullbandit/datasets/embedded/`` and record the licence and
attribution in ``datasets/README.md`` and ``fullbandit/datasets/embedded/LICENSE``.

Source: L. Jain, K. Jamieson, R. Mankoff, R. Nowak, S. Sievert, The New Yorker Cartoon
Caption Contest Dataset (NEXT system), https://nextml.github.io/caption-contest-data/.
"""

from __future__ import annotations

import argparse
import csv
import io
import sys
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[1]
CAPTION_TABLE = "caption559.csv"

# Read with the package's own loader, so the table and the loader cannot disagree.
sys.path.insert(0, str(REPO_ROOT))
from fullbandit.datasets.votes import CAPTION559_ID, load_caption559  # noqa: E402


def table_csv(source: Path | None) -> str:
    data = load_caption559(source)
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow([CAPTION559_ID, *data.columns])
    for item, counts in zip(data.ids, data.counts, strict=True):
        writer.writerow([item, *(int(count) for count in counts)])
    return buffer.getvalue()


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--source", type=Path, default=None,
                        help="the published counts.csv (default: caption559/counts.csv in the data folder)")
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / CAPTION_TABLE).write_text(table_csv(args.source))
    print(f"wrote {args.out / CAPTION_TABLE}")


if __name__ == "__main__":
    main()
