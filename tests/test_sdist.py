"""The source distribution holds everything the tests read, so that they run from an unpacked sdist.

What the tests need is read from their source, without running them: every local module a file
under ``tests/`` imports (``import experiment_factories``, ``importlib.import_module("examples.x")``)
and every repository path they build from their own location (``ROOT / "benchmarks" / "report.py"``
with ``ROOT = Path(__file__).resolve().parents[1]``, ``(ROOT / "docs").glob("*.md")``). Whether the
sdist holds a file is decided without building it, from what setuptools adds by itself (the
package's modules and package data, the readme, the licence files, ``pyproject.toml``) and the rules
of ``MANIFEST.in``, applied in order as setuptools applies them. A slow test builds the sdist and
checks both readings against it.
"""

from __future__ import annotations

import ast
import glob
import re
import subprocess
import sys
import tarfile
import tomllib
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
TESTS = ROOT / "tests"
#: Where a test's ``import name`` is found: pytest puts ``tests/`` on ``sys.path``, ``python -m pytest`` the root.
IMPORT_ROOTS = (TESTS, ROOT)
#: MANIFEST.in commands that add files (the others remove them).
ADDING = {"include", "recursive-include", "global-include", "graft"}


@dataclass(frozen=True)
class Rule:
    """One line of ``MANIFEST.in``: a command and the path patterns it matches."""

    command: str
    patterns: tuple[re.Pattern, ...]

    def matches(self, path: str) -> bool:
        return any(pattern.fullmatch(path) for pattern in self.patterns)


def _glob(pattern: str) -> str:
    """A MANIFEST.in glob as a regular expression: ``*`` and ``?`` stay within one path component."""
    parts = re.split(r"(\*|\?|\[[^]]*\])", pattern)
    return "".join("[^/]*" if part == "*" else "[^/]" if part == "?" else part if part.startswith("[")
                   else re.escape(part) for part in parts)


def parse_manifest(text: str) -> list[Rule]:
    """The rules of a ``MANIFEST.in`` text, in order (comments and blank lines skipped)."""
    rules = []
    for line in text.splitlines():
        words = line.split("#")[0].split()
        if not words:
            continue
        command, arguments = words[0], words[1:]
        if command in ("include", "exclude"):
            patterns = [_glob(argument) for argument in arguments]
        elif command in ("recursive-include", "recursive-exclude"):
            folder, *names = arguments
            patterns = [f"{re.escape(folder.rstrip('/'))}/(?:.*/)?{_glob(name)}" for name in names]
        elif command in ("global-include", "global-exclude"):
            patterns = [f"(?:.*/)?{_glob(argument)}" for argument in arguments]
        elif command in ("graft", "prune"):
            patterns = [f"{re.escape(argument.rstrip('/'))}/.*" for argument in arguments]
        else:
            raise ValueError(f"MANIFEST.in: {command!r} is not a command this check knows")
        rules.append(Rule(command, tuple(map(re.compile, patterns))))
    return rules


def added_by_setuptools(path: str, project: dict) -> bool:
    """Whether setuptools puts ``path`` (relative, with ``/``) in the sdist without ``MANIFEST.in``."""
    metadata = project["project"]
    if path in ("pyproject.toml", "MANIFEST.in", metadata["readme"], *metadata.get("license-files", ())):
        return True
    if not path.startswith("fullbandit/") or "__pycache__" in path.split("/"):
        return False
    package_data = project["tool"]["setuptools"]["package-data"]
    return path.endswith(".py") or any(re.fullmatch(_glob(f"{package.replace('.', '/')}/{pattern}"), path)
                                       for package, patterns in package_data.items() for pattern in patterns)


def in_sdist(path: str, rules: Iterable[Rule], project: dict) -> bool:
    """Whether the sdist holds ``path``: the rules apply in order, after what setuptools adds by itself."""
    held = added_by_setuptools(path, project)
    for rule in rules:
        if rule.matches(path):
            held = rule.command in ADDING
    return held


# --- what the tests read ----------------------------------------------------------------------------------

def _module_file(name: str) -> Path | None:
    """The file of local module ``name`` (``a.b``: ``a/b.py`` or ``a/b/__init__.py``) beside the tests or the root."""
    relative = Path(*name.split("."))
    for base in IMPORT_ROOTS:
        for path in (base / relative.with_suffix(".py"), base / relative / "__init__.py"):
            if path.is_file():
                return path
    return None


def _package_inits(path: Path) -> Iterator[Path]:
    """The ``__init__.py`` of every package between ``path`` and the folder it is imported from."""
    base = next(base for base in IMPORT_ROOTS if path.is_relative_to(base))
    folder = path.parent
    while folder != base:
        if (folder / "__init__.py").is_file():
            yield folder / "__init__.py"
        folder = folder.parent


