"""``fullbandit solve``: a simulated team search on an embedded data set or on a user's own files.

``--data answers.csv --gold gold.csv`` reads a long table (``task,worker,label`` and
``task,true_label``) with :func:`fullbandit.datasets.crowd.load_long`; each worker's mean is
its accuracy over the gold tasks it answered, and the ``replay`` model replays each worker's
own answers (:class:`fullbandit.environments.models.SparseReplay`). ``--data counts.csv --votes``
reads a vote-count table (one row per item, one column of counts per rating) with
:func:`fullbandit.datasets.votes.load_vote_counts`; each item's mean is its mean rating,
and the ``replay`` model draws one of the item's recorded votes per member
(:class:`fullbandit.Categorical`).

``--reward-model joint`` simulates what a live campaign sees: the real graded answers (of
``--dataset`` or ``--data``) replayed with ONE question per team trial, which every member
answers (:class:`fullbandit.environments.models.JointReplay`; members are correlated through
the question, and the model declares the honest noise scale ``k/2`` of a dependent sum).
``--reward-range LOW HIGH`` and ``--noise-scale S`` mean exactly what they mean to
``fullbandit session start``: the range is offered to the algorithm through
``setup(noise_scale=(HIGH - LOW) / 2, reward_range=(LOW, HIGH))``, as the session's
:func:`fullbandit.sessions.replay.build_algorithm` does (``--noise-scale``, the algorithm's own
parameter, wins over the offered scale), and it must hold every reward the simulation draws, as
the session refuses any other. With the campaign's own declarations and ``--reward-model joint``
the run is a forecast of that campaign. (The algorithms' ``reward_range`` parameter itself is
``--param-reward-range LOW,HIGH``.)

Algorithms and their options come from :mod:`fullbandit.core.registry`: every parameter an
algorithm declares is an option (:mod:`fullbandit.cli.options`), passed to the chosen algorithm
when it takes it and refused with a clear message when it does not; an option not given is left
to the algorithm's class default. Nothing here is specific to one algorithm.

The question a user asks has defaults of its own, whatever the algorithm: the team size ``--k``
(:data:`DEFAULT_K`), the ``--threshold`` of a thresholding algorithm (:data:`DEFAULT_THRESHOLD`)
and, for a team search, the tolerance ``--epsilon`` on the team's summed mean, derived from the
data (:func:`fullbandit.analysis.tolerance.tolerance`: a fifth of the gap from a random team to
the best, the rule ``fullbandit plan`` uses too) and printed with what it means on them. It is
the one parameter whose default here differs from the class's, a deliberate exception: it
belongs to the question, like ``--k``; a thresholding algorithm's epsilon (a precision per arm,
not a tolerance on a team) keeps its class default. ``tests/test_frontends.py`` checks over the
registry that every other default is the class's.

The result is printed by :mod:`fullbandit.cli.layout`, by name, one layout per problem kind.
With per-worker gold (``--data``), the output also says how many gold answers the team's
members rest on (:data:`DEFAULT_MIN_ANSWERS` is the least a worker needs to be considered)
and what ranking the graded answers directly would cost (:mod:`fullbandit.cli.graded`).
"""

from __future__ import annotations

import dataclasses
import json
import sys
import warnings

import numpy as np

from fullbandit.analysis.planning import check_declared_range, declared_setup
from fullbandit.analysis.tolerance import Tolerance, default_epsilon, random_teams_seed, tolerance
from fullbandit.cli.graded import print_gold_notes
from fullbandit.cli.layout import Arms, print_result
from fullbandit.cli.options import Question, add_algorithm_options, algorithm_name
from fullbandit.core import loop as driver
from fullbandit.core import registry
from fullbandit.core.priors import PriorObservations
from fullbandit.datasets import DATASETS, dataset_info, load_dataset
from fullbandit.datasets.crowd import CrowdDataWarning, CrowdTable, load_long
from fullbandit.datasets.groups import partition_matroid_from_column
from fullbandit.datasets.instances import REWARD_MODELS, team_environment
from fullbandit.datasets.votes import RATINGS, REWARDS, VOTE_MODELS, VoteCounts, load_vote_counts
from fullbandit.environments.models import JointReplay
from fullbandit.problems.classes import PartitionMatroid, Thresholding, TopK
from fullbandit.util.validation import InvalidParameterError, check_int, check_real

