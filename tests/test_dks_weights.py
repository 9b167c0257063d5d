"""The one validator of DkS weight matrices (fullbandit.dks.weights) and the graph-to-matrix conversion.

One rule for dense and sparse input alike, applied once at the front door: every test
that takes a format runs on a dense array, a nested list and four scipy sparse formats.
"""

from __future__ import annotations

import itertools

import networkx as nx
import numpy as np
import pytest
import scipy.sparse as sp
from test_dks_references import naive_weight, random_weights

import fullbandit.dks.weights as weights_module
from fullbandit.dks import (
    WeightMatrix,
    bound_matrix,
    check_weight_matrix,
    densest_k_subgraph,
    densest_k_subgraph_matrix,
    induced_weight,
    milp_matrix,
)
from fullbandit.dks.weights import (
    SYMMETRY_TOLERANCE,
    check_nodes,
    check_vertex_indices,
    csr_row_entries,
    graph_weights,
    use_sparse,
)
from fullbandit.util.validation import InvalidParameterError

FORMATS = {"dense": np.asarray, "list": lambda W: np.asarray(W).tolist(), "csr": sp.csr_array,
           "csc": sp.csc_array, "coo": sp.coo_array, "csr_matrix": sp.csr_matrix}


def as_dense(weights: WeightMatrix) -> np.ndarray:
    return weights.matrix.toarray() if weights.is_sparse else weights.matrix


@pytest.mark.parametrize("fmt", FORMATS)
def test_canonical_form_zero_diagonal_symmetric_read_only_and_a_copy(fmt):
    W = random_weights(np.random.default_rng(0), 7, "continuous") + np.diag(np.arange(7.0) - 3)  # diagonal ignored
    given = FORMATS[fmt](W)
    weights = check_weight_matrix(given)
    assert weights.is_sparse == sp.issparse(given) and weights.n == 7
    expected = W - np.diag(np.diag(W))
    assert np.array_equal(as_dense(weights), expected)
    if weights.is_sparse:
        assert weights.matrix.format == "csr" and weights.matrix.has_sorted_indices
        assert np.all(weights.matrix.data != 0)  # no stored zeros, no diagonal
        assert not weights.matrix.data.flags.writeable
    else:
        assert not weights.matrix.flags.writeable
        assert weights.matrix is not given
    assert np.array_equal(np.asarray(W), W)  # the input is untouched (its diagonal still there)


@pytest.mark.parametrize("fmt", FORMATS)
def test_symmetry_tolerance_is_relative_to_the_largest_weight_on_both_paths(fmt):
    for scale in (1e-9, 1.0, 1e9):
        W = scale * (np.ones((3, 3)) - np.eye(3))
        inside, outside = W.copy(), W.copy()
        inside[0, 1] += 0.5 * SYMMETRY_TOLERANCE * scale
        outside[0, 1] += 2.0 * SYMMETRY_TOLERANCE * scale
        accepted = as_dense(check_weight_matrix(FORMATS[fmt](inside)))
        assert np.array_equal(accepted, accepted.T)  # averaged: exactly symmetric
        assert accepted[0, 1] == pytest.approx(scale * (1 + 0.25 * SYMMETRY_TOLERANCE), rel=1e-15)
        with pytest.raises(InvalidParameterError, match=r"W must be symmetric .* up to a relative 1e-10, "
                                                        r"got W\[0, 1\] = .* but W\[1, 0\] = "):
            check_weight_matrix(FORMATS[fmt](outside))


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("W, error, pattern", [
    ([[0.0, 1.0, 0.0], [1.0, 0.0, 0.0]], InvalidParameterError, r"W must be a square matrix, got shape \(2, 3\)"),
    ([[0.0, -0.5], [-0.5, 0.0]], InvalidParameterError, r"W must be non-negative off the diagonal, got W\[0, 1\] = -0"),
    ([[0.0, np.nan], [np.nan, 0.0]], InvalidParameterError, r"W must be finite off the diagonal, got W\[0, 1\] = nan"),
    ([[0.0, 0.0], [-np.inf, 0.0]], InvalidParameterError, r"W must be finite off the diagonal, got W\[1, 0\] = -inf"),
    ([[0.0, 0.0], [3.0, 0.0]], InvalidParameterError, r"W must be symmetric .* W\[0, 1\] = 0.0 but W\[1, 0\] = 3.0"),
])
def test_one_rule_refuses_the_same_matrices_with_the_same_message(fmt, W, error, pattern):
    with pytest.raises(error, match=pattern):
        check_weight_matrix(FORMATS[fmt](np.array(W)))


