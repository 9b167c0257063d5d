"""Greedy peeling time against one pass over the adjacency, dense and sparse, side by side.

Dense: a complete weighted graph on 2,000 vertices (the kind Algorithm 1 builds), matrix
path O(n^2). Sparse: G(n, m) with 10^6 edges as a CSR matrix, heap path O(m log n). The
reference is one pass over the same adjacency (weighted degrees, ``W.sum(axis=1)``), so
the ratio says how many passes peeling costs. Also times the validation every front door
does once (:func:`fullbandit.dks.check_weight_matrix`), FPK, and the networkx front end.

Usage:
    python benchmarks/bench_dks.py [--out benchmarks/results/dks_peeling.csv]
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import networkx as nx
import numpy as np
import pandas as pd
import scipy.sparse as sparse

from fullbandit.dks import check_weight_matrix, densest_k_subgraph, densest_k_subgraph_matrix


def best_of(function, repeats: int) -> float:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        function()
        times.append(time.perf_counter() - start)
    return min(times)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", type=Path, default=Path(__file__).parent / "results" / "dks_peeling.csv")
    parser.add_argument("--dense-n", type=int, default=2000)
    parser.add_argument("--sparse-edges", type=int, default=1_000_000)
    args = parser.parse_args(argv)
    rng = np.random.default_rng(0)
    rows = []

    n = args.dense_n
    W = rng.uniform(size=(n, n))
    W = np.triu(W, 1) + np.triu(W, 1).T
    one_pass = best_of(lambda: W.sum(axis=1), 5)
    rows.append({"case": f"dense complete n={n}", "what": "one pass (degrees)", "seconds": one_pass})
    rows.append({"case": f"dense complete n={n}", "what": "check_weight_matrix",
                 "seconds": best_of(lambda: check_weight_matrix(W), 2)})
    rows.append({"case": f"dense complete n={n}", "what": "peeling, k=n/10",
                 "seconds": best_of(lambda: densest_k_subgraph_matrix(W, n // 10), 2)})
    rows.append({"case": f"dense complete n={n}", "what": "fpk, k=n/10",
                 "seconds": best_of(lambda: densest_k_subgraph_matrix(W, n // 10, method="fpk"), 1)})

    m = args.sparse_edges
    vertices = m // 5
    G = nx.gnm_random_graph(vertices, m, seed=1)
    rows_, cols_ = (np.array(side) for side in zip(*G.edges, strict=True))
    S = sparse.csr_array((np.ones(2 * m), (np.concatenate([rows_, cols_]), np.concatenate([cols_, rows_]))),
                         shape=(vertices, vertices))
    case = f"sparse G(n={vertices}, m={m})"
    rows.append({"case": case, "what": "one pass (degrees)", "seconds": best_of(lambda: S.sum(axis=1), 5)})
    rows.append({"case": case, "what": "check_weight_matrix", "seconds": best_of(lambda: check_weight_matrix(S), 2)})
    rows.append({"case": case, "what": "peeling, k=1000",
                 "seconds": best_of(lambda: densest_k_subgraph_matrix(S, 1000), 2)})
    rows.append({"case": case, "what": "densest_k_subgraph(G) incl. conversion",
                 "seconds": best_of(lambda: densest_k_subgraph(G, 1000), 1)})

    frame = pd.DataFrame(rows)
    frame["passes"] = frame["seconds"] / frame.groupby("case")["seconds"].transform("first")
    args.out.parent.mkdir(parents=True, exist_ok=True)
    frame.to_csv(args.out, index=False)
    print(frame.to_string(index=False, float_format=lambda value: f"{value:,.4g}"))
    print(f"written to {args.out}")


if __name__ == "__main__":
    main()
