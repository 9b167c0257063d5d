"""Graphs to run densest-k-subgraph oracles on: named generators, classic graphs, files.

Every generator takes a seed (``None``, an ``int``, a ``SeedSequence`` or a
``numpy.random.Generator``) and returns a weighted undirected ``networkx.Graph`` (weights
in the ``weight`` attribute); :data:`GENERATORS` names them for :func:`make_graph`, and
:func:`read_graph` reads a graph file.
"""

from __future__ import annotations

import math
from pathlib import Path
from xml.etree.ElementTree import ParseError

import networkx as nx
import numpy as np

from fullbandit.design.support import random_support
from fullbandit.dks import check_weight_matrix
from fullbandit.full.qp import dks_weights
from fullbandit.util.validation import InvalidParameterError, as_generator, check_choice, check_int, check_real

__all__ = ["gnp", "planted", "barabasi_albert", "block_model", "bandit_design_matrix", "bandit_design", "GENERATORS",
           "make_graph", "read_graph"]


def _networkx_seed(generator) -> int:
    return int(as_generator(generator).integers(2**31))


def _weigh(G: nx.Graph, generator, weighted: bool) -> nx.Graph:
    generator = as_generator(generator)
    for u, v in G.edges:
        G.edges[u, v]["weight"] = float(generator.uniform(0.0, 1.0)) if weighted else 1.0
    return G


def gnp(seed, n: int = 200, p: float = 0.1, weighted: bool = True) -> nx.Graph:
    """Erdos-Renyi ``G(n, p)``, weights ``Uniform[0, 1]`` (or 1 when not ``weighted``).

    Examples
    --------
    >>> G = gnp(0, n=30, p=0.2)
    >>> G.number_of_nodes(), all(0 <= w <= 1 for _, _, w in G.edges(data="weight"))
    (30, True)
    """
    check_int("n", n, low=2)
    check_real("p", p, low=0.0, high=1.0)
    generator = as_generator(seed)
    return _weigh(nx.gnp_random_graph(n, p, seed=_networkx_seed(generator)), generator, weighted)


def planted(seed, n: int = 200, p: float = 0.05, size: int = 20, q: float = 0.8, weighted: bool = False) -> nx.Graph:
    """``G(n, p)`` with a planted dense set: ``size`` random vertices joined with probability ``q``.

    The planted vertices are in ``G.graph["planted"]``.

    Examples
    --------
    >>> G = planted(0, n=100, p=0.02, size=8, q=1.0)
    >>> members = G.graph["planted"]
    >>> len(members), G.subgraph(members).number_of_edges()   # q = 1: a clique
    (8, 28)
    """
    check_int("size", size, low=2, high=n)
    check_real("q", q, low=0.0, high=1.0)
    generator = as_generator(seed)
    G = nx.gnp_random_graph(n, p, seed=_networkx_seed(generator))
    members = generator.choice(n, size=size, replace=False)
    for a in range(size):
        for b in range(a + 1, size):
            if generator.random() < q:
                G.add_edge(int(members[a]), int(members[b]))
    G.graph["planted"] = sorted(int(v) for v in members)
    return _weigh(G, generator, weighted)


def barabasi_albert(seed, n: int = 200, m: int = 3, weighted: bool = False) -> nx.Graph:
    """Preferential attachment (Barabasi-Albert) with ``m`` edges per new vertex.

    Examples
    --------
    >>> G = barabasi_albert(0, n=50, m=2)
    >>> G.number_of_edges()   # m (n - m) edges
    96
    """
    check_int("m", m, low=1, high=n - 1)
    generator = as_generator(seed)
    return _weigh(nx.barabasi_albert_graph(n, m, seed=_networkx_seed(generator)), generator, weighted)