def test_an_owned_matrix_is_checked_in_place_by_the_same_rule():
    W = random_weights(np.random.default_rng(3), 9, "continuous") + np.diag(np.arange(9.0))
    copied = check_weight_matrix(W.copy())
    owned = W.copy()
    weights = check_weight_matrix(owned, owned=True)
    assert weights.matrix is owned and not owned.flags.writeable  # no second n x n array
    assert np.array_equal(weights.matrix, copied.matrix)  # the copying path's result, bit for bit
    for given in (W.astype(np.float32), np.asfortranarray(W), W.copy().tolist()):  # not ours to write: copied
        assert check_weight_matrix(given, owned=True).matrix is not given
    for bad, pattern in ((-1.0, "non-negative"), (np.nan, "finite")):
        entries = W.copy()
        entries[2, 5] = entries[5, 2] = bad
        with pytest.raises(InvalidParameterError, match=rf"W must be {pattern} off the diagonal, got W\[2, 5\]"):
            check_weight_matrix(entries, owned=True)
    asymmetric = W.copy()
    asymmetric[0, 1] += 1.0
    with pytest.raises(InvalidParameterError, match=r"W must be symmetric"):
        check_weight_matrix(asymmetric, owned=True)
    nearly = W.copy()
    nearly[0, 1] *= 1 + 0.1 * SYMMETRY_TOLERANCE
    averaged = check_weight_matrix(nearly, owned=True).matrix
    assert averaged[0, 1] == averaged[1, 0]  # averaged into a new array, exactly symmetric


@pytest.mark.parametrize("fmt", FORMATS)
def test_the_diagonal_is_ignored_whatever_it_holds(fmt):
    W = np.array([[np.nan, 1.0], [1.0, -np.inf]])
    assert as_dense(check_weight_matrix(FORMATS[fmt](W))).tolist() == [[0.0, 1.0], [1.0, 0.0]]


@pytest.mark.parametrize("W, error, pattern", [
    (np.zeros((0, 0)), InvalidParameterError, r"W must have at least one vertex, got shape \(0, 0\)"),
    (sp.csr_array((0, 0)), InvalidParameterError, r"W must have at least one vertex"),
    (np.zeros(3), InvalidParameterError, r"W must be a square matrix, got shape \(3,\)"),
    (np.zeros((2, 2, 2)), InvalidParameterError, r"W must be a square matrix, got shape \(2, 2, 2\)"),
    ([["a", "b"], ["c", "d"]], TypeError, r"W must hold real numbers, got dtype <U1"),
    (np.ones((2, 2), dtype=complex), TypeError, r"W must hold real numbers, got dtype complex128"),
    (sp.csr_array(np.ones((2, 2), dtype=complex)), TypeError, r"W must hold real numbers"),
    ([[0, 1], [1]], TypeError, r"W must be a matrix of real numbers, got list"),
    (np.array([[0, "a"], ["a", 0]], dtype=object), TypeError, r"W must hold real numbers, got dtype object"),
])
def test_shape_and_type_errors(W, error, pattern):
    with pytest.raises(error, match=pattern):
        check_weight_matrix(W)


def test_other_real_dtypes_are_accepted():
    for W in (np.eye(2, dtype=bool) ^ True, np.ones((2, 2), dtype=np.int8), np.array([[0, 1], [1, 0]], dtype=object)):
        assert check_weight_matrix(W).matrix.tolist() == [[0.0, 1.0], [1.0, 0.0]]


def test_sparse_duplicates_are_summed_and_explicit_zeros_dropped():
    coo = sp.coo_array(([1.0, 2.0, 3.0, 0.0, 0.0], ([0, 0, 1, 1, 2], [1, 1, 0, 2, 1])), shape=(3, 3))
    weights = check_weight_matrix(coo)
    assert weights.matrix.toarray().tolist() == [[0.0, 3.0, 0.0], [3.0, 0.0, 0.0], [0.0, 0.0, 0.0]]
    assert weights.matrix.nnz == 2


def test_messages_name_the_argument_and_edges_when_labelled():
    with pytest.raises(InvalidParameterError, match=r"^Q must be non-negative off the diagonal, got Q\[0, 1\]"):
        check_weight_matrix(-np.ones((2, 2)), name="Q")
    with pytest.raises(InvalidParameterError, match=r"^cost must be non-negative on every edge, got -1.0 on edge "
                                                    r"\('a', 'b'\)$"):
        check_weight_matrix(-np.ones((2, 2)), name="cost", labels=["a", "b"])


# --- validated once ---------------------------------------------------------------------------------

def test_a_weight_matrix_is_returned_as_it_is():
    weights = check_weight_matrix(np.ones((3, 3)))
    assert check_weight_matrix(weights) is weights


