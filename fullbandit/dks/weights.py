"""Densest-k-subgraph instances: the one validator of weight matrices, and graphs as matrices.

Every oracle, bound and exact solver of :mod:`fullbandit.dks` works on a
:class:`WeightMatrix`, which only :func:`check_weight_matrix` makes. It applies one rule to
dense and scipy sparse input alike:

* a square two-dimensional matrix of real numbers with at least one row;
* finite and non-negative off the diagonal; the diagonal is ignored (self-loops carry no
  weight in ``w(S) = sum_{i < j in S} W_ij``), whatever it holds;
* symmetric up to a relative :data:`SYMMETRY_TOLERANCE`:
  ``|W_ij - W_ji| <= 1e-10 max_{a != b} |W_ab|``; inside the tolerance the matrix is replaced
  by ``(W + W^T) / 2``, so every algorithm sees an exactly symmetric matrix.

Public entry points validate their input once; whatever they hand on is a
:class:`WeightMatrix`, which :func:`check_weight_matrix` returns unchanged, so internal
calls never validate again. A networkx graph becomes one through :func:`graph_weights`,
which reads the adjacency once and checks only what a graph can get wrong (its weights):
an undirected networkx graph is symmetric by construction.
"""

from __future__ import annotations

import itertools
import numbers
import operator
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import networkx as nx
import numpy as np
import scipy.sparse as sp

from fullbandit.util.validation import InvalidParameterError, check_int

__all__ = ["SYMMETRY_TOLERANCE", "WeightMatrix", "check_weight_matrix", "check_graph", "graph_weights", "use_sparse",
           "induced_weight", "check_vertex_indices", "check_nodes", "csr_row_entries"]

SYMMETRY_TOLERANCE = 1e-10  # relative to the largest off-diagonal weight
_SPARSE_MIN_NODES = 1000
_SPARSE_MAX_DENSITY = 0.05
_SYMMETRY_BLOCK = 256  # rows per tile of the dense symmetry check: a tile and its mirror stay in cache


@dataclass(frozen=True, eq=False)
class WeightMatrix:
    """A validated densest-k-subgraph weight matrix; made by :func:`check_weight_matrix` and :func:`graph_weights`.

    Attributes
    ----------
    matrix : numpy.ndarray or scipy.sparse.csr_array of shape (n, n)
        Exactly symmetric, finite, non-negative, zero diagonal, read-only. A ``csr_array`` has
        sorted indices and no stored zeros.

    Examples
    --------
    >>> import numpy as np
    >>> weights = check_weight_matrix(np.array([[5.0, 1.0], [1.0, 0.0]]))
    >>> weights.n, weights.is_sparse
    (2, False)
    >>> weights.toarray().tolist()   # the diagonal is dropped
    [[0.0, 1.0], [1.0, 0.0]]
    """

    matrix: np.ndarray | sp.csr_array

    @property
    def n(self) -> int:
        """The number of vertices."""
        return int(self.matrix.shape[0])

    @property
    def is_sparse(self) -> bool:
        """Whether :attr:`matrix` is a scipy ``csr_array``."""
        return not isinstance(self.matrix, np.ndarray)

    def toarray(self) -> np.ndarray:
        """:attr:`matrix` as a dense array (itself when already dense).

        Examples
        --------
        >>> import scipy.sparse as sp
        >>> check_weight_matrix(sp.eye_array(2) + sp.csr_array([[0, 1], [1, 0]])).toarray().tolist()
        [[0.0, 1.0], [1.0, 0.0]]
        """
        return self.matrix if isinstance(self.matrix, np.ndarray) else self.matrix.toarray()


