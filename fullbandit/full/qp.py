"""0-1 quadratic maximisation with a cardinality constraint, and certified upper bounds.

``QP(Q): max x^T Q x  s.t.  x in {0,1}^n, sum(x) = k`` with ``Q`` positive definite is the
squared confidence-ellipsoid maximisation (CEM) ``max_M ||x_M||_{A^-1}`` of Kuroki et al.
(2020), section 3, with ``Q = A^-1``. It is NP-hard; Algorithm 1 approximates it through a
densest-k-subgraph oracle, and the bounds here cap its optimum from above so that a
stopping rule built on them keeps its guarantee.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from fullbandit.dks import check_weight_matrix, get_oracle
from fullbandit.util.enumeration import ENUMERATION_LIMIT, indicator_rows, subset_chunks
from fullbandit.util.validation import InvalidParameterError, check_int, check_k


def check_positive_definite(Q, eigenvalues=None) -> tuple[np.ndarray, np.ndarray]:
    """Symmetric positive definite ``Q`` (the QP reduction needs ``Q_ii + Q_jj + 2 Q_ij > 0``).

    A matrix whose smallest eigenvalue is below ``1e-12`` times its largest counts as
    singular: rounding would make every bound that divides by it meaningless.

    Parameters
    ----------
    Q : array_like of shape (n, n)
    eigenvalues : array_like, optional
        The eigenvalues of ``Q`` if already known (they are trusted, not recomputed).

    Returns
    -------
    Q : numpy.ndarray
        ``Q`` as a float array.
    eigenvalues : numpy.ndarray
        Its eigenvalues, ascending when computed here.

    Raises
    ------
    InvalidParameterError
        If ``Q`` is not square, not finite, not symmetric or not positive definite.

    Examples
    --------
    >>> import numpy as np
    >>> from fullbandit.full.qp import check_positive_definite
    >>> Q, eigenvalues = check_positive_definite([[2.0, 1.0], [1.0, 2.0]])
    >>> eigenvalues.round(12).tolist()
    [1.0, 3.0]
    >>> check_positive_definite(np.array([[1.0, 2.0], [2.0, 1.0]]))
    Traceback (most recent call last):
    ...
    fullbandit.util.validation.InvalidParameterError: Q must be positive definite; its eigenvalues range from -1 to 3
    """
    Q = np.asarray(Q, dtype=float)
    if Q.ndim != 2 or Q.shape[0] != Q.shape[1]:
        raise InvalidParameterError(f"Q must be a square matrix, got shape {Q.shape}")
    if not np.all(np.isfinite(Q)):
        raise InvalidParameterError("Q must contain only finite entries")
    if not np.allclose(Q, Q.T, rtol=1e-10, atol=1e-12 * max(1.0, float(np.abs(Q).max()))):
        raise InvalidParameterError("Q must be symmetric")
    eigenvalues = np.linalg.eigvalsh(Q) if eigenvalues is None else np.asarray(eigenvalues, dtype=float)
    if not eigenvalues.min() > 1e-12 * max(abs(eigenvalues.max()), np.finfo(float).tiny):
        raise InvalidParameterError(
            f"Q must be positive definite; its eigenvalues range from {eigenvalues.min():.3g} "
            f"to {eigenvalues.max():.3g}")
    return Q, eigenvalues


def dks_weights(Q) -> np.ndarray:
    """The complete graph of Algorithm 1: ``w(i, j) = Q_ij + (Q_ii + Q_jj) / 2``, zero diagonal.

    ``w(i, j) = (e_i + e_j)^T Q (e_i + e_j) / 2 > 0`` for positive definite ``Q`` (Kuroki et
    al. 2020, Lemma 4). For ``|S| = k`` with indicator ``x``, each ``i in S`` lies in
    ``k - 1`` pairs, so ``w(S) = sum_{i<j in S} Q_ij + (k - 1)/2 sum_{i in S} Q_ii`` and

        ``2 w(S) = x^T Q x + (k - 2) sum_{i in S} Q_ii``,

    the identity behind Lemmas 5 and 6. The paper's exact expression for the weights did
    not survive in the text this implementation follows; this one satisfies every step of
    Lemmas 4-6 and may differ from it by a constant factor, which does not change the
    chosen set.

    Parameters
    ----------
    Q : numpy.ndarray of shape (n, n)
        Symmetric positive definite.

    Returns
    -------
    numpy.ndarray of shape (n, n)
        The weight matrix ``W``.

    Examples
    --------
    >>> import numpy as np
    >>> from fullbandit.full.qp import dks_weights
    >>> Q = np.array([[2.0, 1.0, 0.0], [1.0, 2.0, -1.0], [0.0, -1.0, 2.0]])
    >>> dks_weights(Q).tolist()
    [[0.0, 3.0, 2.0], [3.0, 0.0, 1.0], [2.0, 1.0, 0.0]]
    """
    Q = np.asarray(Q, dtype=float)
    return pair_weights(Q, 1.0, np.diag(Q) / 2.0)


def pair_weights(Q, scale: float, row_terms) -> np.ndarray:
    """``W_ij = scale Q_ij + (t_i + t_j)`` off the diagonal, 0 on it; exactly symmetric for symmetric ``Q``.

    Built a block of rows at a time (no ``n x n`` temporary beside ``W``); ``t_i + t_j`` is
    one sum, so ``W_ij == W_ji``. :func:`dks_weights` is ``t = diag(Q) / 2``; the graph of
    Algorithm 1 for ``P = a Q + diag(d) + s I`` is ``scale = a``, ``t = (a diag(Q) + d + s) / 2``.

    Examples
    --------
    >>> import numpy as np
    >>> from fullbandit.full.qp import pair_weights
    >>> pair_weights(np.array([[2.0, 1.0], [1.0, 2.0]]), 3.0, np.array([0.5, 1.5])).tolist()
    [[0.0, 5.0], [5.0, 0.0]]
    """
    n = Q.shape[0]
    terms = np.asarray(row_terms, dtype=float)
    W = scale * Q if scale != 1.0 else np.array(Q, dtype=float)
    step = max(1, (1 << 17) // max(n, 1))
    for start in range(0, n, step):
        W[start:start + step] += terms[start:start + step, None] + terms[None, :]
    np.fill_diagonal(W, 0.0)
    return W


def quadratic_value(Q, subset) -> float:
    """``x^T Q x`` for the indicator ``x`` of ``subset``: the sum of ``Q`` over ``subset x subset``.

    Parameters
    ----------
    Q : numpy.ndarray of shape (n, n)
    subset : iterable of int

    Returns
    -------
    float

    Examples
    --------
    >>> import numpy as np
    >>> from fullbandit.full.qp import quadratic_value
    >>> quadratic_value(np.array([[2.0, 1.0], [1.0, 2.0]]), (0, 1))
    6.0
    """
    idx = np.asarray(list(subset), dtype=np.intp)
    return float(Q[np.ix_(idx, idx)].sum())


@dataclass(frozen=True)
class QPSolution:
    """An approximate maximiser of QP and what certifies it (:func:`approximate_qp`'s answer).

    Parameters
    ----------
    subset : tuple of int
        The ``k`` chosen indices.
    value : float
        ``x^T Q x`` of ``subset``.
    dks_weight : float
        ``w(subset)`` in the graph of Algorithm 1 (:func:`dks_weights`).
    oracle : str
        Name of the densest-k-subgraph oracle.
    oracle_ratio : float
        Ratio the oracle provably reaches on DkS.
    eigenvalue_min, eigenvalue_max : float
        Extreme eigenvalues of ``Q``.

    Examples
    --------
    >>> import numpy as np
    >>> from fullbandit.full.qp import approximate_qp
    >>> solution = approximate_qp(np.array([[2.0, 1.0, 0.0], [1.0, 2.0, -1.0], [0.0, -1.0, 2.0]]), 2)
    >>> solution.subset, solution.value, solution.dks_weight
    ((0, 1), 6.0, 3.0)
    """

    subset: tuple[int, ...]
    value: float
    dks_weight: float
    oracle: str
    oracle_ratio: float
    eigenvalue_min: float
    eigenvalue_max: float

    @property
    def theorem1_ratio(self) -> float:
        """Approximation ratio guaranteed by Theorem 1 for this instance (see :func:`theorem1_ratio`).

        Examples
        --------
        >>> import numpy as np
        >>> from fullbandit.full.qp import approximate_qp
        >>> approximate_qp(np.eye(4), 2).theorem1_ratio == approximate_qp(np.eye(4), 2).oracle_ratio  # k = 2
        True
        """
        return theorem1_ratio(len(self.subset), self.oracle_ratio, self.eigenvalue_min, self.eigenvalue_max)


def theorem1_ratio(k: int, oracle_ratio: float, eigenvalue_min: float, eigenvalue_max: float) -> float:
    """Theorem 1 of Kuroki et al. (2020): Algorithm 1 is an
    ``alpha / (1 + (k - 2) lambda_max / lambda_min)``-approximation for QP.

    Derivation (Lemma 6): with ``2 w(S) = x^T Q x + (k - 2) sum_{i in S} Q_ii``
    (:func:`dks_weights`), ``Q_ii > 0`` gives ``x^T Q x <= 2 w(S)``, and
    ``sum_{i in S} Q_ii <= k lambda_max <= (lambda_max / lambda_min) x^T Q x`` (as
    ``x^T Q x >= lambda_min ||x||^2 = k lambda_min``) gives
    ``2 w(S) <= (1 + (k - 2) lambda_max / lambda_min) x^T Q x``, for every ``|S| = k``. If
    ``w(S_alg) >= alpha max_S w(S) >= alpha w(S_opt)`` then
    ``x_alg^T Q x_alg >= 2 alpha w(S_opt) / (1 + ...) >= ratio * OPT``. For ``k <= 2``
    the two objectives coincide up to a constant, so the ratio is ``alpha``.

    Parameters
    ----------
    k : int
        Super-arm size.
    oracle_ratio : float
        The DkS oracle's proven ratio ``alpha``.
    eigenvalue_min, eigenvalue_max : float
        Extreme eigenvalues of ``Q`` (``eigenvalue_min > 0``).

    Returns
    -------
    float

    Examples
    --------
    ``0.5 / (1 + 2 * 3) = 1/14``:

    >>> from fullbandit.full.qp import theorem1_ratio
    >>> round(theorem1_ratio(4, 0.5, 1.0, 3.0), 12), theorem1_ratio(2, 0.5, 1.0, 3.0)
    (0.071428571429, 0.5)
    """
    if k <= 2:
        return oracle_ratio
    return oracle_ratio / (1.0 + (k - 2) * eigenvalue_max / eigenvalue_min)


def approximate_qp(Q, k: int, oracle: str = "peeling", eigenvalues=None, *, validate: bool = True) -> QPSolution:
    """Algorithm 1 of Kuroki et al. (2020): QP through a densest-k-subgraph oracle.

    Builds the complete graph of :func:`dks_weights` and returns the oracle's ``k``
    vertices. For ``k = 1`` the graph has no edge inside any answer, so the exact answer
    (the largest diagonal entry) is returned instead; the paper assumes ``k >= 2``.

    Parameters
    ----------
    Q : array_like of shape (n, n)
        Symmetric positive definite (e.g. ``A_t^-1``).
    k : int
        ``1 <= k < n``.
    oracle : str
        A name from :data:`fullbandit.dks.ORACLES`.
    eigenvalues : array_like, optional
        The eigenvalues of ``Q`` if already known (saves an O(n^3) decomposition).
    validate : bool
        Check ``Q`` (:func:`check_positive_definite`). ``False`` trusts it, as a stopping
        check does with its own ``A^-1`` (exactly symmetric by construction, eigenvalues
        from the check's one decomposition): no ``O(n^2)`` symmetry test on the hot path.

    Returns
    -------
    QPSolution
        The oracle's set, its value and what certifies it.

    References
    ----------
    Kuroki, Xu, Miyauchi, Honda, Sugiyama. Neural Computation 32(9), 2020, Algorithm 1
    and Theorem 1.

    Examples
    --------
    >>> import numpy as np
    >>> from fullbandit.full.qp import approximate_qp, brute_force_qp
    >>> Q = np.array([[2.0, 1.0, 0.0], [1.0, 2.0, -1.0], [0.0, -1.0, 2.0]])
    >>> solution = approximate_qp(Q, 2)
    >>> solution.subset, solution.value, brute_force_qp(Q, 2)
    ((0, 1), 6.0, ((0, 1), 6.0))
    """
    if validate or eigenvalues is None:
        Q, eigenvalues = check_positive_definite(Q, eigenvalues)
    n = Q.shape[0]
    k = check_k(k, n)
    chosen = get_oracle(oracle)
    subset: tuple[int, ...]
    if k == 1:
        subset = (int(np.argmax(np.diag(Q))),)
        ratio = 1.0
        weight = 0.0
    else:
        W = dks_weights(Q)
        subset = tuple(int(i) for i in chosen.solve(check_weight_matrix(W, owned=True), k))  # W is ours: no copy
        ratio = chosen.proven_ratio(n, k)
        weight = float(W[np.ix_(subset, subset)].sum() / 2.0)
    return QPSolution(subset=subset, value=quadratic_value(Q, subset), dks_weight=weight,
                      oracle=chosen.name, oracle_ratio=ratio,
                      eigenvalue_min=float(np.min(eigenvalues)), eigenvalue_max=float(np.max(eigenvalues)))


# --- certified upper bounds on OPT = max_{|S| = k} x^T Q x -------------------------------

def spectral_bound(Q, k: int, eigenvalue_max: float | None = None) -> float:
    """``OPT <= k lambda_max(Q)``, since ``x^T Q x <= lambda_max ||x||^2`` and ``||x||^2 = k``.

    Parameters
    ----------
    Q : numpy.ndarray of shape (n, n)
    k : int
    eigenvalue_max : float, optional
        ``lambda_max(Q)`` if already known.

    Returns
    -------
    float

    Examples
    --------
    >>> import numpy as np
    >>> from fullbandit.full.qp import spectral_bound
    >>> float(spectral_bound(np.array([[2.0, 1.0], [1.0, 2.0]]), 1))  # lambda_max = 3
    3.0
    """
    if eigenvalue_max is None:
        eigenvalue_max = float(np.linalg.eigvalsh(Q)[-1])
    return k * eigenvalue_max


def cauchy_schwarz_bound(Q, k: int) -> float:
    """``OPT <= (sum of the k largest sqrt(Q_ii))^2``, from ``|Q_ij| <= sqrt(Q_ii Q_jj)`` (Q PSD).

    Summing ``Q_ij <= sqrt(Q_ii) sqrt(Q_jj)`` over ``i, j in S`` gives
    ``x^T Q x <= (sum_{i in S} sqrt(Q_ii))^2``.

    Parameters
    ----------
    Q : numpy.ndarray of shape (n, n)
    k : int

    Returns
    -------
    float

    Examples
    --------
    >>> import numpy as np
    >>> from fullbandit.full.qp import cauchy_schwarz_bound
    >>> cauchy_schwarz_bound(np.diag([4.0, 1.0, 9.0]), 2)  # (3 + 2)^2
    25.0
    """
    roots = np.sqrt(np.clip(np.diag(Q), 0.0, None))
    return float(np.sort(roots)[-k:].sum() ** 2)


def row_bound(Q, k: int) -> float:
    """``OPT <= sum of the k largest r_i``, ``r_i = Q_ii + (sum of the k-1 largest positive Q_ij, j != i)``.

    Each member ``i`` of the optimal set contributes ``Q_ii + sum_{j in S, j != i} Q_ij <= r_i``.
    Our addition (not in the paper): cheap, and tight when the off-diagonal entries are
    mostly negative, as they are for ``A^-1`` under full-bandit designs.

    Parameters
    ----------
    Q : numpy.ndarray of shape (n, n)
    k : int

    Returns
    -------
    float

    Examples
    --------
    Every off-diagonal entry is negative here, so the bound is the sum of the ``k`` largest
    diagonal entries, an upper bound that ignores the negative interactions:

    >>> import numpy as np
    >>> from fullbandit.full.qp import brute_force_qp, row_bound
    >>> Q = np.array([[2.0, -0.5, -0.5], [-0.5, 2.0, -0.5], [-0.5, -0.5, 3.0]])
    >>> row_bound(Q, 2), brute_force_qp(Q, 2)[1]
    (5.0, 4.0)
    """
    if k == 1:
        return float(np.max(np.diag(Q)))
    return top_sum(np.diag(Q) + positive_row_sums(Q, k - 1), k)


def positive_row_sums(Q, count: int) -> np.ndarray:
    """For each row ``i``, the sum of the ``count`` largest off-diagonal ``Q_ij`` clipped at 0.

    The off-diagonal part of :func:`row_bound` (``O(n^2)``: a partition, not a sort). For
    ``P = a Q + diag(d)`` with ``a > 0`` it is ``a`` times that of ``Q``, which is how
    SA-FOA's surrogate steps share it.

    Examples
    --------
    >>> import numpy as np
    >>> from fullbandit.full.qp import positive_row_sums
    >>> positive_row_sums(np.array([[9.0, 2.0, -1.0], [2.0, 9.0, 3.0], [-1.0, 3.0, 9.0]]), 1).tolist()
    [2.0, 3.0, 3.0]
    """
    n = Q.shape[0]
    sums = np.zeros(n)
    if count <= 0:
        return sums
    step = max(1, (1 << 17) // n)  # a block of rows at a time: no n x n temporaries
    for start in range(0, n, step):
        rows = np.array(Q[start:start + step], dtype=float)
        rows[np.arange(rows.shape[0]), np.arange(start, start + rows.shape[0])] = -np.inf
        largest = np.partition(rows, n - count, axis=1)[:, n - count:] if count < n else rows
        sums[start:start + step] = np.clip(largest, 0.0, None).sum(axis=1)
    return sums


def top_sum(values, count: int) -> float:
    """The sum of the ``count`` largest ``values`` (a partition, not a sort).

    Examples
    --------
    >>> from fullbandit.full.qp import top_sum
    >>> top_sum([3.0, -1.0, 5.0, 2.0], 2)
    8.0
    """
    values = np.asarray(values, dtype=float)
    return float(np.partition(values, values.size - count)[values.size - count:].sum())


def oracle_ratio_bound(solution: QPSolution) -> float:
    """``OPT <= 2 w(S*) <= 2 w(S_alg) / alpha``, with ``alpha`` the oracle's proven DkS ratio.

    ``x^T Q x <= 2 w(S)`` for every ``|S| = k`` because ``Q_ii > 0`` (:func:`dks_weights`),
    and ``S*``, the heaviest ``k``-set, weighs at most ``w(S_alg) / alpha``.

    Parameters
    ----------
    solution : QPSolution

    Returns
    -------
    float

    Examples
    --------
    >>> import numpy as np
    >>> from fullbandit.full.qp import approximate_qp, oracle_ratio_bound
    >>> solution = approximate_qp(np.array([[2.0, 1.0, 0.0], [1.0, 2.0, -1.0], [0.0, -1.0, 2.0]]), 2)
    >>> round(oracle_ratio_bound(solution), 9)  # 2 * 3 / (1/3)
    18.0
    """
    if len(solution.subset) == 1:
        return solution.value  # exact for k = 1
    return 2.0 * solution.dks_weight / solution.oracle_ratio


def theorem1_bound(solution: QPSolution) -> float:
    """``OPT <= Z / alpha_t``: the bound SAQM uses in the paper (Kuroki et al. 2020, eq. (4)).

    ``Z`` is the value Algorithm 1 reached and ``alpha_t`` Theorem 1's ratio.

    Parameters
    ----------
    solution : QPSolution

    Returns
    -------
    float

    Examples
    --------
    >>> import numpy as np
    >>> from fullbandit.full.qp import approximate_qp, theorem1_bound
    >>> solution = approximate_qp(np.eye(4), 2)
    >>> theorem1_bound(solution) == solution.value / solution.oracle_ratio
    True
    """
    return solution.value / solution.theorem1_ratio


def certified_bounds(Q, k: int, solution: QPSolution) -> dict[str, float]:
    """Every cheap certified upper bound on the QP optimum, by name.

    Parameters
    ----------
    Q : numpy.ndarray of shape (n, n)
    k : int
    solution : QPSolution
        :func:`approximate_qp`'s answer for ``Q`` and ``k``.

    Returns
    -------
    dict of str to float
        ``"theorem1"``, ``"spectral"``, ``"cauchy-schwarz"``, ``"row"``, ``"oracle-ratio"``.

    Examples
    --------
    >>> import numpy as np
    >>> from fullbandit.full.qp import approximate_qp, certified_bounds
    >>> Q = np.array([[2.0, 1.0, 0.0], [1.0, 2.0, -1.0], [0.0, -1.0, 2.0]])
    >>> bounds = certified_bounds(Q, 2, approximate_qp(Q, 2))
    >>> min(bounds, key=bounds.get), min(bounds.values())  # the optimum is 6
    ('row', 6.0)
    """
    return {
        "theorem1": theorem1_bound(solution),
        "spectral": spectral_bound(Q, k, solution.eigenvalue_max),
        "cauchy-schwarz": cauchy_schwarz_bound(Q, k),
        "row": row_bound(Q, k),
        "oracle-ratio": oracle_ratio_bound(solution),
    }


def brute_force_qp(Q, k: int, limit: int = ENUMERATION_LIMIT) -> tuple[tuple[int, ...], float]:
    """Exact QP by enumerating all ``C(n, k)`` subsets (refuses above ``limit``).

    Parameters
    ----------
    Q : array_like of shape (n, n)
    k : int
        ``1 <= k < n``.
    limit : int
        Largest number of subsets to enumerate.

    Returns
    -------
    subset : tuple of int
        A maximiser (the first in lexicographic order among equal computed values).
    value : float
        ``x^T Q x`` of it.

    Raises
    ------
    InvalidParameterError
        If ``C(n, k) > limit``.

    Examples
    --------
    >>> import numpy as np
    >>> from fullbandit.full.qp import brute_force_qp
    >>> brute_force_qp(np.diag([1.0, 3.0, 2.0]), 2)
    ((1, 2), 5.0)
    """
    Q = np.asarray(Q, dtype=float)
    n = Q.shape[0]
    k = check_k(k, n)
    count = math.comb(n, k)
    limit = check_int("limit", limit, low=1)
    if count > limit:
        raise InvalidParameterError(f"brute force needs C(n={n}, k={k}) = {count} evaluations > limit={limit}")
    best_value, best_subset = -math.inf, None
    for chunk in subset_chunks(n, k):  # each chunk scored with one matrix product
        indicators = indicator_rows(chunk, n)
        values = np.einsum("ij,jk,ik->i", indicators, Q, indicators, optimize=True)
        top = int(np.argmax(values))
        if values[top] > best_value:
            best_value, best_subset = float(values[top]), tuple(int(i) for i in chunk[top])
    if best_subset is None:  # every value NaN (no comparison holds)
        raise InvalidParameterError("Q must contain only finite entries")
    return best_subset, best_value
