"""``fullbandit bench``: run a named benchmark suite and write its CSV and PNG."""

from __future__ import annotations

from pathlib import Path

from fullbandit._validation import check_int


def add_parser(commands) -> None:
    """Add the sub-command to ``commands`` (an argparse sub-parsers object)."""
    parser = commands.add_parser(
        "bench", help="run a named benchmark suite and write its CSV and PNG",
        description="Run a named suite through the experiment runner. Results are appended to "
                    "OUT/NAME.csv as runs finish; running again skips finished runs.")
    parser.add_argument("name", nargs="?", help="suite name (see --list)")
    parser.add_argument("--list", action="store_true", help="list the suites and exit")
    parser.add_argument("--runs", type=int, default=None, help="seeds per grid cell (default: the suite's)")
    parser.add_argument("--jobs", type=int, default=1, help="local processes (default: 1, sequential)")
    parser.add_argument("--scheduler", default=None, help="Dask scheduler address, e.g. tcp://10.0.0.5:8786")
    parser.add_argument("--out", default="benchmarks/out", help="output folder (default: benchmarks/out)")
    parser.add_argument("--no-progress", action="store_true", help="never show a progress bar")


def run(args) -> int:
    """Carry out ``fullbandit bench`` with the parsed ``args``; return the exit status."""
    from fullbandit.experiments import run_grid
    from fullbandit.experiments.suites import SUITES, get_suite
    get_suite("dks")  # registers every suite
    if args.list or args.name is None:
        for suite in SUITES.values():
            print(f"{suite.name:<16} {suite.description}")
        return 0
    suite = get_suite(args.name)
    runs = suite.default_runs if args.runs is None else check_int("runs", args.runs, low=1)
    jobs = check_int("jobs", args.jobs, low=1)
    backend = "dask" if args.scheduler else ("processes" if jobs > 1 else "sequential")
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    frame = run_grid(suite.build(runs), backend=backend, jobs=jobs, scheduler=args.scheduler,
                     out=out / f"{suite.name}.csv", progress=False if args.no_progress else None)
    suite.plot(frame, out / f"{suite.name}.png")
    print(suite.summarize(frame).to_string(float_format=lambda value: f"{value:,.4g}"))
    print(f"wrote {out / (suite.name + '.csv')} and {out / (suite.name + '.png')} ({backend} backend)")
    return 0
