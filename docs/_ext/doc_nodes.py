"""Docutils nodes the documentation's own directives build (registry tables, public names, citations).

The directives build nodes rather than markup text, so that they read the same in Markdown (MyST)
and reStructuredText pages; these are the pieces they share.
"""

from __future__ import annotations

import inspect

from docutils import nodes
from sphinx import addnodes


def first_line(value: object) -> str:
    """The first line of ``value``'s docstring (``""`` without one)."""
    doc = (inspect.getdoc(value) or "").strip()
    return doc.splitlines()[0] if doc else ""


def python_reference(kind: str, target: str, title: str) -> nodes.Node:
    """A cross-reference to a Python object, resolved by Sphinx like ``:class:`title <target>```."""
    reference = addnodes.pending_xref("", refdomain="py", reftype=kind, reftarget=target, refexplicit=True,
                                      refwarn=True)
    reference += nodes.literal(title, title, classes=["xref", "py", f"py-{kind}"])
    return reference


def bullet_list(items: list[list[nodes.Node]]) -> nodes.bullet_list:
    """A bullet list with one paragraph of the given inline nodes per item."""
    bullets = nodes.bullet_list()
    for inline in items:
        item = nodes.list_item()
        item += nodes.paragraph("", "", *inline)
        bullets += item
    return bullets
