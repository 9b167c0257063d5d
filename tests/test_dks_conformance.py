"""The contract every registered DkS oracle keeps, through both entry points, dense and sparse.

Parametrised over :data:`fullbandit.dks.ORACLES` and over three ways in: the graph front
end :func:`densest_k_subgraph`, and :func:`densest_k_subgraph_matrix` on a dense and on a
scipy sparse matrix. Each property is checked against independent references
(:mod:`test_dks_references`: brute force, plain-Python weights), so that a wrong oracle
fails: e.g. one returning the first ``k`` vertices weighs 0 on the "planted-last"
instances, below its proven ratio.
"""

from __future__ import annotations

import doctest
import importlib
import itertools
import math

import networkx as nx
import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from test_dks_references import (
    EXACT_KINDS,
    LABEL_SETS,
    best_swap_gain,
    dks_instances,
    graph_from_matrix,
    naive_optimum,
    naive_weight,
    random_weights,
)

from fullbandit.dks import ORACLES, DenseSubgraph, densest_k_subgraph, densest_k_subgraph_matrix, get_oracle
from fullbandit.util.validation import InvalidParameterError

METHODS = list(ORACLES)
ENTRIES = ["graph", "dense", "sparse"]
SWAP_METHODS = [name for name in METHODS if name.endswith("+swap")]


def solve(entry: str, method: str, W, k: int, labels=None) -> tuple[DenseSubgraph, list[int]]:
    """The result through ``entry`` and the chosen vertices as sorted indices of ``W``."""
    if entry == "graph":
        labels = list(range(len(W))) if labels is None else labels
        result = densest_k_subgraph(graph_from_matrix(W, labels), k, method=method)
        assert isinstance(result.vertices, frozenset) and result.vertices <= set(labels)
        return result, sorted(labels.index(v) for v in result.vertices)
    result = densest_k_subgraph_matrix(sp.csr_array(W) if entry == "sparse" else W, k, method=method)
    assert isinstance(result.vertices, tuple) and all(type(v) is int for v in result.vertices)
    assert list(result.vertices) == sorted(result.vertices)
    return result, list(result.vertices)


def check_answer(result: DenseSubgraph, chosen: list[int], W, k: int, method: str) -> None:
    n = len(W)
    assert isinstance(result, DenseSubgraph) and result.method == method
    assert len(chosen) == k == len(set(chosen)) and all(0 <= v < n for v in chosen)
    assert result.weight == pytest.approx(naive_weight(W, chosen), rel=1e-12, abs=1e-12)
    assert result.proven_ratio == ORACLES[method].proven_ratio(n, k)
    assert 0 < result.proven_ratio <= 1
    _, optimum = naive_optimum(W, k)
    slack = 1e-12 * max(1.0, optimum)
    assert result.weight <= optimum + slack
    assert result.weight >= result.proven_ratio * optimum - slack


# --- every answer: k distinct vertices, their weight, at least the proven ratio, deterministic --

@pytest.mark.slow
@pytest.mark.parametrize("entry", ENTRIES)
@pytest.mark.parametrize("method", METHODS)
@settings(max_examples=15, deadline=None)
@given(instance=dks_instances(max_n=8))
def test_answer_is_k_vertices_with_their_weight_and_at_least_the_proven_ratio(method, entry, instance):
    W, k = instance
    result, chosen = solve(entry, method, W, k)
    check_answer(result, chosen, W, k, method)
    assert solve(entry, method, W, k)[0] == result  # deterministic


