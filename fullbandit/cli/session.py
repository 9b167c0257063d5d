"""``fullbandit session``: a live team search stored in a SQLite file (:class:`fullbandit.sessions.Session`).

``start`` creates the store, ``next`` prints teams to try, ``record`` stores an observed
reward (again with the same reward: a no-op), ``abandon`` gives back a pull that will never be
answered (its team is handed out again; never abandon because of an answer), ``status`` shows
the stopping statistic against epsilon, ``export`` writes the observations as CSV, ``verify``
checks every digest and replays the whole journal (an open starts from the store's checkpoint), ``serve``
offers the same over HTTP (:mod:`fullbandit.sessions.http`). A refused command exits with status 2 and changes nothing.

``start`` takes any registered algorithm. The question follows its declared decision classes:
``--k`` for a team, ``--threshold`` for a thresholding algorithm, and group caps
(``--workers WORKERS.CSV --group-column COLUMN --at-most CAP``, as ``fullbandit solve`` takes them)
for one that declares partition matroids. Its parameters are the options generated from the
declarations (:mod:`fullbandit.cli.options`), each left to the class's default when not given;
``--reward-range LOW HIGH`` is the session's own (it also bounds the rewards ``record`` accepts)
and is offered to an algorithm that takes a range (``solve``'s ``--reward-range LOW,HIGH`` is that
parameter itself).
"""

from __future__ import annotations

import argparse
import csv
import json
import math
import os
import sys
from pathlib import Path

from fullbandit.cli.main import plain
from fullbandit.cli.options import add_algorithm_options, algorithm_name
from fullbandit.core import registry
from fullbandit.core.algorithm import Pull
from fullbandit.core.priors import PriorObservations
from fullbandit.sessions import Session
from fullbandit.util.validation import InvalidParameterError


