"""``fullbandit solve``: a simulated team search on an embedded data set."""

from __future__ import annotations

import json

import numpy as np

from fullbandit import driver
from fullbandit._validation import check_int
from fullbandit.datasets import DATASETS, dataset_info, load_dataset
from fullbandit.dks import ORACLES
from fullbandit.estimation import CONFIDENCE_CONSTANTS
from fullbandit.full import ALGORITHMS
from fullbandit.full.saqm import WIDTH_BOUNDS
from fullbandit.full.static import ALLOCATIONS
from fullbandit.instances import REWARD_MODELS, team_environment
from fullbandit.problem import TopK

# Defaults chosen so the default run finishes in seconds: IT has a tie at the 10th
# accuracy (0.64 and 0.64), so epsilon must be positive; 0.5 is 0.05 per team member.
DEFAULT_EPSILON = 0.5
DEFAULT_DELTA = 0.05


def add_parser(commands) -> None:
    """Add the sub-command to ``commands`` (an argparse sub-parsers object)."""
    parser = commands.add_parser(
        "solve", help="pick the best team of k workers on an embedded crowdsourcing data set",
        description="Simulate a full-bandit campaign on an embedded data set: every trial of a "
                    "team shows only its summed reward. Prints the team found and, since the "
                    "simulation knows the truth, the best team and the gap.")
    parser.add_argument("--dataset", choices=DATASETS, default="it", help="embedded data set (default: it)")
    parser.add_argument("--k", type=int, default=10, help="team size (default: 10)")
    parser.add_argument("--algorithm", choices=sorted(ALGORITHMS), default="saqm", help="default: saqm")
    parser.add_argument("--epsilon", type=float, default=DEFAULT_EPSILON,
                       help=f"tolerance on the team's summed accuracy (default: {DEFAULT_EPSILON})")
    parser.add_argument("--delta", type=float, default=DEFAULT_DELTA,
                       help=f"error probability (default: {DEFAULT_DELTA})")
    parser.add_argument("--reward-model", choices=REWARD_MODELS, default="bernoulli",
                       help="bernoulli: independent workers; replay: real answers, one random question "
                            "per trial; gaussian: accuracies + N(0, 1) on the sum (default: bernoulli)")
    parser.add_argument("--seed", type=int, default=0, help="seed of every random choice (default: 0)")
    parser.add_argument("--budget", type=int, default=10_000_000, help="pull cap (default: 10,000,000)")
    parser.add_argument("--confidence", choices=CONFIDENCE_CONSTANTS, default="tight",
                       help="confidence constant (default: tight)")
    parser.add_argument("--width-bound", choices=WIDTH_BOUNDS, default="certified",
                       help="SAQM's bound on the widest confidence ellipsoid (default: certified)")
    parser.add_argument("--oracle", choices=sorted(ORACLES), default="peeling",
                       help="densest-k-subgraph oracle of Algorithm 1, for saqm and safoa (default: peeling)")
    parser.add_argument("--allocation", choices=ALLOCATIONS, default="uniform",
                       help="proportions over the static support (default: uniform)")
    parser.add_argument("--noise-scale", type=float, default=None,
                       help="override the reward model's sub-Gaussian noise scale R")
    parser.add_argument("--no-progress", action="store_true", help="never show a progress bar")
    parser.add_argument("--json", action="store_true", help="print the result as JSON")


def run(args) -> int:
    """Carry out ``fullbandit solve`` with the parsed ``args``; return the exit status."""
    check_int("seed", args.seed, low=0)
    data = load_dataset(args.dataset)
    problem = TopK(data.n_workers, args.k)
    environment_seed, algorithm_seed = np.random.SeedSequence(args.seed).spawn(2)
    environment = team_environment(data, args.reward_model, seed=environment_seed)
    options = dict(epsilon=args.epsilon, delta=args.delta, noise_scale=args.noise_scale, confidence=args.confidence,
                   budget=args.budget, allocation=args.allocation, seed=algorithm_seed)
    if args.algorithm == "saqm":
        options["width_bound"] = args.width_bound
    if args.algorithm in ("saqm", "safoa", "safoa-certified"):
        options["oracle"] = args.oracle
    algorithm = ALGORITHMS[args.algorithm](problem, **options)
    result = driver.run(algorithm, environment, progress=False if args.no_progress else None)
    if args.json:
        print(json.dumps(result.as_dict(), indent=2, default=str))
        return 0
    info = dataset_info(args.dataset)
    print(f"data set      {info.get('paper_name', args.dataset)}: {data.n_workers} workers, "
          f"{data.n_questions} questions; k={args.k}, reward model {args.reward_model}")
    print(result.describe())
    best_labels = ", ".join(data.worker_ids[i] for i in result.best)
    print(f"best workers  {best_labels}")
    accuracies = data.accuracies
    print(f"team accuracy {accuracies[list(result.answer)].sum():.4f} (best {accuracies[list(result.best)].sum():.4f})")
    return 0
