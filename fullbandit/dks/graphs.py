"""Graphs to run densest-k-subgraph oracles on: named generators, classic graphs, files.

Every generator takes a seeded ``numpy.random.Generator`` and returns a weighted
undirected ``networkx.Graph`` (weights in the ``weight`` attribute).
"""

from __future__ import annotations

import math
from pathlib import Path

import networkx as nx
import numpy as np

from fullbandit._validation import InvalidParameterError, as_generator, check_choice, check_int, check_real


def _seed(rng) -> int:
    return int(as_generator(rng).integers(2**31))


def _weigh(G: nx.Graph, rng, weighted: bool) -> nx.Graph:
    rng = as_generator(rng)
    for u, v in G.edges:
        G.edges[u, v]["weight"] = float(rng.uniform(0.0, 1.0)) if weighted else 1.0
    return G


def gnp(rng, n: int = 200, p: float = 0.1, weighted: bool = True) -> nx.Graph:
    """Erdos-Renyi ``G(n, p)``, weights ``Uniform[0, 1]`` (or 1)."""
    check_int("n", n, low=2)
    check_real("p", p, low=0.0, high=1.0)
    rng = as_generator(rng)
    return _weigh(nx.gnp_random_graph(n, p, seed=_seed(rng)), rng, weighted)


def planted(rng, n: int = 200, p: float = 0.05, size: int = 20, q: float = 0.8, weighted: bool = False) -> nx.Graph:
    """``G(n, p)`` with a planted dense set: ``size`` random vertices joined with probability ``q``."""
    check_int("size", size, low=2, high=n)
    check_real("q", q, low=0.0, high=1.0)
    rng = as_generator(rng)
    G = nx.gnp_random_graph(n, p, seed=_seed(rng))
    members = rng.choice(n, size=size, replace=False)
    for a in range(size):
        for b in range(a + 1, size):
            if rng.random() < q:
                G.add_edge(int(members[a]), int(members[b]))
    G.graph["planted"] = sorted(int(v) for v in members)
    return _weigh(G, rng, weighted)


def barabasi_albert(rng, n: int = 200, m: int = 3, weighted: bool = False) -> nx.Graph:
    """Preferential attachment (Barabasi-Albert) with ``m`` edges per new vertex."""
    check_int("m", m, low=1, high=n - 1)
    rng = as_generator(rng)
    return _weigh(nx.barabasi_albert_graph(n, m, seed=_seed(rng)), rng, weighted)


def block_model(rng, n: int = 200, blocks: int = 4, p_in: float = 0.3, p_out: float = 0.02,
                weighted: bool = False) -> nx.Graph:
    """Stochastic block model: ``blocks`` equal blocks, ``p_in`` inside, ``p_out`` across."""
    check_int("blocks", blocks, low=1, high=n)
    rng = as_generator(rng)
    sizes = [n // blocks + (1 if b < n % blocks else 0) for b in range(blocks)]
    probs = [[p_in if a == b else p_out for b in range(blocks)] for a in range(blocks)]
    return _weigh(nx.stochastic_block_model(sizes, probs, seed=_seed(rng)), rng, weighted)


def bandit_design_matrix(rng, n: int = 36, k: int = 10, support_factor: int = 4) -> np.ndarray:
    """``Q = A^-1`` for ``A = sum_j x_j x_j^T`` over ``support_factor * n`` random ``k``-subsets spanning R^n:
    the matrix whose QP a full-bandit stopping rule solves (one pull per support member)."""
    from fullbandit.allocation import random_support
    rng = as_generator(rng)
    support = random_support(n, k, rng, size=min(support_factor * n, math.comb(n, k)))
    X = np.zeros((len(support), n))
    for row, arm in enumerate(support):
        X[row, list(arm)] = 1.0
    return np.linalg.inv(X.T @ X)


def bandit_design(rng, n: int = 36, k: int = 10, support_factor: int = 4) -> nx.Graph:
    """The complete graph Algorithm 1 builds from :func:`bandit_design_matrix`:
    ``w(i, j) = Q_ij + (Q_ii + Q_jj) / 2`` (Kuroki et al. 2020, Algorithm 1)."""
    from fullbandit.qp import dks_weights
    return nx.from_numpy_array(dks_weights(bandit_design_matrix(rng, n, k, support_factor)))


def _classic(builder):
    def make(rng=None):
        G = nx.Graph(builder())
        for u, v, data in G.edges(data=True):
            data["weight"] = float(data.get("weight", 1.0))
        return G
    make.__doc__ = f"networkx's ``{builder.__name__}()`` (weights kept where it has them, else 1)."
    return make


GENERATORS = {
    "gnp": gnp,
    "planted": planted,
    "barabasi-albert": barabasi_albert,
    "block-model": block_model,
    "bandit-design": bandit_design,
    "karate": _classic(nx.karate_club_graph),
    "les-miserables": _classic(nx.les_miserables_graph),
    "florentine": _classic(nx.florentine_families_graph),
    "davis": _classic(nx.davis_southern_women_graph),
}


def make_graph(name: str, rng=None, **params) -> nx.Graph:
    """The graph of generator ``name`` (see :data:`GENERATORS`)."""
    check_choice("graph", name, tuple(GENERATORS))
    return GENERATORS[name](as_generator(rng), **params)


def read_graph(path) -> nx.Graph:
    """A graph from a file: ``.npy`` (symmetric weight matrix), ``.graphml``, or an edge list
    (``u v [weight]`` per line, any other suffix)."""
    path = Path(path)
    if not path.exists():
        raise FileNotFoundError(f"graph file {str(path)!r} does not exist")
    if path.suffix == ".npy":
        W = np.load(path)
        if W.ndim != 2 or W.shape[0] != W.shape[1] or not np.allclose(W, W.T):
            raise InvalidParameterError(f"{path} must hold a symmetric square matrix, got shape {W.shape}")
        return nx.from_numpy_array(W)
    if path.suffix == ".graphml":
        G = nx.read_graphml(path)
        if G.is_directed():
            raise InvalidParameterError(f"{path} holds a directed graph; densest-k-subgraph needs an undirected one")
        return nx.Graph(G)
    G = nx.Graph()
    for number, line in enumerate(path.read_text().splitlines(), start=1):
        fields = line.split("#", 1)[0].split()
        if not fields:
            continue
        if len(fields) not in (2, 3):
            raise InvalidParameterError(f"{path}:{number}: expected 'u v [weight]', got {line!r}")
        weight = float(fields[2]) if len(fields) == 3 else 1.0
        G.add_edge(fields[0], fields[1], weight=weight)
    return G