def block_model(seed, n: int = 200, blocks: int = 4, p_in: float = 0.3, p_out: float = 0.02,
                weighted: bool = False) -> nx.Graph:
    """Stochastic block model: ``blocks`` blocks of (nearly) equal size, ``p_in`` inside, ``p_out`` across.

    Examples
    --------
    >>> G = block_model(0, n=40, blocks=4, p_in=1.0, p_out=0.0)
    >>> G.number_of_edges()   # four disjoint 10-cliques
    180
    """
    check_int("blocks", blocks, low=1, high=n)
    generator = as_generator(seed)
    sizes = [n // blocks + (1 if b < n % blocks else 0) for b in range(blocks)]
    probs = [[p_in if a == b else p_out for b in range(blocks)] for a in range(blocks)]
    return _weigh(nx.stochastic_block_model(sizes, probs, seed=_networkx_seed(generator)), generator, weighted)


def bandit_design_matrix(seed, n: int = 36, k: int = 10, support_factor: int = 4) -> np.ndarray:
    """``Q = A^-1`` for ``A = sum_j x_j x_j^T`` over ``support_factor * n`` random ``k``-subsets spanning R^n.

    The matrix whose QP a full-bandit stopping rule solves (one pull per support member).

    Examples
    --------
    >>> Q = bandit_design_matrix(0, n=8, k=3, support_factor=2)
    >>> Q.shape, bool(np.linalg.eigvalsh(Q).min() > 0)
    ((8, 8), True)
    """
    generator = as_generator(seed)
    support = random_support(n, k, generator, size=min(support_factor * n, math.comb(n, k)))
    X = np.zeros((len(support), n))
    for row, arm in enumerate(support):
        X[row, list(arm)] = 1.0
    return np.linalg.inv(X.T @ X)


def bandit_design(seed, n: int = 36, k: int = 10, support_factor: int = 4) -> nx.Graph:
    """The complete graph Algorithm 1 builds from :func:`bandit_design_matrix`.

    Weights ``w(i, j) = Q_ij + (Q_ii + Q_jj) / 2`` (:func:`fullbandit.full.qp.dks_weights`;
    Kuroki et al. 2020, Algorithm 1), all positive.

    Examples
    --------
    >>> G = bandit_design(0, n=8, k=3, support_factor=2)
    >>> G.number_of_edges(), all(w > 0 for _, _, w in G.edges(data="weight"))
    (28, True)
    """
    return nx.from_numpy_array(dks_weights(bandit_design_matrix(seed, n, k, support_factor)))


def _classic(builder):
    def make(seed=None):
        G = nx.Graph(builder())
        for *_, data in G.edges(data=True):
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


def make_graph(name: str, seed=None, **params) -> nx.Graph:
    """The graph of generator ``name`` (a key of :data:`GENERATORS`), seeded by ``seed``.

    Examples
    --------
    >>> make_graph("karate").number_of_nodes()
    34
    >>> sorted(make_graph("gnp", 1, n=20).edges) == sorted(make_graph("gnp", 1, n=20).edges)
    True
    """
    check_choice("graph", name, tuple(GENERATORS))
    return GENERATORS[name](as_generator(seed), **params)


def read_graph(path) -> nx.Graph:
    r"""A graph from a file, by suffix: ``.npy``, ``.graphml``, or else an edge list.

    * ``.npy``: a weight matrix as :func:`fullbandit.dks.check_weight_matrix` accepts it;
      nodes ``0 .. n-1``.
    * ``.graphml``: an undirected graph; edge weights in the ``weight`` attribute.
    * edge list: one edge ``u v [weight]`` per line (weight 1 if absent); ``#`` starts a
      comment; node labels are strings.

    Raises
    ------
    FileNotFoundError
        If ``path`` does not exist.
    InvalidParameterError
        If the file cannot be read or parsed, a weight is not a number, the graph is
        directed, or it has no nodes; the message names the file (and, for an edge list,
        the line).

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> path = Path(tempfile.mkdtemp()) / "triangle.txt"
    >>> _ = path.write_text("a b 2.5\nb c  # weight 1\nc a 0.5\n")
    >>> sorted(read_graph(path).edges(data="weight"))
    [('a', 'b', 2.5), ('a', 'c', 0.5), ('b', 'c', 1.0)]
    >>> _ = path.write_text("a b heavy\n")
    >>> read_graph(path)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    fullbandit.util.validation.InvalidParameterError: .../triangle.txt:1: the weight 'heavy' is not a number
    """
    path = Path(path)
    if not path.exists():
        raise FileNotFoundError(f"graph file {str(path)!r} does not exist")
    reader = {".npy": _read_matrix, ".graphml": _read_graphml}.get(path.suffix, _read_edge_list)
    try:
        G = reader(path)
    except OSError as error:  # a directory, no permission, ...
        raise InvalidParameterError(f"cannot read graph file {str(path)!r}: {error.strerror or error}") from None
    if G.number_of_nodes() == 0:
        raise InvalidParameterError(f"graph file {str(path)!r} holds an empty graph (no nodes)")
    return G


def _read_matrix(path: Path) -> nx.Graph:
    try:
        W = np.load(path, allow_pickle=False)
    except (ValueError, EOFError) as error:
        raise InvalidParameterError(f"{path} is not a valid .npy file: {error}") from None
    if W.size == 0:
        return nx.Graph()
    return nx.from_numpy_array(check_weight_matrix(W, name=str(path)).matrix)


def _read_graphml(path: Path) -> nx.Graph:
    try:
        G = nx.read_graphml(path)
    except (ParseError, nx.NetworkXError, ValueError, KeyError, TypeError) as error:
        raise InvalidParameterError(f"{path} is not a valid GraphML file: {error}") from None
    if G.is_directed():
        raise InvalidParameterError(f"{path} holds a directed graph; densest-k-subgraph needs an undirected one")
    G = nx.Graph(G)
    for u, v, data in G.edges(data=True):
        if "weight" in data:
            data["weight"] = _number(data["weight"], f"{path}: edge ({u!r}, {v!r})")
    return G


def _read_edge_list(path: Path) -> nx.Graph:
    try:
        text = path.read_text()
    except UnicodeDecodeError:
        raise InvalidParameterError(f"{path} is not a text edge list ('u v [weight]' per line)") from None
    G = nx.Graph()
    for number, line in enumerate(text.splitlines(), start=1):
        fields = line.split("#", 1)[0].split()
        if not fields:
            continue
        if len(fields) not in (2, 3):
            raise InvalidParameterError(f"{path}:{number}: expected 'u v [weight]', got {line!r}")
        weight = _number(fields[2], f"{path}:{number}") if len(fields) == 3 else 1.0
        G.add_edge(fields[0], fields[1], weight=weight)
    return G


def _number(value, where: str) -> float:
    try:
        return float(value)
    except (TypeError, ValueError):
        raise InvalidParameterError(f"{where}: the weight {value!r} is not a number") from None