def add_parser(commands) -> None:
    """Add the sub-command to ``commands`` (an argparse sub-parsers object)."""
    parser = commands.add_parser("session", help="a live team search stored in a SQLite file",
                                 description=plain(__doc__.split("\n")[0]))
    actions = parser.add_subparsers(dest="action", required=True)
    start = actions.add_parser("start", help="create a session store",
                               description=plain(__doc__.split("\n\n")[2]))
    start.add_argument("store", help="path of the new SQLite store (must not exist)")
    who = start.add_mutually_exclusive_group(required=True)
    who.add_argument("--workers", help="a text file with one worker name per line; with --group-column, a CSV file "
                                       "with a worker column and the grouping column")
    who.add_argument("--n", type=int, help="number of workers (named 0, 1, ...)")
    start.add_argument("--algorithm", type=algorithm_name, required=True,
                       help=f"a registered algorithm, by name or class name: {', '.join(registry.names())}")
    start.add_argument("--k", type=int, help="team size (not for a thresholding algorithm)")
    start.add_argument("--threshold", type=float,
                       help="for a thresholding algorithm (required there): classify every worker as at or above "
                            "this mean reward, or below it; within --reward-range when given")
    start.add_argument("--group-column", metavar="COLUMN",
                       help="with --workers WORKERS.CSV and --at-most: the grouping column; a team then has at most "
                            "--at-most workers per group (for the algorithms that take a partition matroid)")
    start.add_argument("--at-most", type=int, metavar="CAP", help="with --group-column: at most CAP members per group")
    start.add_argument("--reward-range", type=float, nargs=2, metavar=("LOW", "HIGH"),
                       help="the session's range of one observed reward: the team's (full feedback) or each "
                            "member's (semi feedback, e.g. lucb); rewards outside it are refused; offered to the "
                            "algorithm as its range and, without --noise-scale, its noise scale (HIGH - LOW) / 2")
    start.add_argument("--seed", type=int, help="seed of the algorithm (default: drawn at random and stored)")
    history = start.add_mutually_exclusive_group()
    history.add_argument("--prior-answers", metavar="ANSWERS.CSV",
                         help="the workers' earlier graded answers (columns task,worker,label; gold from "
                              "--prior-gold or a true_label column), counted as real observations before the "
                              "first pull")
    history.add_argument("--prior-pulls", metavar="EXPORT.CSV",
                         help="an earlier session's export (`fullbandit session export`) whose teams are counted "
                              "as real observations before the first pull")
    start.add_argument("--prior-gold", metavar="GOLD.CSV", help="gold labels of --prior-answers (task,true_label)")
    add_algorithm_options(start, exclude=("reward_range",))
    nxt = actions.add_parser("next", help="hand out the next team(s) to try")
    nxt.add_argument("store")
    nxt.add_argument("--count", type=int, default=1,
                     help="how many pulls to hand out at once (default: 1); fewer when the algorithm waits for "
                          "outstanding pulls (e.g. the end of a round), said on stderr")
    nxt.add_argument("--json", action="store_true", help="print the pulls as JSON")
    record = actions.add_parser("record", help="record the observed reward of a pull")
    record.add_argument("store")
    record.add_argument("--pull", type=int, required=True, help="the pull id printed by `next`")
    record.add_argument("--reward", required=True,
                        help="the observed reward: one number (full feedback, or a one-member pull); semi feedback: "
                             "one per member, comma-separated or a JSON list")
    abandon = actions.add_parser("abandon", help="give back a pull that will never be answered (its team is "
                                                 "handed out again)")
    abandon.add_argument("store")
    abandon.add_argument("--pull", type=int, required=True, help="the pull id printed by `next`")
    status = actions.add_parser("status", help="pulls so far, best team, stopping statistic")
    status.add_argument("store")
    status.add_argument("--json", action="store_true", help="print the status as JSON")
    verify = actions.add_parser("verify", help="check every digest of the journal, replay it whole and check the "
                                               "store's checkpoint against it")
    verify.add_argument("store")
    export = actions.add_parser("export", help="write the observations as CSV")
    export.add_argument("store")
    export.add_argument("--out", required=True, help="the CSV file to write")
    serve = actions.add_parser("serve", help="serve session stores over HTTP (JSON endpoints, a status page, "
                                             "OpenAPI at /openapi.json)")
    serve.add_argument("stores", nargs="*", metavar="STORE",
                       help="session stores to serve, each as /campaigns/{its file stem}/...; with exactly one, the "
                            "bare routes (/next, /record, ...) serve it too")
    serve.add_argument("--folder", metavar="DIR",
                       help="serve every *.db session store in DIR (instead of STOREs); with --new, "
                            "POST /campaigns/{name}/start creates DIR/{name}.db")
    serve.add_argument("--host", default="127.0.0.1",
                       help="address to bind (default: 127.0.0.1; any other host requires a token)")
    serve.add_argument("--port", type=port_number, default=8765,
                       help="port to bind, 0 to 65535 (default: 8765; 0: any free port)")
    serve.add_argument("--token", default=os.environ.get("FULLBANDIT_TOKEN"),
                       help="require 'Authorization: Bearer TOKEN' on every request "
                            "(default: the FULLBANDIT_TOKEN environment variable)")
    serve.add_argument("--new", action="store_true",
                       help="the STOREs do not exist yet: POST /start creates one from a JSON body of its creation "
                            "parameters (algorithm, n or workers, k, threshold, groups and at_most, parameters, "
                            "reward_range, seed), as `session start` does; with --folder, new campaigns in DIR")
    serve.add_argument("--cors-origin", action="append", default=[], metavar="ORIGIN",
                       help="let browser pages from ORIGIN (scheme://host[:port]) call the service (CORS); "
                            "repeatable; default: no CORS headers at all")

def port_number(text: str) -> int:
    """``--port``: an integer from 0 to 65535 (argparse reports a refusal as a usage error)."""
    try:
        port = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not an integer") from None
    if not 0 <= port <= 65535:
        raise argparse.ArgumentTypeError(f"{port} is not a port number (0 to 65535)")
    return port


