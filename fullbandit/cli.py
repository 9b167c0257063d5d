"""Command line: ``fullbandit solve``, ``fullbandit bench`` and ``fullbandit dks`` (thin: parse, call the library, print)."""

from __future__ import annotations

import argparse
import json
import sys

import numpy as np

from fullbandit._validation import InvalidParameterError, check_int
from fullbandit.datasets import DATASETS, dataset_info, load_dataset
from fullbandit.dks.graphs import GENERATORS
from fullbandit.experiments.dks_suite import SUITE_ORACLES, graph_instance_from
from fullbandit.driver import run
from fullbandit.estimation import CONFIDENCE_CONSTANTS
from fullbandit.dks import ORACLES
from fullbandit.full import ALGORITHMS
from fullbandit.full.static import ALLOCATIONS
from fullbandit.full.saqm import WIDTH_BOUNDS
from fullbandit.instances import REWARD_MODELS, team_environment
from fullbandit.problem import TopK

# Defaults of `solve`, chosen so the default run finishes in seconds: IT has a tie at the
# 10th accuracy (0.64 and 0.64), so epsilon must be positive; 0.5 is 0.05 per team member.
DEFAULT_EPSILON = 0.5
DEFAULT_DELTA = 0.05


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="fullbandit", description=__doc__.split("\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    solve = commands.add_parser(
        "solve", help="pick the best team of k workers on an embedded crowdsourcing data set",
        description="Simulate a full-bandit campaign on an embedded data set: every trial of a "
                    "team shows only its summed reward. Prints the team found and, since the "
                    "simulation knows the truth, the best team and the gap.")
    solve.add_argument("--dataset", choices=DATASETS, default="it", help="embedded data set (default: it)")
    solve.add_argument("--k", type=int, default=10, help="team size (default: 10)")
    solve.add_argument("--algorithm", choices=sorted(ALGORITHMS), default="saqm", help="default: saqm")
    solve.add_argument("--epsilon", type=float, default=DEFAULT_EPSILON,
                       help=f"tolerance on the team's summed accuracy (default: {DEFAULT_EPSILON})")
    solve.add_argument("--delta", type=float, default=DEFAULT_DELTA,
                       help=f"error probability (default: {DEFAULT_DELTA})")
    solve.add_argument("--reward-model", choices=REWARD_MODELS, default="bernoulli",
                       help="bernoulli: independent workers; replay: real answers, one random question "
                            "per trial; gaussian: accuracies + N(0, 1) on the sum (default: bernoulli)")
    solve.add_argument("--seed", type=int, default=0, help="seed of every random choice (default: 0)")
    solve.add_argument("--budget", type=int, default=10_000_000, help="pull cap (default: 10,000,000)")
    solve.add_argument("--confidence", choices=CONFIDENCE_CONSTANTS, default="tight",
                       help="confidence constant (default: tight)")
    solve.add_argument("--width-bound", choices=WIDTH_BOUNDS, default="certified",
                       help="SAQM's bound on the widest confidence ellipsoid (default: certified)")
    solve.add_argument("--oracle", choices=sorted(ORACLES), default="peeling",
                       help="densest-k-subgraph oracle of Algorithm 1, for saqm and safoa (default: peeling)")
    solve.add_argument("--allocation", choices=ALLOCATIONS, default="uniform",
                       help="proportions over the static support (default: uniform)")
    solve.add_argument("--noise-scale", type=float, default=None,
                       help="override the reward model's sub-Gaussian noise scale R")
    solve.add_argument("--no-progress", action="store_true", help="never show a progress bar")
    solve.add_argument("--json", action="store_true", help="print the result as JSON")
    bench = commands.add_parser(
        "bench", help="run a named benchmark suite and write its CSV and PNG",
        description="Run a named suite through the experiment runner. Results are appended to "
                    "OUT/NAME.csv as runs finish; running again skips finished runs.")
    bench.add_argument("name", nargs="?", help="suite name (see --list)")
    bench.add_argument("--list", action="store_true", help="list the suites and exit")
    bench.add_argument("--runs", type=int, default=None, help="seeds per grid cell (default: the suite's)")
    bench.add_argument("--jobs", type=int, default=1, help="local processes (default: 1, sequential)")
    bench.add_argument("--scheduler", default=None, help="Dask scheduler address, e.g. tcp://10.0.0.5:8786")
    bench.add_argument("--out", default="benchmarks/out", help="output folder (default: benchmarks/out)")
    bench.add_argument("--no-progress", action="store_true", help="never show a progress bar")
    dks = commands.add_parser(
        "dks", help="run densest-k-subgraph oracles on a graph and certify their ratios",
        description="Run DkS oracles on a graph file (edge list 'u v [weight]', .graphml, or a symmetric "
                    "matrix .npy) or a named generator, and print each oracle's weight, its certified "
                    "ratio (weight / the smallest certified upper bound) and its time.")
    dks.add_argument("graph", help="a graph file, or a generator: " + ", ".join(sorted(GENERATORS)))
    dks.add_argument("--k", type=int, required=True, help="number of vertices to choose")
    dks.add_argument("--oracles", nargs="+", default=sorted(SUITE_ORACLES), choices=sorted(SUITE_ORACLES),
                     help="oracles to run (default: all)")
    dks.add_argument("--exact", action="store_true",
                     help="also solve exactly (brute force or a MILP; see --time-limit)")
    dks.add_argument("--time-limit", type=float, default=60.0, help="seconds for the MILP (default: 60)")
    dks.add_argument("--sdp", action="store_true", help="add the semidefinite bound (n <= 200)")
    dks.add_argument("--seed", type=int, default=0, help="seed of a random generator (default: 0)")
    return parser


