"""What installing fullbandit costs: disk per dependency, install time, import time.

Creates a fresh virtual environment in a temporary folder (with ``python3.11`` if there is one,
else ``python3``), times ``pip install <repository>`` in it, then reads every installed
distribution's RECORD through ``importlib.metadata`` inside the environment: a distribution's
size is the sum of the sizes of the files its RECORD lists (byte code pip compiled included).
Each distribution is attributed to the direct dependency of fullbandit that pulls it in (read
from the ``Requires-Dist`` of the installed distributions, requirements of extras left out);
one that several direct dependencies need is "shared" (the CSV names them). The environment's own
pip is counted apart. Then ``python -X importtime`` measures ``import fullbandit``, ``import
fullbandit.design.goptimal`` and the cvxpy it imports on first use (:data:`IMPORTS`), the median of
a few runs each. Each extra named with ``--extras`` is installed next, one after the other into the same
environment, and the distributions it adds are attributed to it.

Needs the package index (pip downloads the dependencies, and setuptools for the build).

Usage::

    python benchmarks/install_footprint.py [--cold] [--extras dask fast] [--out benchmarks/results]

``--cold`` installs with ``--no-cache-dir``: every wheel is downloaded, as on a first install.
Writes ``OUT/install-footprint.csv`` (one row per distribution, then the timings) and
``OUT/install-footprint.md`` (the tables, with the machine and the date).
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
#: Runs inside the new environment: every distribution's files' total size and the names it requires.
INSPECT = r"""
import json, re
from importlib.metadata import distributions

def canonical(name):
    return re.sub(r"[-_.]+", "-", name).lower()

found = {}
for dist in distributions():
    size = 0
    for file in dist.files or ():
        path = file.locate()
        if path.is_file():
            size += path.stat().st_size
    requires = []
    for line in dist.requires or ():
        requirement, _, marker = line.partition(";")
        if "extra" in marker:  # asked for only with an extra of that distribution
            continue
        requires.append(canonical(re.match(r"\s*[A-Za-z0-9][A-Za-z0-9._-]*", requirement).group().strip()))
    found[canonical(dist.metadata["Name"])] = {"version": dist.version, "bytes": size, "requires": requires}
print(json.dumps(found))
"""
#: What the environment holds before fullbandit is installed: counted apart, never attributed.
VENV_OWN = ("pip", "setuptools")
IMPORT_RUNS = 5
#: What is timed: label -> (the statement run, the module whose cumulative import time is read; None: every
#: import the statement makes, beyond the interpreter's own start-up). fullbandit imports its names on first
#: use, and cvxpy only inside the functions that solve a program (G-optimal and XY-optimal designs, two DkS
#: bounds): so cvxpy's own time, paid at that first use, is read apart.
IMPORTS = {
    "import fullbandit": ("import fullbandit", None),
    "import fullbandit.design.goptimal": ("import fullbandit.design.goptimal", None),
    "cvxpy, on the first G-optimal design": ("import fullbandit.design.goptimal, cvxpy", "cvxpy"),
    "every registered algorithm": ("from fullbandit.core import registry; registry.specs()", None),
}
MB = 1e6


def interpreter() -> str:
    """``python3.11`` (the oldest Python fullbandit supports) if it is installed, else ``python3``."""
    return shutil.which("python3.11") or shutil.which("python3") or sys.executable


def pip_install(python: Path, requirement: str, cold: bool) -> float:
    """Install ``requirement`` with the environment's pip; the wall time in seconds."""
    command = [str(python), "-m", "pip", "install", "--disable-pip-version-check", "-q",
               *(["--no-cache-dir"] if cold else []), requirement]
    start = time.perf_counter()
    subprocess.run(command, check=True)
    return time.perf_counter() - start


def installed(python: Path) -> dict[str, dict]:
    """Every distribution in the environment: ``name -> {version, bytes, requires}``."""
    done = subprocess.run([str(python), "-c", INSPECT], check=True, capture_output=True, text=True)
    return json.loads(done.stdout)