def adversarial_instances():
    """Shapes built to defeat a wrong oracle: the weight sits where a naive choice does not look."""
    def edges_to_matrix(n, edges):
        W = np.zeros((n, n))
        for i, j, w in edges:
            W[i, j] = W[j, i] = w
        return W
    yield "clique-last", edges_to_matrix(9, [(i, j, 1.0) for i, j in itertools.combinations(range(5, 9), 2)]), 4
    yield "matching-vs-clique", edges_to_matrix(10, [(i, j, 1.0) for i, j in itertools.combinations(range(4), 2)]
                                                + [(4, 5, 1.01), (6, 7, 1.01), (8, 9, 1.01)]), 4
    yield "star-vs-clique", edges_to_matrix(9, [(0, j, 1.4) for j in range(1, 5)]
                                            + [(i, j, 1.0) for i, j in itertools.combinations(range(5, 9), 2)]), 4
    yield "hubs-outside-clique", edges_to_matrix(12, [(h, j, 0.9) for h in (0, 1) for j in range(2, 6)]
                                                 + [(i, j, 1.0) for i, j in itertools.combinations(range(6, 12), 2)]), 6
    # two non-adjacent hubs of 11 shared light leaves outrank the clique's degrees: "highest degrees"
    # proposes 1.2 < proven_fpk_ratio(17, 4) * OPT = 1.5, so FPK must not settle for that proposal
    yield "two-hubs-vs-clique", edges_to_matrix(17, [(h, j, 0.3) for h in (0, 1) for j in range(2, 13)]
                                                + [(i, j, 1.0) for i, j in itertools.combinations(range(13, 17), 2)]), 4
    yield "one-edge", edges_to_matrix(7, [(5, 6, 3.0)]), 2
    yield "empty", np.zeros((6, 6)), 3


@pytest.mark.parametrize("entry", ENTRIES)
@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("name, W, k", list(adversarial_instances()), ids=[case[0] for case in adversarial_instances()])
def test_proven_ratio_on_adversarial_instances(method, entry, name, W, k):
    result, chosen = solve(entry, method, W, k)
    check_answer(result, chosen, W, k, method)


@pytest.mark.parametrize("entry", ENTRIES)
@pytest.mark.parametrize("method", METHODS)
def test_every_oracle_recovers_a_dominant_planted_clique(method, entry):
    # A 4-clique of weight 10 among weight-1 edges on 10 vertices: every outside vertex has
    # weighted degree 9 < 3 * 10 + 6, and the four heaviest... are the clique's six edges.
    W = np.ones((10, 10))
    clique = [1, 4, 6, 9]
    W[np.ix_(clique, clique)] = 10.0
    np.fill_diagonal(W, 0.0)
    result, chosen = solve(entry, method, W, 4)
    assert chosen == clique and result.weight == 60.0


@pytest.mark.parametrize("method", SWAP_METHODS)
@pytest.mark.parametrize("entry", ENTRIES)
def test_swap_variants_end_one_swap_optimal_and_never_below_their_start(method, entry):
    rng = np.random.default_rng(3)
    first = method.removesuffix("+swap")
    for _ in range(15):
        n = int(rng.integers(3, 9))
        k = int(rng.integers(1, n + 1))
        W = random_weights(rng, n, ("continuous", "integer", "planted-last")[int(rng.integers(3))])
        result, chosen = solve(entry, method, W, k)
        start, _ = solve(entry, first, W, k)
        assert result.weight >= start.weight - 1e-12 * max(1.0, start.weight)
        assert best_swap_gain(W, chosen) <= 1e-9 * max(1.0, float(np.triu(W, 1).sum()))


# --- the ways in agree -------------------------------------------------------------------------

@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("label_kind", list(LABEL_SETS))
def test_graph_dense_and_sparse_entry_points_agree_whatever_the_labels(method, label_kind):
    # exact-arithmetic weights: every tie is a true tie, decided the same way on every path
    rng = np.random.default_rng(100 + list(LABEL_SETS).index(label_kind))
    for _ in range(6):
        n = int(rng.integers(1, 10))
        k = int(rng.integers(1, n + 1))
        W = random_weights(rng, n, EXACT_KINDS[int(rng.integers(len(EXACT_KINDS)))])
        labels = LABEL_SETS[label_kind](n)
        answers = {entry: solve(entry, method, W, k, labels) for entry in ENTRIES}
        assert answers["graph"][1] == answers["dense"][1] == answers["sparse"][1]
        assert answers["graph"][0].weight == answers["dense"][0].weight == pytest.approx(answers["sparse"][0].weight)
        assert get_oracle(method).solve(W, k).tolist() == answers["dense"][1]  # the registry's own door


