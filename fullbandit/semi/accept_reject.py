"""The rules of successive accepts and rejects (SAR, NSAR), in array form over independent runs.

Each function takes arrays whose rows are independent runs (shape ``(runs, n)``), so the
ask/tell algorithms (:class:`fullbandit.semi.NSAR`, :class:`fullbandit.semi.SAR`) call
them with one row and the batched simulation (:func:`fullbandit.semi.rounds.simulate_rounds`)
with thousands: there is one code path for the schedule, the accept/reject decision and
the final empirical answer, so the two cannot disagree.

* :func:`nsar_constant` and :func:`nsar_phase_lengths`: the schedule of Shahrampour and
  Tarokh, Fig. 1 (``p = 1`` is the schedule of SAR, Bubeck, Wang, Viswanathan 2013);
* :func:`phase_plan`: the samples that bring every active arm up to a phase's target;
* :func:`sar_decisions`: which active arm leaves after a phase, and whether it is accepted;
* :func:`top_k_mask`: the empirical top-k (ties to the lower index).

Examples
--------
>>> import numpy as np
>>> from fullbandit.semi.accept_reject import sar_decisions
>>> means = np.array([[0.9, 0.5, 0.45, 0.1], [0.6, 0.59, 0.58, 0.2]])
>>> leaving, accepted = sar_decisions(means, np.ones((2, 4), bool), np.array([3, 2]))
>>> leaving.tolist(), accepted.tolist()     # run 0 accepts arm 0 (gap 0.8), run 1 rejects arm 3 (gap 0.39)
([0, 3], [True, False])
"""

from __future__ import annotations

import math
from functools import cache

import numpy as np


def nsar_constant(n: int, p: float) -> float:
    """``C_p = 2^-p + sum_{r=2}^n r^-p`` (Shahrampour and Tarokh, equation (3) and Fig. 1).

    ``C_1`` is SAR's ``logbar(n) = 1/2 + sum_{i=2}^n 1/i``. Each term is computed as
    ``1 / r**p`` so that ``p = 1.0`` gives SAR's constant bit for bit (``r**1.0 == r``).

    Examples
    --------
    >>> from fullbandit.semi.accept_reject import nsar_constant
    >>> nsar_constant(4, 1.0) == 0.5 + 1/2 + 1/3 + 1/4
    True
    >>> nsar_constant(3, 2.0)   # 1/4 + 1/4 + 1/9
    0.6111111111111112
    """
    return 1.0 / 2.0 ** p + sum(1.0 / r ** p for r in range(2, n + 1))


@cache
def nsar_phase_lengths(n: int, budget: int, p: float) -> tuple[int, ...]:
    """``n_r = ceil((T - n) / (C_p (n - r + 1)^p))`` for ``r = 1..n-1`` (Shahrampour and Tarokh, Fig. 1).

    In round ``r`` each of the ``n - r + 1`` active arms is sampled until it has ``n_r``
    samples. Without the ceilings the rounds would use exactly ``T - n`` samples (the arm
    leaving in round ``r`` has ``n_r``, the survivor ``n_{n-1}``, and the denominators add
    up to ``C_p``); each of the ``n - 1`` ceilings adds less than one sample per arm it
    counts, so the schedule plans at most ``T`` samples in all. ``p = 1`` is SAR's schedule
    (Bubeck, Wang, Viswanathan 2013, Algorithm 3). Needs ``T > n`` for ``n_1 >= 1``.

    Examples
    --------
    >>> from fullbandit.semi.accept_reject import nsar_phase_lengths
    >>> nsar_phase_lengths(4, 100, 1.0)   # C_1 = 19/12: 96 / (19/12 * 4) = 15.2, ...
    (16, 21, 31)
    >>> nsar_phase_lengths(4, 100, 2.0)   # C_2 = 1/4 + 1/4 + 1/9 + 1/16: 96 / (C_2 * 16) = 8.9, ...
    (9, 16, 36)
    """
    constant = nsar_constant(n, p)
    return tuple(math.ceil((budget - n) / (constant * (n - r + 1) ** p)) for r in range(1, n))