def check_weight_matrix(W, *, name: str = "W", labels: Sequence | None = None, owned: bool = False) -> WeightMatrix:
    """Validate a weight matrix, dense or scipy sparse, once; see the module docstring for the rule.

    Parameters
    ----------
    W : array_like, scipy sparse matrix or array, or WeightMatrix
        The weights. A :class:`WeightMatrix` is returned as it is (already validated).
    name : str
        How error messages call ``W``.
    labels : sequence, optional
        Node labels of the rows: error messages then name an edge ``(u, v)`` instead of an
        entry ``W[i, j]`` (used for matrices built from graphs).
    owned : bool
        The caller hands a dense ``W`` over (a matrix it built and no longer writes): a
        C-ordered, writeable ``float64`` array is then checked in place, its diagonal zeroed
        and the array made read-only, rather than copied (the same checks and the same
        result, without a second ``n x n`` array: 8 MB at ``n = 1000`` in each stopping
        check of SAQM and SA-FOA). Other input is copied as without it.

    Returns
    -------
    WeightMatrix
        A dense ``float`` copy (``W`` itself when ``owned``), or a ``csr_array`` for sparse
        input; the input is never modified unless ``owned``.

    Raises
    ------
    TypeError
        If ``W`` does not hold real numbers.
    InvalidParameterError
        If ``W`` is not square with at least one row, or an off-diagonal weight is not finite,
        negative, or breaks symmetry beyond the tolerance. The message names ``W``, the
        offending entry and its value.

    Examples
    --------
    >>> import numpy as np
    >>> check_weight_matrix([[0, 2], [2, 0]]).matrix.tolist()
    [[0.0, 2.0], [2.0, 0.0]]
    >>> check_weight_matrix([[0, -1], [-1, 0]])
    Traceback (most recent call last):
    ...
    fullbandit.util.validation.InvalidParameterError: W must be non-negative off the diagonal, got W[0, 1] = -1.0
    >>> import scipy.sparse as sp
    >>> weights = check_weight_matrix(sp.csr_array([[0.0, 1.0], [1.0 + 1e-14, 0.0]]))
    >>> weights.is_sparse, bool(weights.matrix[0, 1] == weights.matrix[1, 0])   # averaged: exactly symmetric
    (True, True)
    >>> built = np.array([[7.0, 2.0], [2.0, 0.0]])
    >>> check_weight_matrix(built, owned=True).matrix is built, built.tolist(), built.flags.writeable
    (True, [[0.0, 2.0], [2.0, 0.0]], False)
    """
    if isinstance(W, WeightMatrix):
        return W
    checked = _Checker(name, labels)
    return WeightMatrix(checked.sparse(W) if sp.issparse(W) else checked.dense(W, owned))