# The question's defaults (not an algorithm's).
#: Workers with fewer gold answers are left out by default (``--min-answers``): at 20 answers an
#: accuracy's 95% interval is still up to +-0.22 wide, and below that a "certified" team would rest
#: on workers nobody knows.
DEFAULT_MIN_ANSWERS = 20
#: Thresholding: "which workers are right at least half of the time".
DEFAULT_THRESHOLD = 0.5
#: Team size of a top-k search.
DEFAULT_K = 10
#: The range of a worker's accuracy (an embedded data set or --data graded against gold).
ACCURACY_RANGE = (0.0, 1.0)
#: ``--reward-model`` choices: the data sets' models and ``joint``, the graded answers replayed with one
#: question per team trial (:class:`fullbandit.environments.models.JointReplay`).
SOLVE_REWARD_MODELS = (*REWARD_MODELS, "joint")
#: ``--reward-model`` choices with ``--data`` (a long table of graded answers).
FILE_REWARD_MODELS = ("bernoulli", "replay", "joint")
#: The question's parameters (:mod:`fullbandit.cli.options`).
QUESTION = {"epsilon": Question(None, "the question's tolerance on the team's summed mean",
                                derived="derived from the data, a fifth of the gap from a random team to the best")}


def add_parser(commands) -> None:
    """Add the sub-command to ``commands`` (an argparse sub-parsers object)."""
    parser = commands.add_parser(
        "solve", help="pick the best team of k workers on an embedded crowdsourcing data set or your own files",
        description="Simulate a campaign on an embedded data set (--dataset) or on your own answers "
                    "(--data answers.csv --gold gold.csv): for a full-bandit algorithm "
                    "every trial of a team shows only its summed reward, for a semi-bandit one "
                    "(e.g. optmai) every worker's reward is seen and the budget counts single "
                    "answers. Prints the team found and, since the simulation knows the truth, "
                    "the best team and the gap. Options that an algorithm does not take are refused.")
    source = parser.add_mutually_exclusive_group()
    source.add_argument("--dataset", choices=DATASETS, default=None, help="embedded data set (default: it)")
    source.add_argument("--data", metavar="ANSWERS.CSV", default=None,
                        help="your own answers, a CSV file with columns task,worker,label (one row per answer); "
                             "graded against --gold")
    parser.add_argument("--gold", metavar="GOLD.CSV", default=None,
                        help="with --data: the true labels, a CSV file with columns task,true_label (default: a "
                             "true_label column of the --data file)")
    parser.add_argument("--columns", default=None, metavar="ROLE=NAME,...",
                        help="with --data: column names other than the defaults, e.g. "
                             "task=item,worker=annotator,label=vote,true_label=gold; with --votes the roles are "
                             "id (default: id) and total (a column of total votes, checked; default: none), e.g. "
                             "id=rank,total=votes")
    parser.add_argument("--votes", action="store_true",
                        help="with --data: the file is a vote-count table (one row per item, one column of vote "
                             "counts per rating, e.g. a caption contest's counts.csv); the search picks the k "
                             "items of highest mean rating")
    parser.add_argument("--ratings", default=None, metavar="COLUMN=REWARD,...",
                        help="with --votes: the rating columns and their rewards, increasing (default: "
                             f"{','.join(f'{c}={v:g}' for c, v in zip(RATINGS, REWARDS, strict=True))})")
    parser.add_argument("--min-answers", type=int, default=None,
                        help="with --data: leave out workers with fewer gold answers (default: "
                             f"{DEFAULT_MIN_ANSWERS}; a team member with fewer is flagged in the output)")
    parser.add_argument("--prior-answers", metavar="EARLIER.CSV", default=None,
                        help="with --data: the workers' graded answers to an earlier, separate batch of tasks "
                             "(same columns; gold from --prior-gold or a true_label column), counted as real "
                             "observations before the first pull")
    parser.add_argument("--prior-gold", metavar="GOLD.CSV", default=None,
                        help="with --prior-answers: their true labels")
    parser.add_argument("--k", type=int, default=None,
                        help=f"team size (default: {DEFAULT_K}); not for a thresholding algorithm, which classifies "
                             "every worker")
    parser.add_argument("--workers", metavar="WORKERS.CSV", default=None,
                        help="with --group-column and --at-most: a CSV file with a worker column (the worker ids) "
                             "and a grouping column; the team then has at most --at-most workers per group (a "
                             "partition matroid, for the algorithms that support one: icb, exhaustive)")
    parser.add_argument("--group-column", metavar="COLUMN", default=None,
                        help="with --workers: the grouping column, e.g. country")
    parser.add_argument("--at-most", type=int, default=None, metavar="CAP",
                        help="with --workers: at most CAP team members per group")
    parser.add_argument("--threshold", type=float, default=None,
                        help="for a thresholding algorithm (e.g. lsa, apt): classify every worker as at or above "
                             "this accuracy, or below it, instead of picking a team; within the range of the rewards "
                             "([0, 1] for accuracies; with --votes, the --ratings rewards) (default: 0.5)")
    parser.add_argument("--algorithm", type=algorithm_name, default="phased",
                        help=f"a registered algorithm, by name or class name: {', '.join(registry.names())} "
                             "(default: phased, the adaptive certified one that needs the fewest pulls on the quiz "
                             "data); `fullbandit solve --list` describes them")
    parser.add_argument("--list", action="store_true", help="list the algorithms with their tags and exit")
    parser.add_argument("--epsilon-per-member", type=float, default=None,
                        help="tolerance per member instead: epsilon = k times this (a tolerance on the sum must grow "
                             "with k); not with --epsilon")
    parser.add_argument("--time-limit", type=float, default=None,
                        help="seconds of wall clock: the simulation then ends with stop reason 'time limit' "
                             "(its answer only the current best guess)")
    parser.add_argument("--reward-model", choices=SOLVE_REWARD_MODELS, default=None,
                        help="bernoulli: independent workers; replay: real answers (an embedded data set: every "
                             "member's answer to one random question per trial; --data: each member one of its own "
                             "graded answers, drawn independently of the others; --votes: one recorded vote per "
                             "member); "
                             "gaussian: accuracies + N(0, 1) on the sum; joint: real answers, every "
                             "member of a trial answering the same random question, what a live campaign sees (with "
                             "--data, a member who did not answer it gives one of its own answers) (default: "
                             "bernoulli; with --votes: replay, the only one)")
    parser.add_argument("--reward-range", type=float, nargs=2, metavar=("LOW", "HIGH"), default=None,
                        help="what `fullbandit session start --reward-range` declares: the range of one observed "
                             "reward, the team's (full feedback) or each member's (semi feedback); offered to the "
                             "algorithm as its range and, without --noise-scale, its noise scale (HIGH - LOW) / 2 "
                             "(default: the reward model's own); refused unless it holds every simulated reward")
    parser.add_argument("--seed", type=int, default=0, help="seed of every random choice (default: 0)")
    parser.add_argument("--no-progress", action="store_true", help="never show a progress bar")
    parser.add_argument("--json", action="store_true", help="print the inputs and the result as JSON")
    parser.add_argument("--verbose", action="store_true",
                        help="also print the algorithm's internals (its constants and stopping checks)")
    # After --reward-range: the algorithms' own reward_range parameter becomes --param-reward-range.
    add_algorithm_options(parser, question=QUESTION)


