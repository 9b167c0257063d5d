"""``fullbandit bench``: run a named benchmark suite and write its CSV and PNG."""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

from fullbandit.cli.suite_lock import suite_lock
from fullbandit.util.validation import InvalidParameterError, check_int

__all__ = ["add_parser", "run"]


def add_parser(commands) -> None:
    """Add the sub-command to ``commands`` (an argparse sub-parsers object).

    Parameters
    ----------
    commands : argparse._SubParsersAction
        What ``ArgumentParser.add_subparsers`` returned.

    Examples
    --------
    >>> import argparse
    >>> parser = argparse.ArgumentParser(prog="fullbandit")
    >>> add_parser(parser.add_subparsers(dest="command"))
    >>> args = parser.parse_args(["bench", "dks", "--runs", "2", "--out", "results"])
    >>> args.name, args.runs, args.jobs, args.out
    ('dks', 2, None, 'results')
    """
    parser = commands.add_parser(
        "bench", help="run a named benchmark suite and write its CSV and PNG",
        description="Run a named suite through the experiment runner. Results are appended to "
                    "OUT/NAME.csv as runs finish, each row with the code that produced it (fullbandit version "
                    "and commit, numpy, scipy and cvxpy versions); running again with the same code skips "
                    "finished runs and says so. A file written by other code is refused before any run, "
                    "unless --fresh or --mix-versions.")
    parser.add_argument("name", nargs="?", help="suite name (see --list)")
    parser.add_argument("--list", action="store_true", help="list the suites and exit")
    parser.add_argument("--runs", type=int, default=None, help="seeds per grid cell (default: the suite's)")
    parser.add_argument("--jobs", type=int, default=None, help="local processes (default: 1, sequential)")
    parser.add_argument("--scheduler", default=None,
                        help="Dask scheduler address, e.g. tcp://10.0.0.5:8786 (its workers run the suite: "
                             "not with --jobs)")
    parser.add_argument("--out", default="benchmarks/out", help="output folder (default: benchmarks/out)")
    parser.add_argument("--no-progress", action="store_true", help="never show a progress bar")
    parser.add_argument("--attest", action="store_true",
                        help="instead of running the suite: rerun the first replicate of every grid point of "
                             "OUT/NAME.csv with this code and, if every row is equal (but for wall time and "
                             "provenance), bring NAME.code.json up to this code, recording the attestation; "
                             "otherwise exit 1 naming the rows that differ (rerun the suite with --fresh)")
    parser.add_argument("--redraw", action="store_true",
                        help="instead of running the suite: draw OUT/NAME.png and OUT/NAME.svg again from the runs "
                             "in OUT/NAME.csv (nothing is run; the CSV and the code record are left as they are)")
    reuse = parser.add_mutually_exclusive_group()
    reuse.add_argument("--fresh", action="store_true",
                       help="start OUT/NAME.csv anew: delete the runs it holds and make every run")
    reuse.add_argument("--mix-versions", action="store_true",
                       help="take the runs in OUT/NAME.csv even if other code produced them, and add this "
                            "code's runs beside them (each row records its version)")


def output_folder(out: str, files: tuple[str, ...] = ()) -> Path:
    """The ``--out`` folder, created if need be, once it is known to take the output ``files``.

    Called before any run starts, so an unusable folder costs nothing.

    Parameters
    ----------
    out : str
        The folder given to ``--out``.
    files : tuple of str
        Names of the files that will be written in it.

    Returns
    -------
    pathlib.Path

    Raises
    ------
    InvalidParameterError
        If ``out`` is a file, cannot be created, cannot be written in, or one of
        ``files`` exists there as a folder or read-only; the message names ``--out`` and
        the path.

    Examples
    --------
    >>> import tempfile
    >>> folder = output_folder(str(Path(tempfile.mkdtemp()) / "new" / "results"))
    >>> folder.is_dir()
    True
    >>> output_folder(__file__)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    fullbandit.util.validation.InvalidParameterError: --out=...bench.py' is a file, not a folder...
    """
    folder = Path(out)
    if folder.exists() and not folder.is_dir():
        raise InvalidParameterError(f"--out={out!r} is a file, not a folder; give the folder for the results")
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise InvalidParameterError(f"--out={out!r}: cannot create this folder ({error.strerror or error})") from None
    try:
        # Writing is the only test that holds for read-only file systems, ACLs and root alike.
        with tempfile.TemporaryFile(dir=folder):
            pass
    except OSError as error:
        raise InvalidParameterError(f"--out={out!r}: cannot write in this folder ({error.strerror or error})") from None
    for name in files:
        path = folder / name
        if path.is_dir() or (path.exists() and not os.access(path, os.W_OK)):
            raise InvalidParameterError(
                f"--out={out!r}: {path} exists and cannot be written (a folder, or read-only); "
                "remove it or give another folder")
    return folder


