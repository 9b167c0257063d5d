"""Every dotted ``fullbandit.…`` name written in the package, the README and the docs names something that exists.

A module moved or split leaves references behind in docstrings and prose; they are found here
rather than by a reader.
"""

from __future__ import annotations

import importlib
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
REFERENCE = re.compile(r"\bfullbandit(?:\.[A-Za-z_][A-Za-z0-9_]*)+")
#: Dotted names that are not Python objects: the entry point group of plug-in algorithms, the documentation's host.
NOT_OBJECTS = {"fullbandit.algorithms", "fullbandit.readthedocs.io"}


def _resolves(reference: str) -> bool:
    parts = reference.split(".")
    for split in range(len(parts), 0, -1):
        try:
            value = importlib.import_module(".".join(parts[:split]))
        except ImportError:
            continue
        for part in parts[split:]:
            if not hasattr(value, part):
                return False
            value = getattr(value, part)
        return True
    return False


def _written_references() -> dict[str, set[str]]:
    files = [*(ROOT / "fullbandit").rglob("*.py"), *(ROOT / "examples").rglob("*.py"), ROOT / "README.md",
             *(ROOT / "docs").rglob("*.md")]
    found: dict[str, set[str]] = {}
    for path in files:
        for match in REFERENCE.finditer(path.read_text(encoding="utf-8")):
            reference = match.group(0)
            if reference.endswith((".py", ".egg")) or "__main__" in reference or reference in NOT_OBJECTS:
                continue
            found.setdefault(reference, set()).add(str(path.relative_to(ROOT)))
    return found


def test_every_written_reference_resolves():
    references = _written_references()
    assert len(references) > 100  # the scan reads what it should
    broken = {reference: sorted(files) for reference, files in references.items() if not _resolves(reference)}
    assert broken == {}, "\n".join(f"{reference}: {files}" for reference, files in sorted(broken.items()))


def test_a_moved_name_is_caught():
    assert not _resolves("fullbandit.linalg.estimation.confidence_radius")
    assert _resolves("fullbandit.linalg.radius.confidence_radius") and _resolves("fullbandit.core.registry")


FB_NAME = re.compile(r"\bfb\.([A-Za-z_][A-Za-z0-9_]*)")


def test_every_fb_name_in_the_tests_benchmarks_and_readme_exists():
    """``fb.<name>`` (``import fullbandit as fb``) is a public name of the package or one of its sub-packages."""
    import fullbandit

    files = [*(ROOT / "tests").rglob("*.py"), *(ROOT / "benchmarks").glob("*.py"), *(ROOT / "examples").rglob("*.py"),
             *(ROOT / "fullbandit").rglob("*.py"), ROOT / "README.md", *(ROOT / "docs").rglob("*.md")]
    subpackages = {path.name for path in (ROOT / "fullbandit").iterdir() if (path / "__init__.py").exists()}
    missing = sorted({f"fb.{name} in {path.relative_to(ROOT)}" for path in files
                      for name in FB_NAME.findall(path.read_text(encoding="utf-8"))
                      if name not in fullbandit.__all__ and name not in subpackages})
    assert missing == [], "\n".join(missing)