def algorithm_parameters(spec: registry.AlgorithmSpec, args) -> dict:
    """The parameters the command line sets for ``spec``: the options given and the question's epsilon.

    Every other parameter is left to the class's default; an option ``spec`` does not take
    is an error naming the options it takes. ``--epsilon-per-member E`` sets epsilon to
    ``k E`` (``--k``'s team size).
    """
    derived = {}
    if args.epsilon_per_member is not None:
        if "epsilon" in args.algorithm_options.given(args):
            raise InvalidParameterError("give --epsilon (on the team's sum) or --epsilon-per-member, not both")
        # Checked here: the algorithm's own check would name epsilon, the product, not this option.
        per_member = check_real("--epsilon-per-member", args.epsilon_per_member, low=0.0)
        derived["epsilon"] = (args.k * per_member, "--epsilon-per-member")
    elif getattr(args, "default_epsilon", None) is not None and "epsilon" not in args.algorithm_options.given(args):
        derived["epsilon"] = (args.default_epsilon, "--epsilon")
    return args.algorithm_options.parameters(spec, args, derived)


def question_tolerance(args, spec: registry.AlgorithmSpec, problem, means) -> None:
    """Set ``args.default_epsilon`` for a team search by ``spec`` on ``means`` (``None`` otherwise).

    The default is :func:`fullbandit.analysis.tolerance.default_epsilon` of ``means``. Under
    group caps it is taken on the unconstrained best team (a choice made here: that team is at
    least as good as the capped one, so the tolerance is at least as loose as the capped gap's).
    """
    takes = "epsilon" in spec.options and not isinstance(problem, Thresholding)
    args.default_epsilon = default_epsilon(means, problem.k) if takes else None


def described_tolerance(args, problem, parameters: dict, means) -> Tolerance | None:
    """The epsilon the run used, with its meaning on ``means``; ``None`` when the algorithm takes none."""
    if "epsilon" not in parameters or isinstance(problem, Thresholding):
        return None
    given = "epsilon" in args.algorithm_options.given(args)
    source = "--epsilon" if given else "--epsilon-per-member" if args.epsilon_per_member is not None else "default"
    epsilon = None if source == "default" else parameters["epsilon"]
    return tolerance(means, problem.k, epsilon, source=source, seed=random_teams_seed(args.seed))


