"""``.. public-names::``: every name of ``fullbandit.__all__``, linked to the module page that documents it.

The top-level names are imported on first use (PEP 562), so autodoc would document none of them
on a ``fullbandit`` page; this table is generated from ``__all__`` instead, so that it cannot drift.
"""

from __future__ import annotations

import inspect
import types

from docutils import nodes
from sphinx import addnodes
from sphinx.util.docutils import SphinxDirective

import fullbandit


def _first_line(value: object) -> str:
    doc = inspect.getdoc(value) or ""
    return doc.strip().splitlines()[0] if doc.strip() else ""


def public_names() -> list[tuple[str, str, str, str]]:
    """``(name, kind, target, summary)`` for each public name: the object's own dotted name is the target."""
    rows = []
    for name in sorted(fullbandit.__all__, key=str.lower):
        if name.startswith("_"):
            continue
        value = getattr(fullbandit, name)
        if isinstance(value, types.ModuleType):
            rows.append((name, "mod", value.__name__, _first_line(value)))
        elif inspect.isclass(value) or inspect.isfunction(value):
            kind = "class" if inspect.isclass(value) else "func"
            rows.append((name, kind, f"{value.__module__}.{value.__qualname__}", _first_line(value)))
        elif inspect.ismethod(value):  # a class's method offered as a function (fb.load)
            function = value.__func__
            rows.append((name, "meth", f"{function.__module__}.{function.__qualname__}", _first_line(value)))
        else:
            rows.append((name, "data", "", type(value).__name__))
    return rows


class PublicNames(SphinxDirective):
    has_content = False

    def run(self) -> list[nodes.Node]:
        items = nodes.bullet_list()
        for name, kind, target, summary in public_names():
            paragraph = nodes.paragraph()
            if target:
                reference = addnodes.pending_xref("", refdomain="py", reftype=kind, reftarget=target,
                                                  refexplicit=True, refwarn=True)
                reference += nodes.literal(f"fb.{name}", f"fb.{name}")
                paragraph += reference
            else:
                paragraph += nodes.literal(f"fb.{name}", f"fb.{name}")
            if summary:
                paragraph += nodes.Text(f": {summary}")
            item = nodes.list_item()
            item += paragraph
            items += item
        return [items]


def setup(app):
    app.add_directive("public-names", PublicNames)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
