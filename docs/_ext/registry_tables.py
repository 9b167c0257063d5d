"""The algorithm tables of the documentation, generated from the registry (never written by hand).

``.. algorithm-table::`` with ``:feedback: full|semi`` and ``:problem: TopK|Thresholding|...``
lists the registered algorithms of that family: name, class, what it is, guarantee, setting, what
the budget counts. ``.. algorithm-options::`` with the same filters lists each one's options with
their defaults, read from the class's signature as :meth:`AlgorithmSpec.defaults` does.
``.. dks-oracle-table::`` lists the densest-k-subgraph oracles with the ratio each proves. A registered
algorithm that no algorithm table shows is a build warning (an error under ``-W``).
"""

from __future__ import annotations

import functools
import sys

from doc_nodes import first_line, python_reference
from docutils import nodes
from docutils.parsers.rst import directives
from sphinx.util import logging
from sphinx.util.docutils import SphinxDirective

from fullbandit.cli.main import plain
from fullbandit.core import registry

logger = logging.getLogger(__name__)


def selected(feedback: str | None, problem: str | None) -> list[registry.AlgorithmSpec]:
    """The registry's entries of one family, in registry order; refuses a filter that selects nothing."""
    specs = [spec for spec in registry.specs()
             if (feedback is None or spec.feedback == feedback)
             and (problem is None or any(cls.__name__ == problem for cls in spec.decision_classes))]
    if not specs:
        raise ValueError(f"no registered algorithm has feedback={feedback!r} and problem={problem!r}")
    return specs


Cell = list[nodes.Node]


def _text(text: str) -> Cell:
    return [nodes.Text(text)]


def _code(text: str) -> Cell:
    return [nodes.literal(text, text)]


def _reference(kind: str, target: str, title: str) -> Cell:
    return [python_reference(kind, target, title)]


def _class_cell(spec: registry.AlgorithmSpec) -> Cell:
    cell = _reference("class", f"{spec.cls.__module__}.{spec.cls.__name__}", spec.cls.__name__)
    if spec.fixed:
        cell += _text(" (" + ", ".join(f"{key}={value!r}" for key, value in spec.fixed.items()) + ")")
    return cell


def _table(header: list[str], rows: list[list[Cell]], widths: list[int]) -> nodes.table:
    """A docutils table with a header row: built as nodes, so that it reads the same in Markdown and rST pages."""
    group = nodes.tgroup(cols=len(header))
    group += [nodes.colspec(colwidth=width) for width in widths]

    def row(cells: list[Cell]) -> nodes.row:
        built = nodes.row()
        for cell in cells:
            entry = nodes.entry()
            entry += nodes.paragraph("", "", *cell)
            built += entry
        return built

    head = nodes.thead()
    head += row([_text(title) for title in header])
    body = nodes.tbody()
    body += [row(cells) for cells in rows]
    group += [head, body]
    table = nodes.table(classes=["registry-table", "colwidths-given"])
    table += group
    return table


class _RegistryDirective(SphinxDirective):
    has_content = False
    option_spec = {"feedback": directives.unchanged, "problem": directives.unchanged}

    def _specs(self) -> list[registry.AlgorithmSpec]:
        try:
            return selected(self.options.get("feedback"), self.options.get("problem"))
        except ValueError as error:
            raise self.error(str(error)) from error


class AlgorithmTable(_RegistryDirective):
    """One row per registered algorithm of the family selected by the options."""

    def run(self) -> list[nodes.Node]:
        _tabled(self.env).update((self.env.docname, spec.name) for spec in self._specs())
        rows = [[_code(spec.name), _class_cell(spec), _text(spec.summary), _text(spec.guarantee), _text(spec.setting),
                 _text(spec.budget_unit)] for spec in self._specs()]
        header = ["name", "class", "what it is", "guarantee", "setting", "budget counts"]
        return [_table(header, rows, [12, 16, 44, 10, 10, 8])]


class AlgorithmOptions(_RegistryDirective):
    """One row per registered algorithm: every option it takes, with its default."""

    def run(self) -> list[nodes.Node]:
        rows = []
        for spec in self._specs():
            defaults = spec.defaults()
            options: Cell = []
            for name in spec.options:
                if options:
                    options += _text(", ")
                options += _code(f"{name}={defaults[name]!r}" if name in defaults else name)
            rows.append([_code(spec.name), options])
        return [_table(["name", "options (default)"], rows, [15, 85])]


class DksOracleTable(SphinxDirective):
    """One row per densest-k-subgraph oracle of :data:`fullbandit.dks.ORACLES`: what it runs, what it proves."""

    has_content = False

    def run(self) -> list[nodes.Node]:
        from fullbandit.dks import ORACLES

        rows = []
        for name, oracle in ORACLES.items():
            searched = isinstance(oracle.run, functools.partial)
            base = oracle.run.args[0] if searched else oracle.run
            what = first_line(sys.modules[base.__module__])
            cell = _reference("mod", base.__module__, base.__module__) + _text(": " + what)
            if searched:
                cell += _text(" Then 1-swap local search (") + _reference("mod", "fullbandit.dks.swaps",
                                                                           "fullbandit.dks.swaps") + _text(").")
            ratio = plain(first_line(oracle.proven_ratio))
            rows.append([_code(name), cell, _text(ratio), _text(f"{oracle.proven_ratio(100, 10):.3g}")])
        header = ["name", "what it runs", "proven ratio", "at n = 100, k = 10"]
        return [_table(header, rows, [12, 44, 34, 10])]


def _tabled(env) -> set[tuple[str, str]]:
    """``(page, algorithm)`` for every row of every algorithm table read so far (kept in the environment)."""
    if not hasattr(env, "fullbandit_tabled"):
        env.fullbandit_tabled = set()
    return env.fullbandit_tabled


def _forget_page(app, env, docname: str) -> None:
    _tabled(env).difference_update({entry for entry in _tabled(env) if entry[0] == docname})


def _merge(app, env, docnames, other) -> None:
    _tabled(env).update(_tabled(other))


def _every_algorithm_tabled(app, env) -> None:
    """Warn (an error under ``-W``) when a registered algorithm is on no family page's table."""
    missing = sorted(set(registry.names()) - {name for _, name in _tabled(env)})
    if missing:
        logger.warning("registered algorithms on no algorithm-table of the documentation: %s", ", ".join(missing))


def setup(app):
    app.connect("env-purge-doc", _forget_page)
    app.connect("env-merge-info", _merge)
    app.connect("env-check-consistency", _every_algorithm_tabled)
    app.add_directive("algorithm-table", AlgorithmTable)
    app.add_directive("dks-oracle-table", DksOracleTable)
    app.add_directive("algorithm-options", AlgorithmOptions)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
