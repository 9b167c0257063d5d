"""``fullbandit session``: a live team search stored in a SQLite file (:class:`fullbandit.sessions.Session`).

``start`` creates the store, ``next`` prints teams to try, ``record`` stores an observed
reward, ``status`` shows the stopping statistic against epsilon, ``export`` writes the
observations as CSV, ``serve`` offers the same over HTTP
(:mod:`fullbandit.sessions.http`). A refused command exits with status 2 and changes nothing.
"""

from __future__ import annotations

import argparse
import json
import math
import os
from pathlib import Path

from fullbandit.cli.solve import graded_prior
from fullbandit.core import registry
from fullbandit.core.algorithm import Pull
from fullbandit.core.priors import PriorObservations
from fullbandit.sessions import Session
from fullbandit.util.validation import InvalidParameterError


def add_parser(commands) -> None:
    """Add the sub-command to ``commands`` (an argparse sub-parsers object)."""
    parser = commands.add_parser("session", help="a live team search stored in a SQLite file",
                                 description=__doc__.split("\n")[0])
    actions = parser.add_subparsers(dest="action", required=True)
    start = actions.add_parser("start", help="create a session store")
    start.add_argument("store", help="path of the new SQLite store (must not exist)")
    who = start.add_mutually_exclusive_group(required=True)
    who.add_argument("--workers", help="a text file with one worker name per line")
    who.add_argument("--n", type=int, help="number of workers (named 0, 1, ...)")
    start.add_argument("--k", type=int, required=True, help="team size")
    start.add_argument("--algorithm", choices=registry.names(), required=True, help="a registered algorithm")
    start.add_argument("--epsilon", type=float, required=True, help="tolerance on the team's summed reward")
    start.add_argument("--delta", type=float, required=True, help="error probability")
    start.add_argument("--reward-range", type=float, nargs=2, metavar=("LOW", "HIGH"),
                       help="range of one observed reward: the team's (full feedback) or each member's (semi "
                            "feedback, e.g. lucb); rewards outside it are refused; also sets the noise scale "
                            "(HIGH - LOW) / 2")
    start.add_argument("--noise-scale", type=float, help="sub-Gaussian scale of one observed reward")
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
    nxt = actions.add_parser("next", help="hand out the next team(s) to try")
    nxt.add_argument("store")
    nxt.add_argument("--count", type=int, default=1, help="how many pulls to hand out at once (default: 1)")
    nxt.add_argument("--json", action="store_true", help="print the pulls as JSON")
    record = actions.add_parser("record", help="record the observed reward of a pull")
    record.add_argument("store")
    record.add_argument("--pull", type=int, required=True, help="the pull id printed by `next`")
    record.add_argument("--reward", required=True,
                        help="the observed reward: one number (full feedback, or a one-member pull); semi feedback: "
                             "one per member, comma-separated or a JSON list")
    status = actions.add_parser("status", help="pulls so far, best team, stopping statistic")
    status.add_argument("store")
    status.add_argument("--json", action="store_true", help="print the status as JSON")
    export = actions.add_parser("export", help="write the observations as CSV")
    export.add_argument("store")
    export.add_argument("--out", required=True, help="the CSV file to write")
    serve = actions.add_parser("serve", help="serve the store over HTTP (JSON endpoints and a status page)")
    serve.add_argument("store")
    serve.add_argument("--host", default="127.0.0.1",
                       help="address to bind (default: 127.0.0.1; any other host requires a token)")
    serve.add_argument("--port", type=port_number, default=8765,
                       help="port to bind, 0 to 65535 (default: 8765; 0: any free port)")
    serve.add_argument("--token", default=os.environ.get("FULLBANDIT_TOKEN"),
                       help="require 'Authorization: Bearer TOKEN' on every request "
                            "(default: the FULLBANDIT_TOKEN environment variable)")


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


def read_prior(args, workers: list[str] | None) -> PriorObservations | None:
    """The prior observations of ``--prior-answers``/``--prior-gold`` or ``--prior-pulls``, by worker name."""
    if args.prior_gold is not None and args.prior_answers is None:
        raise InvalidParameterError("--prior-gold needs --prior-answers (the answers it grades)")
    if args.prior_answers is None and args.prior_pulls is None:
        return None
    names = workers if workers is not None else [str(i) for i in range(args.n or 0)]
    if args.prior_pulls is not None:
        return PriorObservations.read_export(args.prior_pulls, names)
    return graded_prior(args.prior_answers, args.prior_gold, names, "this session")


def run(args) -> int:
    """Carry out ``fullbandit session ACTION`` with the parsed ``args``; return the exit status."""
    if args.action == "start":
        workers = None
        if args.workers is not None:
            try:
                lines = Path(args.workers).read_text().splitlines()
            except OSError as error:
                raise InvalidParameterError(f"--workers {args.workers}: {error.strerror}") from None
            workers = [line.strip() for line in lines if line.strip()]
        session = Session.start(args.store, algorithm=args.algorithm, k=args.k, n=args.n, workers=workers,
                                epsilon=args.epsilon, delta=args.delta, reward_range=args.reward_range,
                                noise_scale=args.noise_scale, seed=args.seed, prior=read_prior(args, workers))
        session.close()
        print(f"created {args.store}")
        return 0
    if args.action == "serve":
        from fullbandit.sessions.http import serve

        serve(args.store, host=args.host, port=args.port, token=args.token)
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
        elif args.action == "record":
            pull = session.pull(args.pull)
            session.record(args.pull, parse_reward(args.reward, pull, session.feedback, session.created["workers"]))
            print(f"recorded pull {args.pull}")
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
