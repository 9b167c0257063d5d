"""Tests for fullbandit.dks.feige_peleg_kortsarz: the Feige-Peleg-Kortsarz procedures, their best, the proven ratio."""

from __future__ import annotations

import doctest
import itertools
from fractions import Fraction

import networkx as nx
import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

import fullbandit.dks.feige_peleg_kortsarz as fpk_module
from fullbandit._validation import InvalidParameterError
from fullbandit.dks._graph import induced_weight, use_sparse
from fullbandit.dks.feige_peleg_kortsarz import PROCEDURES, fpk, fpk_matrix, fpk_procedures, proven_fpk_ratio


# --- references ----------------------------------------------------------------------------

def naive_weight(W, vertices):
    vertices = list(vertices)
    return sum(W[u][v] for a, u in enumerate(vertices) for v in vertices[a + 1:])


def brute_force_dks(W, k):
    return max(naive_weight(W, s) for s in itertools.combinations(range(len(W)), k))


def into(W, x, members):
    return sum(W[x][s] for s in members if s != x)


def best_first(candidates, key):
    """The candidates of largest key (exact), ties to the earliest."""
    return sorted(candidates, key=lambda c: (-key(c[1]), c[0]))


def naive_procedures(W, k):
    """The three procedures as documented, in exact arithmetic (ties: lowest index)."""
    n = len(W)
    h, h2 = (k + 1) // 2, k // 2
    # procedure 1: heaviest edges whose endpoints fit, then lowest-index fill-up by weight into S
    edges = sorted((-W[i][j], i, j) for i in range(n) for j in range(i + 1, n) if W[i][j] > 0)
    S = set()
    for _, i, j in edges:
        if len(S | {i, j}) <= k:
            S |= {i, j}
    while len(S) < k:
        S.add(min((x for x in range(n) if x not in S), key=lambda x: (-into(W, x, S), x)))
    one = sorted(S)
    # procedure 2
    degree = [into(W, v, range(n)) for v in range(n)]
    H = sorted(range(n), key=lambda v: (-degree[v], v))[:h]
    C = sorted((x for x in range(n) if x not in H), key=lambda x: (-into(W, x, H), x))[:h2]
    two = sorted(H + C)
    # procedure 3
    W2 = [[sum(W[v][u] * W[u][w] for u in range(n)) for w in range(n)] for v in range(n)]
    proposals = []
    for v in range(n):
        P = sorted(range(n), key=lambda w: (-W2[v][w], w))[:h]
        B = sorted((x for x in range(n) if x not in P), key=lambda x: (-into(W, x, P), x))[:h2]
        proposals.append(sorted(P + B))
    three = max(proposals, key=lambda s: naive_weight(W, s))  # max returns the first maximum
    return {"heaviest_edges": one, "highest_degrees": two, "two_walks": three}


def naive_fpk(W, k):
    proposals = list(naive_procedures(W, k).values())
    return max(proposals, key=lambda s: naive_weight(W, s))


