"""The package as it was at a git reference, extracted for a side-by-side benchmark (``git archive``)."""

from __future__ import annotations

import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def extract_package(reference: str, folder: Path) -> Path:
    """Write ``fullbandit/`` as it was at ``reference`` into ``folder``; return ``folder`` (first on the path)."""
    archive = subprocess.run(["git", "archive", reference, "fullbandit"], cwd=ROOT, check=True,
                             capture_output=True).stdout
    subprocess.run(["tar", "-x", "-C", str(folder)], input=archive, check=True)
    return Path(folder)