@pytest.mark.parametrize("call", [
    lambda W: densest_k_subgraph_matrix(W, 3, method="fpk+swap"),
    lambda W: densest_k_subgraph(nx.from_numpy_array(W), 3, method="peeling+swap"),
    lambda W: bound_matrix(W, 3),
    lambda W: milp_matrix(W, 3, time_limit=1.0),
    lambda W: induced_weight(W, [0, 1]),
], ids=["matrix front end", "graph front end", "bound_matrix", "milp_matrix", "induced_weight"])
def test_every_front_door_validates_exactly_once(call, monkeypatch):
    calls = []
    for check in ("dense", "sparse", "graph"):  # a matrix, a sparse matrix, a graph's edges
        real = getattr(weights_module._Checker, check)

        def counting(self, *args, real=real, check=check):
            calls.append(check)
            return real(self, *args)

        monkeypatch.setattr(weights_module._Checker, check, counting)
    call(random_weights(np.random.default_rng(1), 7, "continuous"))
    assert len(calls) == 1


# --- graphs as matrices -------------------------------------------------------------------------------

def test_graph_weights_missing_attribute_self_loops_and_node_order():
    G = nx.Graph()
    G.add_nodes_from(["z", "a", "m"])
    G.add_edge("z", "a", weight=2.0)
    G.add_edge("a", "m")  # no weight: 1
    G.add_edge("m", "m", weight=100.0)  # self-loop: dropped
    for sparse in (False, True):
        nodes, weights = graph_weights(G, sparse=sparse)
        assert nodes == ["z", "a", "m"] and weights.is_sparse == sparse
        assert as_dense(weights).tolist() == [[0.0, 2.0, 0.0], [2.0, 0.0, 1.0], [0.0, 1.0, 0.0]]
    assert as_dense(graph_weights(G, "absent")[1]).tolist() == [[0.0, 1.0, 0.0], [1.0, 0.0, 1.0], [0.0, 1.0, 0.0]]


@pytest.mark.parametrize("value, error, pattern", [
    (-1.0, InvalidParameterError, r"^edge attribute 'cost' must be non-negative on every edge, got -1.0 on edge "),
    (np.nan, InvalidParameterError, r"^edge attribute 'cost' must be finite on every edge, got nan on edge "),
    ("heavy", TypeError, r"^edge attribute 'cost' must be a real number on every edge, got 'heavy' on edge "),
])
def test_graph_weights_name_the_offending_edge(value, error, pattern):
    G = nx.path_graph(["a", "b", "c"])
    nx.set_edge_attributes(G, 1.0, "cost")
    G["b"]["c"]["cost"] = value
    for sparse in (False, True):
        with pytest.raises(error, match=pattern + r"\('b', 'c'\)$"):
            graph_weights(G, "cost", sparse=sparse)


def test_use_sparse_rule():
    assert use_sparse(nx.empty_graph(1000)) and not use_sparse(nx.empty_graph(999))
    G = nx.empty_graph(1000)
    G.add_edges_from(itertools.islice(itertools.combinations(range(1000), 2), 24_999))
    assert use_sparse(G)
    G.add_edge(998, 999)
    assert not use_sparse(G)  # exactly 5% of the n^2 ordered pairs: dense


# --- weights of sets, vertex lists ---------------------------------------------------------------------

@pytest.mark.parametrize("fmt", FORMATS)
def test_induced_weight_matches_the_definition(fmt):
    rng = np.random.default_rng(4)
    W = random_weights(rng, 9, "continuous")
    for size in range(0, 10):
        subset = sorted(rng.choice(9, size=size, replace=False).tolist())
        assert induced_weight(FORMATS[fmt](W), subset) == pytest.approx(naive_weight(W, subset), abs=1e-12)


@pytest.mark.parametrize("vertices, error, pattern", [
    ([0, 0], InvalidParameterError, r"vertices contains duplicate vertices: \[0\]"),
    ([0, 4], InvalidParameterError, r"vertices contains vertices outside 0..3: \[4\]"),
    ([0.0], TypeError, r"vertices must hold integer vertex indices, got 0.0"),
    (3, TypeError, r"vertices must be an iterable of vertex indices"),
])
def test_induced_weight_checks_its_vertices(vertices, error, pattern):
    with pytest.raises(error, match=pattern):
        induced_weight(np.ones((4, 4)), vertices)


def test_vertex_and_node_lists():
    assert check_vertex_indices(np.array([2, 0], dtype=np.int8), 3, k=2).tolist() == [0, 2]
    with pytest.raises(InvalidParameterError, match=r"start must contain exactly k=3 vertices, got 2"):
        check_vertex_indices([2, 0], 3, name="start", k=3)
    G = nx.path_graph(["a", "b"])
    assert check_nodes(iter(["b"]), G) == ["b"]
    with pytest.raises(InvalidParameterError, match=r"nodes contains nodes not in G: \[\['a'\]\]"):
        check_nodes([["a"]], G)


def test_csr_row_entries_equal_scipy_row_slicing():
    W = sp.csr_array(random_weights(np.random.default_rng(5), 12, "dyadic-sparse"))
    rows = [7, 0, 11, 7]
    owner, columns, values = csr_row_entries(W, rows)
    for position, row in enumerate(rows):
        mine = owner == position
        assert columns[mine].tolist() == W[[row]].indices.tolist()
        assert values[mine].tolist() == W[[row]].data.tolist()