def dks(args) -> int:
    import math
    import time
    from pathlib import Path

    from fullbandit.dks import bound_matrix, exact
    from fullbandit.dks.graphs import make_graph, read_graph
    from fullbandit.experiments.dks_suite import evaluate_dks
    check_int("seed", args.seed, low=0)
    if Path(args.graph).exists():
        G = read_graph(args.graph)
    elif args.graph in GENERATORS:
        G = make_graph(args.graph, args.seed)
    else:
        raise InvalidParameterError(
            f"graph={args.graph!r} is neither an existing file nor a generator: {', '.join(sorted(GENERATORS))}")
    k = check_int("k", args.k, low=1, high=G.number_of_nodes())
    instance = graph_instance_from(G, k)
    start = time.perf_counter()
    bounds = bound_matrix(instance.W, k, methods=None if not args.sdp else ("spectral", "degree", "edge", "sdp"))
    bound_seconds = time.perf_counter() - start
    if args.exact:
        solved = exact(G, k, time_limit=args.time_limit)
        bounds["exact" if solved.optimal else "milp"] = solved.upper_bound
        print(f"exact         weight {solved.weight:.6g}, upper bound {solved.upper_bound:.6g} "
              f"({solved.method}, {solved.status}, {solved.seconds:.3f} s)")
    best_bound = min(bounds.values())
    print(f"graph         {args.graph}: {G.number_of_nodes()} nodes, {G.number_of_edges()} edges, k={k}")
    print("bounds        " + ", ".join(f"{name}={value:.6g}" for name, value in sorted(bounds.items()))
          + f" ({bound_seconds:.3f} s)")
    print(f"{'oracle':<14}{'weight':>14}{'certified ratio':>17}{'seconds':>10}")
    for oracle in args.oracles:
        row = evaluate_dks(oracle, instance)
        ratio = row["weight"] / best_bound if best_bound > 0 else math.nan
        print(f"{oracle:<14}{row['weight']:>14.6g}{min(ratio, 1.0):>17.4f}{row['seconds']:>10.4f}")
    return 0


def bench(args) -> int:
    from pathlib import Path

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


def solve(args) -> int:
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
    result = run(algorithm, environment, progress=False if args.no_progress else None)
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


def main(argv=None) -> int:
    args = _parser().parse_args(argv)
    try:
        if args.command == "solve":
            return solve(args)
        if args.command == "bench":
            return bench(args)
        if args.command == "dks":
            return dks(args)
    except (InvalidParameterError, TypeError) as error:
        print(f"fullbandit: error: {error}", file=sys.stderr)
        return 2
    return 1


if __name__ == "__main__":
    sys.exit(main())