def closure(name: str, distributions: dict[str, dict]) -> set[str]:
    """``name`` and every installed distribution it requires, directly or not."""
    found: set[str] = set()
    pending = [name]
    while pending:
        current = pending.pop()
        if current in found or current not in distributions:
            continue
        found.add(current)
        pending.extend(distributions[current]["requires"])
    return found


def needed_by(distributions: dict[str, dict]) -> dict[str, list[str]]:
    """Each distribution's direct dependencies of fullbandit that need it (itself, if it is one)."""
    direct = [name for name in distributions["fullbandit"]["requires"] if name in distributions]
    reach = {name: closure(name, distributions) for name in direct}
    return {name: [dependency for dependency in direct if name in reach[dependency]] for name in distributions}


def owner(name: str, needing: list[str]) -> str:
    """Whom a distribution's size is attributed to: the one direct dependency needing it, or ``"shared"``."""
    if name == "fullbandit" or name in VENV_OWN:
        return name
    return needing[0] if len(needing) == 1 else "shared" if needing else "not required"


def import_time(python: Path, statement: str, module: str | None) -> float:
    """Median over :data:`IMPORT_RUNS` fresh processes of the import time (seconds) ``statement`` costs.

    ``module``'s cumulative time, or (``None``) the sum over the outermost imports less that of ``pass``.
    """
    def one_run(code: str) -> float:
        done = subprocess.run([str(python), "-X", "importtime", "-c", code], check=True, capture_output=True,
                              text=True)
        # Lines read "import time: <self us> | <cumulative us> | <module name, indented by its depth>".
        rows = [line.split("|") for line in done.stderr.splitlines() if line.startswith("import time:")][1:]
        if module is not None:
            return next(int(row[1]) for row in rows if row[2].strip() == module) / 1e6
        return sum(int(row[1]) for row in rows if not row[2][1:].startswith(" ")) / 1e6

    times = []
    for _ in range(IMPORT_RUNS):
        times.append(one_run(statement) - (0.0 if module is not None else one_run("pass")))
    return statistics.median(times)


def folder_bytes(folder: Path) -> int:
    return sum(path.stat().st_size for path in folder.rglob("*") if path.is_file() and not path.is_symlink())


def machine() -> str:
    cpu = platform.processor() or platform.machine()
    model = Path("/proc/cpuinfo")
    if model.is_file():
        names = [line.split(":", 1)[1].strip() for line in model.read_text().splitlines()
                 if line.startswith("model name")]
        cpu = names[0] if names else cpu
    return f"{platform.system()} {platform.release()}, {cpu}, {os.cpu_count()} CPUs"