def run(args) -> int:
    """Carry out ``fullbandit bench`` with the parsed ``args``; return the exit status.

    Parameters
    ----------
    args : argparse.Namespace
        Options parsed by the parser :func:`add_parser` builds.

    Returns
    -------
    int
        0 on success.

    Raises
    ------
    InvalidParameterError
        If the suite is unknown, ``--runs`` or ``--jobs`` is below 1, ``--jobs`` and
        ``--scheduler`` are both given, ``--out`` is unusable, or ``OUT/NAME.csv`` holds runs
        of other code and neither ``--fresh`` nor ``--mix-versions`` is given (before any run starts);
        :func:`fullbandit.cli.main` prints it as one line and exits with status 2.

    Examples
    --------
    >>> import argparse
    >>> parser = argparse.ArgumentParser(prog="fullbandit")
    >>> add_parser(parser.add_subparsers(dest="command"))
    >>> status = run(parser.parse_args(["bench", "--list"]))  # doctest: +ELLIPSIS
    saqm-support ...
    >>> status
    0
    """
    from fullbandit.experiments.suites import SUITES, get_suite
    if args.list or args.name is None:
        for suite in SUITES.values():
            print(f"{suite.name:<16} {suite.description}")
        return 0
    suite = get_suite(args.name)
    runs = suite.default_runs if args.runs is None else check_int("runs", args.runs, low=1)
    if args.scheduler and args.jobs is not None:
        raise InvalidParameterError(
            f"--jobs={args.jobs} runs the suite on local processes and --scheduler={args.scheduler} on a Dask "
            "cluster, whose workers set the parallelism: give one of them")
    jobs = 1 if args.jobs is None else check_int("jobs", args.jobs, low=1)
    backend = "dask" if args.scheduler else ("processes" if jobs > 1 else "sequential")
    out = output_folder(args.out, (f"{suite.name}.csv", f"{suite.name}.png", f"{suite.name}.code.json"))
    if args.attest and args.redraw:
        raise InvalidParameterError("--attest reruns runs and --redraw only draws them: give one of them")
    if args.attest or args.redraw:
        _check_reuse(suite, out, args)
    with suite_lock(out, suite.name):  # refusals above leave the folder as it was
        if args.attest:
            return _attest(suite, out, args, backend, jobs)
        if args.redraw:
            return _redraw(suite, out, args)
        return _run_suite(suite, out, args, backend, jobs, runs)


def _run_suite(suite, out: Path, args, backend: str, jobs: int, runs: int) -> int:
    """Run the suite into ``OUT/NAME.csv``, draw it and write its code record."""
    from fullbandit.experiments import run_grid
    from fullbandit.experiments.code_record import code_record
    from fullbandit.experiments.provenance import current, describe, versions_in
    from fullbandit.util.state import write_json_atomically

    frame = run_grid(suite.build(runs), backend=backend, jobs=None if args.scheduler else jobs,
                     scheduler=args.scheduler or None, out=out / f"{suite.name}.csv", fresh=args.fresh,
                     mix_versions=args.mix_versions, progress=False if args.no_progress else None)
    suite.draw(frame, out / f"{suite.name}.png")
    write_json_atomically(out / f"{suite.name}.code.json", {**code_record(suite), "runs": runs,
                                                            "runs_of": current().columns()})
    print(suite.summarize(frame).to_string(float_format=lambda value: f"{value:,.4g}"))
    code = describe(versions_in(frame))
    print(f"wrote {out / (suite.name + '.csv')}, {out / (suite.name + '.png')} and its code record "
          f"{suite.name}.code.json ({backend} backend; "
          f"runs of {code})")
    return 0


def _check_reuse(suite, out: Path, args) -> None:
    """Refuse ``--attest`` or ``--redraw`` with options that would run, or without the files they read."""
    option, does = ("--attest", "reruns part of the committed runs as they were made") if args.attest else \
        ("--redraw", "draws the runs OUT/NAME.csv holds")
    if args.fresh or args.mix_versions or args.runs is not None:
        raise InvalidParameterError(f"{option} {does}: not with --fresh, --mix-versions or --runs")
    needed = [out / f"{suite.name}.csv"] + ([out / f"{suite.name}.code.json"] if args.attest else [])
    for path in needed:
        if not path.is_file():
            raise InvalidParameterError(f"{option}: {path} does not exist; run `fullbandit bench {suite.name} "
                                        f"--out {args.out}` first")


def _redraw(suite, out: Path, args) -> int:
    """``--redraw``: the figure of the runs in ``OUT/NAME.csv``, drawn by today's figure code."""
    from fullbandit.experiments.store import read_results

    results = out / f"{suite.name}.csv"
    suite.draw(read_results(results), out / f"{suite.name}.png")
    print(f"drew {out / (suite.name + '.png')} and {out / (suite.name + '.svg')} from {results}")
    return 0


def _attest(suite, out: Path, args, backend: str, jobs: int) -> int:
    """``--attest``: :func:`fullbandit.experiments.attest.attest` on ``OUT/NAME.csv``; 1 if refused."""
    from fullbandit.experiments.attest import AttestationRefused, attest

    results, record = out / f"{suite.name}.csv", out / f"{suite.name}.code.json"
    try:
        attestation = attest(suite, results, record, backend=backend, jobs=None if args.scheduler else jobs,
                             scheduler=args.scheduler or None, progress=False if args.no_progress else None)
    except AttestationRefused as refusal:
        print(f"fullbandit: {refusal}", file=sys.stderr)
        return 1
    print(attestation.describe())
    return 0