class _Checker:
    """The checks of :func:`check_weight_matrix`, with messages naming ``name`` (and edges via ``labels``)."""

    def __init__(self, name: str, labels: Sequence | None):
        self.name = name
        self.labels = labels
        self.scope = "off the diagonal" if labels is None else "on every edge"

    def dense(self, W, owned: bool = False) -> np.ndarray:
        try:
            array = np.asarray(W)
        except (TypeError, ValueError):  # ragged nested sequences
            raise TypeError(f"{self.name} must be a matrix of real numbers, got {type(W).__name__}") from None
        self._check_dtype(array.dtype, array)
        self._check_shape(array.shape)
        in_place = owned and array.dtype == np.float64 and array.flags.c_contiguous and array.flags.writeable
        matrix = array if in_place else np.array(array, dtype=float, order="C", copy=True)
        np.fill_diagonal(matrix, 0.0)
        largest_weight = float(matrix.max())
        if not (matrix.min() >= 0 and np.isfinite(largest_weight)):  # NaN fails the first test
            self._check_entries(np.argwhere(~np.isfinite(matrix)), matrix, "finite")
            self._check_entries(np.argwhere(matrix < 0), matrix, "non-negative")
        largest = _largest_asymmetry(matrix)
        if largest > SYMMETRY_TOLERANCE * largest_weight:
            asymmetry = np.abs(matrix - matrix.T)
            i, j = np.unravel_index(int(np.argmax(asymmetry)), matrix.shape)
            self._asymmetric(int(i), int(j), float(matrix[i, j]), float(matrix[j, i]))
        if largest > 0:
            matrix = (matrix + matrix.T) / 2.0
        matrix.setflags(write=False)
        return matrix

    def sparse(self, W) -> sp.csr_array:
        self._check_dtype(W.dtype, None)
        self._check_shape(W.shape)
        coo = sp.coo_array(W, dtype=float)
        off_diagonal = coo.row != coo.col
        n = W.shape[0]
        matrix = sp.csr_array((coo.data[off_diagonal], (coo.row[off_diagonal], coo.col[off_diagonal])), shape=(n, n))
        matrix.sum_duplicates()
        matrix.eliminate_zeros()
        rows = np.repeat(np.arange(n), np.diff(matrix.indptr))
        for condition, allowed in ((~np.isfinite(matrix.data), "finite"), (matrix.data < 0, "non-negative")):
            bad = np.flatnonzero(condition)
            if bad.size:
                self._refuse(allowed, int(rows[bad[0]]), int(matrix.indices[bad[0]]), float(matrix.data[bad[0]]))
        asymmetry = abs(matrix - matrix.T).tocoo()
        if asymmetry.nnz:
            worst = int(np.argmax(asymmetry.data))
            if asymmetry.data[worst] > SYMMETRY_TOLERANCE * float(matrix.data.max()):
                i, j = int(asymmetry.row[worst]), int(asymmetry.col[worst])
                self._asymmetric(i, j, float(matrix[i, j]), float(matrix[j, i]))
            matrix = sp.csr_array((matrix + matrix.T) / 2.0)
            matrix.eliminate_zeros()
        return _read_only(matrix)

    def graph(self, rows: np.ndarray, columns: np.ndarray, weights: np.ndarray, n: int,
              sparse: bool) -> np.ndarray | sp.csr_array:
        """The symmetric matrix of an undirected graph's edges ``rows < columns`` (each edge once)."""
        upper = sp.csr_array((weights, (rows, columns)), shape=(n, n))
        upper.sort_indices()
        owners = np.repeat(np.arange(n), np.diff(upper.indptr))
        for condition, allowed in ((~np.isfinite(upper.data), "finite"), (upper.data < 0, "non-negative")):
            bad = np.flatnonzero(condition)
            if bad.size:  # the first in row-major order, as the matrix checks report it
                self._refuse(allowed, int(owners[bad[0]]), int(upper.indices[bad[0]]), float(upper.data[bad[0]]))
        if not sparse:
            matrix = np.zeros((n, n))
            matrix[rows, columns] = weights
            matrix += matrix.T  # disjoint triangles: exact
            matrix.setflags(write=False)
            return matrix
        upper.eliminate_zeros()
        return _read_only(sp.csr_array(upper + upper.T))

    def _check_dtype(self, dtype, array) -> None:
        if dtype.kind in "biuf":
            return
        if dtype.kind == "O" and array is not None:
            try:
                array.astype(float)
                return
            except (TypeError, ValueError):
                pass
        raise TypeError(f"{self.name} must hold real numbers, got dtype {dtype}")

    def _check_shape(self, shape) -> None:
        if len(shape) != 2 or shape[0] != shape[1]:
            raise InvalidParameterError(f"{self.name} must be a square matrix, got shape {tuple(shape)}")
        if shape[0] == 0:
            raise InvalidParameterError(f"{self.name} must have at least one vertex, got shape {tuple(shape)}")

    def _check_entries(self, offending: np.ndarray, matrix: np.ndarray, allowed: str) -> None:
        if offending.size:
            i, j = (int(index) for index in offending[0])
            self._refuse(allowed, i, j, float(matrix[i, j]))

    def _refuse(self, allowed: str, i: int, j: int, value: float) -> None:
        raise InvalidParameterError(f"{self.name} must be {allowed} {self.scope}, got {self._entry(i, j, value)}")

    def _asymmetric(self, i: int, j: int, forth: float, back: float) -> None:
        raise InvalidParameterError(
            f"{self.name} must be symmetric (an undirected graph) up to a relative {SYMMETRY_TOLERANCE:g}, "
            f"got {self._entry(i, j, forth)} but {self._entry(j, i, back)}")

    def _entry(self, i: int, j: int, value: float) -> str:
        if self.labels is None:
            return f"{self.name}[{i}, {j}] = {value!r}"
        return f"{value!r} on edge ({self.labels[i]!r}, {self.labels[j]!r})"


def _read_only(matrix: sp.csr_array) -> sp.csr_array:
    matrix.sort_indices()
    for part in (matrix.data, matrix.indices, matrix.indptr):
        part.setflags(write=False)
    return matrix


