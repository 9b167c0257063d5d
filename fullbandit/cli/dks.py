"""``fullbandit dks``: densest-k-subgraph oracles on a graph, with certified ratios."""

from __future__ import annotations

import math
import time
from pathlib import Path

from fullbandit.dks import ORACLES
from fullbandit.experiments.graphs import GENERATORS
from fullbandit.util.validation import InvalidParameterError, check_int

SHOWN_VERTICES = 20  # vertices listed per oracle; longer answers end with "... (k in all)"


def add_parser(commands) -> None:
    """Add the sub-command to ``commands`` (an argparse sub-parsers object)."""
    parser = commands.add_parser(
        "dks", help="run densest-k-subgraph oracles on a graph and certify their ratios",
        description="Run DkS oracles on a graph file (edge list 'u v [weight]', .graphml, or a symmetric "
                    "matrix .npy) or a named generator, and print each oracle's weight, its certified "
                    "ratio (weight / the smallest certified upper bound), its time and the vertices it chose.")
    parser.add_argument("graph", help="a graph file, or a generator: " + ", ".join(sorted(GENERATORS)))
    parser.add_argument("--k", type=int, required=True, help="number of vertices to choose")
    parser.add_argument("--oracles", nargs="+", default=list(ORACLES), choices=list(ORACLES),
                        help="oracles to run (default: all)")
    parser.add_argument("--exact", action="store_true",
                        help="also solve exactly (brute force or a MILP; see --time-limit)")
    parser.add_argument("--time-limit", type=float, default=60.0, help="seconds for the MILP (default: 60)")
    parser.add_argument("--sdp", action="store_true", help="add the semidefinite bound (n <= 200)")
    parser.add_argument("--seed", type=int, default=0, help="seed of a random generator (default: 0)")


def run(args) -> int:
    """Carry out ``fullbandit dks`` with the parsed ``args``; return the exit status."""
    from fullbandit.dks import bound_matrix, densest_k_subgraph_matrix, exact
    from fullbandit.dks.bounds import BOUNDS
    from fullbandit.dks.weights import check_graph, graph_weights
    from fullbandit.experiments.graphs import make_graph, read_graph
    check_int("seed", args.seed, low=0)
    if Path(args.graph).exists():
        G = read_graph(args.graph)
    elif args.graph in GENERATORS:
        G = make_graph(args.graph, args.seed)
    else:
        raise InvalidParameterError(
            f"graph={args.graph!r} is neither an existing file nor a generator: {', '.join(sorted(GENERATORS))}")
    k = check_graph(G, args.k)
    try:
        nodes, weights = graph_weights(G)
    except (InvalidParameterError, TypeError) as error:  # a bad weight: say in which graph
        raise type(error)(f"{args.graph}: {error}") from None
    start = time.perf_counter()
    bounds = bound_matrix(weights, k, methods=BOUNDS if args.sdp else None)
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
    chosen = {}
    for oracle in args.oracles:
        start = time.perf_counter()
        result = densest_k_subgraph_matrix(weights, k, method=oracle)
        seconds = time.perf_counter() - start
        ratio = result.weight / best_bound if best_bound > 0 else math.nan
        print(f"{oracle:<14}{result.weight:>14.6g}{min(ratio, 1.0):>17.4f}{seconds:>10.4f}")
        chosen[oracle] = [nodes[i] for i in result.vertices]
    for oracle, vertices in chosen.items():
        print(f"vertices      {oracle}: {_listing(vertices)}")
    return 0


def _listing(vertices: list) -> str:
    """The vertices in ``G.nodes`` order, the first :data:`SHOWN_VERTICES` of them if there are more."""
    shown = ", ".join(str(vertex) for vertex in vertices[:SHOWN_VERTICES])
    return shown if len(vertices) <= SHOWN_VERTICES else f"{shown} ... ({len(vertices)} in all)"
