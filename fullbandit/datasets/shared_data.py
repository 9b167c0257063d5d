"""Where the raw data files that fullbandit does not ship are looked for by default.

The project's raw data (quiz answers, RTE labels, caption contest counts) sit in
``../shared/data`` next to a source checkout; loaders of files that are not embedded
default to a path under :data:`SHARED_DATA` and accept an explicit path instead.
"""

from __future__ import annotations

from pathlib import Path

#: ``<checkout>/../shared/data`` (the folder beside the repository holding the raw files).
SHARED_DATA = Path(__file__).resolve().parents[2].parent / "shared" / "data"
