"""The code a suite's results depend on, as digests that ignore documentation: so committed results
can be checked against the code of today.

A suite's code is the fullbandit modules its module imports, directly or through others (read
from the source, imports inside functions included), and the modules of every built-in
algorithm when the registry is among them (a suite may name an algorithm by its registry name,
which imports its module at run time). The machinery that runs a grid and stores its rows
(:data:`RUNNING`), the front ends and the package front doors that only re-export names
(:data:`FRONT_DOORS`) are left out: they decide where and in which order cells run, never what a
cell computes (every cell is seeded from its own description,
:mod:`fullbandit.experiments.grid`). So are the modules that only draw and summarise the rows
(:data:`PRESENTATION`: the shared plotting helpers, the suite declaration, the figure
modules): a figure can be redrawn in a new style without making its results stale. A record
written when one of them still counted is read without it.

Each module's digest is taken over its syntax tree with docstrings removed (``ast.dump``, which
also ignores comments, blank lines and layout), so editing documentation leaves results
current while any change to what the code does makes them stale.

``fullbandit bench NAME --out DIR`` writes :func:`code_record` beside the results as
``DIR/NAME.code.json``; :func:`stale_modules` says which modules changed since.

Examples
--------
>>> from fullbandit.experiments.suites import get_suite
>>> modules = suite_modules(get_suite("kuroki-table2"))
>>> "fullbandit.experiments.kuroki_samples" in modules, "fullbandit.full.icb" in modules
(True, True)
>>> "fullbandit.experiments.runner" in modules
False
"""

from __future__ import annotations

import ast
import functools
import hashlib
from pathlib import Path

from fullbandit.experiments.suite import Suite

#: Modules that run grids, store and label their rows, and the front ends: not part of any result.
RUNNING = ("fullbandit.experiments.runner", "fullbandit.experiments.backends", "fullbandit.experiments.store",
           "fullbandit.experiments.resume", "fullbandit.experiments.provenance",
           "fullbandit.experiments.interrupts", "fullbandit.experiments.code_record", "fullbandit.experiments.attest",
           "fullbandit.experiments.suites", "fullbandit.cli", "fullbandit.sessions")
#: Modules that draw or summarise rows, never compute one (a package: every module under it).
PRESENTATION = ("fullbandit.experiments.plots", "fullbandit.experiments.suite", "fullbandit.experiments.figures",
                "fullbandit.util.png")
#: Package front doors that only re-export names (left out like the machinery: listing a new name in one
#: changes no result).
FRONT_DOORS = ("fullbandit", "fullbandit.experiments")
_PACKAGE = Path(__file__).resolve().parent.parent
_REGISTRY = "fullbandit.core.registry"


def suite_modules(suite: Suite) -> list[str]:
    """The names of the fullbandit modules ``suite``'s results depend on, sorted."""
    return sorted(_closure(_defining_module(suite)))


def code_record(suite: Suite) -> dict:
    """``{"suite": name, "modules": {module: digest}}`` of the code ``suite``'s results depend on now."""
    return {"suite": suite.name, "modules": {name: module_digest(name) for name in suite_modules(suite)}}


def stale_modules(record: dict, suite: Suite) -> list[str]:
    """The modules whose code differs from ``record`` (a :func:`code_record` written with results),
    with those the suite depends on now but ``record`` does not name (and the reverse), sorted."""
    then = {name: digest for name, digest in record.get("modules", {}).items() if not _left_out(name)}
    now = code_record(suite)["modules"]
    return sorted(name for name in set(then) | set(now) if then.get(name) != now.get(name))


def module_digest(name: str) -> str:
    """SHA-256 of module ``name``'s syntax tree without its docstrings (``"missing"``: no such module)."""
    path = _source(name)
    return "missing" if path is None else source_digest(path)