def _largest_asymmetry(matrix: np.ndarray) -> float:
    """``max |W_ij - W_ji|``, comparing square tiles with their mirrors (a plain ``W - W.T`` misses the cache)."""
    n = matrix.shape[0]
    largest = 0.0
    for start in range(0, n, _SYMMETRY_BLOCK):
        stop = min(n, start + _SYMMETRY_BLOCK)
        largest = max(largest, float(np.abs(matrix[start:stop, start:] - matrix[start:, start:stop].T).max()))
    return largest


def check_graph(G, k) -> int:
    """Validate a graph instance of densest-k-subgraph and return ``k`` as an ``int``.

    Parameters
    ----------
    G : networkx.Graph
        Undirected, not a multigraph, at least one node.
    k : int
        ``1 <= k <= G.number_of_nodes()``.

    Returns
    -------
    int
        ``k``.

    Raises
    ------
    TypeError
        If ``G`` is not a networkx graph or ``k`` not an integer.
    InvalidParameterError
        If ``G`` is directed, a multigraph or empty, or ``k`` is out of range.

    Examples
    --------
    >>> import networkx as nx
    >>> check_graph(nx.path_graph(4), 2)
    2
    >>> check_graph(nx.path_graph(4), 5)
    Traceback (most recent call last):
    ...
    fullbandit.util.validation.InvalidParameterError: k=5 must satisfy 1 <= k <= 4
    """
    if not isinstance(G, nx.Graph):
        raise TypeError(f"G must be a networkx.Graph, got {type(G).__name__}")
    if G.is_directed():
        raise InvalidParameterError("G must be undirected: densest-k-subgraph is defined on undirected graphs")
    if G.is_multigraph():
        raise InvalidParameterError("G must not be a multigraph: merge parallel edges into one weight first")
    if G.number_of_nodes() == 0:
        raise InvalidParameterError("G must have at least one node, got an empty graph")
    return check_int("k", k, low=1, high=G.number_of_nodes())


def use_sparse(G) -> bool:
    """Whether :func:`graph_weights` makes ``G`` a sparse matrix: 1000 nodes or more, under 5% of the pairs.

    Examples
    --------
    >>> import networkx as nx
    >>> use_sparse(nx.path_graph(1000)), use_sparse(nx.path_graph(999)), use_sparse(nx.empty_graph(1000))
    (True, False, True)
    """
    return _sparse_for(G.number_of_nodes(), 2 * G.number_of_edges())


def _sparse_for(n: int, edge_ends: int) -> bool:
    """The rule of :func:`use_sparse` from the node count and twice the edge count (a self-loop counts 2)."""
    return n >= _SPARSE_MIN_NODES and edge_ends < _SPARSE_MAX_DENSITY * n * n


def graph_weights(G, weight: str = "weight", *, sparse: bool | None = None) -> tuple[list, WeightMatrix]:
    """The nodes of ``G`` and its validated weight matrix, rows in ``G.nodes`` order.

    Edges without the ``weight`` attribute weigh 1; self-loops are dropped. ``G`` itself is
    not checked here (see :func:`check_graph`).

    Parameters
    ----------
    G : networkx.Graph
        Undirected, not a multigraph.
    weight : str
        Edge attribute holding the weights.
    sparse : bool, optional
        Build a ``csr_array`` (True) or a dense array (False). Default: :func:`use_sparse`.

    Returns
    -------
    nodes : list
        ``list(G.nodes)``; row ``i`` of the matrix is ``nodes[i]``.
    weights : WeightMatrix

    Raises
    ------
    TypeError
        If an edge's ``weight`` is not a real number (the message names the edge).
    InvalidParameterError
        If a weight is negative or not finite (the message names the edge).

    Examples
    --------
    >>> import networkx as nx
    >>> G = nx.Graph([("a", "b", {"weight": 2.5}), ("b", "c", {})])
    >>> nodes, weights = graph_weights(G)
    >>> nodes, weights.matrix.tolist()
    (['a', 'b', 'c'], [[0.0, 2.5, 0.0], [2.5, 0.0, 1.0], [0.0, 1.0, 0.0]])
    >>> G.add_edge("c", "a", weight=-1.0)
    >>> graph_weights(G)
    Traceback (most recent call last):
    ...
    fullbandit.util.validation.InvalidParameterError: edge attribute 'weight' must be non-negative on every edge, \
got -1.0 on edge ('a', 'c')
    """
    nodes = list(G.nodes)
    rows, columns, weights, edge_ends = _edge_arrays(G, nodes, weight)
    sparse = _sparse_for(len(nodes), edge_ends) if sparse is None else sparse  # G.number_of_edges() is a Python loop
    checker = _Checker(f"edge attribute {weight!r}", nodes)
    return nodes, WeightMatrix(checker.graph(rows, columns, weights, len(nodes), sparse))


