"""``fullbandit plan``: what a campaign would cost, estimated before paying for it.

Prior per-worker accuracies come from an embedded data set (``--dataset``), from a user's
long-format files (``--data answers.csv --gold gold.csv``, read as ``fullbandit solve``
reads them) or from a list (``--accuracies 0.9,0.8,...``); :func:`fullbandit.analysis.planning.plan`
does the work.

The algorithms' parameters are the options generated from their declarations
(:mod:`fullbandit.cli.options`): each one given is passed to every planned algorithm that takes
it, and every one not given takes the class's default (``--delta`` included). Two belong to the
plan itself: ``--epsilon``, the question's tolerance on the team's sum (default: derived from the
prior accuracies exactly as ``fullbandit solve`` derives it, :mod:`fullbandit.analysis.tolerance`,
so the two commands agree on the same data), and ``--budget``, the plan's cap on one simulated
run (:data:`fullbandit.analysis.planning.DEFAULT_BUDGET`, not the classes' far larger caps: a plan must finish).

A forecast of a live campaign: ``--reward-model joint`` replays the graded answers of
``--dataset`` or ``--data`` with one question per team trial (every member answers it, as in a
campaign), and ``--reward-range LOW HIGH`` and ``--noise-scale S`` mean exactly what they mean
to ``fullbandit session start``: the range is offered to every algorithm with the noise scale
``(HIGH - LOW) / 2`` unless ``--noise-scale`` is given (the algorithms' own ``reward_range``
parameter is then ``--param-reward-range LOW,HIGH``). See :mod:`fullbandit.analysis.planning`.
"""

from __future__ import annotations

import json

from fullbandit.analysis import planning
from fullbandit.analysis.tolerance import Tolerance, random_teams_seed, tolerance
from fullbandit.cli.options import add_algorithm_options
from fullbandit.cli.solve import DEFAULT_MIN_ANSWERS, load_files
from fullbandit.core import registry
from fullbandit.datasets import DATASETS, load_dataset
from fullbandit.util.validation import InvalidParameterError, check_real

DESCRIPTION = (
    "Estimate, before paying for a campaign, how many pulls each certified algorithm needs to "
    "find a team of k workers: a few seeded simulated runs of every certified full-bandit "
    "algorithm (only the team's summed reward is seen; a trial consumes k answers) and every "
    "certified per-arm one (each answer is graded), on independent Bernoulli workers with the "
    "prior accuracies, with the instance lower bound beside them where affordable. "
    "These are estimates from simulation on the prior accuracies, only as good as the prior. "
    "To forecast a live campaign, replay the graded answers with --reward-model joint (every member of "
    "a team trial answers the same question) and give the --reward-range (and --noise-scale, if any) the "
    "session will declare. "
    "Full-bandit feedback is warranted when individual answers cannot be graded; with "
    "per-worker gold answers, ranking workers on their graded answers is far cheaper.")