def decision_problem(spec: registry.AlgorithmSpec, n: int, args, reward_range=ACCURACY_RANGE,
                     means: str = "the workers' accuracies") -> TopK | Thresholding:
    """The team of ``--k`` workers, or (for a thresholding algorithm) the workers at or above ``--threshold``.

    ``--threshold`` must lie in ``reward_range``, the range of ``means`` (named in the
    message): outside it every arm is trivially below (or above) it.
    """
    if takes_threshold(spec):
        return Thresholding(n, check_threshold(args.threshold, reward_range, means))
    if args.threshold is not None:
        raise InvalidParameterError(f"--threshold applies to the thresholding algorithms "
                                    f"({', '.join(thresholding_algorithms())}), not to --algorithm {spec.name}")
    return TopK(n, args.k)


def check_threshold(threshold: float | None, reward_range, means: str) -> float:
    """``--threshold`` (default 0.5), refused outside ``reward_range``, the range of ``means``."""
    if threshold is None:
        return DEFAULT_THRESHOLD
    low, high = reward_range
    try:
        return check_real("--threshold", threshold, low=low, high=high)
    except InvalidParameterError as error:
        raise InvalidParameterError(f"{error}: {means} lie in [{low:g}, {high:g}]") from None


def team_size(spec: registry.AlgorithmSpec, k: int | None) -> int:
    """``--k`` (default 10); refused for a thresholding algorithm, which has no team to size."""
    if not takes_threshold(spec):
        return DEFAULT_K if k is None else k
    if k is not None:
        raise InvalidParameterError(f"--k does not apply to --algorithm {spec.name}: a thresholding algorithm "
                                    "classifies every worker (or item) as at or above --threshold or below it, "
                                    "and picks no team of k")
    return DEFAULT_K  # unused by the problem; kept for the epsilon conversion and the printed inputs


MATROID_OPTIONS = ("workers", "group_column", "at_most")


def takes_groups(spec: registry.AlgorithmSpec) -> bool:
    """Whether ``spec`` declares partition matroids (group caps) among its decision classes (or a base of them)."""
    return issubclass(PartitionMatroid, spec.decision_classes)


def takes_threshold(spec: registry.AlgorithmSpec) -> bool:
    """Whether ``spec`` is a thresholding algorithm: it declares :class:`Thresholding` among its decision classes."""
    return Thresholding in spec.decision_classes


def check_matroid_options(spec: registry.AlgorithmSpec, args) -> bool:
    """Whether ``--workers/--group-column/--at-most`` are given; all three or none, for a matroid algorithm."""
    given = [name for name in MATROID_OPTIONS if getattr(args, name) is not None]
    if not given:
        return False
    if len(given) < len(MATROID_OPTIONS):
        absent = [f"--{name.replace('_', '-')}" for name in MATROID_OPTIONS if name not in given]
        raise InvalidParameterError(f"--workers, --group-column and --at-most go together; {', '.join(absent)} "
                                    f"{'is' if len(absent) == 1 else 'are'} missing")
    if args.threshold is not None:
        raise InvalidParameterError("--threshold does not apply with --workers (a team search under group caps)")
    if not takes_groups(spec):
        raise InvalidParameterError(f"--algorithm {spec.name} does not support group caps (a partition matroid); "
                                    f"algorithms that do: {', '.join(matroid_algorithms())}")
    return True


def matroid_algorithms() -> tuple[str, ...]:
    """The registered algorithms that take group caps (a partition matroid)."""
    return tuple(spec.name for spec in registry.specs() if takes_groups(spec))


def grouped_problem(spec: registry.AlgorithmSpec, worker_ids, args, reward_range=ACCURACY_RANGE,
                    means: str = "the workers' accuracies"):
    """``decision_problem``, or the partition matroid of ``--workers/--group-column/--at-most``.

    Returns ``(problem, group label of each worker or None)``.
    """
    if not check_matroid_options(spec, args):
        return decision_problem(spec, len(worker_ids), args, reward_range, means), None
    try:
        problem, labels = partition_matroid_from_column(worker_ids, args.workers, args.group_column, k=args.k,
                                                        at_most=args.at_most)
    except FileNotFoundError as error:
        raise InvalidParameterError(str(error)) from None
    if not spec.supports(problem):  # declared above; kept for a class whose check looks at the instance
        raise InvalidParameterError(f"--algorithm {spec.name} does not support this partition matroid; "
                                    f"algorithms that do: {', '.join(matroid_algorithms())}")
    return problem, [labels[g] for g in problem.groups]


