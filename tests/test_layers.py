"""The package's layers as a contract: each folder is a layer, and a module imports only its own layer and those below.

Every import of a ``fullbandit`` module counts, wherever it stands (module top, inside a function, under
``TYPE_CHECKING``): an import deferred into a function still makes the dependency, so deferring one cannot
hide a circle. Within a layer the modules' imports form no circle either, and no module imports another
module's private (``_``-prefixed) name. ``fullbandit/__init__.py`` (the lazy re-exports) and ``__main__``
sit on top of everything.
"""

from __future__ import annotations

import ast
import pickle
import subprocess
import sys
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "fullbandit"

#: The layers, lowest first; a module may import its own layer and any layer listed before it.
LAYERS = (
    ("util",),
    ("problems", "environments"),
    ("linalg",),
    ("design", "dks"),
    ("core",),
    ("full", "semi"),
    ("analysis", "datasets"),
    ("experiments", "sessions"),
    ("cli",),
)
RANK = {folder: rank for rank, folders in enumerate(LAYERS) for folder in folders}
TOP = {"fullbandit", "fullbandit.__main__"}


def _module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _modules() -> dict[str, Path]:
    return {_module_name(path): path for path in sorted(PACKAGE.rglob("*.py"))}


MODULES = _modules()


def _target(node: ast.ImportFrom | ast.Import, module: str, is_package: bool) -> list[tuple[str, list[str]]]:
    """The ``fullbandit`` modules ``node`` imports, each with the names it takes from it."""
    if isinstance(node, ast.Import):
        return [(alias.name, []) for alias in node.names if alias.name.split(".")[0] == "fullbandit"]
    base = node.module or ""
    if node.level:
        parent = module.split(".") if is_package else module.split(".")[:-1]
        base = ".".join(parent[: len(parent) - node.level + 1] + ([base] if base else []))
    if base.split(".")[0] != "fullbandit":
        return []
    found = []
    for alias in node.names:  # `from fullbandit.core import registry` imports the sub-module
        if f"{base}.{alias.name}" in MODULES:
            found.append((f"{base}.{alias.name}", []))
        else:
            found.append((base, [alias.name]))
    return found


def _imports() -> dict[str, list[tuple[str, list[str], int]]]:
    graph: dict[str, list[tuple[str, list[str], int]]] = {}
    for module, path in MODULES.items():
        tree = ast.parse(path.read_text(), str(path))
        edges = []
        for node in ast.walk(tree):
            if isinstance(node, ast.Import | ast.ImportFrom):
                for target, names in _target(node, module, path.name == "__init__.py"):
                    edges.append((target, names, node.lineno))
        graph[module] = edges
    return graph


GRAPH = _imports()


def _layer(module: str) -> str | None:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 and module not in TOP else None


def test_every_folder_of_the_package_is_a_declared_layer():
    # A package inside a layer's folder (experiments/figures) belongs to that layer.
    folders = {path.relative_to(PACKAGE).parts[0] for path in PACKAGE.rglob("*.py") if path.parent != PACKAGE}
    folders |= {path.stem for path in PACKAGE.glob("*.py")} - {"__init__", "__main__"}
    assert folders - {"embedded"} <= set(RANK), f"not in a layer: {sorted(folders - set(RANK))}"
    loose = sorted(path.name for path in PACKAGE.glob("*.py") if path.name not in ("__init__.py", "__main__.py"))
    assert loose == [], f"modules loose at the package root: {loose}"


def test_no_module_imports_a_higher_layer():
    upward = []
    for module, edges in GRAPH.items():
        if module in TOP:
            continue
        for target, _, line in edges:
            if target in TOP:
                upward.append(f"{module}:{line} imports the package {target} (the top layer)")
            elif RANK[_layer(target)] > RANK[_layer(module)]:
                upward.append(f"{module}:{line} -> {target}")
    assert upward == [], "imports against the layer order:\n" + "\n".join(upward)


def _module_edges(module: str) -> set[str]:
    """The modules ``module`` depends on (a package's ``__init__`` counts as the package)."""
    return {target for target, _, _ in GRAPH[module] if target in MODULES and target != module}