@pytest.mark.parametrize("method", ["peeling", pytest.param("fpk", marks=pytest.mark.slow),
                                    pytest.param("peeling+swap", marks=pytest.mark.slow),
                                    pytest.param("fpk+swap", marks=pytest.mark.slow)])
def test_large_sparse_graphs_take_the_sparse_path_with_the_same_answer(method):
    G = nx.gnm_random_graph(1000, 2500, seed=3)
    rng = np.random.default_rng(3)
    for u, v in G.edges:
        G[u][v]["weight"] = float(rng.integers(1, 9)) / 8.0
    G = nx.relabel_nodes(G, {v: f"n{v}" for v in G})
    nodes = list(G.nodes)
    W = nx.to_numpy_array(G, nodelist=nodes)
    result = densest_k_subgraph(G, 20, method=method)
    assert result.vertices == {nodes[i] for i in densest_k_subgraph_matrix(W, 20, method=method).vertices}


# --- what the entry points ignore or never touch ----------------------------------------------

@pytest.mark.parametrize("method", METHODS)
def test_diagonal_is_ignored_and_input_is_not_modified(method):
    rng = np.random.default_rng(1)
    for _ in range(8):
        n = int(rng.integers(2, 8))
        k = int(rng.integers(1, n + 1))
        W = random_weights(rng, n, EXACT_KINDS[int(rng.integers(len(EXACT_KINDS)))])
        looped = W + np.diag(rng.integers(-800, 800, size=n) / 8.0)
        copy, sparse_looped = looped.copy(), sp.csr_array(looped)
        expected = densest_k_subgraph_matrix(W, k, method=method)
        assert densest_k_subgraph_matrix(looped, k, method=method) == expected
        assert densest_k_subgraph_matrix(sparse_looped, k, method=method).vertices == expected.vertices
        assert np.array_equal(looped, copy) and np.array_equal(sparse_looped.toarray(), copy)


@pytest.mark.parametrize("method", METHODS)
def test_graph_weights_missing_attribute_counts_one_custom_attribute_and_self_loops(method):
    rng = np.random.default_rng(6)
    for _ in range(8):
        n = int(rng.integers(3, 9))
        k = int(rng.integers(1, n + 1))
        W = np.zeros((n, n))
        G = nx.Graph()
        G.add_nodes_from(range(n))
        for i, j in itertools.combinations(range(n), 2):
            r = rng.random()
            if r < 0.3:
                G.add_edge(i, j)  # no weight attribute: weight 1
                W[i, j] = W[j, i] = 1.0
            elif r < 0.7:
                w = float(rng.integers(0, 5))
                G.add_edge(i, j, weight=w, decoy=float(rng.random()))
                W[i, j] = W[j, i] = w
        G.add_edge(0, 0, weight=1000.0)  # self-loops are ignored
        expected = set(densest_k_subgraph_matrix(W, k, method=method).vertices)
        assert densest_k_subgraph(G, k, method=method).vertices == expected
        H = nx.relabel_nodes(G, {v: f"v{v}" for v in G})
        for *_, data in H.edges(data=True):
            data["affinity"] = data.pop("weight", 1.0)
        assert densest_k_subgraph(H, k, method=method, weight="affinity").vertices == {f"v{i}" for i in expected}


# --- input validation: one rule at both doors ---------------------------------------------------