def thresholding_algorithms() -> tuple[str, ...]:
    """The registered thresholding algorithms."""
    return tuple(spec.name for spec in registry.specs() if takes_threshold(spec))


def prior_algorithms() -> tuple[str, ...]:
    """The registered algorithms whose class declares ``takes_prior``."""
    return tuple(spec.name for spec in registry.specs() if spec.cls.takes_prior)


def check_takes_prior(spec: registry.AlgorithmSpec, option: str) -> None:
    """Refuse ``option`` (a prior's) for an algorithm whose class does not declare ``takes_prior``."""
    if not spec.cls.takes_prior:
        raise InvalidParameterError(f"{option}: --algorithm {spec.name} does not take prior observations; the "
                                    f"algorithms that do: {', '.join(prior_algorithms())}")


def list_algorithms() -> None:
    """Print every registered algorithm with its declared tags."""
    print(f"{'name':<22}{'feedback':<10}{'guarantee':<14}{'setting':<18}{'problems':<16}{'prior':<7}summary")
    for spec in registry.specs():
        problems = "threshold" if takes_threshold(spec) else "top-k, matroid" if takes_groups(spec) else "top-k"
        prior = "yes" if spec.cls.takes_prior else "no"
        print(f"{spec.name:<22}{spec.feedback:<10}{spec.guarantee:<14}{spec.setting:<18}{problems:<16}{prior:<7}"
              f"{spec.summary}")


def run(args) -> int:
    """Carry out ``fullbandit solve`` with the parsed ``args``; return the exit status."""
    if args.list:
        list_algorithms()
        return 0
    check_int("seed", args.seed, low=0)
    spec = registry.get(args.algorithm)
    args.k = team_size(spec, args.k)
    algorithm_parameters(spec, args)  # refuses an option the algorithm does not take before any data is read
    if args.prior_answers is not None:
        check_takes_prior(spec, "--prior-answers")
    if args.data is None:
        for option in ("gold", "min_answers", "columns", "ratings", "prior_answers", "prior_gold"):
            if getattr(args, option) is not None:
                raise InvalidParameterError(f"--{option.replace('_', '-')} applies only with --data")
        if args.votes:
            raise InvalidParameterError("--votes applies only with --data (the vote-count file)")
        return _run_dataset(args, spec)
    if args.votes:
        return _run_votes(args, spec)
    if args.ratings is not None:
        raise InvalidParameterError("--ratings applies only with --votes")
    return _run_files(args, spec)


def _run_dataset(args, spec: registry.AlgorithmSpec) -> int:
    args.dataset = args.dataset or "it"
    args.reward_model = args.reward_model or "bernoulli"
    data = load_dataset(args.dataset)
    problem, groups = grouped_problem(spec, data.worker_ids, args)
    question_tolerance(args, spec, problem, data.accuracies)
    # Per-arm (semi-bandit) algorithms see each worker's answer; the others only the team's sum.
    result, parameters = _search(args, spec, problem, lambda seed: JointReplay(
        data, feedback=spec.feedback, seed=seed) if args.reward_model == "joint" else team_environment(
        data, args.reward_model, feedback=spec.feedback, seed=seed))
    if args.json:
        inputs = {"dataset": args.dataset, "k": args.k, "threshold": getattr(problem, "threshold", None),
                  "seed": args.seed, "reward_model": args.reward_model, "reward_range": args.reward_range,
                  "algorithm": spec.name, "parameters": parameters, **matroid_inputs(args)}
        print(json.dumps({"inputs": inputs, **result.as_dict(), **group_output(groups, result)}, indent=2,
                         default=str))
        return 0
    info = dataset_info(args.dataset)
    task = f"threshold={problem.threshold:g}" if isinstance(problem, Thresholding) else f"k={args.k}"
    print(f"data set      {info.get('paper_name', args.dataset)}: {data.n_workers} workers, "
          f"{data.n_questions} questions; {task}, reward model {args.reward_model}{declared(args)}")
    print_result(result, problem, Arms(data.worker_ids, data.accuracies, groups=groups), feedback=spec.feedback,
                 tolerance=described_tolerance(args, problem, parameters, data.accuracies), verbose=args.verbose)
    return 0