def parse_reward(text: str, pull: Pull, feedback: str, workers: list[str]):
    """The reward ``--reward TEXT`` gives for ``pull``: a number (full feedback), or a list (semi feedback).

    A one-member pull takes a plain number; several members take comma-separated numbers or a
    JSON list. Anything else is refused naming ``--reward`` and the form this pull takes.
    """
    values = _numbers(text)
    wanted = 1 if feedback == "full" else len(pull.arms)
    if values is None or len(values) != wanted or not all(math.isfinite(value) for value in values):
        raise InvalidParameterError(f"--reward={text!r} does not fit pull {pull.id}: "
                                    f"{reward_form(pull, feedback, workers)}")
    return values[0] if feedback == "full" else values


def reward_form(pull: Pull, feedback: str, workers: list[str]) -> str:
    """What ``--reward`` takes for ``pull``, with an example."""
    team = ", ".join(workers[arm] for arm in pull.arms)
    if feedback == "full":
        return f"give one finite number, the observed reward of the team {team}, e.g. --reward 1.5"
    if len(pull.arms) == 1:
        return f"give one finite number, worker {team}'s observed reward (semi feedback), e.g. --reward 1"
    example = [1] + [0.5] * (len(pull.arms) - 1)
    return (f"give {len(pull.arms)} finite numbers, one per member in the order {team} (semi feedback), "
            f"comma-separated or a JSON list, e.g. --reward {','.join(map(str, example))} or --reward '{example}'")


def _numbers(text: str) -> list[float] | None:
    """``"1.5"``, ``"1,0.5"`` or ``"[1, 0.5]"`` as floats; ``None`` for anything else."""
    text = text.strip()
    try:
        if not text.startswith("["):
            return [float(part) for part in text.split(",")]
        values = json.loads(text)
        if not isinstance(values, list) or not all(isinstance(value, int | float) and not isinstance(value, bool)
                                                   for value in values):
            return None
        return [float(value) for value in values]
    except (ValueError, OverflowError):  # OverflowError: a JSON integer beyond the floats
        return None


def read_workers(args) -> tuple[list[str] | None, list[str] | None]:
    """The worker names of ``--workers`` (``None`` with ``--n``) and, with ``--group-column``, their group labels.

    Without ``--group-column`` the file holds one name per line; with it, a CSV table with a
    ``worker`` column and the grouping column (as ``fullbandit solve --workers`` reads it).
    """
    if (args.group_column is None) != (args.at_most is None):
        raise InvalidParameterError("--group-column and --at-most go together (a cap per group of that column)")
    if args.workers is None:
        if args.group_column is not None:
            raise InvalidParameterError("--group-column needs --workers WORKERS.CSV (a worker column and the "
                                        "grouping column), not --n")
        return None, None
    try:
        if args.group_column is None:
            lines = Path(args.workers).read_text().splitlines()
            return [line.strip() for line in lines if line.strip()], None
        with open(args.workers, newline="") as handle:
            rows = list(csv.DictReader(handle))
    except OSError as error:
        raise InvalidParameterError(f"--workers {args.workers}: {error.strerror}") from None
    columns = list(rows[0]) if rows else []
    for column in ("worker", args.group_column):
        if column not in columns:
            raise InvalidParameterError(f"--workers {args.workers}: column {column!r} is missing; columns present: "
                                        f"{', '.join(map(repr, columns)) or 'none'}")
    names = [(row["worker"] or "").strip() for row in rows]
    return names, [(row[args.group_column] or "").strip() for row in rows]