def test_no_circle_between_modules():
    state: dict[str, int] = {}
    circles: list[str] = []

    def visit(module: str, stack: list[str]) -> None:
        state[module] = 1
        for target in sorted(_module_edges(module)):
            if state.get(target) == 1:
                circles.append(" -> ".join(stack[stack.index(target):] + [target]))
            elif target not in state:
                visit(target, stack + [target])
        state[module] = 2

    for module in MODULES:
        if module not in state:
            visit(module, [module])
    assert circles == [], "import circles:\n" + "\n".join(circles)


def test_no_private_name_crosses_a_module():
    crossing = [f"{module}:{line} takes {names} from {target}"
                for module, edges in GRAPH.items() for target, names, line in edges
                if target != module and any(name.startswith("_") and not name.startswith("__") for name in names)]
    assert crossing == [], "\n".join(crossing)


def test_no_module_is_shadowed_by_a_name_of_its_package():
    """``fullbandit.semi.hardness`` is the function whether or not anything imported a sub-module first."""
    import importlib

    shadowed = []
    for module in MODULES:
        if "." not in module:
            continue
        parent, _, leaf = module.rpartition(".")
        package = importlib.import_module(parent)
        value = package.__dict__.get(leaf)
        if value is not None and not hasattr(value, "__path__") and getattr(value, "__name__", None) != module:
            shadowed.append(f"{parent}.{leaf} is {value!r}, not the module {module}")
        elif hasattr(package, "__all__") and leaf in package.__all__ and value is not None \
                and getattr(value, "__name__", module) != module:
            shadowed.append(f"{parent}.__all__ names {leaf}, a sub-module's name")
    assert shadowed == [], "\n".join(shadowed)


@pytest.mark.slow
def test_a_function_that_uses_the_package_ships_to_a_new_process(tmp_path):
    """A notebook's function mentioning ``fb.`` ships to a process pool or a Dask cluster.

    Such a function lives in ``__main__``, so it travels by value (cloudpickle, as Dask and
    ``loky`` send it) with ``fb`` by reference: that needs the package to be a plain module.
    """
    cloudpickle = pytest.importorskip("cloudpickle", reason="cloudpickle comes with the test extra (dask)")
    sender = ("import sys, cloudpickle\n"
              "import fullbandit as fb\n"
              "def pulls(seed):\n"
              "    algorithm = fb.registry.build('icb', fb.TopK(4, 2), epsilon=0.5, seed=seed)\n"
              "    environment = fb.GaussianSum([1.0, 0.8, 0.2, 0.1], sigma=0.3, seed=seed)\n"
              "    return fb.run(algorithm, environment, progress=False).pulls\n"
              "sys.stdout.buffer.write(cloudpickle.dumps((pulls, fb.lower_bound, pulls(3))))\n")
    shipped = subprocess.run([sys.executable, "-c", sender], capture_output=True, check=True, cwd=tmp_path).stdout
    receiver = ("import sys, pickle\n"
                "pulls, function, expected = pickle.loads(sys.stdin.buffer.read())\n"
                "print(function.__module__, function.__name__, pulls(3) == expected, 'fullbandit' in sys.modules)")
    received = subprocess.run([sys.executable, "-c", receiver], input=shipped, capture_output=True, check=True,
                              cwd=tmp_path).stdout.decode()
    assert received.split() == ["fullbandit.analysis.sample_complexity", "lower_bound", "True", "True"]
    assert cloudpickle.loads(cloudpickle.dumps(lambda: None)) is not None


def test_every_registered_algorithm_pickles_and_is_importable_from_the_package():
    import fullbandit as fb
    from fullbandit.core import registry

    for spec in registry.specs():
        assert getattr(fb, spec.cls.__name__) is spec.cls, f"{spec.name}: fullbandit.{spec.cls.__name__} is missing"
        problem = fb.Thresholding(4, 0.5) if fb.Thresholding in spec.decision_classes else fb.TopK(4, 2)
        algorithm = spec.build(problem, seed=1)
        assert pickle.loads(pickle.dumps(algorithm)).get_params() == algorithm.get_params()


if __name__ == "__main__":  # pragma: no cover
    sys.exit(pytest.main([__file__]))