def _edge_arrays(G, nodes: list, weight: str) -> tuple[np.ndarray, np.ndarray, np.ndarray, int]:
    """Every edge of ``G`` once as ``(row, column, weight)``, ``row < column`` (positions in ``nodes``),
    and ``2 * G.number_of_edges()``.

    One pass over networkx's adjacency (``G._adj``, a mapping of node to a mapping of
    neighbour to edge attributes) with C-level iterators: no Python loop per edge, and
    each edge's attribute dictionary is read once, from the endpoint that comes first.
    Self-loops are dropped.
    """
    n = len(nodes)
    adjacency = G._adj
    neighbourhoods = [adjacency[node] for node in nodes]
    degrees = np.fromiter(map(len, neighbourhoods), dtype=np.intp, count=n)
    entries = int(degrees.sum())
    neighbours = itertools.chain.from_iterable(neighbourhoods)
    if set(map(type, nodes)) <= {int} and nodes == list(range(n)):  # labels are their own positions
        columns = np.fromiter(neighbours, dtype=np.intp, count=entries)
    else:
        position = {node: i for i, node in enumerate(nodes)}
        columns = np.fromiter(map(position.__getitem__, neighbours), dtype=np.intp, count=entries)
    owners = np.repeat(np.arange(n), degrees)
    upper = columns > owners
    count = int(np.count_nonzero(upper))
    keep = upper.tolist()

    def attributes():
        values = itertools.chain.from_iterable(map(operator.methodcaller("values"), neighbourhoods))
        return itertools.compress(values, keep)

    try:
        try:
            weights = np.fromiter(map(operator.itemgetter(weight), attributes()), dtype=float, count=count)
        except KeyError:  # some edge lacks the attribute: it weighs 1
            weights = np.fromiter(map(operator.methodcaller("get", weight, 1.0), attributes()), dtype=float,
                                  count=count)
    except (TypeError, ValueError):
        # only now look for the culprit: a Python loop over every edge would double the conversion time
        for u, v, value in G.edges(data=weight, default=1.0):
            try:
                float(value)
            except (TypeError, ValueError):
                raise TypeError(f"edge attribute {weight!r} must be a real number on every edge, "
                                f"got {value!r} on edge ({u!r}, {v!r})") from None
        raise
    self_loops = int(np.count_nonzero(columns == owners))  # stored once, counted twice by networkx's degrees
    return owners[upper], columns[upper], weights, entries + self_loops


def check_vertex_indices(vertices, n: int, *, name: str = "vertices", k: int | None = None) -> np.ndarray:
    """``vertices`` as increasing distinct indices of ``range(n)`` (exactly ``k`` of them if given).

    Examples
    --------
    >>> check_vertex_indices([3, 0, 2], 4).tolist()
    [0, 2, 3]
    >>> check_vertex_indices([1, 1], 4, name="start")
    Traceback (most recent call last):
    ...
    fullbandit.util.validation.InvalidParameterError: start contains duplicate vertices: [1]
    """
    if isinstance(vertices, (str, bytes)) or not np.iterable(vertices):
        raise TypeError(f"{name} must be an iterable of vertex indices, got {vertices!r}")
    items = list(np.asarray(vertices).ravel()) if isinstance(vertices, np.ndarray) else list(vertices)
    bad = [item for item in items if isinstance(item, (bool, np.bool_)) or not isinstance(item, numbers.Integral)]
    if bad:
        raise TypeError(f"{name} must hold integer vertex indices, got {bad[0]!r} ({type(bad[0]).__name__})")
    indices = [int(item) for item in items]
    outside = sorted({index for index in indices if not 0 <= index < n})
    if outside:
        raise InvalidParameterError(f"{name} contains vertices outside 0..{n - 1}: {outside}")
    _check_distinct(indices, name, "vertices", k)
    return np.array(sorted(indices), dtype=np.intp)