def add_parser(commands) -> None:
    """Add the sub-command to ``commands`` (an argparse sub-parsers object)."""
    parser = commands.add_parser("plan", help="estimate what a campaign would cost, from prior accuracies",
                                 description=DESCRIPTION)
    parser.add_argument("--dataset", choices=DATASETS, default=None,
                        help="prior accuracies from an embedded data set")
    parser.add_argument("--data", metavar="ANSWERS.CSV", default=None,
                        help="prior accuracies from your answers, a CSV file with columns task,worker,label, "
                             "graded against --gold")
    parser.add_argument("--gold", metavar="GOLD.CSV", default=None,
                        help="with --data: the true labels, a CSV file with columns task,true_label")
    parser.add_argument("--columns", default=None, metavar="ROLE=NAME,...",
                        help="with --data: column names other than the defaults")
    parser.add_argument("--min-answers", type=int, default=None,
                        help=f"with --data: leave out workers with fewer gold answers (default: {DEFAULT_MIN_ANSWERS})")
    parser.add_argument("--accuracies", default=None, metavar="A,B,C,...",
                        help="prior accuracies as a comma-separated list of numbers in [0, 1] (at least k + 1)")
    parser.add_argument("--k", type=int, default=10, help="team size (default: 10)")
    parser.add_argument("--epsilon", type=float, default=None,
                        help="tolerance on the team's summed accuracy (default: derived from the prior accuracies, a "
                             "fifth of the gap from a random team to the best, as `fullbandit solve` derives it)")
    parser.add_argument("--epsilon-per-member", type=float, default=None, metavar="E",
                        help="tolerance per team member: epsilon = k E; excludes --epsilon")
    parser.add_argument("--runs", type=int, default=planning.DEFAULT_RUNS,
                        help=f"seeded runs per algorithm (default: {planning.DEFAULT_RUNS})")
    parser.add_argument("--budget", type=int, default=planning.DEFAULT_BUDGET,
                        help="pull cap of every run: team trials for full feedback, single answers for "
                             f"per-arm feedback (default: {planning.DEFAULT_BUDGET:,}); runs that reach it "
                             "are reported")
    parser.add_argument("--seed", type=int, default=0, help="base seed of the runs (default: 0)")
    parser.add_argument("--algorithms", default=None, metavar="NAME,...",
                        help=f"only these, by registry or class name (default: "
                             f"{', '.join(planning.planned_algorithms())})")
    parser.add_argument("--reward-model", choices=planning.REWARD_MODELS, default="bernoulli",
                        help="bernoulli: independent workers with the prior accuracies (default); joint: the graded "
                             "answers of --dataset or --data replayed, every member of a team trial answering the same "
                             "question drawn at random (what a live campaign sees; a member who did not answer it "
                             "gives one of its own answers)")
    parser.add_argument("--reward-range", type=float, nargs=2, metavar=("LOW", "HIGH"), default=None,
                        help="the range a live session will declare (`fullbandit session start --reward-range`): the "
                             "team's reward for full feedback, each member's for per-arm feedback; offered to every "
                             "algorithm as its range and, without --noise-scale, its noise scale (HIGH - LOW) / 2, "
                             "as the session offers it (default: each reward model's own)")
    parser.add_argument("--json", action="store_true", help="print the plan as JSON")
    parser.add_argument("--no-progress", action="store_true", help="never show a progress bar")
    # After --reward-range: the algorithms' own reward_range parameter becomes --param-reward-range.
    add_algorithm_options(parser, exclude=("epsilon", "budget"))


def parse_accuracies(text: str) -> list[float]:
    """``"0.9, 0.8"`` as ``[0.9, 0.8]``; anything else is an error naming ``--accuracies``."""
    values = []
    for item in text.split(","):
        try:
            values.append(float(item))
        except ValueError:
            raise InvalidParameterError(f"--accuracies must be comma-separated numbers in [0, 1]; "
                                        f"got {item.strip()!r}") from None
    return values


def prior(args) -> tuple[str, object]:
    """The source's description and the prior: accuracies, or (``--reward-model joint``) the graded answers.

    Exactly one source is allowed; ``--accuracies`` has no answers to replay jointly.
    """
    given = [name for name in ("dataset", "data", "accuracies") if getattr(args, name) is not None]
    if len(given) > 1:
        raise InvalidParameterError(f"{' and '.join('--' + name for name in given)} are mutually exclusive: "
                                    f"give one of --dataset, --data, --accuracies")
    if args.data is None:
        for option in ("gold", "min_answers", "columns"):
            if getattr(args, option) is not None:
                raise InvalidParameterError(f"--{option.replace('_', '-')} applies only with --data")
    joint = args.reward_model == "joint"
    if args.accuracies is not None:
        if joint:
            raise InvalidParameterError("--reward-model joint replays graded answers, one question per team trial: "
                                        "give them with --dataset or --data (--accuracies has none)")
        return "--accuracies", parse_accuracies(args.accuracies)
    if args.data is not None:
        table = load_files(args.data, args.gold, args.min_answers, args.columns, default_min=DEFAULT_MIN_ANSWERS)
        return f"--data {args.data}", table if joint else table.accuracies.tolist()
    name = args.dataset or "it"
    data = load_dataset(name)
    return f"--dataset {name}", data if joint else data.accuracies.tolist()