def phase_plan(counts: np.ndarray, active: np.ndarray, *, phase: int, lengths, budget: int) -> np.ndarray:
    """Samples per run and arm that bring every active arm up to round ``phase``'s target.

    The target is ``lengths[phase - 1]``, except in the last round (``phase = n - 1``): it
    splits what the ceilings left of ``budget`` evenly over the active arms, on top of the
    most-sampled one (so a run spends all but at most one sample of its budget).

    Parameters
    ----------
    counts : numpy.ndarray of int
        Samples per run and arm so far, shape ``(runs, n)``.
    active : numpy.ndarray of bool
        The active arms of each run, shape ``(runs, n)``.
    phase : int
        The round, ``1..n-1``.
    lengths : sequence of int
        :func:`nsar_phase_lengths` of the run.
    budget : int

    Returns
    -------
    numpy.ndarray of int64
        Shape ``(runs, n)``; zero for inactive arms.

    Examples
    --------
    >>> import numpy as np
    >>> from fullbandit.semi.accept_reject import phase_plan
    >>> counts, active = np.array([[5, 5, 5, 2]]), np.array([[True, True, False, True]])
    >>> phase_plan(counts, active, phase=1, lengths=(6, 9, 20), budget=40).tolist()
    [[1, 1, 0, 4]]
    >>> phase_plan(counts, active, phase=3, lengths=(6, 9, 20), budget=40).tolist()   # 23 left, 3 arms: 5 + 7
    [[7, 7, 0, 10]]
    """
    counts = np.asarray(counts, dtype=np.int64)
    n = counts.shape[1]
    if phase == n - 1:  # the last round takes what the ceilings left
        left = budget - counts.sum(axis=1)
        target = np.where(active, counts, 0).max(axis=1) + left // np.maximum(active.sum(axis=1), 1)
    else:
        target = np.full(counts.shape[0], lengths[phase - 1], dtype=np.int64)
    return np.where(active, np.maximum(target[:, None] - counts, 0), 0)