def random_weights(rng, n, kind):
    """Symmetric non-negative weights, zero diagonal.

    The integer and dyadic kinds make every sum, product and W^2 entry exact in floating
    point, so their ties are true ties; "continuous" and "heavy-tailed" have no exact ties.
    """
    if kind == "integer":
        W = rng.integers(0, 4, size=(n, n)).astype(float)
    elif kind == "binary":
        W = (rng.random((n, n)) < 0.5).astype(float)
    elif kind == "dyadic-sparse":
        W = rng.integers(1, 9, size=(n, n)) / 8.0 * (rng.random((n, n)) < 0.3)
    elif kind == "dyadic-planted":  # a heavy clique among light edges and a heavy star
        W = rng.integers(0, 3, size=(n, n)) / 8.0
        clique = rng.choice(n, size=min(n, max(2, n // 3)), replace=False)
        W[np.ix_(clique, clique)] += 1.0
        hub = int(rng.integers(n))
        W[hub, :] += 0.75
        W[:, hub] += 0.75
    elif kind == "heavy-matching":  # a few heavy disjoint edges beside a light dense block
        W = np.zeros((n, n))
        block = n // 2
        W[:block, :block] = 1.0
        for i in range(block, n - 1, 2):
            W[i, i + 1] = 2.0
    elif kind == "continuous":
        W = rng.exponential(1.0, size=(n, n)) * (rng.random((n, n)) < 0.6)
    elif kind == "heavy-tailed":
        W = rng.pareto(1.0, size=(n, n)) * (rng.random((n, n)) < 0.5)
    else:
        raise AssertionError(kind)
    W = np.triu(W, 1)
    return W + W.T


EXACT_KINDS = ["integer", "binary", "dyadic-sparse", "dyadic-planted", "heavy-matching"]
KINDS = EXACT_KINDS + ["continuous", "heavy-tailed"]


@st.composite
def dks_instances(draw, max_n=9, kinds=tuple(KINDS)):
    n = draw(st.integers(1, max_n))
    k = draw(st.integers(1, n))
    kind = draw(st.sampled_from(kinds))
    seed = draw(st.integers(0, 2 ** 32 - 1))
    return random_weights(np.random.default_rng(seed), n, kind), k


def assert_k_subset(chosen, n, k):
    chosen = np.asarray(chosen)
    assert chosen.dtype.kind == "i"
    assert len(chosen) == k == len(set(chosen.tolist()))
    assert chosen.tolist() == sorted(chosen.tolist()) and all(0 <= v < n for v in chosen.tolist())


def procedure_1_bound(n, k):
    """The proof's bound for procedure 1 alone, recomputed independently."""
    if k == 1 or k == n:
        return Fraction(1)
    return max(Fraction(2, k * (k - 1)), Fraction(1, k if k % 2 == 0 else k + 1))


def procedure_2_bound(n, k):
    if k == 1 or k == n:
        return Fraction(1)
    h, h2 = (k + 1) // 2, k // 2
    return min(Fraction(1, 2), Fraction(h2, n - h)) * Fraction(2 * h, k)


# --- the matrix path -----------------------------------------------------------------------

@settings(max_examples=150, deadline=None)
@given(dks_instances(max_n=8, kinds=tuple(EXACT_KINDS)))
def test_procedures_match_naive_reference(instance):
    # exact arithmetic: the documented rules, ties to the lowest index, nothing else
    W, k = instance
    expected = naive_procedures(W, k)
    got = fpk_procedures(W, k)
    assert list(got) == list(PROCEDURES) == list(expected)
    for name in PROCEDURES:
        assert got[name].tolist() == expected[name], name
    assert fpk_matrix(W, k).tolist() == naive_fpk(W, k)


@settings(max_examples=200, deadline=None)
@given(dks_instances())
def test_fpk_is_a_k_subset_at_least_each_procedure_and_the_proven_ratio(instance):
    W, k = instance
    n = W.shape[0]
    chosen = fpk_matrix(W, k)
    assert_k_subset(chosen, n, k)
    weight = induced_weight(W, chosen)
    assert weight == pytest.approx(naive_weight(W, chosen), rel=1e-12, abs=1e-12)
    procedures = fpk_procedures(W, k)
    slack = 1e-12 * max(weight, 1.0)
    for name, proposal in procedures.items():
        assert_k_subset(proposal, n, k)
        assert weight >= induced_weight(W, proposal) - slack, name
    assert any(chosen.tolist() == proposal.tolist() for proposal in procedures.values())
    opt = brute_force_dks(W, k)
    assert weight <= opt + 1e-9
    assert weight >= proven_fpk_ratio(n, k) * opt * (1 - 1e-12) - 1e-12
    # each half of the proof on its own procedure
    one = induced_weight(W, procedures["heaviest_edges"])
    two = induced_weight(W, procedures["highest_degrees"])
    assert one >= float(procedure_1_bound(n, k)) * opt * (1 - 1e-12) - 1e-12
    assert two >= float(procedure_2_bound(n, k)) * opt * (1 - 1e-12) - 1e-12
    # deterministic
    assert fpk_matrix(W, k).tolist() == chosen.tolist()
    assert {name: p.tolist() for name, p in fpk_procedures(W, k).items()} == \
        {name: p.tolist() for name, p in procedures.items()}


@settings(max_examples=120, deadline=None)
@given(dks_instances(max_n=12), st.sampled_from([sp.csr_array, sp.csc_array, sp.coo_array, sp.csr_matrix]))
def test_dense_and_sparse_paths_agree(instance, fmt):
    W, k = instance
    assert fpk_matrix(fmt(W), k).tolist() == fpk_matrix(W, k).tolist()
    sparse_procedures = fpk_procedures(fmt(W), k)
    for name, proposal in fpk_procedures(W, k).items():
        assert sparse_procedures[name].tolist() == proposal.tolist(), name


def test_sparse_path_with_many_vertices_matches_dense():
    rng = np.random.default_rng(11)
    n = 300
    W = sp.random(n, n, density=0.02, random_state=rng, data_rvs=lambda size: rng.integers(1, 9, size) / 8.0)
    W = sp.csr_array(sp.triu(W, 1))
    W = W + W.T
    dense = W.toarray()
    for k in (1, 7, 151, 300):
        chosen = fpk_matrix(W, k)
        assert chosen.tolist() == fpk_matrix(dense, k).tolist()
        assert_k_subset(chosen, n, k)


def test_sparse_path_scales_without_densifying():
    # 10,000 vertices: a dense path would need 0.8 GB per matrix; this must be quick
    rng = np.random.default_rng(12)
    n = 10_000
    W = sp.random(n, n, density=4e-4, random_state=rng, format="csr")
    W = sp.csr_array(sp.triu(W, 1))
    W = W + W.T
    chosen = fpk_matrix(W, 5)
    assert_k_subset(chosen, n, 5)
    # the heaviest edge alone is a proposal, so FPK weighs at least that much
    submatrix = W[chosen][:, chosen].toarray()
    assert submatrix.sum() / 2 >= W.max() - 1e-12


def test_decimal_ties_go_to_lowest_index():
    # degrees: vertex 0 has 0.3; vertex 1 has 0.1 + 0.2 = 0.30000000000000004 in floating
    # point, a tie in exact arithmetic: H must be {0} (lowest index), not {1}.
    W = np.zeros((5, 5))
    for i, j, w in [(0, 4, 0.3), (1, 2, 0.1), (1, 3, 0.2)]:
        W[i, j] = W[j, i] = w
    assert W[1].sum() > W[0].sum()  # the rounding that must not decide
    assert fpk_procedures(W, 2)["highest_degrees"].tolist() == [0, 4]
    assert fpk_procedures(sp.csr_array(W), 2)["highest_degrees"].tolist() == [0, 4]


def test_uniform_and_empty_graphs_tie_to_lowest_indices():
    for n, k in [(6, 1), (6, 3), (7, 4), (5, 5)]:
        for W in (np.zeros((n, n)), np.ones((n, n)) - np.eye(n)):
            for proposal in fpk_procedures(W, k).values():
                assert proposal.tolist() == list(range(k))
            assert fpk_matrix(W, k).tolist() == list(range(k))
            assert fpk_matrix(sp.csr_array(W), k).tolist() == list(range(k))


def test_procedure_1_takes_heaviest_edges_and_fills_with_lowest_indices():
    # edges 3-4 (5.0) and 1-5 (4.0) fill k = 4; for k = 5 no edge fits any more (both
    # remaining edges have two new endpoints or lie elsewhere) and vertex 0 completes it
    W = np.zeros((8, 8))
    for i, j, w in [(3, 4, 5.0), (1, 5, 4.0), (6, 7, 3.0), (0, 2, 0.0)]:
        W[i, j] = W[j, i] = w
    assert fpk_procedures(W, 4)["heaviest_edges"].tolist() == [1, 3, 4, 5]
    assert fpk_procedures(W, 5)["heaviest_edges"].tolist() == [0, 1, 3, 4, 5]
    assert fpk_procedures(W, 6)["heaviest_edges"].tolist() == [1, 3, 4, 5, 6, 7]
    # at k - 1 vertices only an edge with one endpoint inside fits: the heaviest such one
    W[4, 2] = W[2, 4] = 1.0
    assert fpk_procedures(W, 5)["heaviest_edges"].tolist() == [1, 2, 3, 4, 5]


def test_procedure_3_uses_two_walks():
    # a 4-cycle 0-1-2-3 of weight 1 plus a pendant heavy edge 4-5 of weight 1.5 attached
    # to vertex 0 by weight 0.25: from v = 2, the two-walk weights favour 0 and 2 (via 1
    # and 3), and the best vertices into {0, 2} are 1 and 3: the 4-cycle.
    W = np.zeros((6, 6))
    for i, j, w in [(0, 1, 1.0), (1, 2, 1.0), (2, 3, 1.0), (3, 0, 1.0), (4, 5, 1.5), (0, 4, 0.25)]:
        W[i, j] = W[j, i] = w
    assert fpk_procedures(W, 4)["two_walks"].tolist() == [0, 1, 2, 3]
    assert naive_procedures(W, 4)["two_walks"] == [0, 1, 2, 3]
    assert fpk_matrix(W, 4).tolist() == [0, 1, 2, 3]


def test_fpk_picks_the_heaviest_procedure():
    # heavy matching far from a light clique: procedure 1 loses to the clique
    n, k = 10, 4
    W = np.zeros((n, n))
    W[:4, :4] = 1.0
    np.fill_diagonal(W, 0.0)
    for i in (4, 6, 8):
        W[i, i + 1] = W[i + 1, i] = 1.5
    procedures = fpk_procedures(W, k)
    assert procedures["heaviest_edges"].tolist() == [4, 5, 6, 7]
    assert induced_weight(W, procedures["heaviest_edges"]) == 3.0
    assert fpk_matrix(W, k).tolist() == [0, 1, 2, 3] and brute_force_dks(W, k) == 6.0


def test_diagonal_is_ignored_and_may_be_negative():
    rng = np.random.default_rng(1)
    for _ in range(30):
        W = random_weights(rng, 7, EXACT_KINDS[int(rng.integers(len(EXACT_KINDS)))])
        k = int(rng.integers(1, 8))
        with_diagonal = W + np.diag(rng.integers(-800, 800, size=7) / 8.0)
        assert fpk_matrix(with_diagonal, k).tolist() == fpk_matrix(W, k).tolist()
        assert fpk_matrix(sp.csr_array(with_diagonal), k).tolist() == fpk_matrix(W, k).tolist()


def test_input_is_not_modified():
    W = random_weights(np.random.default_rng(2), 6, "continuous") + np.eye(6)
    copy = W.copy()
    fpk_matrix(W, 3)
    fpk_procedures(W, 3)
    S = sp.csr_array(W)
    fpk_matrix(S, 3)
    assert np.array_equal(W, copy) and np.array_equal(S.toarray(), copy)


@pytest.mark.parametrize("make", [np.asarray, sp.csr_array])
@pytest.mark.parametrize("W, k, error, pattern", [
    (np.ones((3, 4)), 1, InvalidParameterError, "square"),
    (np.array([[0.0, 1.0], [2.0, 0.0]]), 1, InvalidParameterError, "symmetric"),
    (np.array([[0.0, -1.0], [-1.0, 0.0]]), 1, InvalidParameterError, "non-negative"),
    (np.array([[0.0, np.nan], [np.nan, 0.0]]), 1, InvalidParameterError, "finite"),
    (np.array([[0.0, np.inf], [np.inf, 0.0]]), 1, InvalidParameterError, "finite"),
    (np.zeros((3, 3)), 0, InvalidParameterError, r"k=0 must satisfy 1 <= k <= 3"),
    (np.zeros((3, 3)), 4, InvalidParameterError, r"k=4 must satisfy 1 <= k <= 3"),
    (np.zeros((3, 3)), 2.0, TypeError, "k must be an integer"),
    (np.zeros((3, 3)), True, TypeError, "k must be an integer"),
])
def test_matrix_path_validation(make, W, k, error, pattern):
    for function in (fpk_matrix, fpk_procedures):
        with pytest.raises(error, match=pattern):
            function(make(W), k)


# --- the proven ratio ----------------------------------------------------------------------

def test_proven_ratio_closed_form():
    for n in range(1, 40):
        for k in range(1, n + 1):
            expected = max(procedure_1_bound(n, k), procedure_2_bound(n, k))
            ratio = proven_fpk_ratio(n, k)
            assert ratio == pytest.approx(float(expected), rel=1e-15)
            assert 0 < ratio <= 1
            if 2 <= k < n:
                assert ratio >= 1 / (k + 1)
    assert proven_fpk_ratio(10, 2) == 1.0  # the heaviest edge is optimal
    assert proven_fpk_ratio(10, 3) == pytest.approx(1 / 3)
    assert proven_fpk_ratio(10, 8) == 0.5  # procedure 2: H and C of 4, a = 4 / 6
    assert proven_fpk_ratio(1000, 20) == pytest.approx(1 / 20)


@pytest.mark.parametrize("n, k, error", [(0, 1, InvalidParameterError), (3, 0, InvalidParameterError),
                                         (3, 4, InvalidParameterError), (3.0, 1, TypeError), (3, 1.5, TypeError)])
def test_proven_ratio_validation(n, k, error):
    with pytest.raises(error):
        proven_fpk_ratio(n, k)


def planted_instances():
    """Adversarial shapes for the two halves of the proof."""
    yield "matching-vs-clique", 10, 4, [(i, j, 1.0) for i, j in itertools.combinations(range(4), 2)] + \
        [(4, 5, 1.01), (6, 7, 1.01), (8, 9, 1.01)]
    yield "star-vs-clique", 9, 4, [(0, j, 1.4) for j in range(1, 5)] + \
        [(i, j, 1.0) for i, j in itertools.combinations(range(5, 9), 2)]
    yield "hubs-outside-clique", 12, 6, [(h, j, 0.9) for h in (0, 1) for j in range(2, 6)] + \
        [(i, j, 1.0) for i, j in itertools.combinations(range(6, 12), 2)]


@pytest.mark.parametrize("name, n, k, edges", list(planted_instances()))
def test_proven_ratio_on_adversarial_instances(name, n, k, edges):
    W = np.zeros((n, n))
    for i, j, w in edges:
        W[i, j] = W[j, i] = w
    opt = brute_force_dks(W, k)
    weight = induced_weight(W, fpk_matrix(W, k))
    assert weight >= proven_fpk_ratio(n, k) * opt - 1e-12
    proposals = fpk_procedures(W, k)
    assert induced_weight(W, proposals["heaviest_edges"]) >= float(procedure_1_bound(n, k)) * opt - 1e-12
    assert induced_weight(W, proposals["highest_degrees"]) >= float(procedure_2_bound(n, k)) * opt - 1e-12


# --- the networkx front end ----------------------------------------------------------------

def graph_from_matrix(W, labels, weight="weight"):
    G = nx.Graph()
    G.add_nodes_from(labels)
    n = len(labels)
    for i in range(n):
        for j in range(i + 1, n):
            if W[i, j] != 0:
                G.add_edge(labels[i], labels[j], **{weight: float(W[i, j])})
    return G


LABEL_SETS = {
    "ints": lambda n: list(range(n)),
    "strings": lambda n: [f"worker-{c}" for c in "qwertyuiopasdfghjkl"[:n]],
    "tuples": lambda n: [(i % 3, "x" * i) for i in range(n)],
    "mixed": lambda n: [("t", i) if i % 3 == 0 else (f"s{i}" if i % 3 == 1 else 1000 - i) for i in range(n)],
}


@pytest.mark.parametrize("label_kind", list(LABEL_SETS))
def test_networkx_equals_matrix_path_with_any_labels(label_kind):
    rng = np.random.default_rng(100 + list(LABEL_SETS).index(label_kind))
    for _ in range(25):
        n = int(rng.integers(1, 10))
        k = int(rng.integers(1, n + 1))
        W = random_weights(rng, n, KINDS[int(rng.integers(len(KINDS)))])
        labels = LABEL_SETS[label_kind](n)
        G = graph_from_matrix(W, labels)
        chosen = fpk(G, k)
        assert isinstance(chosen, set) and len(chosen) == k and chosen <= set(labels)
        assert chosen == {labels[i] for i in fpk_matrix(W, k)}
        index = [labels.index(v) for v in chosen]
        assert G.subgraph(chosen).size(weight="weight") == pytest.approx(induced_weight(W, index), abs=1e-12)
        assert G.subgraph(chosen).size(weight="weight") >= \
            proven_fpk_ratio(n, k) * brute_force_dks(W, k) * (1 - 1e-12) - 1e-12
        assert fpk(G, k) == chosen  # deterministic


def test_missing_weight_counts_one():
    rng = np.random.default_rng(6)
    for _ in range(40):
        n = int(rng.integers(3, 10))
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
                G.add_edge(i, j, weight=w)
                W[i, j] = W[j, i] = w
        assert fpk(G, k) == set(fpk_matrix(W, k).tolist())


def test_custom_weight_attribute_and_self_loops():
    G = nx.Graph()
    G.add_nodes_from("abcd")
    G.add_edge("a", "b", cost=10.0, weight=1.0)
    G.add_edge("c", "d", cost=1.0, weight=10.0)
    assert fpk(G, 2, weight="cost") == {"a", "b"}
    assert fpk(G, 2) == {"c", "d"}
    G.add_edge("a", "a", weight=1000.0)
    G.add_edge("b", "b")
    assert fpk(G, 2) == {"c", "d"}


def test_large_sparse_graph_takes_the_sparse_path_and_agrees_with_dense():
    G = nx.gnm_random_graph(1000, 2500, seed=3)
    rng = np.random.default_rng(3)
    for u, v in G.edges:
        G[u][v]["weight"] = float(rng.integers(1, 9)) / 8.0
    G = nx.relabel_nodes(G, {v: f"n{v}" for v in G})
    assert use_sparse(G)
    nodes = list(G.nodes)
    W = nx.to_numpy_array(G, nodelist=nodes)
    assert fpk(G, 20) == {nodes[i] for i in fpk_matrix(W, 20)}


def test_networkx_validation():
    path = nx.path_graph(4)
    with pytest.raises(InvalidParameterError, match="undirected"):
        fpk(nx.DiGraph(path), 2)
    multi = nx.MultiGraph(path)
    multi.add_edge(0, 1)
    with pytest.raises(InvalidParameterError, match="multigraph"):
        fpk(multi, 2)
    negative = nx.Graph(path)
    negative[1][2]["weight"] = -0.5
    with pytest.raises(InvalidParameterError, match=r"'weight' must be non-negative"):
        fpk(negative, 2)
    infinite = nx.Graph(path)
    infinite[1][2]["weight"] = float("inf")
    with pytest.raises(InvalidParameterError, match="finite"):
        fpk(infinite, 2)
    with pytest.raises(InvalidParameterError, match=r"k=5 must satisfy 1 <= k <= 4"):
        fpk(path, 5)
    with pytest.raises(InvalidParameterError, match=r"k=0 must satisfy 1 <= k <= 4"):
        fpk(path, 0)
    with pytest.raises(TypeError, match="k must be an integer"):
        fpk(path, 2.0)
    with pytest.raises(TypeError, match="networkx.Graph"):
        fpk(np.ones((3, 3)), 2)
    with pytest.raises(ValueError):  # the errors are ValueErrors, as documented
        fpk(nx.DiGraph(path), 2)


def test_docstring_examples():
    failures, attempted = doctest.testmod(fpk_module, verbose=False, report=False)
    assert attempted >= 10
    assert failures == 0
