"""The ``dks`` suite: densest-k-subgraph oracles against exact optima or certified bounds.

Each cell runs one oracle (or the ``reference``: an exact solve where affordable, else the
best certified upper bound) on one graph; ratios are formed afterwards by pairing every
oracle row with the reference row of the same graph, ``k`` and seed.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any

import networkx as nx
import numpy as np
import pandas as pd

from fullbandit.dks import (
    ORACLES,
    WeightMatrix,
    bound_matrix,
    brute_force_matrix,
    densest_k_subgraph_matrix,
    milp_matrix,
)
from fullbandit.dks.weights import graph_weights
from fullbandit.experiments.evaluations import Evaluation
from fullbandit.experiments.graphs import make_graph
from fullbandit.experiments.grid import Factory, Grid
from fullbandit.experiments.plots import plot_metric
from fullbandit.experiments.suite import Suite

REFERENCE = "reference"
BRUTE_FORCE_UP_TO = 200_000   # subsets: above this the reference is a time-limited MILP
MILP_UP_TO = 250              # vertices: above this only certified bounds are computed
MILP_SECONDS = 5.0


@dataclass(frozen=True)
class GraphInstance:
    """A weighted graph as a validated matrix (sparse when large and sparse) and ``k``."""

    name: str
    W: WeightMatrix
    k: int
    edges: int


def graph_instance_from(G: nx.Graph, k: int, name: str = "graph") -> GraphInstance:
    """The matrix form of ``G`` (:func:`fullbandit.dks.weights.graph_weights`), ``k`` capped at its size."""
    _, weights = graph_weights(G)
    return GraphInstance(name, weights, min(k, G.number_of_nodes()), G.number_of_edges())


def graph_instance(rng, k: int, graph: str, **params) -> GraphInstance:
    """A generator's graph (:func:`fullbandit.experiments.graphs.make_graph`) as an instance."""
    return graph_instance_from(make_graph(graph, rng, **params), k, graph)


def oracle_factory(problem, seed, *, oracle: str):
    """The algorithm of a DkS cell: an oracle name (``problem`` and ``seed`` unused: oracles are deterministic)."""
    return oracle


def evaluate_dks(oracle: str, instance: GraphInstance) -> dict:
    """One row: the weight ``oracle`` (a key of :data:`fullbandit.dks.ORACLES`, or :data:`REFERENCE`) reaches."""
    W, k = instance.W, instance.k
    n = W.n
    start = time.perf_counter()
    upper, optimal, method = math.nan, False, oracle
    if oracle == REFERENCE:
        bounds = bound_matrix(W, k)
        upper = min(bounds.values())
        if math.comb(n, k) <= BRUTE_FORCE_UP_TO:
            _, weight = brute_force_matrix(W, k)
            upper, optimal, method = weight, True, "brute-force"
        elif n <= MILP_UP_TO:
            solved = milp_matrix(W, k, time_limit=MILP_SECONDS)
            weight, optimal, method = solved.weight, solved.optimal, "milp"
            upper = min(upper, solved.upper_bound)
        else:
            weight, method = densest_k_subgraph_matrix(W, k).weight, "bounds only"
    else:
        weight = densest_k_subgraph_matrix(W, k, method=oracle).weight
    seconds = time.perf_counter() - start
    return {"n": n, "k": k, "edges": instance.edges, "weight": weight, "upper_bound": upper,
            "optimal": optimal, "method": method, "seconds": seconds}


DKS_EVALUATION = Evaluation(
    columns=("n", "k", "edges", "weight", "upper_bound", "optimal", "method", "seconds"),
    evaluate=evaluate_dks, sweepable=frozenset({"k"}))

GRAPHS: dict[str, dict[str, Any]] = {
    "G(n,p) weighted": dict(graph="gnp", n=200, p=0.1),
    "planted dense set": dict(graph="planted", n=200, p=0.05, size=20, q=0.8),
    "Barabasi-Albert": dict(graph="barabasi-albert", n=200, m=3),
    "block model": dict(graph="block-model", n=200, blocks=4),
    "bandit design A^-1": dict(graph="bandit-design", n=36, k=10),
    "karate club": dict(graph="karate"),
    "Les Miserables": dict(graph="les-miserables"),
    "Florentine families": dict(graph="florentine"),
    "Davis southern women": dict(graph="davis"),
}


def build_dks_grid(runs: int, ks=(5, 10, 20)) -> Grid:
    algorithms = {name: Factory(partial(oracle_factory, oracle=name)) for name in [*ORACLES, REFERENCE]}
    instances = {label: Factory(partial(graph_instance, **params), {"k": list(ks)}) for label, params in GRAPHS.items()}
    return Grid(algorithms, instances, seeds=runs, evaluation=DKS_EVALUATION)


def ratios(frame: pd.DataFrame) -> pd.DataFrame:
    """Oracle rows with ``ratio`` = weight / reference (exact optimum, else certified upper bound)."""
    reference = frame.loc[frame["algorithm"] == REFERENCE, ["instance", "k", "seed", "weight", "upper_bound",
                                                            "optimal"]]
    oracles = frame[frame["algorithm"] != REFERENCE]
    joined = oracles.merge(reference, on=["instance", "k", "seed"], suffixes=("", "_reference"), how="left")
    denominator = joined["upper_bound_reference"].where(~joined["optimal_reference"].astype(bool),
                                                        joined["weight_reference"])
    joined["ratio"] = np.where(denominator > 0, joined["weight"] / denominator, 1.0)
    joined["ratio_kind"] = np.where(joined["optimal_reference"].astype(bool), "exact", "certified")
    return joined


def plot_dks(frame: pd.DataFrame, path: Path) -> None:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    table = ratios(frame)
    figure, (left, right) = plt.subplots(1, 2, figsize=(12, 4.5))
    plot_metric(table, "k", "ratio", ax=left, title="weight / (exact optimum or certified bound), all graphs")
    plot_metric(frame, "k", "seconds", ax=right, logy=True, title="time per call (reference: exact or bounds)")
    figure.tight_layout()
    figure.savefig(path, dpi=120)
    plt.close(figure)


def summarize_dks(frame: pd.DataFrame) -> pd.DataFrame:
    """Mean and worst ratio per oracle, and how many ratios are exact vs certified."""
    table = ratios(frame)
    return table.groupby("algorithm").agg(mean_ratio=("ratio", "mean"), worst_ratio=("ratio", "min"),
                                          exact_ratios=("ratio_kind", lambda kind: int((kind == "exact").sum())),
                                          certified_ratios=("ratio_kind", lambda kind: int((kind != "exact").sum())),
                                          mean_seconds=("seconds", "mean"))


DKS_SUITE = Suite(
    "dks",
    "Densest-k-subgraph oracles (peeling, FPK, each with 1-swap local search) on networkx generators, "
    "classic graphs and the complete graphs of Algorithm 1; ratio to the exact optimum (brute force or "
    "MILP) or to the best certified upper bound, and time, for k in 5, 10, 20.",
    build_dks_grid, plot_dks, default_runs=3, summarize=summarize_dks)

#: The suites this module declares (gathered by :mod:`fullbandit.experiments.suites`).
SUITES = (DKS_SUITE,)
