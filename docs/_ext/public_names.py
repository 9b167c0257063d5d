"""``.. public-names::``: every name of ``fullbandit.__all__``, linked to the module page that documents it.

The top-level names are imported on first use (PEP 562), so autodoc would document none of them
on a ``fullbandit`` page; this table is generated from ``__all__`` instead, so that it cannot drift.
"""

from __future__ import annotations

import inspect
import types

from doc_nodes import bullet_list, first_line, python_reference
from docutils import nodes
from sphinx.util.docutils import SphinxDirective

import fullbandit


def public_names() -> list[tuple[str, str, str, str]]:
    """``(name, kind, target, summary)`` for each public name: the object's own dotted name is the target."""
    rows = []
    for name in sorted(fullbandit.__all__, key=str.lower):
        if name.startswith("_"):
            continue
        value = getattr(fullbandit, name)
        if isinstance(value, types.ModuleType):
            rows.append((name, "mod", value.__name__, first_line(value)))
        elif inspect.isclass(value) or inspect.isfunction(value):
            kind = "class" if inspect.isclass(value) else "func"
            rows.append((name, kind, f"{value.__module__}.{value.__qualname__}", first_line(value)))
        elif inspect.ismethod(value):  # a class's method offered as a function (fb.load)
            function = value.__func__
            rows.append((name, "meth", f"{function.__module__}.{function.__qualname__}", first_line(value)))
        else:
            rows.append((name, "data", "", type(value).__name__))
    return rows


class PublicNames(SphinxDirective):
    has_content = False

    def run(self) -> list[nodes.Node]:
        items = []
        for name, kind, target, summary in public_names():
            title = f"fb.{name}"
            inline = [python_reference(kind, target, title) if target else nodes.literal(title, title)]
            if summary:
                inline.append(nodes.Text(f": {summary}"))
            items.append(inline)
        return [bullet_list(items)]


def setup(app):
    app.add_directive("public-names", PublicNames)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