def check_tolerance_options(args) -> None:
    """Refuse ``--epsilon`` with ``--epsilon-per-member``, or either below 0 (before any data is read)."""
    if args.epsilon is not None and args.epsilon_per_member is not None:
        raise InvalidParameterError("--epsilon and --epsilon-per-member are mutually exclusive: "
                                    "--epsilon is on the team's sum, --epsilon-per-member E means epsilon = k E")
    for option, value in (("--epsilon", args.epsilon), ("--epsilon-per-member", args.epsilon_per_member)):
        if value is not None:
            check_real(option, value, low=0.0)


def epsilon(args, accuracies) -> Tolerance:
    """``--epsilon``, or ``k`` times ``--epsilon-per-member``, or the default derived from ``accuracies``
    (the options checked by :func:`check_tolerance_options`)."""
    if args.epsilon is not None:
        given, source = args.epsilon, "--epsilon"
    elif args.epsilon_per_member is not None:
        given, source = args.k * args.epsilon_per_member, "--epsilon-per-member"
    else:
        given, source = None, "default"
    return tolerance(accuracies, args.k, given, source=source, seed=random_teams_seed(args.seed))


def planned_name(name: str, given: str, allowed: tuple[str, ...]) -> str:
    """The registry name of ``name`` (a registry or class name) in ``--algorithms``; refused unless it is planned."""
    try:
        name = registry.get(name).name
    except InvalidParameterError:
        pass
    if name not in allowed:
        raise InvalidParameterError(f"--algorithms {given!r}: each must be one of {', '.join(allowed)}")
    return name


def run(args) -> int:
    """Carry out ``fullbandit plan`` with the parsed ``args``; return the exit status."""
    check_tolerance_options(args)
    source, accuracies = prior(args)
    if args.k < 1:
        raise InvalidParameterError(f"--k must be an integer >= 1, got {args.k}")
    planning.declared_setup(args.reward_range, "--reward-range")  # refused before any run
    try:
        planning.check_accuracies(getattr(accuracies, "accuracies", accuracies), args.k,
                                  argument=source.split()[0])
    except InvalidParameterError as error:
        raise InvalidParameterError(f"{error} (--k {args.k})") from None
    allowed = planning.planned_algorithms()
    algorithms = allowed
    if args.algorithms is not None:
        algorithms = tuple(planned_name(name.strip(), args.algorithms, allowed) for name in args.algorithms.split(",")
                           if name.strip())
        if not algorithms:
            raise InvalidParameterError(f"--algorithms {args.algorithms!r}: each must be one of {', '.join(allowed)}")
    for name in ("runs", "budget", "seed"):
        value = getattr(args, name)
        if value < (0 if name == "seed" else 1):
            raise InvalidParameterError(f"--{name} must be an integer >= {0 if name == 'seed' else 1}, got {value}")
    parameters = args.algorithm_options.shared([registry.get(name) for name in algorithms], args)
    delta = parameters.pop("delta", None)
    if args.reward_range is not None:  # refused here too, so that the message names the option
        answers = accuracies if args.reward_model == "joint" else None
        for feedback in sorted({registry.get(name).feedback for name in algorithms}):
            planning.check_declared_range(args.reward_range, planning.plan_environment(
                args.reward_model, getattr(accuracies, "accuracies", accuracies), answers, feedback=feedback,
                seed=0), args.k, name="--reward-range")
    question = epsilon(args, getattr(accuracies, "accuracies", accuracies))
    result = planning.plan(accuracies, args.k, epsilon=question.epsilon, delta=delta, runs=args.runs,
                           budget=args.budget, seed=args.seed, algorithms=algorithms, parameters=parameters,
                           reward_model=args.reward_model, reward_range=args.reward_range,
                           progress=False if args.no_progress or args.json else None)
    if args.json:
        print(json.dumps({"source": source, **result.as_dict()}, indent=2))
        return 0
    print(f"prior         {source}")
    print(question.describe())
    print(result.table())
    return 0