def _search(args, spec: registry.AlgorithmSpec, problem, make_environment, prior=None):
    """Run the chosen algorithm on ``problem`` against ``make_environment(seed)``: ``(result, parameters)``.

    With ``--reward-range`` the algorithm is set up with what a session declaring that range
    offers (:func:`fullbandit.analysis.planning.declared_setup`) before the run, which then
    finds it set up; otherwise the run offers the environment's own scale and range.
    """
    offered = declared_setup(getattr(args, "reward_range", None), "--reward-range")
    environment_seed, algorithm_seed = np.random.SeedSequence(args.seed).spawn(2)
    environment = make_environment(environment_seed)
    if offered:
        check_declared_range(offered["reward_range"], environment, problem.k, name="--reward-range")
    parameters = algorithm_parameters(spec, args)
    algorithm = spec.build(problem, seed=algorithm_seed, **parameters)
    if offered:
        algorithm.setup(**offered, prior=prior)
        prior = None  # counted by that setup
    result = driver.run(algorithm, environment, progress=False if args.no_progress else None,
                        time_limit=args.time_limit, prior=prior)
    if offered and "noise_scale" not in parameters:  # the run did not offer the environment's scale: say whose
        result = dataclasses.replace(result, constants={**result.constants,
                                                        "noise_scale_source": "declared by --reward-range"})
    return result, parameters


def declared(args) -> str:
    """``", declared reward range [0, 5]"`` for the printed inputs, or ``""`` without ``--reward-range``."""
    if getattr(args, "reward_range", None) is None:
        return ""
    low, high = args.reward_range
    return f", declared reward range [{low:g}, {high:g}]"


def matroid_inputs(args) -> dict:
    """The group-cap options for ``--json`` inputs (empty without them)."""
    if args.workers is None:
        return {}
    return {"workers": args.workers, "group_column": args.group_column, "at_most": args.at_most}


def group_output(groups, result) -> dict:
    """``{"groups": group label of each team member}`` for ``--json`` (empty without group caps)."""
    if groups is None:
        return {}
    return {"groups": None if result.answer is None else [groups[i] for i in result.answer]}


COLUMN_ROLES = ("task", "worker", "label", "true_label")


#: ``--columns`` roles with ``--votes``: the item id column and an optional total-votes column.
VOTE_COLUMN_ROLES = ("id", "total")


def parse_columns(text: str | None, roles: tuple[str, ...] = COLUMN_ROLES, context: str = "") -> dict[str, str]:
    """``"task=item,label=vote"`` as ``{"task": "item", "label": "vote"}``, roles checked against ``roles``."""
    columns: dict[str, str] = {}
    for item in (text or "").split(","):
        if not item.strip():
            continue
        role, _, name = item.partition("=")
        role, name = role.strip(), name.strip()
        if role not in roles or not name:
            raise InvalidParameterError(f"--columns {text!r}: each item must be ROLE=NAME with ROLE one of "
                                        f"{', '.join(roles)}{context}; got {item.strip()!r}")
        columns[role] = name
    return columns


def parse_ratings(text: str | None) -> tuple[tuple[str, ...], tuple[float, ...]]:
    """``"bad=0,good=1"`` as ``(("bad", "good"), (0.0, 1.0))``: the rating columns and their rewards, increasing.

    >>> parse_ratings("not_funny=0, somewhat_funny=0.5, funny=1")
    (('not_funny', 'somewhat_funny', 'funny'), (0.0, 0.5, 1.0))
    >>> parse_ratings(None) == (RATINGS, REWARDS)
    True
    """
    if text is None:
        return RATINGS, REWARDS
    columns: list[str] = []
    rewards: list[float] = []
    for item in text.split(","):
        column, _, value = item.partition("=")
        column, value = column.strip(), value.strip()
        try:
            reward = float(value)
        except ValueError:
            reward = float("nan")
        if not column or not np.isfinite(reward):
            raise InvalidParameterError(f"--ratings {text!r}: each item must be COLUMN=REWARD with a finite number "
                                        f"as REWARD, e.g. not_funny=0,somewhat_funny=0.5,funny=1; got {item.strip()!r}")
        if column in columns:
            raise InvalidParameterError(f"--ratings {text!r}: column {column!r} is named twice")
        columns.append(column)
        rewards.append(reward)
    if np.any(np.diff(rewards) <= 0):
        raise InvalidParameterError(f"--ratings {text!r}: the rewards must increase from the first column to the "
                                    f"last, got {rewards}")
    return tuple(columns), tuple(rewards)


