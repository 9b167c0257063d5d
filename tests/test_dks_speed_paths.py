"""The fast DkS paths return exactly what the code before them returned (issue 13).

The reference is the previous implementation, frozen outside the package in
tests/reference/dks.py (networkx's own conversion followed by the full validator,
column-update and heapq peeling, the per-vertex FPK procedure 3). Every comparison is
exact (``array_equal``, same node sets): on instances with ties everywhere (0/1 and
integer weights, decimal weights such as 0.1 whose incremental sums round), with
continuous weights, and through both front ends. The optional numba kernel of
:mod:`fullbandit.dks.compiled` is compared with its pure-numpy twin; without numba
installed the same kernel runs as plain Python, so these tests check it on any machine.
"""

from __future__ import annotations

import itertools

import networkx as nx
import numpy as np
import pytest
import scipy.sparse as sp
from reference import dks as reference
from test_dks_references import KINDS, LABEL_SETS, graph_from_matrix, naive_weight, random_weights

from fullbandit.dks import check_weight_matrix, compiled, densest_k_subgraph, densest_k_subgraph_matrix
from fullbandit.dks import feige_peleg_kortsarz as fpk_module
from fullbandit.dks import peeling as peeling_module
from fullbandit.dks import weights as weights_module
from fullbandit.dks.weights import graph_weights
from fullbandit.util.validation import InvalidParameterError

TIE_KINDS = ("binary", "integer", "dyadic-sparse", "decimal")


def weights_of(rng, n: int, kind: str) -> np.ndarray:
    """``random_weights`` plus "decimal": multiples of 0.1, whose sums round differently in each order."""
    if kind != "decimal":
        return random_weights(rng, n, kind)
    W = np.triu(rng.integers(0, 4, size=(n, n)) / 10.0, 1)
    return W + W.T


def instances(seed: int, count: int, max_n: int, kinds=KINDS + ("decimal",)):
    """``count`` seeded ``(W, k, kind)``, every kind in turn, ``1 <= k <= n``."""
    rng = np.random.default_rng(seed)
    for trial in range(count):
        kind = kinds[trial % len(kinds)]
        n = int(rng.integers(2, max_n + 1))
        yield weights_of(rng, n, kind), int(rng.integers(1, n + 1)), kind


def both_formats(W):
    return check_weight_matrix(W), check_weight_matrix(sp.csr_array(W))