def _imported(nodes: list[ast.AST]) -> Iterator[str]:
    """Module names the ``nodes`` import, and string constants that could name one (``importlib.import_module``)."""
    for node in nodes:
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            yield node.module
            yield from (f"{node.module}.{alias.name}" for alias in node.names)
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) \
                and re.fullmatch(r"[A-Za-z_]\w*(\.[A-Za-z_]\w*)+", node.value):
            yield node.value


def _evaluate(node: ast.expr, names: dict[str, Path], file: Path) -> Path | None:
    """The path an expression such as ``Path(__file__).resolve().parents[1] / "docs"`` stands for, if it is one.

    ``names`` are the paths earlier assignments gave names (``ROOT``); anything else (``tmp_path``) is unknown.
    """
    match node:
        case ast.Name(id="__file__"):
            return file
        case ast.Name(id=name):
            return names.get(name)
        case ast.Attribute(value=ast.Name(id="fullbandit"), attr="__file__"):
            return ROOT / "fullbandit" / "__init__.py"
        case ast.Call(func=ast.Name(id="Path"), args=[argument]):
            return _evaluate(argument, names, file)
        case ast.Call(func=ast.Attribute(value=inner, attr="resolve"), args=[]):
            return _evaluate(inner, names, file)  # every path here is absolute and resolved already
        case ast.Attribute(value=inner, attr="parent"):
            path = _evaluate(inner, names, file)
            return None if path is None else path.parent
        case ast.Subscript(value=ast.Attribute(value=inner, attr="parents"), slice=ast.Constant(value=int(up))):
            path = _evaluate(inner, names, file)
            return None if path is None else path.parents[up]
        case ast.BinOp(left=left, op=ast.Div(), right=ast.Constant(value=str(part))):
            path = _evaluate(left, names, file)
            return None if path is None else path / part
    return None


def _in_repository(path: Path | None) -> Path | None:
    """``path`` if it exists inside the repository (``../shared`` is the data beside it, not in it)."""
    if path is None:
        return None
    path = path.resolve()
    return path if path.is_relative_to(ROOT) and path != ROOT and path.exists() else None


def _files(path: Path, pattern: str = "**/*") -> set[Path]:
    """``path`` if it is a file; else the files of the folder that match ``pattern`` (no byte code caches, and no
    ``.NAME.lock`` that ``fullbandit bench`` leaves beside the results it wrote: git-ignored, read by no test)."""
    if path.is_file():
        return {path}
    return {found for found in path.glob(pattern) if found.is_file() and "__pycache__" not in found.parts
            and not (found.name.startswith(".") and found.name.endswith(".lock"))}


def _pattern(node: ast.expr) -> str | None:
    """A glob for the path part ``node`` builds: text as it is, ``*`` for what is computed (``f"{name}.csv"``)."""
    match node:
        case ast.Constant(value=str(text)):
            return glob.escape(text)
        case ast.JoinedStr(values=values):
            return "".join(_pattern(value) or "*" for value in values)
        case ast.BinOp(left=left, op=ast.Add(), right=right):
            return (_pattern(left) or "*") + (_pattern(right) or "*")
    return None


def _chain_files(node: ast.BinOp, names: dict[str, Path], file: Path) -> set[Path]:
    """The repository files a chain of ``/`` names: a file, or the files its computed parts can match.

    ``RESULTS / f"{name}.csv"`` is every ``*.csv`` of the folder; ``DOCS / page`` (a name only known when the
    test runs) is nothing, as is a folder alone.
    """
    part: ast.expr = node
    rest: list[ast.expr] = []
    while isinstance(part, ast.BinOp) and isinstance(part.op, ast.Div) and _evaluate(part, names, file) is None:
        rest.insert(0, part.right)
        part = part.left
    path = _in_repository(_evaluate(part, names, file))
    if path is None:
        return set()
    if not rest:
        return {path} if path.is_file() else set()
    patterns = [_pattern(operand) for operand in rest]
    if any(pattern is None or not pattern.strip("*") for pattern in patterns):
        return set()
    return _files(path, "/".join(patterns))  # type: ignore[arg-type]


def _opened(nodes: list[ast.AST], file: Path) -> set[Path]:
    """Repository files module ``file`` (its ``nodes``) names: paths built from its own location, the files
    its ``glob``s match, and every file of a folder it hands to a function whole (``headline_claims(RESULTS)``)."""
    names: dict[str, Path] = {}
    for node in nodes:  # breadth first (ast.walk): the module's assignments before those in its functions
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            value = _evaluate(node.value, names, file)
            if value is not None:
                names[node.targets[0].id] = value
    found: set[Path] = set()
    inner = {id(node.left) for node in nodes if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Div)}
    for node in nodes:
        if isinstance(node, ast.Call):
            if isinstance(node.func, ast.Attribute) and node.func.attr in ("glob", "rglob", "iterdir"):
                folder = _in_repository(_evaluate(node.func.value, names, file))
                pattern = node.args[0].value if node.args and isinstance(node.args[0], ast.Constant) else "*"
                if folder is not None and isinstance(pattern, str):
                    found |= _files(folder, ("**/" if node.func.attr == "rglob" else "") + pattern)
            for argument in [*node.args, *(keyword.value for keyword in node.keywords)]:
                path = _in_repository(_evaluate(argument, names, file))
                if path is not None:
                    found |= _files(path)
        elif isinstance(node, ast.BinOp) and isinstance(node.op, ast.Div) and id(node) not in inner:
            found |= _chain_files(node, names, file)
    return found