def load_files(answers: str, gold: str | None, min_answers: int | None, columns: str | None = None, *,
               default_min: int = 1, options: tuple[str, str] = ("--data", "--gold")) -> CrowdTable:
    """The user's long-format files as a :class:`CrowdTable`; the loader's warnings go to stderr.

    ``min_answers`` (``--min-answers``) defaults to ``default_min``. Messages name the options:
    ``options`` (those of the answers and gold files), ``--columns`` for a missing column.
    """
    names = parse_columns(columns)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", CrowdDataWarning)
        try:
            return load_long(answers, gold, min_answers=default_min if min_answers is None else min_answers,
                             name=answers, **names)
        except (FileNotFoundError, InvalidParameterError) as error:
            raise InvalidParameterError(in_command_words(str(error), options)) from None
        finally:  # the drops explain an error too ("no worker left")
            for warning in caught:
                print(f"fullbandit: warning: {in_command_words(str(warning.message), options)}", file=sys.stderr)


#: The loader's words for its arguments, and the command line's for the options that set them.
COMMAND_WORDS = {"set the column names with task=, worker=, label=, true_label=":
                 "name them with --columns, e.g. --columns task=item,worker=annotator,label=vote,true_label=gold",
                 "min_answers=": "--min-answers ", "lower min_answers": "lower --min-answers"}


def in_command_words(message: str, files: tuple[str, str] = ("--data", "--gold")) -> str:
    """A loader's message with its argument names replaced by the options that set them (:data:`COMMAND_WORDS`;
    ``files``: the options of the answers and the gold files).

    >>> in_command_words("2 workers with fewer than min_answers=20 gold answers dropped")
    '2 workers with fewer than --min-answers 20 gold answers dropped'
    >>> in_command_words("gold file not found: g.csv", ("--prior-answers", "--prior-gold"))
    '--prior-gold file not found: g.csv'
    """
    words = {**COMMAND_WORDS, "answers file not found": f"{files[0]} file not found",
             "gold file not found": f"{files[1]} file not found"}
    for said, meant in words.items():
        message = message.replace(said, meant)
    return message


def _run_files(args, spec: registry.AlgorithmSpec) -> int:
    """``solve --data``: the search on a user's own answers, judged against their real accuracies."""
    args.reward_model = args.reward_model or "bernoulli"
    if args.reward_model not in FILE_REWARD_MODELS:
        raise InvalidParameterError(f"--reward-model {args.reward_model} does not apply to --data; "
                                    f"use {', '.join(FILE_REWARD_MODELS[:-1])} or {FILE_REWARD_MODELS[-1]}")
    table = load_files(args.data, args.gold, args.min_answers, args.columns, default_min=DEFAULT_MIN_ANSWERS)
    prior = prior_from_files(args, spec, table)
    problem, groups = grouped_problem(spec, table.worker_ids, args)
    question_tolerance(args, spec, problem, table.accuracies)
    result, parameters = _search(args, spec, problem, lambda seed: JointReplay(
        table, feedback=spec.feedback, seed=seed) if args.reward_model == "joint" else table.environment(
        args.reward_model, feedback=spec.feedback, seed=seed), prior=prior)
    if args.json:
        inputs = {"data": args.data, "gold": args.gold, "min_answers": args.min_answers, "k": args.k,
                  "threshold": getattr(problem, "threshold", None), "seed": args.seed,
                  "reward_model": args.reward_model, "reward_range": args.reward_range, "algorithm": spec.name,
                  "parameters": parameters,
                  "prior_answers": args.prior_answers, "prior_gold": args.prior_gold, **matroid_inputs(args)}
        workers = {"worker_ids": list(table.worker_ids), "accuracies": table.accuracies.tolist(),
                   "n_answered": table.n_answered.tolist()}
        print(json.dumps({"inputs": inputs, "workers": workers, **result.as_dict(), **group_output(groups, result)},
                         indent=2, default=str))
        return 0
    print(f"data          {args.data}: {table.n_workers} workers, {table.n_tasks} gold tasks "
          f"({int(table.n_answered.sum())} graded answers); reward model {args.reward_model}{declared(args)}")
    if prior is not None:
        print(f"prior         {args.prior_answers}: {prior.n_observations} earlier graded answers of "
              f"{len(prior.arms)} of these workers, counted before the first pull")
    print_result(result, problem, Arms(table.worker_ids, table.accuracies, groups=groups), feedback=spec.feedback,
                 tolerance=described_tolerance(args, problem, parameters, table.accuracies), verbose=args.verbose)
    print_gold_notes(args, spec, problem, table, result, least=DEFAULT_MIN_ANSWERS)
    return 0