def check_nodes(nodes, G, *, name: str = "nodes", k: int | None = None) -> list:
    """``nodes`` as a list of distinct nodes of ``G`` (exactly ``k`` of them if given).

    Examples
    --------
    >>> import networkx as nx
    >>> check_nodes(("a", "b"), nx.path_graph("abc"), k=2)
    ['a', 'b']
    >>> check_nodes(["a", "z"], nx.path_graph("abc"), name="start")
    Traceback (most recent call last):
    ...
    fullbandit.util.validation.InvalidParameterError: start contains nodes not in G: ['z']
    """
    if isinstance(nodes, (str, bytes)) or not np.iterable(nodes):
        raise TypeError(f"{name} must be an iterable of nodes of G, got {nodes!r}")
    items = list(nodes)
    unknown = [item for item in items if not _is_node(item, G)]
    if unknown:
        raise InvalidParameterError(f"{name} contains nodes not in G: {unknown}")
    _check_distinct(items, name, "nodes", k)
    return items


def _is_node(item, G) -> bool:
    try:
        return item in G
    except TypeError:  # unhashable: cannot be a node
        return False


def _check_distinct(items: list, name: str, what: str, k: int | None) -> None:
    seen: set = set()
    duplicates: list = []
    for item in items:
        if item in seen and item not in duplicates:
            duplicates.append(item)
        seen.add(item)
    if duplicates:
        raise InvalidParameterError(f"{name} contains duplicate {what}: {duplicates}")
    if k is not None and len(items) != k:
        raise InvalidParameterError(f"{name} must contain exactly k={k} {what}, got {len(items)}")


def induced_weight(W, vertices: Iterable[int]) -> float:
    """``w(S) = sum_{i < j in S} W_ij``: the weight of the edges among ``vertices`` (diagonal ignored).

    Parameters
    ----------
    W : array_like, scipy sparse matrix or WeightMatrix
        Validated by :func:`check_weight_matrix` unless already a :class:`WeightMatrix`.
    vertices : iterable of int
        Distinct indices of ``range(n)``.

    Returns
    -------
    float

    Examples
    --------
    >>> import numpy as np
    >>> W = np.array([[9, 1, 2], [1, 9, 4], [2, 4, 9]])
    >>> induced_weight(W, [0, 2]), induced_weight(W, [0, 1, 2])
    (2.0, 7.0)
    """
    weights = check_weight_matrix(W)
    index = check_vertex_indices(vertices, weights.n)
    block = weights.matrix[index][:, index] if weights.is_sparse else weights.matrix[np.ix_(index, index)]
    return float(block.sum()) / 2.0


def csr_row_entries(W: sp.csr_array, rows) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The stored entries of rows ``rows`` of a CSR matrix: ``(position in rows, column, value)``.

    Direct ``indptr`` arithmetic: scipy's fancy row indexing costs ~100 us per call, too
    much for algorithms that gather the rows of one set per vertex.

    Examples
    --------
    >>> import scipy.sparse as sp
    >>> W = sp.csr_array([[0.0, 1.0, 2.0], [1.0, 0.0, 0.0], [2.0, 0.0, 0.0]])
    >>> [part.tolist() for part in csr_row_entries(W, [2, 0])]
    [[0, 1, 1], [0, 1, 2], [2.0, 1.0, 2.0]]
    """
    rows = np.asarray(rows, dtype=np.intp)
    starts, lengths = W.indptr[rows], W.indptr[rows + 1] - W.indptr[rows]
    owner = np.repeat(np.arange(rows.size), lengths)
    entries = np.arange(owner.size) + (starts - (np.cumsum(lengths) - lengths))[owner]
    return owner, W.indices[entries], W.data[entries]