def matrix_cases():
    yield np.ones((3, 4)), 1, InvalidParameterError, r"W must be a square matrix, got shape \(3, 4\)"
    yield np.zeros((0, 0)), 1, InvalidParameterError, r"W must have at least one vertex"
    yield np.array([[0.0, 1.0], [2.0, 0.0]]), 1, InvalidParameterError, r"W must be symmetric .* W\[0, 1\] = 1.0"
    yield np.array([[0.0, -1.0], [-1.0, 0.0]]), 1, InvalidParameterError, r"non-negative .* W\[0, 1\] = -1.0"
    yield np.array([[0.0, np.nan], [np.nan, 0.0]]), 1, InvalidParameterError, r"finite .* W\[0, 1\] = nan"
    yield np.array([[0.0, np.inf], [np.inf, 0.0]]), 1, InvalidParameterError, r"finite .* W\[0, 1\] = inf"
    yield np.zeros((3, 3)), 0, InvalidParameterError, r"k=0 must satisfy 1 <= k <= 3"
    yield np.zeros((3, 3)), 4, InvalidParameterError, r"k=4 must satisfy 1 <= k <= 3"
    yield np.zeros((3, 3)), 2.0, TypeError, "k must be an integer, got 2.0"
    yield np.zeros((3, 3)), True, TypeError, "k must be an integer, got True"


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("fmt", [np.asarray, sp.coo_matrix], ids=["dense", "sparse"])
@pytest.mark.parametrize("W, k, error, pattern", list(matrix_cases()))
def test_matrix_entry_point_refuses_bad_input_naming_it(method, fmt, W, k, error, pattern):
    with pytest.raises(error, match=pattern):
        densest_k_subgraph_matrix(fmt(W), k, method=method)
    with pytest.raises(error, match=pattern):
        get_oracle(method).solve(fmt(W), k)


def graph_cases():
    path = nx.path_graph(4)
    multi = nx.MultiGraph(path)
    multi.add_edge(0, 1)
    negative, infinite, text = nx.Graph(path), nx.Graph(path), nx.Graph(path)
    negative[1][2]["weight"] = -0.5
    infinite[1][2]["weight"] = math.inf
    text[1][2]["weight"] = "heavy"
    yield nx.DiGraph(path), 2, InvalidParameterError, "G must be undirected"
    yield multi, 2, InvalidParameterError, "G must not be a multigraph"
    yield nx.Graph(), 1, InvalidParameterError, "G must have at least one node, got an empty graph"
    yield negative, 2, InvalidParameterError, r"'weight' must be non-negative on every edge, got -0.5 on edge \(1, 2\)"
    yield infinite, 2, InvalidParameterError, r"'weight' must be finite on every edge, got inf on edge \(1, 2\)"
    yield text, 2, TypeError, r"'weight' must be a real number on every edge, got 'heavy' on edge \(1, 2\)"
    yield path, 5, InvalidParameterError, r"k=5 must satisfy 1 <= k <= 4"
    yield path, 0, InvalidParameterError, r"k=0 must satisfy 1 <= k <= 4"
    yield path, 2.0, TypeError, "k must be an integer"
    yield np.ones((3, 3)), 2, TypeError, "G must be a networkx.Graph, got ndarray"


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("G, k, error, pattern", list(graph_cases()))
def test_graph_entry_point_refuses_bad_input_naming_it(method, G, k, error, pattern):
    with pytest.raises(error, match=pattern):
        densest_k_subgraph(G, k, method=method)


@pytest.mark.parametrize("call", [lambda m: densest_k_subgraph(nx.path_graph(3), 2, method=m),
                                  lambda m: densest_k_subgraph_matrix(np.ones((3, 3)), 2, method=m)],
                         ids=["graph", "matrix"])
def test_unknown_method_is_refused_listing_the_methods(call):
    with pytest.raises(InvalidParameterError, match="method='magic' is not one of the allowed values: "
                       + ", ".join(repr(name) for name in METHODS).replace("+", r"\+")):
        call("magic")
    with pytest.raises(InvalidParameterError, match="oracle='magic'"):
        get_oracle("magic")


def test_errors_are_value_errors_as_documented():
    with pytest.raises(ValueError):
        densest_k_subgraph(nx.DiGraph([(0, 1)]), 1)
    with pytest.raises(ValueError):
        densest_k_subgraph_matrix(-np.ones((2, 2)), 1)


# --- documentation ------------------------------------------------------------------------------

@pytest.mark.parametrize("module", ["fullbandit.dks.weights", "fullbandit.dks.oracle", "fullbandit.dks.peeling",
                                    "fullbandit.dks.feige_peleg_kortsarz", "fullbandit.dks.swaps",
                                    "fullbandit.dks.densest", "fullbandit.dks.bounds", "fullbandit.dks.optimum",
                                    "fullbandit.experiments.graphs"])
def test_every_module_example_runs(module):
    failures, attempted = doctest.testmod(importlib.import_module(module), verbose=False, report=False)
    assert attempted > 0 and failures == 0