def prior_from_files(args, spec: registry.AlgorithmSpec, table: CrowdTable) -> PriorObservations | None:
    """The prior of ``--prior-answers``/``--prior-gold``, matched to ``table``'s workers by name.

    The earlier batch must not share a task with the campaign's data: the same answers
    counted as prior and replayed again would be counted twice.
    """
    if args.prior_answers is None:
        if args.prior_gold is not None:
            raise InvalidParameterError("--prior-gold needs --prior-answers (the answers it grades)")
        return None
    check_takes_prior(spec, "--prior-answers")  # run() refused it already; kept for a direct call
    return graded_prior(args.prior_answers, args.prior_gold, table.worker_ids, "--data", columns=args.columns,
                        campaign_tasks=table.task_ids)


def graded_prior(answers: str, gold: str | None, workers, whose: str, *, columns: str | None = None,
                 campaign_tasks=()) -> PriorObservations:
    """``--prior-answers`` graded against ``gold`` as a prior of ``workers`` (matched by name).

    Refused when it shares a task with ``campaign_tasks`` (its answers would count twice) or
    names none of ``workers``; ``whose`` names the campaign's workers in that message.
    """
    earlier = load_files(answers, gold, None, columns, options=("--prior-answers", "--prior-gold"))
    shared = sorted(set(earlier.task_ids) & set(campaign_tasks))
    if shared:
        raise InvalidParameterError(
            f"--prior-answers {answers} shares {len(shared)} task(s) with {whose} (e.g. {shared[0]!r}): "
            "a prior must be an earlier, separate batch of tasks, or its answers would be counted twice")
    prior = PriorObservations.from_table(earlier, workers=workers)
    if not prior.arms:
        raise InvalidParameterError(f"--prior-answers {answers}: none of its workers is among the workers of "
                                    f"{whose} (names must match)")
    return prior


def load_votes_file(path: str, columns: str | None, ratings: str | None) -> VoteCounts:
    """A vote-count CSV file as :class:`VoteCounts`, with ``--columns id=...,total=...`` and ``--ratings``."""
    names = parse_columns(columns, VOTE_COLUMN_ROLES, " (with --votes)")
    rating_columns, rewards = parse_ratings(ratings)
    try:
        return load_vote_counts(path, columns=rating_columns, values=rewards, id_column=names.get("id", "id"),
                                total_column=names.get("total"))
    except (FileNotFoundError, IsADirectoryError) as error:
        raise InvalidParameterError(f"--data {path}: {error.strerror or error}") from None


def _run_votes(args, spec: registry.AlgorithmSpec) -> int:
    """``solve --data counts.csv --votes``: a search over items rated by votes, judged against their mean ratings."""
    for option in ("gold", "min_answers", "prior_answers", "prior_gold"):
        if getattr(args, option) is not None:
            raise InvalidParameterError(f"--{option.replace('_', '-')} does not apply to --votes (a vote-count "
                                        "table has no gold answers)")
    args.reward_model = args.reward_model or "replay"
    if args.reward_model not in VOTE_MODELS:
        raise InvalidParameterError(f"--reward-model {args.reward_model} does not apply to --votes; use "
                                    f"{' or '.join(VOTE_MODELS)} (each member draws one of its item's recorded votes)")
    votes = load_votes_file(args.data, args.columns, args.ratings)
    problem, groups = grouped_problem(spec, votes.ids, args, (float(votes.support.min()), float(votes.support.max())),
                                      "the items' mean ratings")
    question_tolerance(args, spec, problem, votes.means)
    result, parameters = _search(args, spec, problem, lambda seed: votes.environment(
        args.reward_model, feedback=spec.feedback, seed=seed))
    if args.json:
        inputs = {"data": args.data, "votes": True, "columns": args.columns, "ratings": dict(zip(
                      votes.columns, votes.support.tolist(), strict=True)), "k": args.k,
                  "threshold": getattr(problem, "threshold", None), "seed": args.seed,
                  "reward_model": args.reward_model, "reward_range": args.reward_range, "algorithm": spec.name,
                  "parameters": parameters, **matroid_inputs(args)}
        items = {"ids": list(votes.ids), "means": votes.means.tolist(), "votes": votes.votes.tolist()}
        print(json.dumps({"inputs": inputs, "items": items, **result.as_dict(), **group_output(groups, result)},
                         indent=2, default=str))
        return 0
    print(f"data          {args.data}: {votes.n_arms} items, {int(votes.votes.sum())} votes on "
          f"{', '.join(f'{c}={v:g}' for c, v in zip(votes.columns, votes.support, strict=True))}; "
          f"reward model {args.reward_model}{declared(args)}")
    print_result(result, problem, Arms(votes.ids, votes.means, kind="items", mean="reward", per="reward per trial",
                                       groups=groups),
                 feedback=spec.feedback, tolerance=described_tolerance(args, problem, parameters, votes.means),
                 verbose=args.verbose)
    return 0