def measure(cold: bool, extras: list[str]) -> dict:
    base = interpreter()
    with tempfile.TemporaryDirectory(prefix="fullbandit-footprint-") as folder:
        venv = Path(folder) / "venv"
        subprocess.run([base, "-m", "venv", str(venv)], check=True)
        python = venv / "bin" / "python"
        before = installed(python)
        seconds = pip_install(python, str(ROOT), cold)
        distributions = installed(python)
        needing = needed_by(distributions)
        owners = {name: owner(name, needing[name]) for name in distributions}
        site_packages = next((venv / "lib").glob("python3*/site-packages"))
        timings = {"pip install fullbandit": seconds,
                   **{label: import_time(python, statement, module) for label, (statement, module) in IMPORTS.items()}}
        measured = {"python": subprocess.run([str(python), "-c", "import sys; print(sys.version.split()[0])"],
                                             check=True, capture_output=True, text=True).stdout.strip(),
                    "pip": before.get("pip", {}).get("version", "?"),
                    "site_packages_bytes": folder_bytes(site_packages)}
        for extra in extras:
            known = set(distributions)
            timings[f"pip install fullbandit[{extra}]"] = pip_install(python, f"{ROOT}[{extra}]", cold)
            distributions = installed(python)
            owners.update({name: f"[{extra}]" for name in distributions if name not in known})
    rows = [{"name": name, "version": info["version"], "bytes": info["bytes"], "attributed_to": owners[name],
             "needed_by": " ".join(needing.get(name, ()))} for name, info in sorted(distributions.items())]
    return {"rows": rows, "timings": timings, "direct": distributions["fullbandit"]["requires"], **measured,
            "cold": cold, "interpreter": base, "machine": machine(),
            "date": datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")}


def write_csv(result: dict, path: Path) -> None:
    with path.open("w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["kind", "name", "version", "value", "unit", "attributed_to", "needed_by"])
        for row in result["rows"]:
            writer.writerow(["distribution", row["name"], row["version"], row["bytes"], "bytes", row["attributed_to"],
                             row["needed_by"]])
        for name, seconds in result["timings"].items():
            writer.writerow(["timing", name, "", f"{seconds:.3f}", "s", "", ""])


def _needing(row: dict) -> str:
    """Who needs a shared distribution: fullbandit directly (a direct dependency), and the others."""
    others = [name for name in row["needed_by"].split() if name != row["name"]]
    direct = "a direct dependency, also needed by " if row["name"] in row["needed_by"].split() else "needed by "
    return direct + ", ".join(others)


def markdown(result: dict, command: str) -> str:
    rows = result["rows"]
    base = [row for row in rows if not row["attributed_to"].startswith("[") and row["name"] not in VENV_OWN]
    total = sum(row["bytes"] for row in base)
    groups: dict[str, list[dict]] = {}
    for row in base:
        groups.setdefault(row["attributed_to"], []).append(row)
    order = sorted(groups, key=lambda name: -sum(row["bytes"] for row in groups[name]))
    lines = [f"Measured {result['date']} on {result['machine']}; Python {result['python']}, pip {result['pip']}, "
             f"{'no pip cache (every wheel downloaded)' if result['cold'] else 'with the pip cache'}.",
             f"Command: `{command}`", "",
             "| pulled in by | MB | share | distributions |", "|---|---:|---:|---|"]
    for group in order:
        size = sum(row["bytes"] for row in groups[group])
        names = ", ".join(f"{row['name']} {row['version']}" + (f" ({row['bytes'] / MB:.1f} MB; {_needing(row)})"
                                                               if group == "shared" else "")
                          for row in sorted(groups[group], key=lambda r: -r["bytes"]))
        lines.append(f"| {group} | {size / MB:.1f} | {size / total:.1%} | {names} |")
    lines.append(f"| **total** | **{total / MB:.1f}** | 100% | {len(base)} distributions |")
    own = sum(row["bytes"] for row in rows if row["name"] in VENV_OWN)
    lines += ["", f"The environment's own {', '.join(VENV_OWN)} ({own / MB:.1f} MB) are not counted. "
              f"site-packages on disk after the base install: {result['site_packages_bytes'] / MB:.1f} MB.", ""]
    extras = [row for row in rows if row["attributed_to"].startswith("[")]
    if extras:
        lines += ["| extra | MB added | distributions |", "|---|---:|---|"]
        for extra in dict.fromkeys(row["attributed_to"] for row in extras):
            added = [row for row in extras if row["attributed_to"] == extra]
            lines.append(f"| {extra} | {sum(row['bytes'] for row in added) / MB:.1f} | "
                         + ", ".join(f"{row['name']} {row['version']}" for row in added) + " |")
        lines.append("")
    lines += ["| measure | seconds |", "|---|---:|"]
    lines += [f"| {name} | {seconds:.2f} |" for name, seconds in result["timings"].items()]
    lines.append(f"\nImport times: the median of {IMPORT_RUNS} fresh processes (`python -X importtime`): what the "
                 "statement imports beyond the interpreter's own start-up; for cvxpy, its cumulative time.")
    return "\n".join(lines) + "\n"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--cold", action="store_true", help="install with --no-cache-dir (a first install)")
    parser.add_argument("--extras", nargs="*", default=["dask", "fast"], help="extras measured after the base install")
    parser.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "results", help="output folder")
    args = parser.parse_args(argv)
    result = measure(args.cold, args.extras)
    args.out.mkdir(parents=True, exist_ok=True)
    write_csv(result, args.out / "install-footprint.csv")
    command = "python benchmarks/install_footprint.py" + (" --cold" if args.cold else "") + (
        "" if args.extras == ["dask", "fast"] else " --extras " + " ".join(args.extras))
    text = markdown(result, command)
    (args.out / "install-footprint.md").write_text(text)
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