def _ranked(means: np.ndarray, among: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per row, the arms in ``among`` by decreasing mean (ties: lower index; ``nan`` last), then the others."""
    means = np.nan_to_num(np.asarray(means, dtype=float), nan=-np.inf)
    # One float key, sorted stably (ties keep the index order): -inf means (+inf keys) come
    # after the finite ones and the arms outside ``among`` (nan keys) after all of them.
    order = np.argsort(np.where(among, -means, np.nan), axis=1, kind="stable")
    return order, np.take_along_axis(means, order, axis=1)


def sar_decisions(means: np.ndarray, active: np.ndarray, wanted: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The arm each run deactivates after a round, and whether it is accepted (SAR/NSAR steps (2)-(4)).

    With the active arms sorted by empirical mean (ties to the lower index) and ``m``
    arms still to accept, an arm's empirical gap is its distance to the ``(m+1)``-th mean
    (for the first ``m``) or to the ``m``-th mean (for the others). The arm with the
    largest gap leaves; among equal largest gaps the lowest-ranked one (the paper leaves
    ties open). It is accepted only if its mean is strictly above the ``(m+1)``-th.

    Parameters
    ----------
    means : numpy.ndarray
        Empirical means per run and arm, shape ``(runs, n)``; an active arm's should be
        finite (``nan`` counts as ``-inf``); inactive arms' are ignored.
    active : numpy.ndarray of bool
        Shape ``(runs, n)``.
    wanted : numpy.ndarray of int
        ``m`` per run, with ``1 <= m <`` the number of active arms (an unsettled run).

    Returns
    -------
    leaving : numpy.ndarray of intp
        Shape ``(runs,)``.
    accepted : numpy.ndarray of bool
        Shape ``(runs,)``.

    Examples
    --------
    All gaps equal (0): the lowest-ranked arm leaves, rejected.

    >>> import numpy as np
    >>> from fullbandit.semi.accept_reject import sar_decisions
    >>> leaving, accepted = sar_decisions(np.full((1, 3), 0.5), np.ones((1, 3), bool), np.array([1]))
    >>> int(leaving[0]), bool(accepted[0])
    (2, False)
    """
    active = np.asarray(active, dtype=bool)
    wanted = np.asarray(wanted, dtype=np.intp)
    sizes = active.sum(axis=1)
    if np.any(wanted < 1) or np.any(wanted >= sizes):
        raise ValueError("sar_decisions needs 1 <= wanted < active arms in every run (an unsettled run)")
    order, ranked = _ranked(means, active)
    rows = np.arange(ranked.shape[0])
    below, above = ranked[rows, wanted], ranked[rows, wanted - 1]  # the (m+1)-th and the m-th means
    position = np.arange(ranked.shape[1])
    with np.errstate(invalid="ignore"):  # inactive positions may hold -inf - -inf; they are masked next
        gaps = np.where(position < wanted[:, None], ranked - below[:, None], above[:, None] - ranked)
    gaps = np.where(position < sizes[:, None], gaps, -np.inf)
    rank = ranked.shape[1] - 1 - np.argmax(gaps[:, ::-1], axis=1)  # the last maximum: the lowest-ranked arm
    return order[rows, rank], ranked[rows, rank] > below


def _top_k_all(means: np.ndarray, k: int) -> np.ndarray:
    """:func:`top_k_mask` over all arms with one ``k``, in O(n) per row (the index policies' inner loop)."""
    values = np.where(np.isnan(means), -np.inf, means)  # rewards are finite: -inf marks "unsampled"
    if k <= 0:
        return np.zeros(values.shape, dtype=bool)
    # The k-th largest value per row; every arm above it is in, and the ties at it fill the
    # remaining places from the lowest index (the order of a stable sort).
    cut = -np.partition(-values, k - 1, axis=-1)[..., k - 1:k]
    above = values > cut
    tied = values == cut
    wanted = k - above.sum(axis=-1, keepdims=True)
    mask = above | tied
    excess = np.flatnonzero((tied.sum(axis=-1, keepdims=True) > wanted).reshape(-1))
    if excess.size:  # more ties at the cut than places left: the lowest indices take them
        flat_tied = tied.reshape(-1, values.shape[-1])[excess]
        keep = np.cumsum(flat_tied, axis=-1) <= wanted.reshape(-1, 1)[excess]
        flat = mask.reshape(-1, values.shape[-1])
        flat[excess] = above.reshape(-1, values.shape[-1])[excess] | (flat_tied & keep)
        mask = flat.reshape(values.shape)
    return mask


def top_k_mask(means: np.ndarray, k, among: np.ndarray | None = None) -> np.ndarray:
    """Per row, the ``k`` arms (of ``among``, default all) with the largest means (ties: lower index; ``nan`` last).

    ``k`` is an int or one per row (``0`` gives an empty row).

    Examples
    --------
    >>> import numpy as np
    >>> from fullbandit.semi.accept_reject import top_k_mask
    >>> top_k_mask(np.array([[0.2, np.nan, 0.5, 0.5], [1.0, 0.0, 0.3, 0.1]]), 2).astype(int).tolist()
    [[0, 0, 1, 1], [1, 0, 1, 0]]
    >>> top_k_mask(np.array([[0.2, 0.9, 0.5]]), 1, among=np.array([[True, False, True]])).astype(int).tolist()
    [[0, 0, 1]]
    """
    means = np.asarray(means, dtype=float)
    if among is None and np.ndim(k) == 0:
        return _top_k_all(means, int(k))
    among = np.ones(means.shape, dtype=bool) if among is None else np.asarray(among, dtype=bool)
    order, _ = _ranked(means, among)
    chosen = np.arange(means.shape[1]) < np.broadcast_to(np.asarray(k), (means.shape[0],))[:, None]
    mask = np.zeros(means.shape, dtype=bool)
    np.put_along_axis(mask, order, chosen, axis=1)
    return mask