def start_session(args) -> None:
    """``session start``: the store, for the chosen algorithm with the options given (every other from its class)."""
    # Imported here, not at the top: fullbandit.cli.solve brings the data sets (pandas) and the run loop,
    # which the other actions do without.
    from fullbandit.cli.solve import check_takes_prior

    spec = registry.get(args.algorithm)
    parameters = args.algorithm_options.parameters(spec, args)  # refused before any file is read
    for option in ("prior_answers", "prior_pulls"):
        if getattr(args, option) is not None:
            check_takes_prior(spec, "--" + option.replace("_", "-"))  # before its file is read
    workers, groups = read_workers(args)
    prior = read_prior(args, workers)
    session = Session.start(args.store, algorithm=spec.name, k=args.k, n=args.n, workers=workers,
                            threshold=args.threshold, groups=groups, at_most=args.at_most,
                            reward_range=args.reward_range, seed=args.seed, prior=prior,
                            parameters=parameters)
    session.close()


def read_prior(args, workers: list[str] | None) -> PriorObservations | None:
    """The prior observations of ``--prior-answers``/``--prior-gold`` or ``--prior-pulls``, by worker name."""
    if args.prior_gold is not None and args.prior_answers is None:
        raise InvalidParameterError("--prior-gold needs --prior-answers (the answers it grades)")
    if args.prior_answers is None and args.prior_pulls is None:
        return None
    names = workers if workers is not None else [str(i) for i in range(args.n or 0)]
    if args.prior_pulls is not None:
        return PriorObservations.read_export(args.prior_pulls, names)
    from fullbandit.cli.solve import graded_prior  # here, not at the top: see start_session

    return graded_prior(args.prior_answers, args.prior_gold, names, "this session")


def run(args) -> int:
    """Carry out ``fullbandit session ACTION`` with the parsed ``args``; return the exit status."""
    if args.action == "start":
        start_session(args)
        print(f"created {args.store}")
        return 0
    if args.action == "serve":
        from fullbandit.sessions.http import serve

        serve(args.stores, host=args.host, port=args.port, token=args.token, folder=args.folder, new=args.new,
              cors_origins=args.cors_origin)
        return 0
    if args.action == "verify":
        with Session.open(args.store, verify="full") as session:
            status = session.status()
            agreed = session.checked_checkpoint
            print(f"verified {args.store}: every digest of the journal checked and the journal replayed "
                  f"({status['pulls']} pulls recorded, {status['outstanding']} outstanding); " +
                  ("no checkpoint" if agreed is None else f"its checkpoint (after event {agreed}) agrees"))
        return 0
    with Session.open(args.store) as session:
        if args.action == "next":
            pulls = session.next(args.count)
            workers = session.created["workers"]
            if args.json:
                print(json.dumps([{"pull": p.id, "arms": list(p.arms), "workers": [workers[i] for i in p.arms],
                                   "count": p.count} for p in pulls]))
            else:
                for p in pulls:
                    print(f"pull {p.id}: {' '.join(workers[i] for i in p.arms)}")
            if len(pulls) < args.count:  # on stderr: standard output stays the pulls alone (JSON stays JSON)
                print(f"fullbandit session next: handed out {len(pulls)} of the {args.count} pulls asked for: "
                      f"{session.created['algorithm']} hands out more once outstanding pulls are recorded (or "
                      "abandoned): the end of a round it plans the next one from, or of its budget", file=sys.stderr)
        elif args.action == "record":
            pull = session.pull(args.pull)
            reward = parse_reward(args.reward, pull, session.feedback, session.created["workers"])
            if session.record(args.pull, reward):
                print(f"recorded pull {args.pull}")
            else:  # a retry: nothing written (another reward is a RecordConflict, exit 2)
                print(f"pull {args.pull} was already recorded with this reward")
        elif args.action == "abandon":
            if session.abandon(args.pull):
                print(f"abandoned pull {args.pull}")
            else:
                print(f"pull {args.pull} was already abandoned")
        elif args.action == "status":
            status = session.status()
            if args.json:
                print(json.dumps(status))
            else:
                for key, value in status.items():
                    print(f"{key:<13} {value}")
        else:
            print(f"wrote {session.export(args.out, name='--out')} observations to {args.out}")
    return 0
