"""The release files agree with the code: CITATION.cff and CHANGELOG.md name this version, and the citation
file says which paper to cite for every registered algorithm.

CITATION.cff is read with PyYAML, which the test extra brings (dask requires it).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml

import fullbandit
from fullbandit.core import registry

ROOT = Path(__file__).resolve().parents[1]
#: A release heading of Keep a Changelog: ``## [0.1.0] - 2026-11-26`` (``## [Unreleased]`` is none).
RELEASE = re.compile(r"^## \[(\d+\.\d+\.\d+[^\]]*)\] - (\d{4}-\d{2}-\d{2})$", flags=re.M)


@pytest.fixture(scope="module")
def citation() -> dict:
    return yaml.safe_load((ROOT / "CITATION.cff").read_text(encoding="utf-8"))


def _notes(citation: dict) -> list[str]:
    """The notes of the preferred citation and of every reference."""
    return [entry.get("notes", "") for entry in [citation["preferred-citation"], *citation["references"]]]


def _uncited(notes: list[str]) -> list[str]:
    """The registered algorithms' classes that no note names (as a word: ``SAR`` is not in ``NSAR``)."""
    return sorted({spec.cls.__name__ for spec in registry.specs()
                   if not any(re.search(rf"\b{spec.cls.__name__}\b", note) for note in notes)})


def test_the_citation_names_this_version(citation):
    assert str(citation["version"]) == fullbandit.__version__
    assert citation["cff-version"] == "1.2.0" and citation["license"] == "MIT"


def test_the_changelog_s_newest_release_is_this_version_released_when_the_citation_says():
    releases = RELEASE.findall((ROOT / "CHANGELOG.md").read_text(encoding="utf-8"))
    assert releases, "no '## [X.Y.Z] - YYYY-MM-DD' heading in CHANGELOG.md"
    version, date = releases[0]
    assert version == fullbandit.__version__
    citation = yaml.safe_load((ROOT / "CITATION.cff").read_text(encoding="utf-8"))
    assert str(citation["date-released"]) == date


def test_every_registered_algorithm_has_a_paper_to_cite(citation):
    assert _uncited(_notes(citation)) == []


def test_an_algorithm_left_out_of_the_notes_is_found(citation):
    """The negative control: without the note that names NSAR, NSAR is reported (SAR, named elsewhere, is not)."""
    notes = [note.replace("NSAR (nsar", "(nsar").replace("NSAR", "") for note in _notes(citation)]
    assert _uncited(notes) == ["NSAR"]
