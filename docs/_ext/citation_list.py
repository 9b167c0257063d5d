"""``.. citation-list::``: the references of the repository's CITATION.cff, as a list (never written twice).

Each entry shows its authors, title, venue, year, DOI or URL when the file gives them, and its
``notes`` (which of fullbandit's algorithms to cite it for). PyYAML comes with MyST.
"""

from __future__ import annotations

from pathlib import Path

import yaml
from doc_nodes import bullet_list
from docutils import nodes
from sphinx.util.docutils import SphinxDirective

CITATION = Path(__file__).resolve().parents[2] / "CITATION.cff"


def _authors(reference: dict) -> str:
    names = []
    for author in reference.get("authors", []):
        if "name" in author:
            names.append(author["name"])
        else:
            names.append(" ".join(part for part in (author.get("given-names"), author.get("family-names")) if part))
    return ", ".join(names)


def _venue(reference: dict) -> str:
    for key in ("journal", "conference", "collection-title", "publisher"):
        value = reference.get(key)
        if isinstance(value, dict):
            value = value.get("name")
        if value:
            return str(value)
    return ""


def entry(reference: dict) -> list[nodes.Node]:
    """One reference as inline nodes (built directly, so that it reads the same in Markdown and rST pages)."""
    title = str(reference["title"])
    inline: list[nodes.Node] = [nodes.Text(f"{_authors(reference)}. "), nodes.emphasis(title, title)]
    venue = _venue(reference)
    details = ", ".join(str(part) for part in (venue, reference.get("volume") and f"vol. {reference['volume']}",
                                                reference.get("year")) if part)
    inline.append(nodes.Text(f". {details}." if details else "."))
    link = f"https://doi.org/{reference['doi']}" if reference.get("doi") else reference.get("url")
    if link:
        label = f"doi:{reference['doi']}" if reference.get("doi") else link
        inline += [nodes.Text(" "), nodes.reference(label, label, refuri=link)]
    if reference.get("notes"):
        inline.append(nodes.Text(f" {reference['notes']}"))
    return inline


class CitationList(SphinxDirective):
    """The preferred citation, then every reference of CITATION.cff."""

    has_content = False

    def run(self) -> list[nodes.Node]:
        self.env.note_dependency(str(CITATION))
        data = yaml.safe_load(CITATION.read_text(encoding="utf-8"))
        preferred = [nodes.strong("To cite the toolkit: ", "To cite the toolkit: "), *entry(data["preferred-citation"])]
        return [bullet_list([preferred, *(entry(reference) for reference in data.get("references", []))])]


def setup(app):
    app.add_directive("citation-list", CitationList)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