def source_digest(path) -> str:
    """SHA-256 of the Python source file ``path``'s syntax tree without its docstrings.

    >>> import pathlib, tempfile
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (folder / "a.py").write_text("def f(x):\\n    '''Twice x.'''\\n    return 2 * x  # doubled\\n")
    >>> _ = (folder / "b.py").write_text("def f(x):\\n    '''Two times x, documented anew.'''\\n\\n    return 2*x\\n")
    >>> _ = (folder / "c.py").write_text("def f(x):\\n    '''Twice x.'''\\n    return 3 * x\\n")
    >>> source_digest(folder / "a.py") == source_digest(folder / "b.py") != source_digest(folder / "c.py")
    True
    """
    status = Path(path).stat()
    return _digest(str(path), status.st_mtime_ns, status.st_size)


def _tree(path) -> ast.Module:
    """The syntax tree of the source file ``path`` without its docstrings (read once while the file is unchanged)."""
    status = Path(path).stat()
    return _parsed(str(path), status.st_mtime_ns, status.st_size)


@functools.cache
def _digest(path: str, modified: int, size: int) -> str:
    return hashlib.sha256(ast.dump(_parsed(path, modified, size)).encode()).hexdigest()


@functools.cache  # by the file's modification time and size too: an edited file is read again
def _parsed(path: str, modified: int, size: int) -> ast.Module:
    tree = ast.parse(Path(path).read_bytes(), filename=path)
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef) and body \
                and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) \
                and isinstance(body[0].value.value, str):
            node.body = body[1:] or [ast.Pass()]
    return tree


def _defining_module(suite: Suite) -> str:
    build = suite.build
    while hasattr(build, "func"):  # a functools.partial
        build = build.func
    return build.__module__


def _closure(root: str) -> set[str]:
    found: set[str] = set()
    pending = [root]
    while pending:
        name = pending.pop()
        if name in found or name in FRONT_DOORS or _left_out(name) or _source(name) is None:
            continue
        found.add(name)
        pending.extend(_imports(name))
        if name == _REGISTRY:
            pending.extend(_builtin_algorithm_modules())
    return found


def _left_out(name: str) -> bool:
    """Whether module ``name`` runs grids or presents their rows (:data:`RUNNING`, :data:`PRESENTATION`)."""
    return any(name == module or name.startswith(module + ".") for module in (*RUNNING, *PRESENTATION))


@functools.cache
def _source(name: str) -> Path | None:
    """The source file of fullbandit module ``name`` (a package's ``__init__.py``), or ``None``.

    Read from this package's own folder, never found on ``sys.path`` (which may hold another copy).
    """
    if name != "fullbandit" and not name.startswith("fullbandit."):
        return None
    relative = Path(*name.split(".")[1:])
    for path in (_PACKAGE / relative / "__init__.py", (_PACKAGE / relative).with_suffix(".py")):
        if path.is_file():
            return path
    return None


@functools.cache  # a suite's modules are mostly every other suite's: each is read once per process
def _imports(name: str) -> list[str]:
    """The fullbandit modules module ``name`` imports anywhere in its source (``from a import b``: ``a.b`` too)."""
    path = _source(name)
    assert path is not None
    tree = _tree(path)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    names: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parent = package.rsplit(".", node.level - 1)[0] if node.level > 1 else package
                base = f"{parent}.{base}" if base else parent
            names.append(base)
            names += [f"{base}.{alias.name}" for alias in node.names]  # a submodule, when it is one
    parents = [".".join(module.split(".")[:depth]) for module in names for depth in range(2, module.count(".") + 1)]
    return [module for module in {*names, *parents} if _source(module) is not None]


def _builtin_algorithm_modules() -> list[str]:
    from fullbandit.core.registry import BUILTIN_ENTRIES

    return sorted({reference.partition(":")[0] for reference in BUILTIN_ENTRIES.values()})


__all__ = ["PRESENTATION", "RUNNING", "code_record", "module_digest", "source_digest", "stale_modules", "suite_modules"]
