"""Wall time of whole ``fullbandit`` processes: the interpreter's start-up, the imports and the command.

Commands timed (each ``--runs`` times, the median reported; min and max in the CSV):

* ``fullbandit --help`` and ``fullbandit session --help``;
* ``fullbandit session record STORE --pull P --reward 1.5`` on an ICB store (n = 20 workers, k = 5,
  a tiny epsilon so it never stops) whose journal then holds 200, 5,000 and 100,000 events
  (every run on a fresh copy of the store; the copy is not timed). The stores are made by this
  checkout's library, so they hold its checkpoints (a checkout that does not know them replays
  the whole journal);
* ``fullbandit session status STORE`` on the 200-event store;
* ``python -c "import fullbandit"``.

The command is the script pip writes for the console script (``from fullbandit.cli.launch import
main``), run with ``PYTHONPATH`` set to a checkout: ``--checkout`` (repeatable, with ``--label``)
compares several side by side -- e.g. this branch against a checkout of ``main`` -- each run of
each command alternating between them, so that both see the same load. BLAS is pinned to one
thread (``OPENBLAS_NUM_THREADS=1`` and the like: a many-threaded BLAS spends longer starting its
threads than these commands spend computing). Bytecode is written to and read from a private
cache (``PYTHONPYCACHEPREFIX``), warmed by one untimed run of every command, as an installed
package has it (``--no-bytecode-cache``: every module compiled at every start, as with
``PYTHONDONTWRITEBYTECODE``).

Writes ``--out`` (CSV) and a bar figure beside it (same name, ``.png``).

Usage:
    python benchmarks/bench_cli.py [--checkout /work/main --label main] [--checkout . --label branch]
                                   [--runs 9] [--out benchmarks/results/cli.csv]
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pandas as pd

ROOT = Path(__file__).resolve().parent.parent

# The script pip (distlib) writes for [project.scripts] fullbandit = "fullbandit.cli.launch:main".
CONSOLE_SCRIPT = """# -*- coding: utf-8 -*-
import re
import sys
from fullbandit.cli.launch import main
if __name__ == '__main__':
    sys.argv[0] = re.sub(r'(-script\\.pyw|\\.exe)?$', '', sys.argv[0])
    sys.exit(main())
"""
# A store whose journal holds EVENTS - 1 events, its last pull outstanding: recording it makes EVENTS.
MAKE_STORE = """
import sys
import numpy as np
from fullbandit.sessions import Session
events, path = int(sys.argv[1]), sys.argv[2]
rng = np.random.default_rng(0)
with Session.start(path, algorithm="icb", n=20, k=5, epsilon=1e-6, delta=0.05, noise_scale=1.0, seed=0) as session:
    left = events // 2
    while left:
        pulls = session.next(count=min(left, 10_000))
        left -= len(pulls)
        for pull in pulls[:-1]:
            session.record(pull.id, float(rng.normal(2.5, 1.0)))
        if left:
            session.record(pulls[-1].id, float(rng.normal(2.5, 1.0)))
print(pulls[-1].id)
"""
WHERE = "import fullbandit; print(fullbandit.__file__)"
STORE_EVENTS = (200, 5000, 100_000)
ONE_THREAD = {name: "1" for name in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")}


def environment(checkout: Path, cache: Path | None) -> dict[str, str]:
    env = {**os.environ, **ONE_THREAD, "PYTHONPATH": str(checkout)}
    if cache is None:
        env["PYTHONDONTWRITEBYTECODE"] = "1"
        env.pop("PYTHONPYCACHEPREFIX", None)
    else:
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        env["PYTHONPYCACHEPREFIX"] = str(cache)
    return env


def make_store(folder: Path, events: int, python: str) -> tuple[Path, int]:
    """A store of ``events - 1`` events (made by this checkout's library) and its outstanding pull."""
    path = folder / f"store{events}.db"
    done = subprocess.run([python, "-c", MAKE_STORE, str(events), str(path)], capture_output=True, text=True,
                          env=environment(ROOT, None), check=True)
    return path, int(done.stdout.split()[-1])


def commands(folder: Path, script: Path, python: str, stores: dict[int, tuple[Path, int]]) -> dict[str, tuple]:
    """Each command: ``(argv, the store to copy fresh before each run or None)``."""
    fullbandit = [python, str(script)]
    table: dict[str, tuple] = {"fullbandit --help": ([*fullbandit, "--help"], None),
                               "fullbandit session --help": ([*fullbandit, "session", "--help"], None)}
    for events, (template, pull) in stores.items():
        copy = folder / f"run{events}.db"
        table[f"session record ({events:,} events)"] = (
            [*fullbandit, "session", "record", str(copy), "--pull", str(pull), "--reward", "1.5"], (template, copy))
    template, _ = stores[STORE_EVENTS[0]]
    table[f"session status ({STORE_EVENTS[0]:,} events)"] = ([*fullbandit, "session", "status", str(template)], None)
    table['python -c "import fullbandit"'] = ([python, "-c", "import fullbandit"], None)
    return table


def fresh_copy(store: tuple[Path, Path] | None) -> None:
    if store is None:
        return
    template, copy = store
    for suffix in ("", "-wal", "-shm"):
        target = Path(str(copy) + suffix)
        target.unlink(missing_ok=True)
        if Path(str(template) + suffix).exists():
            shutil.copyfile(str(template) + suffix, target)


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def timed(argv: list[str], env: dict[str, str], cwd: Path) -> tuple[float, float]:
    """``(wall, cpu)`` seconds of one process running ``argv`` (cpu: user + system, less sensitive to load)."""
    cpu, start = _children_cpu(), time.perf_counter()
    done = subprocess.run(argv, capture_output=True, text=True, env=env, cwd=cwd)
    elapsed, cpu = time.perf_counter() - start, _children_cpu() - cpu
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(argv)} exited with {done.returncode}: {done.stderr.strip()}")
    return elapsed, cpu