def random_sparse(rng, n: int, m: int, kind: str) -> sp.csr_array:
    """A validated CSR matrix with about ``m`` random edges on ``n`` vertices (ties unless "continuous")."""
    first, second = rng.integers(0, n, size=(2, m))
    pairs = np.unique(np.minimum(first, second) * n + np.maximum(first, second))
    rows, columns = np.divmod(pairs[pairs // n != pairs % n], n)
    values = {"continuous": lambda size: rng.exponential(size=size), "binary": np.ones,
              "integer": lambda size: rng.integers(1, 4, size=size).astype(float),
              "decimal": lambda size: rng.integers(1, 4, size=size) / 10.0}[kind](rows.size)
    upper = sp.csr_array((values, (rows, columns)), shape=(n, n))
    return check_weight_matrix(upper + upper.T).matrix


# --- the networkx conversion ------------------------------------------------------------------

@pytest.mark.parametrize("labels", sorted(LABEL_SETS))
def test_graph_matrix_equals_networkx_conversion_in_node_order(labels):
    rng = np.random.default_rng(1)
    for trial in range(12):
        n = int(rng.integers(1, 16))
        names = LABEL_SETS[labels](n)
        G = nx.Graph()
        G.add_nodes_from([names[i] for i in rng.permutation(n)])
        for i, j in itertools.combinations(range(n), 2):
            if rng.random() < 0.5:
                G.add_edge(names[i], names[j])  # edges added in a different order than the nodes
                if rng.random() < 0.8:  # some edges lack the attribute (weight 1), some weigh 0
                    G[names[i]][names[j]]["weight"] = float(rng.integers(0, 3)) if trial % 2 else rng.random()
        if n and trial % 3 == 0:
            G.add_edge(names[0], names[0], weight=7.0)  # a self-loop: dropped
        for sparse in (False, True):
            nodes, weights = graph_weights(G, sparse=sparse)
            old_nodes, old = reference.graph_weights(G, sparse=sparse)
            assert nodes == old_nodes == list(G.nodes)
            assert weights.is_sparse == sparse
            if sparse:
                assert weights.matrix.has_sorted_indices and np.all(weights.matrix.data > 0)
                assert np.array_equal(weights.matrix.indptr, old.indptr)
                assert np.array_equal(weights.matrix.indices, old.indices)
                assert np.array_equal(weights.matrix.data, old.data)
            else:
                assert weights.matrix.flags.c_contiguous and not weights.matrix.flags.writeable
                assert np.array_equal(weights.matrix, old)


def test_graph_conversion_reads_the_named_attribute_and_refuses_bad_weights_by_edge():
    G = nx.path_graph(["a", "b", "c", "d"])
    nx.set_edge_attributes(G, 2.0, "cost")
    G["c"]["d"]["cost"] = -1.0
    G["a"]["b"]["cost"] = -2.0  # the first offending edge in node order is named
    for sparse in (False, True):
        assert graph_weights(G, "other", sparse=sparse)[1].toarray().sum() == 6.0  # missing: weight 1
        with pytest.raises(InvalidParameterError, match=r"must be non-negative on every edge, got -2.0 on edge "
                                                        r"\('a', 'b'\)$"):
            graph_weights(G, "cost", sparse=sparse)


def test_graph_front_end_equals_matrix_front_end_on_the_same_weights():
    rng = np.random.default_rng(2)
    for W, k, kind in instances(3, 40, 14):
        labels = [f"node-{i}" for i in rng.permutation(len(W))]
        G = graph_from_matrix(W, labels)
        for method in ("peeling", "fpk"):
            by_graph = densest_k_subgraph(G, k, method=method).vertices
            by_matrix = densest_k_subgraph_matrix(W, k, method=method).vertices
            assert by_graph == {labels[i] for i in by_matrix}, (kind, method)
            assert by_graph == reference.densest_k_subgraph(G, k, method)


def test_a_large_sparse_graph_converts_like_networkx():
    G = nx.gnm_random_graph(3000, 20000, seed=4)
    rng = np.random.default_rng(4)
    for _, _, data in G.edges(data=True):
        data["weight"] = float(rng.integers(1, 5))
    nodes, weights = graph_weights(G)
    _, old = reference.graph_weights(G)
    assert weights.is_sparse and nodes == list(G.nodes)
    assert (weights.matrix != old).nnz == 0


# --- the dense validator ---------------------------------------------------------------------

@pytest.mark.parametrize("n", [1, 255, 256, 257, 600])
def test_tiled_symmetry_check_finds_the_largest_asymmetry_in_every_tile(n):
    rng = np.random.default_rng(n)
    W = rng.random((n, n))
    W = W + W.T
    assert weights_module._largest_asymmetry(W) == 0.0
    for _ in range(5):
        i, j = (int(v) for v in rng.integers(0, n, size=2))
        bumped = W.copy()
        bumped[i, j] += 0.25
        assert weights_module._largest_asymmetry(bumped) == pytest.approx(float(np.abs(bumped - bumped.T).max()))
        if i != j:
            with pytest.raises(InvalidParameterError, match=rf"got W\[{min(i, j)}, {max(i, j)}\]"):
                check_weight_matrix(bumped)


def test_dense_validator_returns_what_the_previous_one_returned():
    for W, _, _ in instances(5, 30, 20):
        noisy = W.copy()
        noisy[0, -1] *= 1 + 1e-13  # inside the symmetry tolerance: averaged
        for matrix in (W, noisy):
            assert np.array_equal(check_weight_matrix(matrix).matrix, reference.check_dense(matrix))


# --- greedy peeling ---------------------------------------------------------------------------

def test_peeling_returns_what_the_previous_implementation_returned():
    for W, k, kind in instances(6, 150, 30):
        for weights in both_formats(W):
            assert np.array_equal(peeling_module._peel(weights, k), reference.peel(weights.matrix, k)), kind


@pytest.mark.slow
@pytest.mark.parametrize("kind", ["binary", "integer", "decimal", "continuous"])
def test_sparse_peeling_kernel_twin_and_previous_implementation_agree(kind):
    rng = np.random.default_rng(7)
    for n, m in [(2, 1), (30, 60), (200, 600), (500, 3000)]:
        W = random_sparse(rng, n, m, kind)
        for k in sorted({1, n // 3, n // 2, n - 1, n}):
            expected = reference.peel_sparse(W, k)
            assert np.array_equal(peeling_module._peel_sparse_heapq(W, k), expected)
            assert np.array_equal(peeling_module._peel_sparse_compiled(W, k), expected)


def test_dense_peeling_decides_decimal_ties_by_index_as_before():
    # 0.1 + 0.2 != 0.3 in floating point: the tolerance must still call these degrees tied
    W = np.zeros((5, 5))
    for i, j, w in [(0, 1, 0.1), (0, 2, 0.2), (3, 4, 0.3), (1, 2, 0.1), (3, 2, 0.1)]:
        W[i, j] = W[j, i] = w
    for k in range(1, 6):
        assert np.array_equal(peeling_module._peel_dense(W, k), reference.peel_dense(W, k))


# --- Feige, Peleg, Kortsarz -------------------------------------------------------------------

@pytest.mark.slow
def test_fpk_procedures_return_what_the_previous_implementation_returned():
    for W, k, kind in instances(8, 120, 24):
        for weights in both_formats(W):
            new = fpk_module._procedures(weights.matrix, k, weights.is_sparse)
            old = reference.procedures(weights.matrix, k)
            for name in old:
                assert np.array_equal(new[name], old[name]), (kind, name, weights.is_sparse)
            assert np.array_equal(fpk_module._fpk(weights, k), reference.fpk(weights.matrix, k))


def test_heaviest_edges_scan_beyond_the_first_ordered_edges():
    # the triangle {0, 1, 2} fills k - 1 = 3 vertices; the next 40 edges avoid it, and only
    # the light edge (2, 50) fits: far beyond the 4 k = 16 edges ordered first
    W = np.zeros((60, 60))
    for i, j in itertools.combinations(range(3), 2):
        W[i, j] = W[j, i] = 10.0
    for i, j in list(itertools.combinations(range(3, 13), 2))[:40]:
        W[i, j] = W[j, i] = 5.0
    W[2, 50] = W[50, 2] = 1.0
    for weights in both_formats(W):
        chosen = fpk_module._heaviest_edges(weights.matrix, 4, weights.is_sparse)
        assert chosen.tolist() == [0, 1, 2, 50]
        assert np.array_equal(chosen, reference._heaviest_edges(weights.matrix, 4, weights.is_sparse))


def test_heaviest_first_is_a_prefix_of_the_full_order():
    rng = np.random.default_rng(9)
    for _ in range(50):
        weights = rng.integers(1, 4, size=int(rng.integers(1, 60))).astype(float)  # many ties
        full = np.argsort(-weights, kind="stable")
        for length in range(1, weights.size + 1):
            assert np.array_equal(fpk_module._heaviest_first(weights, length), full[:length])


@pytest.mark.slow
@pytest.mark.parametrize("kind", ["binary", "integer", "decimal", "continuous"])
def test_two_walks_rows_do_not_depend_on_their_block_and_weigh_their_proposal(kind):
    # the winner is recomputed alone: its row must come out as it did inside its block
    rng = np.random.default_rng(10)
    for n, m, k in [(3, 2, 2), (40, 80, 5), (150, 500, 31), (300, 1500, 100)]:
        W = random_sparse(rng, n, m, kind)
        scratch = np.zeros(n, dtype=bool), np.zeros(n)
        blocked = np.concatenate([fpk_module._two_walks_sparse_proposals(W, k, start, stop, scratch)[2]
                                  for start, stop in fpk_module._row_blocks(W, k)])
        alone = [fpk_module._two_walks_sparse_proposals(W, k, v, v + 1, scratch)[2][0] for v in range(n)]
        near, rest, whole = fpk_module._two_walks_sparse_proposals(W, k, 0, n, scratch)
        assert np.array_equal(blocked, alone) and np.array_equal(blocked, whole)
        for v in range(0, n, max(1, n // 7)):  # the weight is the weight of P_v | B_v
            chosen = np.union1d(near[v], rest[v])
            assert len(chosen) == k and whole[v] == pytest.approx(naive_weight(W.toarray(), chosen), rel=1e-12)


@pytest.mark.slow
@pytest.mark.parametrize("kind", ["binary", "integer", "decimal", "continuous", "tiny"])
def test_two_walks_kernel_weighs_every_proposal_as_the_sparse_products_do(kind):
    # bit for bit: the same sets (same selection rule) and the same sums (same order)
    rng = np.random.default_rng(12)
    for n, m in [(2, 1), (9, 12), (60, 150), (260, 1300)]:
        W = random_sparse(rng, n, m, "continuous" if kind == "tiny" else kind)
        if kind == "tiny":  # products underflow to 0: scipy drops them, the kernel keeps a 0
            W = sp.csr_array(W * 1e-170)
        scratch = np.zeros(n, dtype=bool), np.zeros(n)
        for k in sorted({1, 2, 3, n // 4 + 1, n // 2, n - 1} & set(range(1, n))):  # k = n never gets here
            expected = np.concatenate([fpk_module._two_walks_sparse_proposals(W, k, start, stop, scratch)[2]
                                       for start, stop in fpk_module._row_blocks(W, k)])
            got = compiled.two_walk_weights(W.indptr, W.indices, W.data, k)
            assert np.array_equal(got, expected), (kind, n, k)


def test_pairwise_sum_adds_in_numpy_order():
    rng = np.random.default_rng(13)
    for size in [0, 1, 7, 8, 9, 127, 128, 129, 255, 256, 257, 1000, 4099]:
        values = rng.uniform(size=size) * 10.0 ** rng.uniform(-8, 8, size=size)  # rounding depends on order
        assert compiled._pairwise_sum(values, 0, size) == values.sum()


@pytest.mark.slow
def test_the_front_end_switches_to_the_kernel_on_large_matrices_with_the_same_answer(monkeypatch):
    rng = np.random.default_rng(11)
    W = random_sparse(rng, 400, 2000, "integer")
    answers = {}
    for threshold in (10 ** 12, 0):  # never, always
        monkeypatch.setattr(compiled, "MIN_ENTRIES", threshold)
        answers[threshold] = [densest_k_subgraph_matrix(W, k).vertices for k in (1, 3, 40, 200, 399)]
    assert answers[0] == answers[10 ** 12]
    assert compiled.use_for(W) == compiled.available()
    monkeypatch.setenv("FULLBANDIT_NUMBA", "0")
    assert not compiled.available() and not compiled.use_for(W)


@pytest.mark.parametrize("edges, loops", [(24_999, 0), (24_999, 1), (24_998, 1), (24_998, 3), (25_000, 0)])
def test_the_front_end_chooses_sparse_exactly_as_use_sparse_says(edges, loops):
    # at the density threshold (2 m < 0.05 n^2 = 50,000 at n = 1000), self-loops included
    rng = np.random.default_rng(edges + loops)
    G = nx.gnm_random_graph(1000, edges, seed=int(rng.integers(2 ** 31)))
    G.add_edges_from((v, v) for v in range(loops))
    assert G.number_of_edges() == edges + loops
    _, weights = graph_weights(G)
    assert weights.is_sparse == weights_module.use_sparse(G)


def _shaped_graph(shape: int, n: int, seed: int) -> nx.Graph:
    if shape == 0:
        return nx.star_graph(n - 1)
    if shape == 1:
        return nx.complete_bipartite_graph(n // 3 + 1, n - n // 3 - 1)
    if shape == 2:
        return nx.gnm_random_graph(n, int(np.random.default_rng(seed).integers(0, 3 * n)), seed=seed)
    if shape == 3:
        return nx.disjoint_union(nx.complete_graph(n // 2), nx.empty_graph(n - n // 2))
    if shape == 4:
        return nx.barabasi_albert_graph(n, 2, seed=seed)
    return nx.cycle_graph(n)


@pytest.mark.slow
def test_two_walks_kernel_agrees_on_many_graph_shapes_and_weight_ranges():
    # stars, bipartite, disconnected, preferential attachment, cycles; weights 1, 1..3,
    # 10^-150..10^150 and tenths: 400 graphs, every k from 1 to n - 1 in six steps
    rng = np.random.default_rng(5)
    scales = [np.ones, lambda size: rng.integers(1, 4, size).astype(float),
              lambda size: 10.0 ** rng.uniform(-150, 150, size), lambda size: rng.integers(1, 4, size) / 10.0]
    for trial in range(400):
        n = int(rng.integers(3, 120))
        seed = int(rng.integers(2 ** 31))
        G = _shaped_graph(trial % 6, n, seed)
        upper = sp.triu(nx.to_scipy_sparse_array(G, nodelist=sorted(G), format="csr"), 1).tocoo()
        upper = sp.csr_array((scales[trial % 4](upper.nnz), (upper.row, upper.col)), shape=upper.shape)
        W = check_weight_matrix(upper + upper.T).matrix
        size = W.shape[0]
        scratch = np.zeros(size, dtype=bool), np.zeros(size)
        for k in sorted({1, 2, 3, size // 3, size // 2, size - 1} & set(range(1, size))):
            expected = np.concatenate([fpk_module._two_walks_sparse_proposals(W, k, start, stop, scratch)[2]
                                       for start, stop in fpk_module._row_blocks(W, k)])
            assert np.array_equal(compiled.two_walk_weights(W.indptr, W.indices, W.data, k), expected), (trial, k)