def needed_files() -> set[str]:
    """Every repository file the tests import or read, relative to the root with ``/``."""
    pending = sorted(TESTS.rglob("*.py"))
    seen: set[Path] = set()
    needed: set[Path] = set()
    while pending:
        path = pending.pop()
        if path in seen:
            continue
        seen.add(path)
        needed.add(path)
        nodes = list(ast.walk(ast.parse(path.read_text(encoding="utf-8"))))
        needed |= _opened(nodes, path)
        # The package itself is shipped whole by setuptools: only the local helpers are followed.
        for name in _imported(nodes):
            module = None if name.partition(".")[0] == "fullbandit" else _module_file(name)
            if module is not None:
                pending.append(module)
                needed |= set(_package_inits(module))
    return {path.relative_to(ROOT).as_posix() for path in needed}


# --- the checks --------------------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def project() -> dict:
    return tomllib.loads((ROOT / "pyproject.toml").read_text())


@pytest.fixture(scope="module")
def needed() -> set[str]:
    return needed_files()


def _manifest() -> list[str]:
    return (ROOT / "MANIFEST.in").read_text().splitlines()


def test_the_tests_own_reads_are_found(needed):
    """The finder sees each kind of use (so that an empty list cannot pass for a complete one)."""
    assert {"tests/experiment_factories.py", "tests/reference/__init__.py", "tests/reference/checks.py",
            "examples/extending/star_icb.py", "benchmarks/report.py", "docs/REPRODUCTION.md", ".ci/run",
            "datasets/derive_rte_table.py", "fullbandit/datasets/embedded/rte_workers.csv",
            "benchmarks/results/kuroki-table2.csv", "README.md", "pyproject.toml"} <= needed
    assert not [path for path in needed if path.startswith(("docs/_build", "docs/api/generated"))]


def test_the_sdist_holds_every_file_the_tests_read(needed, project):
    rules = parse_manifest("\n".join(_manifest()))
    missing = sorted(path for path in needed if not in_sdist(path, rules, project))
    assert not missing, f"the sdist would lack {missing}: add them to MANIFEST.in"


@pytest.mark.parametrize("line", ["recursive-include tests *.py", "include .ci/run", "include benchmarks/*.py"])
def test_without_a_line_of_the_manifest_files_would_be_missing(needed, project, line):
    """The negative control: the check fails when a line it depends on is gone."""
    lines = _manifest()
    assert line in lines
    rules = parse_manifest("\n".join(other for other in lines if other != line))
    assert [path for path in needed if not in_sdist(path, rules, project)]


def test_the_rules_read_as_setuptools_reads_them(project):
    rules = parse_manifest("recursive-include docs *.md\nprune docs/_build\nglobal-exclude *.py[co]\n"
                           "include datasets/*.py")
    assert in_sdist("docs/a/b.md", rules, project) and not in_sdist("docs/_build/b.md", rules, project)
    assert in_sdist("datasets/x.py", rules, project) and not in_sdist("datasets/sub/x.py", rules, project)
    assert not in_sdist("fullbandit/__pycache__/x.pyc", rules, project)
    assert in_sdist("fullbandit/core/loop.py", rules, project) and in_sdist("fullbandit/py.typed", rules, project)
    assert not in_sdist("benchmarks/out/x.csv", rules, project)


@pytest.mark.slow
def test_a_built_sdist_holds_what_the_check_says(tmp_path, needed, project):
    """Build the sdist (``python -m build``, which fetches setuptools) and compare it with the check's reading."""
    pytest.importorskip("build")
    subprocess.run([sys.executable, "-m", "build", "--sdist", "--outdir", str(tmp_path), str(ROOT)], check=True,
                   capture_output=True, timeout=600)
    [archive] = tmp_path.glob("*.tar.gz")
    with tarfile.open(archive) as tar:
        held = {name.partition("/")[2] for name in tar.getnames()}
    assert needed <= held, sorted(needed - held)
    rules = parse_manifest("\n".join(_manifest()))
    generated = {"PKG-INFO", "setup.cfg"}
    predicted = {path for path in held if path and not path.startswith("fullbandit.egg-info")
                 and (ROOT / path).is_file() and path not in generated}
    assert [path for path in predicted if not in_sdist(path, rules, project)] == []