def figure(table: pd.DataFrame, path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    wide = table.pivot(index="command", columns="checkout", values="median_s").reindex(table["command"].unique())
    axes = wide.plot.barh(figsize=(9, 0.9 + 0.55 * len(wide) * max(1, len(wide.columns)) / 1.5))
    axes.invert_yaxis()
    axes.set_xlabel("wall time of the whole process, median (s)")
    axes.set_ylabel("")
    axes.axvline(0.5, color="grey", linestyle=":", linewidth=1)
    for container in axes.containers:
        axes.bar_label(container, fmt="%.2f", fontsize=7, padding=2)
    axes.set_title("fullbandit command start-up (BLAS on one thread)")
    plt.tight_layout()
    plt.savefig(path, dpi=120)
    plt.close()


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--checkout", action="append", type=Path,
                        help="a source tree to run (repeatable; default: this one)")
    parser.add_argument("--label", action="append", help="a name per --checkout (default: the folder's name)")
    parser.add_argument("--python", default=sys.executable, help="the interpreter (default: this one)")
    parser.add_argument("--runs", type=int, default=9, help="timed runs of each command per checkout (default: 9)")
    parser.add_argument("--no-bytecode-cache", action="store_true", help="compile every module at every start")
    parser.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "results" / "cli.csv")
    args = parser.parse_args(argv)
    checkouts = [path.resolve() for path in (args.checkout or [ROOT])]
    labels = args.label or [path.name for path in checkouts]
    if len(labels) != len(checkouts):
        parser.error("give one --label per --checkout")
    if args.runs < 1:
        parser.error("--runs must be at least 1")
    with tempfile.TemporaryDirectory() as name:
        folder = Path(name)
        cache = None if args.no_bytecode_cache else folder / "pycache"
        envs = [environment(checkout, cache) for checkout in checkouts]
        for checkout, env in zip(checkouts, envs, strict=True):  # each runs its own source tree, not the installed one
            where = subprocess.run([args.python, "-c", WHERE], capture_output=True, text=True, env=env, cwd=folder,
                                   check=True).stdout.strip()
            if not Path(where).is_relative_to(checkout):
                raise SystemExit(f"{checkout}: fullbandit is imported from {where}")
        script = folder / "fullbandit"
        script.write_text(CONSOLE_SCRIPT)
        stores = {events: make_store(folder, events, args.python) for events in STORE_EVENTS}
        table = commands(folder, script, args.python, stores)
        times: dict[tuple[str, str], list[tuple[float, float]]] = {(command, label): [] for command in table
                                                                   for label in labels}
        for run in range(args.runs + 1):  # run 0 warms the bytecode cache and the disk, untimed
            for command, (command_argv, store) in table.items():
                for label, env in zip(labels, envs, strict=True):  # alternating: both checkouts see the same load
                    fresh_copy(store)
                    elapsed = timed(command_argv, env, folder)
                    if run:
                        times[command, label].append(elapsed)
            print(f"run {run} of {args.runs} done", file=sys.stderr)
    rows = []
    for (command, label), values in times.items():
        walls, cpus = [wall for wall, _ in values], [cpu for _, cpu in values]
        rows.append({"command": command, "checkout": label, "median_s": statistics.median(walls), "min_s": min(walls),
                     "max_s": max(walls), "cpu_median_s": statistics.median(cpus), "runs": len(values),
                     "bytecode_cache": cache is not None})
    result = pd.DataFrame(rows)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    result.to_csv(args.out, index=False, float_format="%.4f")
    figure(result, args.out.with_suffix(".png"))
    for column, what in (("median_s", "wall"), ("cpu_median_s", "cpu (user + system)")):
        print(f"median {what}, s:")
        print(result.pivot(index="command", columns="checkout", values=column).reindex(list(table)).round(3)
              .to_string())


if __name__ == "__main__":
    main()
